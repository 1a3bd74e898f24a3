"""Callers that mix dialects: v0.3 JSON-RPC method names with v1.0-shaped objects in v0.3's enum spellings
(fasta2a's client). The shapes that tell such a call, its request as the v1.0 call it is, its replies written back."""

from __future__ import annotations

import copy
from typing import Any, Final

import gateway.core.jsoncodec as jsoncodec
from gateway.core.dialects import ROLE_FROM_V10, ROLE_TO_V10, STATE_FROM_V10
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx, Note
from gateway.core.operations import Operation
from gateway.core.sse import map_data_lines
from gateway.core.types import JsonObj, Version

__all__ = ["MIXED_NOTE", "Mixed", "mixed_call", "reply_body", "reply_frames"]

MIXED_NOTE: Final = "mixed_dialect_caller"
# the operations whose params carry a Message, whose shape tells the dialect (the others' params, a task id,
# are the same in both versions: their caller's dialect is its method names')
_MESSAGE_OPERATIONS: Final = frozenset({"send_message", "send_streaming_message"})
# members only a v0.3 object has: `kind` on a Message and on each Part, a file part's `file`
_V03_PART_MEMBERS: Final = frozenset({"kind", "file"})
_APPLICATION: Final = frozenset({"data", "metadata"})  # the application's values: never renamed
# v1.0 enum values by the member holding them, as a v0.3-spelling caller reads them
_ENUMS_BACK: Final = {"state": STATE_FROM_V10, "role": ROLE_FROM_V10}


class Mixed:
    """A mixed call, read: its params as v1.0 params, the v1.0 request body for the agent, and whether its
    replies are written back in v0.3's enum spellings (the caller spelled its message's role so)."""

    __slots__ = ("body", "params", "v03_enums")

    def __init__(self, params: JsonObj, body: bytes, v03_enums: bool) -> None:
        self.params, self.body, self.v03_enums = params, body, v03_enums


def _v10_shaped(message: Any) -> bool:
    """A Message with one or more parts, neither it nor any part carrying a member only v0.3 has. v0.3
    requires `kind` on both: such a message is no v0.3 object, whatever its method's name."""
    if type(message) is not dict or "kind" in message:
        return False
    parts = message.get("parts")
    return type(parts) is list and bool(parts) and all(
        type(part) is dict and _V03_PART_MEMBERS.isdisjoint(part) for part in parts)


def mixed_call(op: Operation, rpc_id: Any, params: Any, notes: list[Note]) -> Mixed | None:
    """A v0.3-named JSON-RPC call whose message is v1.0-shaped (noted into `notes`), as the v1.0 call it is;
    None for every other call, which stays in the dialect its method names (a call with no message cannot
    tell)."""
    if op.name not in _MESSAGE_OPERATIONS or type(params) is not dict or not _v10_shaped(params.get("message")):
        return None
    cx = Cx(notes)
    out: JsonObj = copy.deepcopy(params)
    message = out["message"]
    role = message.get("role")
    v03_enums = type(role) is str and role in ROLE_TO_V10
    if v03_enums:
        message["role"] = ROLE_TO_V10[role]
    config = out.get("configuration")
    if type(config) is dict and type(config.get("blocking")) is bool:  # v0.3's name for !returnImmediately
        config["returnImmediately"] = not config.pop("blocking")
    cx.note(MIXED_NOTE, "$.params", "v0.3 method name, v1.0-shaped message" + (
        ", v0.3 enum spellings" if v03_enums else ""))
    body = jsoncodec.dumpb({"jsonrpc": "2.0", "id": rpc_id, "method": op.method(Version.V10), "params": out})
    return Mixed(out, body, v03_enums)


def _enums_back(value: Any) -> None:
    """v1.0 enum values (states, roles) spelled as v0.3 spells them, in place; the application's values
    (`data`, `metadata`) untouched."""
    if type(value) is dict:
        for key, item in value.items():
            table = _ENUMS_BACK.get(key)
            if table is not None and type(item) is str:
                value[key] = table.get(item, item)
            elif key not in _APPLICATION and type(item) in (dict, list):
                _enums_back(item)
    elif type(value) is list:
        for item in value:
            if type(item) in (dict, list):
                _enums_back(item)


def reply_body(body: bytes) -> bytes:
    """A v1.0 JSON-RPC reply (a response, or one stream event's data) for a mixed caller with v0.3's enum
    spellings: its result's enums spelled so; errors and what is no JSON as they are."""
    try:
        value = jsoncodec.loads_relayed(body)
    except GatewayError:
        return body
    if type(value) is not dict or type(value.get("result")) not in (dict, list):
        return body
    _enums_back(value["result"])
    return jsoncodec.dumpb(value)


def reply_frames(frames: bytes) -> bytes:
    """Whole SSE events of a v1.0 JSON-RPC stream, each written back as `reply_body` writes a reply."""
    return map_data_lines(frames, reply_body)
