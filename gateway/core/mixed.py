"""Peers that mix dialects: callers with v0.3 JSON-RPC method names and v1.0-shaped objects in v0.3's enum spellings
(fasta2a's client), agents behind a 1.0 card answering v0.3-shaped items in v1.0's enum spellings (langgraph-api)."""

from __future__ import annotations

import copy
from typing import Any, Final

import gateway.core.jsoncodec as jsoncodec
from gateway.core.dialects import ROLE_FROM_V10, ROLE_TO_V10, SPOKE_V03_NOTE, STATE_FROM_V10, v03_item
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx, Note
from gateway.core.operations import Operation
from gateway.core.sse import SseEvent, SseParser, map_data_lines
from gateway.core.translate import translate
from gateway.core.types import V03RPC, V10, JsonObj, Version

__all__ = [
    "MIXED_NOTE",
    "RESENT_NOTE",
    "Mixed",
    "agent_item",
    "agent_v10_frames",
    "agent_v10_reply",
    "mixed_call",
    "refused_v10_parts",
    "refused_v10_stream",
    "reply_body",
    "reply_frames",
    "v10_file_parts",
]

MIXED_NOTE: Final = "mixed_dialect_caller"
# the operations whose params carry a Message, whose shape tells the dialect (the others' params, a task id,
# are the same in both versions: their caller's dialect is its method names')
_MESSAGE_OPERATIONS: Final = frozenset({"send_message", "send_streaming_message"})
# members only a v0.3 object has: `kind` on a Message and on each Part, a file part's `file`
_V03_PART_MEMBERS: Final = frozenset({"kind", "file"})
_APPLICATION: Final = frozenset({"data", "metadata"})  # the application's values: never renamed
# v1.0 enum values by the member holding them, as a v0.3-spelling caller reads them
_ENUMS_BACK: Final = {"state": STATE_FROM_V10, "role": ROLE_FROM_V10}
RESENT_NOTE: Final = "resent_v03"
# a v1.0 result's or StreamResponse's member -> the `kind` its object names when it is a v0.3 one inside
_WRAPPED_KINDS: Final = {"task": "task", "message": "message", "statusUpdate": "status-update",
                         "artifactUpdate": "artifact-update"}
# JSON-RPC ContentTypeNotSupportedError: what langgraph-api answers a part it cannot read
_CONTENT_TYPE_NOT_SUPPORTED: Final = -32005
_SEND_METHODS: Final = frozenset({b'"SendMessage"', b'"SendStreamingMessage"'})
_V10_FILE_MEMBERS: Final = frozenset({"raw", "url"})  # a v1.0 file part's content: v0.3 nests it under `file`


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


# ---- agents: v0.3-shaped items behind a 1.0 card (langgraph-api) --------------------------------------------


def agent_item(value: Any, cx: Cx, at: str) -> JsonObj | None:
    """The v0.3 JSON-RPC item that a result or stream item from an interface said to speak v1.0 is, when it
    names its `kind` (no v1.0 object has one): the item itself (langgraph-api's events after the first, its
    GetTask result), or the object one v1.0 member wraps (`{"task": {"kind": "task", …}}`, its SendMessage
    result and first event). Read as v0.3 spells it: v1.0 enum values (`TASK_STATE_WORKING`, `ROLE_AGENT`)
    in v0.3's spellings, the caller's own v1.0-shaped parts it echoes in a message (`{"raw": …}`) in v0.3's
    shapes. Noted; None for any other value (a v1.0 one), which costs a dict lookup or two."""
    if value.__class__ is not dict:
        return None
    if "kind" in value:
        if not v03_item(value):
            return None
        item, where = value, at
    elif len(value) == 1:
        ((member, inner),) = value.items()
        if inner.__class__ is not dict or inner.get("kind") != _WRAPPED_KINDS.get(member):
            return None
        item, where = inner, f"{at}.{member}"
    else:
        return None
    out: JsonObj = copy.deepcopy(item)
    _enums_back(out)
    for message in _messages(out):
        parts = message.get("parts")
        if type(parts) is list:
            message["parts"] = [part if type(part) is not dict or "kind" in part else
                                translate("part", part, src=V10, dst=V03RPC, cx=cx, at=f"{where}.parts")
                                for part in parts]
    cx.note(SPOKE_V03_NOTE, where, "a v0.3 JSON-RPC item from an interface said to speak v1.0")
    return out


def _messages(item: JsonObj) -> list[JsonObj]:
    """The messages of a v0.3 item (itself, its status message, its history)."""
    found = [item] if item.get("kind") == "message" else []
    status = item.get("status")
    if type(status) is dict and type(status.get("message")) is dict:
        found.append(status["message"])
    history = item.get("history")
    if type(history) is list:
        found.extend(m for m in history if type(m) is dict)
    return found


def agent_v10_reply(body: bytes, family: str, cx: Cx) -> bytes | None:
    """A v1.0 JSON-RPC reply relayed to a v1.0 caller (a response, or one stream event's data) whose result is
    a v0.3-shaped item (`agent_item`), written as v1.0 (`family`: the operation's result family); None for
    every other reply, and for one that does not translate (relayed as it came). One byte search when no
    `kind` is in it."""
    if body.find(b'"kind"') < 0:
        return None
    try:
        value = jsoncodec.loads_relayed(body)
        if type(value) is not dict or "result" not in value:
            return None
        item = agent_item(value["result"], cx, "$.result")
        if item is None:
            return None
        value["result"] = translate(family, item, src=V03RPC, dst=V10, cx=cx, at="$.result")
    except GatewayError:
        return None
    return jsoncodec.dumpb(value)


def agent_v10_frames(frames: bytes, cx: Cx) -> bytes:
    """Whole SSE events of a v1.0 JSON-RPC stream relayed to a v1.0 caller, each v0.3-shaped item in them
    written as the v1.0 StreamResponse it stands for (`agent_v10_reply`); every other event as it is."""
    if frames.find(b'"kind"') < 0:
        return frames
    return map_data_lines(frames, lambda data: agent_v10_reply(data, "stream_response", cx) or data)


def v10_file_parts(request: bytes) -> bool:
    """Whether a v1.0 JSON-RPC send's bytes may hold a v1.0-shaped file part (the byte test before a stream is
    opened: only then may its first event be the refusal `refused_v10_parts` reads)."""
    return (request.find(b'"raw"') >= 0 or request.find(b'"url"') >= 0) \
        and any(request.find(m) >= 0 for m in _SEND_METHODS)


def refused_v10_stream(request: bytes, head: bytes) -> bool:
    """refused_v10_parts for a stream: `head`, the agent's stream up to its first blank line, is one event
    whose data is that refusal (langgraph-api answers a stream request so, inside a 200 event stream)."""
    if head.find(b"-32005") < 0:
        return False
    try:
        events = [item for item in SseParser().feed(head) if isinstance(item, SseEvent)]
    except GatewayError:
        return False
    return len(events) == 1 and refused_v10_parts(request, events[0].data.encode())


def refused_v10_parts(request: bytes, reply: bytes) -> bool:
    """Whether `reply` is an agent's ContentTypeNotSupportedError to a v1.0 JSON-RPC send (`request`) whose
    message holds a file part in v1.0's shape (`raw` or `url`, where v0.3 nests a `file`): what an agent
    that reads only v0.3 parts behind a 1.0 card answers (langgraph-api: "Unsupported part type"). Refused,
    the call was not carried out: it may be sent again in v0.3."""
    if reply.find(b"-32005") < 0 or not any(request.find(m) >= 0 for m in _SEND_METHODS):
        return False
    try:
        answer, call = jsoncodec.loads_relayed(reply), jsoncodec.loads_relayed(request)
    except GatewayError:
        return False
    error = answer.get("error") if type(answer) is dict else None
    if type(error) is not dict or error.get("code") != _CONTENT_TYPE_NOT_SUPPORTED or type(call) is not dict:
        return False
    params = call.get("params")
    message = params.get("message") if type(params) is dict else None
    parts = message.get("parts") if type(message) is dict else None
    return type(parts) is list and any(type(p) is dict and not _V10_FILE_MEMBERS.isdisjoint(p) for p in parts)
