"""Owns the per-exchange log context: the fields bound to the current request (or task started from
it), the functions that bind, read and clear them, and the processor that merges them into a line."""

from __future__ import annotations

from collections.abc import MutableMapping
from contextvars import ContextVar
from enum import Enum
from typing import Any

__all__ = ["bind", "bind_exchange", "bound", "clear", "merge_exchange", "plain"]


def plain(value: object) -> object:
    """A value as logged: an enum by its value, anything else as it is."""
    return value.value if isinstance(value, Enum) else value


# The exchange's fields live in one context variable holding a dict that is never mutated (binding
# sets a new one), so a task started from a request sees the fields bound so far and its own bindings
# stay its own. One variable instead of structlog's one per key: binding, clearing and merging into a
# line cost a dict copy, not a walk over the whole context.
_EMPTY: dict[str, object] = {}
_fields: ContextVar[dict[str, object]] = ContextVar("a2a_gateway_exchange_fields", default=_EMPTY)


def merge_exchange(logger: object, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Processor: the bound exchange fields, under the line's own fields (which win)."""
    for key, value in _fields.get().items():
        event_dict.setdefault(key, value)
    return event_dict


def bind_exchange(
    *,
    request_id: str | None = None,
    client_version: object = None,
    upstream_version: object = None,
    method: str | None = None,
    binding: object = None,
    **fields: object,
) -> None:
    """Bind fields to every line logged from the current context (one aiohttp request runs in its own
    task, so its bindings stay its own). None values are skipped; enums are logged by value."""
    new = dict(_fields.get())
    if request_id is not None:
        new["request_id"] = request_id
    if client_version is not None:
        new["client_version"] = plain(client_version)
    if upstream_version is not None:
        new["upstream_version"] = plain(upstream_version)
    if method is not None:
        new["method"] = method
    if binding is not None:
        new["binding"] = plain(binding)
    for key, value in fields.items():
        if value is not None:
            new[key] = plain(value)
    _fields.set(new)


def bind(**fields: object) -> None:
    """Bind more fields to the current context (None values are skipped)."""
    new = dict(_fields.get())
    new.update((k, plain(v)) for k, v in fields.items() if v is not None)
    _fields.set(new)


def clear() -> None:
    """Forget every field bound in the current context."""
    _fields.set(_EMPTY)


def bound() -> dict[str, object]:
    """The fields bound in the current context (enums already as their values)."""
    return dict(_fields.get())
