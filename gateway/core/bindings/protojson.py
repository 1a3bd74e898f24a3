"""ProtoJSON's other spelling of a v1.0 request: the proto field names (`task_id`, `history_length`) that every
ProtoJSON parser accepts beside the JSON names (`taskId`), read as the JSON names the translators expect.
Walked by the v1.0 proto's own descriptors, so free-form values (Struct: metadata, data parts) stay as sent."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from google.protobuf.descriptor import Descriptor

from gateway.core.bindings.grpc.codec import FILES, for_operation
from gateway.core.operations import Operation
from gateway.core.types import Version

__all__ = ["json_names", "may_have_proto_names"]

_PROTO_NAME = re.compile(rb'"[a-z][a-z0-9]*_[a-z0-9_]*"\s*:')
_LOWER_AFTER_UNDERSCORE = re.compile(rb'_[a-z0-9_"]')   # what any such name holds; a v1.0 enum (ROLE_USER) not


def may_have_proto_names(body: bytes) -> bool:
    """A cheap look at a request body: is there a member name that may be a proto field name at all? The
    name's pattern is looked for only where an underscore is followed by what such a name holds: every v1.0
    body has underscores in its enums, and the single-byte scan costs a third of the pattern's."""
    return _LOWER_AFTER_UNDERSCORE.search(body) is not None and _PROTO_NAME.search(body) is not None


@dataclass(frozen=True, slots=True)
class _Field:
    json_name: str
    message: str | None   # the full name of a message-typed field's message (None: scalar, enum, free-form)
    repeated: bool
    map_values: bool      # a map whose values are `message`


_FREE_FORM = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})


def _table() -> Mapping[str, Mapping[str, _Field]]:
    """For every v1.0 message: its fields by both spellings."""
    out: dict[str, dict[str, _Field]] = {}

    def visit(message: Descriptor) -> None:
        if message.full_name in out or message.full_name in _FREE_FORM:
            return
        fields = out[message.full_name] = {}
        for f in message.fields:
            child, map_values, kind = None, False, f.message_type
            if kind is not None and kind.full_name not in _FREE_FORM:
                if kind.GetOptions().map_entry:
                    value = kind.fields_by_name["value"].message_type
                    if value is not None and value.full_name not in _FREE_FORM:
                        child, map_values = value.full_name, True
                        visit(value)
                else:
                    child = kind.full_name
                    visit(kind)
            repeated = f.is_repeated and not map_values
            fields[f.name] = fields[f.json_name] = _Field(f.json_name, child, repeated, map_values)

    for message in FILES[Version.V10].message_types_by_name.values():
        visit(message)
    return MappingProxyType({k: MappingProxyType(v) for k, v in out.items()})


_MESSAGES = _table()


def json_names(op: Operation, params: Any) -> Any:
    """`params` of a v1.0 request for `op` with every proto field name written as its JSON name (a member
    given in both spellings keeps the JSON one). Returns `params` itself when nothing needed renaming."""
    rpc = for_operation(op, Version.V10)
    if rpc is None or not isinstance(params, dict):
        return params
    return _rename(params, rpc.request.DESCRIPTOR.full_name)


def _rename(value: Any, message: str) -> Any:
    if not isinstance(value, dict):
        return value
    fields = _MESSAGES[message]
    out: dict[str, Any] | None = None
    for key, member in value.items():
        field = fields.get(key)
        if field is None:
            continue
        new = member
        if field.message is not None:
            if field.repeated and isinstance(member, list):
                items = [_rename(m, field.message) for m in member]
                new = items if any(a is not b for a, b in zip(items, member, strict=True)) else member
            elif field.map_values and isinstance(member, dict):
                entries = {k: _rename(v, field.message) for k, v in member.items()}
                new = entries if any(entries[k] is not member[k] for k in member) else member
            else:
                new = _rename(member, field.message)
        if key != field.json_name or new is not member:
            if out is None:
                out = dict(value)
            if key != field.json_name:
                del out[key]
                if field.json_name in value:
                    continue   # both spellings: the JSON name wins
            out[field.json_name] = new
    return value if out is None else out
