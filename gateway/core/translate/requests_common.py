"""Helpers shared by the request-params translators of both v0.3 dialects: required ids, the
tenant rule, dropped request metadata, and the two meanings of `historyLength: 0`."""

from __future__ import annotations

import functools
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.shape import drop_unknown, obj
from gateway.core.types import JsonObj


@functools.cache
def k(*names: str) -> frozenset[str]:
    """The member names a request may carry, as a frozenset built once per distinct list."""
    return frozenset(names)




def required_id(src: JsonObj, key: str, at: str) -> str:
    value = src.get(key)
    if type(value) is not str:
        raise TranslationError(f"{at}.{key}", "required string member is missing or not a string")
    return value


def tenant_in(out: JsonObj, cx: Cx) -> JsonObj:
    """v1.0 requests carry the upstream interface's tenant (wire-mapping §3.1)."""
    if cx.tenant:
        out["tenant"] = cx.tenant
    return out


def push_ids_from_v10(params: Any, cx: Cx, at: str) -> tuple[str, str]:
    """(taskId, id) of a v1.0 request that names one push config (get, delete), in every v0.3 dialect."""
    params = obj(params, at)
    drop_unknown(params, k("taskId", "id", "tenant"), cx, at)
    tenant_out(params, cx, at)
    return required_id(params, "taskId", at), required_id(params, "id", at)


def tenant_out(src: JsonObj, cx: Cx, at: str) -> None:
    if src.get("tenant"):
        cx.note("field_dropped", f"{at}.tenant", "v0.3 has no tenants")


def metadata_dropped(src: JsonObj, cx: Cx, at: str) -> None:
    if "metadata" in src:
        cx.note("field_dropped", f"{at}.metadata", "no slot in the v1.0 request")


def history_to_v10(value: Any, cx: Cx, at: str) -> int | None:
    """v0.3 `historyLength: 0` means "all" (v1.0: "none"): omit it upstream (wire-mapping §3.1)."""
    return _history(value, cx, at, "v0.3 0 = unlimited; omitted")


def history_from_v10(value: Any, cx: Cx, at: str) -> int | None:
    """v1.0 `historyLength: 0` means "none", which a v0.3 agent cannot express: the exchange strips
    history from the result; upstream gets no limit."""
    return _history(value, cx, at, "v1.0 0 = none; history stripped by the gateway")


def _history(value: Any, cx: Cx, at: str, zero: str) -> int | None:
    """A non-negative `historyLength`; 0 (whose meaning the versions disagree on) is noted and omitted."""
    if type(value) is not int or value < 0:
        raise TranslationError(at, "expected a non-negative integer")
    if value == 0:
        cx.note("history_length_zero", at, zero)
        return None
    return value
