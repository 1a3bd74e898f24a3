"""Owns the delivery half of the push relay: each upstream notification planned into the POST the client's
version expects, and the task snapshot fetched when it needs one. It must not seal or open routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from gateway.core import jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.dialects import STREAM_MEMBERS_V10
from gateway.core.errors import GatewayError, InvalidAgentResponse
from gateway.core.notes import Cx
from gateway.core.push_seal import ClientRoute
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
    """The client needs the task snapshot: fetch it upstream and plan again with it."""

    task_id: str


def plan_delivery(route: ClientRoute, body: Any, *, upstream: Version) -> Delivery | NeedTask:
    """An upstream notification (v1.0 StreamResponse, or a v0.3 Task or bare event) → what the client's
    version expects: v0.3 clients get the full v0.3 Task (fetched when the event is not one), v1.0
    clients a StreamResponse. Raises GatewayError for a body that is no notification."""
    if type(body) is not dict:
        raise InvalidAgentResponse("push notification body is not a JSON object")
    cx = Cx()
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
    """S10 §4.3.3: a receiver MUST check the task id; the relay does it for the client."""
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


# ---- fetching the task snapshot ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaskFetch:
    """The upstream call that reads a task: HTTP method, URL, body (None for GET)."""

    method: str
    url: str
    body: bytes | None


def task_fetch(task_id: str, *, upstream: Version, binding: Binding, url: str, tenant: str = "",
               rpc_id: str = "push-get-task") -> TaskFetch:
    """GetTask / tasks/get for the interface at `url` (JSON-RPC endpoint or REST base)."""
    if binding is Binding.JSONRPC:
        params: JsonObj = {"id": task_id}
        if upstream is Version.V10 and tenant:
            params["tenant"] = tenant
        method = "GetTask" if upstream is Version.V10 else "tasks/get"
        return TaskFetch("POST", url, jsoncodec.dumpb(jsonrpc.request_envelope(rpc_id, method, params)))
    base, tid = url.rstrip("/"), quote(task_id, safe="")
    if upstream is Version.V10:
        prefix = f"/{quote(tenant, safe='')}" if tenant else ""
        return TaskFetch("GET", f"{base}{prefix}/tasks/{tid}", None)
    return TaskFetch("GET", f"{base}/v1/tasks/{tid}", None)


def task_from_reply(status: int, body: bytes, *, upstream: Version, binding: Binding) -> JsonObj:
    """The fetched task as a notification body of the upstream's version ({"task": …} or a v0.3 Task);
    an A2A error or non-2xx reply is InvalidAgentResponse (not worth retrying)."""
    if binding is Binding.JSONRPC:
        reply = jsonrpc.parse_response(body)
        if reply.error is not None:
            raise InvalidAgentResponse(f"task fetch failed: {reply.error.get('code')} "
                                       f"{str(reply.error.get('message'))[:200]}")
        task = reply.result
    else:
        if not 200 <= status < 300:
            raise InvalidAgentResponse(f"task fetch failed: HTTP {status}")
        try:
            task = jsoncodec.loads(body)
        except GatewayError as err:
            raise InvalidAgentResponse(f"task fetch reply is not JSON: {err.message}") from None
        if upstream is Version.V03:
            task = translate("task", task, src=Dialect.V03REST, dst=Dialect.V03RPC, cx=Cx())
    if type(task) is not dict:
        raise InvalidAgentResponse("task fetch reply carries no Task")
    if upstream is Version.V10:
        return {"task": task}
    return task if "kind" in task else {"kind": "task", **task}
