"""The gRPC binding's message codec, both versions: one row per RPC of each service (full method path,
request and response messages, streaming, the operation it serves) and protobuf bytes ⇄ the ProtoJSON
dicts the translators speak (v0.3: the v0.3 REST dialect, v1.0: v1.0 JSON). Sans-IO: no grpc here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from google.protobuf import json_format, unknown_fields
from google.protobuf.descriptor import Descriptor, FieldDescriptor, FileDescriptor, MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from gateway.core.bindings.grpc.proto import a2a_v03_pb2, a2a_v10_pb2
from gateway.core.bindings.rest.fields import v03_create_request
from gateway.core.errors import InvalidAgentResponse, MalformedEnvelope, TranslationError, UnknownOperation
from gateway.core.notes import Cx
from gateway.core.operations import BY_NAME, OPERATIONS, Operation
from gateway.core.types import Dialect, JsonObj, Version

V03, V10 = Version.V03, Version.V10

FILES: Mapping[Version, FileDescriptor] = MappingProxyType({V03: a2a_v03_pb2.DESCRIPTOR, V10: a2a_v10_pb2.DESCRIPTOR})
SERVICE_NAME = "A2AService"
# the JSON dialect a version's gRPC messages are read into and written from: its ProtoJSON rendering
DIALECTS: Mapping[Version, Dialect] = MappingProxyType({V03: Dialect.V03REST, V10: Dialect.V10})

# Every RPC of both services and the operation it serves (each OPERATIONS row names its RPCs); the messages
# and streaming flags come from the protos themselves.
_OPERATIONS: Mapping[Version, Mapping[str, str]] = {
    version: {op.grpc[version]: op.name for op in OPERATIONS if version in op.grpc} for version in Version
}
# Operations a version's service has no RPC for (kept explicit so every OPERATIONS row is accounted for).
NO_RPC: Mapping[Version, frozenset[str]] = MappingProxyType({
    version: frozenset(op.name for op in OPERATIONS if version not in op.grpc) for version in Version
})  # P03 has no ListTasks (S03 names one that was never defined)

# Enum fields whose zero value is a real value (the v0.3 "unknown" state is TASK_STATE_UNSPECIFIED):
# ProtoJSON omits zeros, but the translators need the member, so decoding writes it out.
_ZERO_ENUMS: Mapping[str, tuple[str, ...]] = {"TaskStatus": ("state",)}
# Booleans that a v0.3 gRPC server reads as false when unset, which is what the dict then says
# (the v0.3 dialect gives an absent `blocking` a configurable meaning; gRPC has no absent).
_FALSE_WHEN_UNSET: Mapping[tuple[Version, str], tuple[str, ...]] = {(V03, "SendMessageConfiguration"): ("blocking",)}
_FREE_FORM = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})
_EMPTY = "google.protobuf.Empty"
_INT_RANGE = 2**53  # integral doubles up to here are exact integers in JSON too


@dataclass(frozen=True, slots=True)
class Rpc:
    """One RPC of one version's service."""

    version: Version
    name: str  # "SendMessage"
    path: str  # "/lf.a2a.v1.A2AService/SendMessage", the HTTP/2 :path of a call
    request: type[Message]
    response: type[Message]
    streaming: bool  # server-streaming (no A2A RPC streams from the client)
    op: Operation

    @property
    def dialect(self) -> Dialect:
        return DIALECTS[self.version]

    @property
    def empty_response(self) -> bool:
        return self.response.DESCRIPTOR.full_name == _EMPTY


def _rows(version: Version) -> Iterator[Rpc]:
    service = FILES[version].services_by_name[SERVICE_NAME]
    table = _OPERATIONS[version]
    methods: Mapping[str, MethodDescriptor] = service.methods_by_name
    if set(methods) != set(table):
        raise ValueError(f"{service.full_name}: RPCs {sorted(methods)} != table rows {sorted(table)}")
    served = set(table.values())
    if served & NO_RPC[version] or served | NO_RPC[version] != set(BY_NAME):
        raise ValueError(f"{service.full_name}: operations not accounted for")
    for name, method in methods.items():
        if method.client_streaming:
            raise ValueError(f"{method.full_name}: client streaming is not part of A2A")
        yield Rpc(version, name, f"/{service.full_name}/{name}", GetMessageClass(method.input_type),
                  GetMessageClass(method.output_type), method.server_streaming, BY_NAME[table[name]])


def _no_floats(file: FileDescriptor) -> None:
    """Decoding turns integral doubles back into integers, which is only right if every double comes
    from a JSON value (Struct/Value): no A2A message has a float or double field of its own."""
    def walk(message: Descriptor) -> None:
        for field in message.fields:
            if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
                raise ValueError(f"{field.full_name}: a float field; decoding would turn 2.0 into 2")
        for nested in message.nested_types:
            walk(nested)
    for message in file.message_types_by_name.values():
        walk(message)


for _file in FILES.values():
    _no_floats(_file)

RPCS: tuple[Rpc, ...] = tuple(rpc for version in Version for rpc in _rows(version))
BY_PATH: Mapping[str, Rpc] = MappingProxyType({rpc.path: rpc for rpc in RPCS})
_BY_OPERATION: Mapping[tuple[str, Version], Rpc] = MappingProxyType({(rpc.op.name, rpc.version): rpc for rpc in RPCS})
SERVICES: Mapping[str, Version] = MappingProxyType({
    FILES[version].services_by_name[SERVICE_NAME].full_name: version for version in Version
})


def by_path(path: str) -> Rpc:
    """The RPC a call's method path names (`/<package>.A2AService/<Method>`); the package tells the
    caller's version. UnknownOperation (gRPC UNIMPLEMENTED) for anything else."""
    try:
        return BY_PATH[path]
    except KeyError:
        raise UnknownOperation(f"no A2A gRPC method {path[:200]!r}") from None


def for_operation(op: Operation | str, version: Version) -> Rpc | None:
    """The RPC of `version` that serves `op`; None where the version has none (v0.3 ListTasks)."""
    return _BY_OPERATION.get((op if isinstance(op, str) else op.name, version))


def service_version(path: str) -> Version | None:
    """The version of the service a method path belongs to, known method or not."""
    service, _, _ = path.lstrip("/").partition("/")
    return SERVICES.get(service)


# ---- bytes -> dicts -----------------------------------------------------------------------------------

def decode_request(rpc: Rpc, data: bytes, cx: Cx) -> JsonObj:
    """A client's request message as the operation's params in the version's dialect (the whole request
    message: nothing travels beside it). MalformedEnvelope when the bytes are no such message."""
    try:
        message = rpc.request.FromString(data)
    except DecodeError as exc:
        raise MalformedEnvelope(f"{rpc.path}: request is not a {rpc.request.DESCRIPTOR.name}: {exc}") from None
    return _to_dict(message, rpc.version, cx, "$")


def decode_response(rpc: Rpc, data: bytes, cx: Cx) -> Any:
    """An agent's reply message (one stream item when the RPC streams) as the operation's result in the
    version's dialect; `google.protobuf.Empty` is None. InvalidAgentResponse when it does not parse."""
    try:
        message = rpc.response.FromString(data)
    except DecodeError as exc:
        raise InvalidAgentResponse(f"{rpc.path}: reply is not a {rpc.response.DESCRIPTOR.name}: {exc}") from None
    if rpc.empty_response:
        _unknown(message, cx, "$")
        return None
    return _to_dict(message, rpc.version, cx, "$")


def message_class(version: Version, name: str) -> type[Message]:
    """A message of `version`'s proto by its name in the package (`"Task"`, `"SendMessageRequest"`)."""
    try:
        return GetMessageClass(FILES[version].message_types_by_name[name])
    except KeyError:
        raise ValueError(f"no message {name!r} in the A2A {version.value} proto") from None


def decode(cls: type[Message], data: bytes, cx: Cx) -> JsonObj:
    """Any A2A message's bytes as its dict in its version's dialect (DecodeError when malformed)."""
    message = cls.FromString(data)
    return _to_dict(message, _VERSION_OF[message.DESCRIPTOR.file.name], cx, "$")


def encode(cls: type[Message], value: Any, cx: Cx) -> bytes:
    """Any A2A message's dict (its version's dialect) as bytes; TranslationError when it does not fit."""
    return _to_bytes(cls, value, cx)


_VERSION_OF: Mapping[str, Version] = {file.name: version for version, file in FILES.items()}


def _to_dict(message: Message, version: Version, cx: Cx, at: str) -> JsonObj:
    out = json_format.MessageToDict(message)
    _normalise(message, out, version, cx, at)
    return out


def _normalise(message: Message, out: JsonObj, version: Version, cx: Cx, at: str) -> None:
    """ProtoJSON's output made into what the translators read: required zero enums and unset booleans
    written out, integral numbers in JSON values as integers; unknown fields noted (they are lost)."""
    descriptor = message.DESCRIPTOR
    _unknown(message, cx, at)
    for name in _ZERO_ENUMS.get(descriptor.name, ()):
        field = descriptor.fields_by_name[name]
        if getattr(message, name) == 0 and field.enum_type is not None:
            out[field.json_name] = field.enum_type.values_by_number[0].name
    for name in _FALSE_WHEN_UNSET.get((version, descriptor.name), ()):
        out.setdefault(descriptor.fields_by_name[name].json_name, False)
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        key = field.json_name
        here = f"{at}.{key}"
        if field.message_type.full_name in _FREE_FORM:
            out[key] = json_value(out[key])
        elif field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            if value_field.message_type is not None and value_field.message_type.full_name not in _FREE_FORM:
                for k, item in value.items():
                    _normalise(item, out[key][k], version, cx, f"{here}.{k}")
        elif field.is_repeated:
            for i, (item, item_out) in enumerate(zip(value, out[key], strict=True)):
                _normalise(item, item_out, version, cx, f"{here}[{i}]")
        else:
            _normalise(value, out[key], version, cx, here)


def _unknown(message: Message, cx: Cx, at: str) -> None:
    """Fields the proto does not define (a newer peer's) cannot be rendered as JSON: each is a note."""
    unknown = unknown_fields.UnknownFieldSet(message)
    for i in range(len(unknown)):
        cx.note("dropped_unknown_member", f"{at}.#{unknown[i].field_number}", "unknown protobuf field")


def json_value(value: Any, *, sort_keys: bool = True) -> Any:
    """A google.protobuf.Value as JSON: every number is a double there (42 arrives as 42.0), but JSON has
    one number type and the other bindings spell integral numbers without a fraction; a Struct is a map
    without order, so its members come out sorted (deterministic, whatever the sender's order was).
    `sort_keys=False` keeps the order (rendered messages, e.g. `Any` details, are in field order)."""
    if type(value) is float:
        return int(value) if value.is_integer() and -_INT_RANGE <= value <= _INT_RANGE else value
    if isinstance(value, dict):
        keys = sorted(value) if sort_keys else value
        return {k: json_value(value[k], sort_keys=sort_keys) for k in keys}
    if type(value) is list:
        return [json_value(v, sort_keys=sort_keys) for v in value]
    return value


# ---- dicts -> bytes -----------------------------------------------------------------------------------

def encode_request(rpc: Rpc, params: Any, cx: Cx) -> bytes:
    """The operation's params (the version's dialect) as the RPC's request message. v0.3 push-config
    creation accepts the bare config too (the v0.3 REST body form) and builds the request around it."""
    if rpc.version is V03 and rpc.op.name == "create_push_config":
        params = v03_create_request(params)
    return _to_bytes(rpc.request, params, cx)


def encode_response(rpc: Rpc, result: Any, cx: Cx) -> bytes:
    """The operation's result (one stream item when the RPC streams) as the RPC's response message;
    None is the empty message (`google.protobuf.Empty` for deletes)."""
    return _to_bytes(rpc.response, {} if result is None else result, cx)


def _to_bytes(cls: type[Message], value: Any, cx: Cx) -> bytes:
    """Strict ProtoJSON parsing (unknown members are the translators' business, never silently lost
    here), then the deterministic encoding (map entries sorted), so equal dicts give equal bytes."""
    if type(value) is not dict:
        raise TranslationError("$", f"expected an object for {cls.DESCRIPTOR.name}")
    try:
        message = json_format.ParseDict(value, cls())
    except json_format.ParseError as exc:
        raise TranslationError("$", f"not a valid {cls.DESCRIPTOR.name}: {exc}") from None
    _rounded(value, cx, "$")
    return message.SerializeToString(deterministic=True)


def _rounded(value: Any, cx: Cx, at: str) -> None:
    """Integers beyond 2**53 can only sit in JSON values (every A2A integer field is 32-bit, and the
    parse checked those), where protobuf keeps a double: the nearest one travels, noted."""
    if type(value) is int:
        if not -_INT_RANGE <= value <= _INT_RANGE:
            cx.note("number_rounded", at, "beyond 2**53: sent as the nearest double")
    elif type(value) is dict:
        for k, v in value.items():
            if type(v) in (int, dict, list):
                _rounded(v, cx, f"{at}.{k}")
    elif type(value) is list:
        for i, v in enumerate(value):
            if type(v) in (int, dict, list):
                _rounded(v, cx, f"{at}[{i}]")
