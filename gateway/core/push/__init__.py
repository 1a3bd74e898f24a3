"""The pure half of the push relay: client routes sealed into the webhook URLs registered upstream (seal.py)
and each upstream notification planned into the delivery the client's version expects (delivery.py)."""

from gateway.core.push.delivery import Delivery, NeedTask, fetched_task, notification_version, plan_delivery
from gateway.core.push.seal import (
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
    "fetched_task",
    "notification_version",
    "plan_delivery",
]
