"""Owns the demo agent's server (aiohttp): its v1.0 agent card, and JSON-RPC 2.0 on POST / checked in
a2a-python's order, answered as JSON or SSE; what a task does is tasks.py's, the params wire proto.py's."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from gateway import __version__
from gateway.core import jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.sse import encode_data
from gateway.core.types import Json, JsonObj
from gateway.demo.proto import RpcError, parse_params, unsupported
from gateway.demo.tasks import INTERRUPTED, MAX_TASKS, TERMINAL, DemoTasks, check_history_length, snapshot

__all__ = ["AGENT_NAME", "agent_card", "demo_agent_app"]

AGENT_NAME = "a2a-gateway demo agent"
CARD_PATH = "/.well-known/agent-card.json"
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
_VERSION_1 = re.compile(r"1(\.[0-9]+)*")  # Major.Minor; like a2a-python, any 1.x (patch ignored) is accepted


@dataclass(frozen=True, slots=True)
class _Demo:
    card: JsonObj
    tasks: DemoTasks
    step_delay: float


_DEMO = web.AppKey("a2a_gateway_demo_agent", _Demo)


def agent_card(public_url: str) -> JsonObj:
    """The v1.0 agent card (ProtoJSON), its one JSON-RPC interface at `public_url` + "/"."""
    return {
        "name": AGENT_NAME,
        "description": "Echoes every message back as an artifact and a status message. A message whose "
                       "text starts with 'ask' stops in INPUT_REQUIRED; a follow-up with its taskId ends it.",
        "supportedInterfaces": [
            {"url": public_url.rstrip("/") + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ],
        "version": __version__,
        "capabilities": {"streaming": True, "pushNotifications": False},
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{
            "id": "echo",
            "name": "Echo",
            "description": "Replies with the parts it was sent; streams the text back word by word.",
            "tags": ["echo", "demo"],
            "examples": ["hello world", "ask me something"],
        }],
    }


def demo_agent_app(public_url: str, *, step_delay: float = 0.05, max_tasks: int = MAX_TASKS
                   ) -> web.Application:
    """The demo agent: GET /.well-known/agent-card.json and JSON-RPC 2.0 on POST /. `public_url` is where
    it is reachable (for its card); `step_delay` paces streamed events; at most `max_tasks` are kept."""
    app = web.Application()
    app[_DEMO] = _Demo(agent_card(public_url), DemoTasks(max_tasks), step_delay)
    app.router.add_get(CARD_PATH, _card)
    app.router.add_post("/", _rpc)
    return app


async def _card(request: web.Request) -> web.Response:
    return web.json_response(request.app[_DEMO].card, dumps=jsoncodec.dumps)


# --- JSON-RPC --------------------------------------------------------------------------------------------

Unary = Callable[[_Demo, JsonObj], JsonObj]
Streaming = Callable[[web.Request, _Demo, Json, JsonObj], Awaitable[web.StreamResponse]]


def _send(demo: _Demo, params: JsonObj) -> JsonObj:
    history_length = params.get("configuration", {}).get("historyLength")
    check_history_length(history_length)
    task, events = demo.tasks.begin(params["message"], chunked=False)
    for event in events:
        demo.tasks.apply(task["id"], event)
    return {"task": snapshot(task, history_length)}


def _get(demo: _Demo, params: JsonObj) -> JsonObj:
    return snapshot(demo.tasks.get(params["id"]), params.get("historyLength"))


def _cancel(demo: _Demo, params: JsonObj) -> JsonObj:
    return demo.tasks.cancel(params["id"])


def _list(demo: _Demo, params: JsonObj) -> JsonObj:
    return demo.tasks.list(params)


def _no_push(demo: _Demo, params: JsonObj) -> JsonObj:
    raise RpcError(-32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", "Push Notification is not supported")


def _no_extended_card(demo: _Demo, params: JsonObj) -> JsonObj:
    raise unsupported("The agent does not support authenticated extended cards")


async def _send_streaming(request: web.Request, demo: _Demo, request_id: Json, params: JsonObj
                          ) -> web.StreamResponse:
    """Task (SUBMITTED), WORKING, the echo artifact word by word, COMPLETED (or INPUT_REQUIRED), close."""
    history_length = params.get("configuration", {}).get("historyLength")
    check_history_length(history_length)
    task, pending = demo.tasks.begin(params["message"], chunked=True)
    task_id: str = task["id"]
    demo.tasks.start_stream(task_id)
    response = web.StreamResponse(headers=SSE_HEADERS)
    try:
        await response.prepare(request)
        await _emit(response, request_id, {"task": snapshot(task, history_length)})
        while pending:
            await asyncio.sleep(demo.step_delay)
            event = demo.tasks.next_event(task_id, pending)
            if event is None:
                break
            await _emit(response, request_id, event)
        await response.write_eof()
    except ConnectionResetError:
        pass  # the client left: end_stream still finishes the turn
    finally:
        demo.tasks.end_stream(task_id, pending)
    return response


async def _subscribe(request: web.Request, demo: _Demo, request_id: Json, params: JsonObj
                     ) -> web.StreamResponse:
    """The current Task, then the live events of a turn still being streamed; closes at a terminal or
    interrupted state (at once for an idle input-required task)."""
    task, queue = demo.tasks.subscribe(params["id"])
    response = web.StreamResponse(headers=SSE_HEADERS)
    try:
        await response.prepare(request)
        await _emit(response, request_id, {"task": task})
        while queue is not None and (event := await queue.get()) is not None:
            await _emit(response, request_id, event)
            state = event.get("statusUpdate", {}).get("status", {}).get("state")
            if state in TERMINAL or state in INTERRUPTED:
                break
        await response.write_eof()
    except ConnectionResetError:
        pass
    finally:
        if queue is not None:
            demo.tasks.unsubscribe(task["id"], queue)
    return response


# method -> (params message of the v1.0 proto, handler)
_UNARY: dict[str, tuple[str, Unary]] = {
    "SendMessage": ("SendMessageRequest", _send),
    "GetTask": ("GetTaskRequest", _get),
    "CancelTask": ("CancelTaskRequest", _cancel),
    "ListTasks": ("ListTasksRequest", _list),
    "CreateTaskPushNotificationConfig": ("TaskPushNotificationConfig", _no_push),
    "GetTaskPushNotificationConfig": ("GetTaskPushNotificationConfigRequest", _no_push),
    "ListTaskPushNotificationConfigs": ("ListTaskPushNotificationConfigsRequest", _no_push),
    "DeleteTaskPushNotificationConfig": ("DeleteTaskPushNotificationConfigRequest", _no_push),
    "GetExtendedAgentCard": ("GetExtendedAgentCardRequest", _no_extended_card),
}
_STREAMING: dict[str, tuple[str, Streaming]] = {
    "SendStreamingMessage": ("SendMessageRequest", _send_streaming),
    "SubscribeToTask": ("SubscribeToTaskRequest", _subscribe),
}


async def _rpc(request: web.Request) -> web.StreamResponse:
    """Checked in a2a-python's order: envelope, method, params (strict), then the A2A-Version header."""
    demo = request.app[_DEMO]
    request_id: Json = None
    try:
        envelope = _envelope(await request.read())
        request_id = envelope.get("id")
        method = _method(envelope)
        unary, streaming = _UNARY.get(method), _STREAMING.get(method)
        schema = unary[0] if unary else streaming[0] if streaming else None
        if schema is None:
            raise RpcError(-32601, "METHOD_NOT_FOUND", "Method not found", method=method)
        params = parse_params(schema, envelope.get("params", {}))
        _check_version(request)
        if streaming:
            return await streaming[1](request, demo, request_id, params)
        assert unary is not None
        return _json_response({"jsonrpc": "2.0", "id": request_id, "result": unary[1](demo, params)})
    except RpcError as error:
        return _json_response({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})


def _envelope(body: bytes) -> JsonObj:
    try:
        value = jsoncodec.loads(body)
    except GatewayError:
        raise RpcError(-32700, "PARSE_ERROR", "Parse error") from None
    if isinstance(value, list):
        raise RpcError(-32600, "INVALID_REQUEST", "Batch requests are not supported")
    if not isinstance(value, dict):
        raise RpcError(-32600, "INVALID_REQUEST", "Request must be a JSON object")
    request_id = value.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | float | None):
        raise RpcError(-32600, "INVALID_REQUEST", "id must be a string, a number or null")
    return value


def _method(envelope: JsonObj) -> str:
    if envelope.get("jsonrpc") != "2.0":
        raise RpcError(-32600, "INVALID_REQUEST", 'jsonrpc must be "2.0"')
    method = envelope.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(-32600, "INVALID_REQUEST", "Method is required")
    return method


def _check_version(request: web.Request) -> None:
    """A2A-Version header (else query parameter); empty means 0.3, which this v1.0 agent refuses."""
    version = (request.headers.get("A2A-Version") or request.query.get("A2A-Version") or "").strip() or "0.3"
    if not _VERSION_1.fullmatch(version):
        raise RpcError(-32009, "VERSION_NOT_SUPPORTED",
                       f"A2A version '{version}' is not supported by this agent. Expected version '1.0'.",
                       requestedVersion=version, supportedVersions="1.0")


def _json_response(payload: JsonObj) -> web.Response:
    return web.Response(body=jsoncodec.dumpb(payload), content_type="application/json")


async def _emit(response: web.StreamResponse, request_id: Json, result: JsonObj) -> None:
    await response.write(encode_data(jsoncodec.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})))
