"""Owns the slice of the v1.0 ProtoJSON wire the demo agent needs: A2A errors carrying google.rpc.ErrorInfo,
and strict parsing of JSON-RPC params (unknown members, wrong types, missing required fields: -32602)."""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from typing import Any

from gateway.core.types import JsonObj

__all__ = ["RpcError", "invalid_params", "parse_params", "parse_timestamp", "task_not_found", "unsupported"]

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
DOMAIN = "a2a-protocol.org"


class RpcError(Exception):
    """One JSON-RPC error as a v1.0 agent sends it: `data` is a list holding one ErrorInfo."""

    def __init__(self, code: int, reason: str, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata

    def to_json(self) -> JsonObj:
        info: JsonObj = {"@type": ERROR_INFO, "reason": self.reason, "domain": DOMAIN}
        if self.metadata:
            info["metadata"] = dict(self.metadata)
        return {"code": self.code, "message": self.message, "data": [info]}


def invalid_params(detail: str) -> RpcError:
    return RpcError(-32602, "INVALID_PARAMS", f"Invalid parameters: {detail}", detail=detail)


def unsupported(message: str) -> RpcError:
    return RpcError(-32004, "UNSUPPORTED_OPERATION", message)


def task_not_found(task_id: str) -> RpcError:
    return RpcError(-32001, "TASK_NOT_FOUND", "Task not found", taskId=task_id)


ENUMS: dict[str, tuple[str, ...]] = {
    "Role": ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"),
    "TaskState": ("TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
                  "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED",
                  "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"),
}

# The request messages of a2a.proto v1.0.1 (package lf.a2a.v1), transcribed from its descriptors.
# Field token: jsonName[:Type][*][!] with Type defaulting to string, * = repeated, ! = REQUIRED.
_MESSAGES: dict[str, str] = {
    "SendMessageRequest": "tenant message:Message! configuration:SendMessageConfiguration metadata:Struct",
    "SendMessageConfiguration": "acceptedOutputModes* taskPushNotificationConfig:TaskPushNotificationConfig"
                                " historyLength:int32 returnImmediately:bool",
    "Message": "messageId! contextId taskId role:Role! parts:Part*! metadata:Struct extensions*"
               " referenceTaskIds*",
    "Part": "text raw:bytes url data:Value metadata:Struct filename mediaType",
    "TaskPushNotificationConfig": "tenant id taskId url! token authentication:AuthenticationInfo",
    "AuthenticationInfo": "scheme! credentials",
    "GetTaskRequest": "tenant id! historyLength:int32",
    "CancelTaskRequest": "tenant id! metadata:Struct",
    "SubscribeToTaskRequest": "tenant id!",
    "ListTasksRequest": "tenant contextId status:TaskState pageSize:int32 pageToken historyLength:int32"
                        " statusTimestampAfter:Timestamp includeArtifacts:bool",
    "GetExtendedAgentCardRequest": "tenant",
    "GetTaskPushNotificationConfigRequest": "tenant taskId! id!",
    "DeleteTaskPushNotificationConfigRequest": "tenant taskId! id!",
    "ListTaskPushNotificationConfigsRequest": "tenant taskId! pageSize:int32 pageToken",
}
_ONEOFS: dict[str, tuple[str, ...]] = {"Part": ("text", "raw", "url", "data")}
_TOKEN = re.compile(r"(\w+)(?::(\w+))?(\*)?(!)?")


def _snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _compile() -> dict[str, tuple[dict[str, tuple[str, bool, bool]], dict[str, str]]]:
    table: dict[str, tuple[dict[str, tuple[str, bool, bool]], dict[str, str]]] = {}
    for message, spec in _MESSAGES.items():
        fields: dict[str, tuple[str, bool, bool]] = {}
        aliases: dict[str, str] = {}
        for token in spec.split():
            match = _TOKEN.fullmatch(token)
            assert match, token
            name, kind, repeated, required = match.groups()
            fields[name] = (kind or "string", bool(repeated), bool(required))
            aliases[name] = aliases[_snake(name)] = name  # ProtoJSON parsers accept both spellings
        table[message] = (fields, aliases)
    return table


_SCHEMA = _compile()


def parse_params(message: str, value: Any) -> JsonObj:
    """Parse `value` as ProtoJSON of `message` the way a strict parser does (no unknown fields), then check
    REQUIRED fields. Returns it normalised: lowerCamelCase names, unset (null) fields dropped, enums as
    names, bytes as padded standard base64, timestamps in UTC `Z` form."""
    return _message(message, value, "params")


def _message(message: str, value: Any, path: str) -> JsonObj:
    if not isinstance(value, dict):
        raise invalid_params(f"{path}: expected a JSON object for {message}")
    fields, aliases = _SCHEMA[message]
    out: JsonObj = {}
    seen: set[str] = set()
    for key, item in value.items():
        name = aliases.get(key)
        if name is None:
            raise invalid_params(f'{path}: message {message} has no field named "{key}"')
        if name in seen:
            raise invalid_params(f'{path}: field "{name}" is given twice')
        seen.add(name)
        kind, repeated, _ = fields[name]
        at = f"{path}.{name}"
        if item is None and kind != "Value":
            continue  # ProtoJSON null means "unset", except for google.protobuf.Value
        if repeated:
            if not isinstance(item, list):
                raise invalid_params(f"{at}: expected a JSON array")
            out[name] = [_scalar(kind, x, f"{at}[{i}]") for i, x in enumerate(item)]
        else:
            out[name] = _scalar(kind, item, at)
    members = [name for name in _ONEOFS.get(message, ()) if name in out]
    if len(members) > 1:
        raise invalid_params(f"{path}: oneof content has more than one member ({', '.join(members)})")
    if message in _ONEOFS and not members:
        raise invalid_params(f"{path}: a Part needs one of text, raw, url or data")
    for name, (kind, _, required) in fields.items():
        if required and out.get(name) in (None, "", [], *ENUMS.get(kind, ())[:1]):
            raise invalid_params(f"{path}.{name}: required field is missing")
    return out


def _scalar(kind: str, value: Any, path: str) -> Any:
    if kind in _SCHEMA:
        return _message(kind, value, path)
    if kind in ENUMS:
        return _enum(kind, value, path)
    if kind == "Value":
        return value
    if kind == "Struct" and isinstance(value, dict):
        return value
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int32":
        return _int32(value, path)
    if kind == "bytes" and isinstance(value, str):
        return _bytes(value, path)
    if kind == "Timestamp" and isinstance(value, str):
        return parse_timestamp(value, path).isoformat(timespec="microseconds").replace("+00:00", "Z")
    raise invalid_params(f"{path}: expected {kind}, got {type(value).__name__}")


def _enum(kind: str, value: Any, path: str) -> str:
    names = ENUMS[kind]
    if isinstance(value, str) and value in names:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    raise invalid_params(f"{path}: invalid value {value!r} for enum {kind}")


def _int32(value: Any, path: str) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value)):
        number = int(value)
    if number is None or not -(2**31) <= number < 2**31:
        raise invalid_params(f"{path}: expected int32, got {value!r}")
    return number


def _bytes(value: str, path: str) -> str:
    text = value.replace("-", "+").replace("_", "/")  # ProtoJSON accepts URL-safe and unpadded input
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise invalid_params(f"{path}: invalid base64 bytes") from None
    return base64.b64encode(raw).decode("ascii")


def parse_timestamp(value: str, path: str) -> datetime:
    """RFC 3339 with a `Z` or an offset; naive values are rejected, as protobuf does."""
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        stamp = None
    if stamp is None or stamp.tzinfo is None or "T" not in value:
        raise invalid_params(f"{path}: invalid RFC 3339 timestamp {value!r}")
    return stamp.astimezone(UTC)
