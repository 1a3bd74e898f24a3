"""Reading an AG-UI `RunAgentInput` (0.0.x and 1.0 shapes; extra members allowed) into `RunInput`, with
pydantic-style error details (`loc`, `msg`, `type`) for the 4xx answered before any stream starts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.agui.a2ui import InvalidAction, read_action
from gateway.core.errors import GatewayError
from gateway.core.types import JsonObj

ROLES = frozenset({"developer", "system", "assistant", "user", "tool", "activity", "reasoning"})
_REQUIRED_STRINGS = ("threadId", "runId")
_OPTIONAL_ARRAYS = ("tools", "context", "resume")


class InputError(Exception):
    """A request the front door answers with `status` and `{"error": {code, message, details}}`."""

    def __init__(self, status: int, code: str, message: str, details: list[JsonObj] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details or []

    def body(self) -> JsonObj:
        error: JsonObj = {"code": self.code, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"error": error}


@dataclass(frozen=True, slots=True)
class RunInput:
    thread_id: str
    run_id: str
    messages: list[JsonObj]
    protocol10: bool              # the client declared AG-UI protocol >= 1.0 (1.0-only output allowed)
    action: JsonObj | None        # normalised forwardedProps.a2uiAction.userAction
    forwarded: JsonObj            # forwardedProps when an object, else {}
    context: list[Any]
    resume: list[JsonObj]
    state: Any


def _detail(loc: list[Any], msg: str, kind: str) -> JsonObj:
    return {"loc": loc, "msg": msg, "type": kind}


def _declares_v1(value: Any) -> bool:
    if type(value) is not str:
        return False
    major = value.strip().split(".")[0]
    return major.isdigit() and int(major) >= 1


def _check_message(i: int, message: Any, details: list[JsonObj]) -> None:
    loc: list[Any] = ["messages", i]
    if type(message) is not dict:
        details.append(_detail(loc, "Input should be an object", "model_type"))
        return
    if type(message.get("id")) is not str:
        details.append(_detail([*loc, "id"], "Field required" if "id" not in message
                               else "Input should be a valid string", "missing" if "id" not in message
                               else "string_type"))
    if message.get("role") not in ROLES:
        details.append(_detail([*loc, "role"], f"Input should be one of {', '.join(sorted(ROLES))}",
                               "literal_error"))
    content = message.get("content")
    if message.get("role") == "user" and not (type(content) is str or type(content) is list):
        details.append(_detail([*loc, "content"], "Input should be a string or an array", "union_type"))


def parse(body: bytes) -> RunInput:
    """`body` as a RunAgentInput; InputError 400 (not JSON), 422 (not a valid input or action)."""
    try:
        value = jsoncodec.loads(body)
    except GatewayError as err:
        raise InputError(400, "agui.invalid_json", err.message) from None
    if type(value) is not dict:
        raise InputError(422, "agui.invalid_input", "RunAgentInput must be a JSON object",
                         [_detail([], "Input should be an object", "model_type")])
    details: list[JsonObj] = []
    for key in _REQUIRED_STRINGS:
        if key not in value:
            details.append(_detail([key], "Field required", "missing"))
        elif type(value[key]) is not str:
            details.append(_detail([key], "Input should be a valid string", "string_type"))
        elif not value[key].strip():
            details.append(_detail([key], "String should have at least 1 character", "string_too_short"))
    messages = value.get("messages")
    if "messages" not in value:
        details.append(_detail(["messages"], "Field required", "missing"))
    elif type(messages) is not list:
        details.append(_detail(["messages"], "Input should be a valid list", "list_type"))
    else:
        for i, message in enumerate(messages):
            _check_message(i, message, details)
    for key in _OPTIONAL_ARRAYS:
        if value.get(key) is not None and type(value[key]) is not list:
            details.append(_detail([key], "Input should be a valid list", "list_type"))
    if details:
        raise InputError(422, "agui.invalid_input", "invalid RunAgentInput", details)
    forwarded = value.get("forwardedProps")
    try:
        action = read_action(forwarded)
    except InvalidAction as exc:
        raise InputError(422, "a2ui.invalid_action", str(exc)) from None
    assert type(messages) is list
    return RunInput(
        thread_id=value["threadId"], run_id=value["runId"], messages=messages,
        protocol10=_declares_v1(value.get("protocolVersion")), action=action,
        forwarded=forwarded if type(forwarded) is dict else {},
        context=value.get("context") or [],
        resume=[r for r in value.get("resume") or [] if type(r) is dict],
        state=value.get("state"),
    )
