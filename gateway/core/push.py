"""The pure half of the push relay, one import away: sealing (core/push_seal.py) and delivery planning
(core/push_delivery.py) re-exported under their old path. It must not define anything of its own."""

from __future__ import annotations

from gateway.core.push_delivery import (
    Delivery,
    NeedTask,
    TaskFetch,
    notification_version,
    plan_delivery,
    task_fetch,
    task_from_reply,
)
from gateway.core.push_seal import (
    DEFAULT_WEBHOOK_PATH,
    KEY_BYTES,
    MAX_URL_CHARS,
    NONCE_BYTES,
    BadSeal,
    ClientRoute,
    PushSealer,
    PushUrlRejected,
    TamperedSeal,
)

__all__ = [
    "DEFAULT_WEBHOOK_PATH",
    "KEY_BYTES",
    "MAX_URL_CHARS",
    "NONCE_BYTES",
    "BadSeal",
    "ClientRoute",
    "Delivery",
    "NeedTask",
    "PushSealer",
    "PushUrlRejected",
    "TamperedSeal",
    "TaskFetch",
    "notification_version",
    "plan_delivery",
    "task_fetch",
    "task_from_reply",
]
