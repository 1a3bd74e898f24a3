"""The three JSON dialects of A2A as data: one frozen `DialectSpec` each (what the translators branch on),
the enum tables they share, and which (version, binding) speaks which dialect. No translator lives here."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.tables import bijection
from gateway.core.types import GRPC, JSONRPC, REST, Binding, Dialect, Version

# ---- enum tables ------------------------------------------------------------------------------------

# task states: v0.3 JSON-RPC kebab strings <-> v1.0 proto names
STATE_TO_V10, STATE_FROM_V10 = bijection({
    "unknown": "TASK_STATE_UNSPECIFIED",
    "submitted": "TASK_STATE_SUBMITTED",
    "working": "TASK_STATE_WORKING",
    "completed": "TASK_STATE_COMPLETED",
    "failed": "TASK_STATE_FAILED",
    "canceled": "TASK_STATE_CANCELED",
    "input-required": "TASK_STATE_INPUT_REQUIRED",
    "rejected": "TASK_STATE_REJECTED",
    "auth-required": "TASK_STATE_AUTH_REQUIRED",
})

# task states: v0.3 proto names <-> v1.0 proto names; only `canceled` is spelled differently
REST_STATE_TO_V10, REST_STATE_FROM_V10 = bijection({
    ("TASK_STATE_CANCELLED" if v10 == "TASK_STATE_CANCELED" else v10): v10 for v10 in STATE_FROM_V10
})

# ProtoJSON parsers accept enum numbers; P10 and P03 share the numbering
V10_STATE_NUMBER, V10_STATE_BY_NUMBER = bijection({
    "TASK_STATE_UNSPECIFIED": 0,
    "TASK_STATE_SUBMITTED": 1,
    "TASK_STATE_WORKING": 2,
    "TASK_STATE_COMPLETED": 3,
    "TASK_STATE_FAILED": 4,
    "TASK_STATE_CANCELED": 5,
    "TASK_STATE_INPUT_REQUIRED": 6,
    "TASK_STATE_REJECTED": 7,
    "TASK_STATE_AUTH_REQUIRED": 8,
})

# Spellings seen from non-conformant peers, read leniently (each read records a note)
STATE_ALIASES_V10 = {
    "TASK_STATE_UNKNOWN": "TASK_STATE_UNSPECIFIED",   # a2a-elixir
    "TASK_STATE_CANCELLED": "TASK_STATE_CANCELED",    # v0.3 proto spelling on a v1.0 wire
}

TERMINAL_V10 = frozenset({
    "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED",
})
INTERRUPTED_V10 = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})

ROLE_TO_V10, ROLE_FROM_V10 = bijection({"user": "ROLE_USER", "agent": "ROLE_AGENT"})
REST_ROLE_TO_V10, REST_ROLE_FROM_V10 = bijection({"ROLE_USER": "ROLE_USER", "ROLE_AGENT": "ROLE_AGENT"})
V10_ROLE_NUMBER, V10_ROLE_BY_NUMBER = bijection({"ROLE_UNSPECIFIED": 0, "ROLE_USER": 1, "ROLE_AGENT": 2})

# v1.0 StreamResponse members: ProtoJSON parsers also accept the proto field names
STREAM_MEMBER_ALIASES_V10: dict[str, str] = {"status_update": "statusUpdate", "artifact_update": "artifactUpdate"}
STREAM_MEMBERS_V10: dict[str, str] = {  # every accepted spelling -> the JSON name
    **{m: m for m in ("task", "message", "statusUpdate", "artifactUpdate")}, **STREAM_MEMBER_ALIASES_V10,
}
# v0.3 JSON-RPC objects name their kind; no v1.0 object has a `kind` member (ProtoJSON would refuse it)
V03_ITEM_KINDS: Final = frozenset({"task", "message", "status-update", "artifact-update"})
SPOKE_V03_NOTE: Final = "agent_dialect_v03"


def v03_item(value: object) -> bool:
    """Whether a result or stream item read from an interface said to speak v1.0 is unmistakably a v0.3
    JSON-RPC one (langgraph-api's events after the first, behind a 1.0 card): it names its `kind`."""
    return isinstance(value, dict) and value.get("kind") in V03_ITEM_KINDS


# v0.3 REST StreamResponse and SendMessageResponse: P03 names the message member `msg`
REST_MEMBER_ALIASES: dict[str, str] = {"msg": "message", **STREAM_MEMBER_ALIASES_V10}


# ---- the bytes codec of v0.3 REST `fileWithBytes` ------------------------------------------------------

Codec = Callable[[str, Cx, str], str]   # (wire value, cx, path of the value) -> value

# With quirk rest_double_base64 "auto", the convention toward a v0.3 REST peer nothing has revealed yet
# (its values, or the shell's guess from its User-Agent or Server header): the proto's, base64(content), as
# the JS, Go and Java SDKs write it. a2a-sdk 0.3 for Python and the Python v0.3 layer of a2a-sdk 1.x put
# base64(base64(content)) in `fileWithBytes`.
DEFAULT_REST_BYTES: Final = "single"
_B64_TEXT = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _unb64(value: str) -> bytes | None:
    """One base64 decode of a wire value (standard or URL-safe alphabet, padding optional); None if it is none."""
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_" if "-" in value or "_" in value
                                else None, validate=True)
    except (binascii.Error, ValueError):
        return None


def _base64_text(data: bytes) -> bool:
    """Whether `data` is itself canonical base64 text: what one decode of a double encoding gives."""
    return bool(data) and _B64_TEXT.fullmatch(data) is not None


def _rest_bytes_to_v10(value: str, cx: Cx, at: str) -> str:
    """A v0.3 REST `fileWithBytes` as v1.0 `raw` (single base64). Quirk rest_double_base64: True decodes
    once (the Python SDKs' double encoding), False keeps the value; "auto" follows what the exchange knows of
    its v0.3 REST peer (`cx.rest_bytes`) and otherwise tells the value apart: when one decode gives canonical
    base64 text it is taken as double (a guess, noted; the peer's convention is learned), else it cannot be
    double (certain: learned without a note)."""
    mode = cx.quirks.rest_double_base64
    if mode is False or (mode == "auto" and cx.rest_bytes == "single"):
        return value
    once = _unb64(value)
    if mode is True:
        if once is None or not once.isascii():
            raise TranslationError(at, "fileWithBytes is not double base64 (quirk rest_double_base64)")
        return once.decode("ascii")
    double = once is not None and _base64_text(once)
    cx.rest_bytes_seen = "double" if double else "single"
    if cx.rest_bytes is None:
        cx.rest_bytes = "double" if double else "single"
        if double:
            cx.note("rest_bytes_detected", at, "one decode gives base64 text: read as double base64")
    elif not double:   # the peer said double before, this value cannot be: it is taken as it is
        cx.note("rest_bytes_detected", at, "not double base64 although the peer used it before: read as is")
    return once.decode("ascii") if double and once is not None else value


def _rest_bytes_from_v10(value: str, cx: Cx, at: str) -> str:
    """v1.0 `raw` as a v0.3 REST `fileWithBytes`, in the convention of the quirk, or ("auto") of the peer as
    far as the exchange knows it; with no evidence, the caller's guess or DEFAULT_REST_BYTES (noted)."""
    mode = cx.quirks.rest_double_base64
    if mode == "auto":
        if cx.rest_bytes is None:
            guess = cx.rest_bytes_guess
            cx.rest_bytes = guess or DEFAULT_REST_BYTES
            cx.note("rest_bytes_guessed", at, f"{cx.rest_bytes} base64, as "
                    + ("the peer's software suggests" if guess else "the proto says"))
        mode = cx.rest_bytes == "double"
    if not mode:
        return value
    return base64.b64encode(value.encode("ascii", "replace")).decode("ascii")


# ---- the specs ----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, eq=False)   # one object per dialect: identity is equality
class DialectSpec:
    """What one dialect's objects look like, as far as a translator needs to know. Translators bind
    these fields once, when they are built, never per call."""

    dialect: Dialect
    version: Version
    bindings: frozenset[Binding]   # the bindings that speak this dialect
    # ProtoJSON of a proto (v0.3 REST, v1.0) rather than the v0.3 JSON schema's shapes: members at their
    # default value are omitted (so absent means default, and nothing required can be enforced or
    # must be filled), enum numbers and proto field names are read, oneofs are wrapper members
    protojson: bool
    kind_tags: bool                # objects carry a `kind` discriminator; stream items are bare objects
    message_parts: str             # the Message member holding its parts
    file_keys: tuple[str, str]     # the members of a file part's `file` holding (bytes, uri)
    data_wrapped: bool             # a data part is `data: {data: X}` (a Struct inside a message)
    states_to_v10: Mapping[str, str]
    states_from_v10: Mapping[str, str]
    roles_to_v10: Mapping[str, str]
    roles_from_v10: Mapping[str, str]
    bytes_to_v10: Codec | None     # file bytes as read into v1.0 `raw`; None: as they are
    bytes_from_v10: Codec | None
    push_config_member: str        # the SendMessage configuration member with the inline push config
    drops_empty_ids: bool          # a Message's empty contextId/taskId is unset (the proto3 default)
    message_gaps: frozenset[str]   # v1.0 Message members this dialect has no slot for
    blocking_quirk: str | None     # the Quirks field giving an absent `blocking` its value
    member_aliases: Mapping[str, str]   # other spellings of StreamResponse/SendMessageResponse members
    send_message_members: tuple[str, ...]   # where SendMessage params carry the message, in order
    resource_names: bool           # tasks and push configs are addressed as `tasks/{id}/…` names


V03RPC_SPEC: Final = DialectSpec(
    dialect=Dialect.V03RPC, version=Version.V03, bindings=frozenset({JSONRPC}), protojson=False,
    kind_tags=True, message_parts="parts", file_keys=("bytes", "uri"), data_wrapped=False,
    states_to_v10=STATE_TO_V10, states_from_v10=STATE_FROM_V10, roles_to_v10=ROLE_TO_V10,
    roles_from_v10=ROLE_FROM_V10, bytes_to_v10=None, bytes_from_v10=None,
    push_config_member="pushNotificationConfig", drops_empty_ids=False, message_gaps=frozenset(),
    blocking_quirk="rpc_blocking_default",
    member_aliases=MappingProxyType({}), send_message_members=("message",), resource_names=False,
)
V03REST_SPEC: Final = DialectSpec(
    dialect=Dialect.V03REST, version=Version.V03, bindings=frozenset({REST, GRPC}), protojson=True,
    kind_tags=False, message_parts="content", file_keys=("fileWithBytes", "fileWithUri"), data_wrapped=True,
    states_to_v10=REST_STATE_TO_V10, states_from_v10=REST_STATE_FROM_V10, roles_to_v10=REST_ROLE_TO_V10,
    roles_from_v10=REST_ROLE_FROM_V10, bytes_to_v10=_rest_bytes_to_v10, bytes_from_v10=_rest_bytes_from_v10,
    # P03 SendMessageRequest names its message field `request` (JSON name `message`)
    push_config_member="pushNotification", drops_empty_ids=True, message_gaps=frozenset({"referenceTaskIds"}),
    blocking_quirk="rest_blocking_default",
    member_aliases=MappingProxyType(REST_MEMBER_ALIASES),
    send_message_members=("message", "request"),   # P03's field is `request`, its JSON name `message`
    resource_names=True,
)
V10_SPEC: Final = DialectSpec(
    dialect=Dialect.V10, version=Version.V10, bindings=frozenset({JSONRPC, REST, GRPC}), protojson=True,
    kind_tags=False, message_parts="parts", file_keys=("raw", "url"), data_wrapped=False,
    states_to_v10=MappingProxyType({s: s for s in V10_STATE_NUMBER}),
    states_from_v10=MappingProxyType({s: s for s in V10_STATE_NUMBER}),
    roles_to_v10=REST_ROLE_TO_V10, roles_from_v10=REST_ROLE_FROM_V10, bytes_to_v10=None, bytes_from_v10=None,
    push_config_member="taskPushNotificationConfig", drops_empty_ids=True, message_gaps=frozenset(),
    blocking_quirk=None,
    member_aliases=MappingProxyType(STREAM_MEMBER_ALIASES_V10), send_message_members=("message",),
    resource_names=False,
)

SPECS: Final[Mapping[Dialect, DialectSpec]] = MappingProxyType(
    {spec.dialect: spec for spec in (V03RPC_SPEC, V03REST_SPEC, V10_SPEC)})
V03_SPECS: Final = (V03RPC_SPEC, V03REST_SPEC)   # the dialects translated to and from the hub

# (version, binding) -> the dialect spoken, and dialect -> the bindings that speak it
DIALECTS: Final[Mapping[tuple[Version, Binding], Dialect]] = MappingProxyType(
    {(spec.version, binding): spec.dialect for spec in SPECS.values() for binding in sorted(spec.bindings)})
BINDINGS: Final[Mapping[Dialect, frozenset[Binding]]] = MappingProxyType(
    {spec.dialect: spec.bindings for spec in SPECS.values()})

