"""Owns the delivery half of the push relay: each upstream notification planned into the POST the client's
version expects, and the GetTask call that fetches a task snapshot when it needs one. It must not seal or
open routes, nor know how GetTask travels (the exchange of that call does)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.dialects import STREAM_MEMBERS_V10
from gateway.core.errors import InvalidAgentResponse
from gateway.core.exchange import Call, Result
from gateway.core.notes import Cx
from gateway.core.operations import BY_NAME
from gateway.core.push.seal import ClientRoute
from gateway.core.translate import translate
from gateway.core.translate.events import infer_kind
from gateway.core.types import Binding, Dialect, JsonObj, Version

_JSON = "application/json"
_TOKEN_HEADER = "X-A2A-Notification-Token"  # PY03, JS03, PYcore, JS
_GO_TOKEN_HEADER = "A2A-Notification-Token"  # a2a-go receivers


@dataclass(frozen=True)
class Delivery:
    """One POST for the client's webhook, ready to send."""

    url: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class NeedTask:
    """The client needs the task snapshot: make `call` upstream (GetTask, read in v1.0), then plan again
    with `{"task": <its result>}` as a v1.0 notification."""

    task_id: str

    @property
    def call(self) -> Call:
        return Call(BY_NAME["get_task"], Version.V10, Binding.JSONRPC, {"id": self.task_id}, "push-get-task")


def plan_delivery(route: ClientRoute, body: Any, *, upstream: Version, cx: Cx) -> Delivery | NeedTask:
    """An upstream notification (v1.0 StreamResponse, or a v0.3 Task or bare event) → what the client's
    version expects: v0.3 clients get the full v0.3 Task (fetched when the event is not one), v1.0
    clients a StreamResponse. Notes go to `cx`. Raises GatewayError for a body that is no notification."""
    if type(body) is not dict:
        raise InvalidAgentResponse("push notification body is not a JSON object")
    if upstream is Version.V10:
        member, payload = _v10_member(body)
        _check_task(route, _event_task_id(member, payload))
        if route.version is Version.V10:
            return _delivery(route, body)
        if member == "task":
            return _delivery(route, translate("task", payload, src=Dialect.V10, dst=Dialect.V03RPC, cx=cx))
        task_id = _event_task_id(member, payload) or route.task_id
        if task_id:
            return NeedTask(task_id)
        # a Message outside any task has no Task snapshot: send the v0.3 Message (a2a-js does)
        return _delivery(route, translate("message", payload, src=Dialect.V10, dst=Dialect.V03RPC, cx=cx))
    kind = infer_kind(body)
    task_id = _v03_task_id(kind, body)
    _check_task(route, task_id)
    if route.version is Version.V03:
        return _delivery(route, body)
    if kind is None:
        found = task_id or route.task_id
        if found:
            return NeedTask(found)
        raise InvalidAgentResponse("push notification is no Task, Message or task event")
    item = translate("stream_response", body, src=Dialect.V03RPC, dst=Dialect.V10, cx=cx)
    return _delivery(route, item)


def notification_version(body: Any) -> Version | None:
    """The version a notification body is written in, read from its shape: a one-member
    StreamResponse is v1.0, a `kind` or a recognisable v0.3 object is v0.3; None when unclear."""
    if type(body) is not dict:
        return None
    if "kind" in body:
        return Version.V03
    if len(body) == 1 and next(iter(body)) in STREAM_MEMBERS_V10:
        return Version.V10
    return Version.V03 if infer_kind(body) is not None else None


def _v10_member(body: JsonObj) -> tuple[str, Any]:
    members = [k for k in body if k in STREAM_MEMBERS_V10]
    if len(members) != 1:
        raise InvalidAgentResponse("push notification must carry exactly one of "
                                   "task, message, statusUpdate, artifactUpdate")
    key = members[0]
    payload = body[key]
    if type(payload) is not dict:
        raise InvalidAgentResponse(f"push notification {key} is not an object")
    return STREAM_MEMBERS_V10[key], payload


def _event_task_id(member: str, payload: JsonObj) -> str:
    value = payload.get("id" if member == "task" else "taskId")
    return value if type(value) is str else ""


def _v03_task_id(kind: str | None, body: JsonObj) -> str:
    value = body.get("id") if kind == "task" else body.get("taskId")
    if kind is None and type(value) is not str:
        value = body.get("id")
    return value if type(value) is str else ""


def _check_task(route: ClientRoute, task_id: str) -> None:
    """A webhook receiver must check that a notification is about its task (S10 §4.3.3): the relay does it."""
    if route.task_id and task_id and task_id != route.task_id:
        raise InvalidAgentResponse("push notification is about another task than the one registered")


def _delivery(route: ClientRoute, body: Any) -> Delivery:
    headers = {"Content-Type": _JSON}
    if route.token is not None:
        headers[_TOKEN_HEADER] = route.token
        if route.version is Version.V10:
            headers[_GO_TOKEN_HEADER] = route.token
    if route.auth_scheme and route.credentials is not None:
        headers["Authorization"] = f"{route.auth_scheme} {route.credentials}"
    return Delivery(route.url, headers, jsoncodec.dumpb(body))


def fetched_task(step: Result | None) -> JsonObj:
    """The notification to plan again with, from the read reply of a NeedTask's GetTask call (None: it could
    not be read): `{"task": …}`. An A2A error or a reply that carries no Task is InvalidAgentResponse (not
    worth retrying)."""
    if step is None:
        raise InvalidAgentResponse("task fetch failed: the agent's reply could not be read")
    if not step.ok:
        error = step.value if type(step.value) is dict else {}
        raise InvalidAgentResponse(f"task fetch failed: {error.get('code')} {str(error.get('message'))[:200]}")
    if type(step.value) is not dict:
        raise InvalidAgentResponse("task fetch reply carries no Task")
    return {"task": step.value}
