"""Each cross-cutting concern through every door, as one table: the guard, the migration cut-off and deprecation
headers, notes in the exchange's log line, the metrics, the migration counts, the task index and the v1.0 flows
composed for a v0.3 agent, each row run through the JSON-RPC, HTTP+JSON, gRPC or AG-UI door of one gateway."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from aiohttp.test_utils import TestClient
from google.rpc import error_details_pb2, status_pb2
from structlog.testing import capture_logs

from gateway.core.bindings.grpc import DETAILS_KEY, message_class
from gateway.core.migration import view
from gateway.core.types import Version
from gateway.shell.carrier.migration import MIGRATION
from gateway.shell.process.metrics import METRICS
from tests.core.agui.conformance import parse_sse
from tests.core.agui.helpers import body, user
from tests.fakes.agents import FakeAgent
from tests.shell.conftest import send_request
from tests.shell.test_metrics import parse, total, value


@dataclass(frozen=True)
class NotApplicable:
    """A row whose concern the door cannot carry, and why; the row checks what holds there instead."""

    reason: str


NO_V03_CALLER = NotApplicable("an AG-UI client speaks AG-UI, and the gateway speaks v1.0 toward the agent for it: "
                              "no v0.3 caller comes through this door (the row checks a run is untouched instead)")
NOT_A2A_CALLER = NotApplicable("the migration view counts A2A callers by the A2A version they speak; an AG-UI client "
                               "speaks none (the row checks the run is counted under no version)")
NO_SUCH_CALL = NotApplicable("an AG-UI run makes only SendStreamingMessage / SendMessage (and CancelTask) calls: "
                             "ListTasks, SubscribeToTask and push configs have no AG-UI form (the row checks the "
                             "door offers none)")

DOORS = ("jsonrpc", "rest", "grpc", "agui")
A2A_DOORS = DOORS[:3]
DEPRECATION = {"migration__deprecation": "2026-06-30", "migration__sunset": "2026-12-31T23:59:59Z",
               "migration__link": "https://example.com/a2a-1.0"}
DEPRECATION_HEADERS = {"deprecation": "@1782777600", "sunset": "Thu, 31 Dec 2026 23:59:59 GMT",
                       "link": '<https://example.com/a2a-1.0>; rel="deprecation"'}
KEY = {"x-api-key": "ka"}   # alice's API key

# concern → what it configures (the feature under test; nothing else leaves the defaults)
CONFIG: dict[str, dict[str, Any]] = {
    "guard": {"auth__api_keys": ("alice:ka",), "callers__requests_per_second": 0.01, "callers__burst": 1},
    "cutoff": {"migration__cutoff": "2020-01-01", **DEPRECATION},
    "deprecation": DEPRECATION,
    "deprecation_v10": DEPRECATION,
}

# concern, door, the expected outcome: (status, code) is a reply's status (HTTP, or the gRPC code's name) and the
# error's code in the door's own shape (JSON-RPC code, HTTP+JSON status, ErrorInfo reason, AG-UI code)
TABLE: list[tuple[str, str, Any]] = [
    # 1. the guard: unauthenticated refused, alice admitted, then limited (a burst of one)
    ("guard", "jsonrpc", {"refused": (401, -32098), "admitted": (200, None), "limited": (429, -32096)}),
    ("guard", "rest", {"refused": (401, "UNAUTHENTICATED"), "admitted": (200, None),
                       "limited": (429, "RESOURCE_EXHAUSTED")}),
    ("guard", "grpc", {"refused": ("UNAUTHENTICATED", "UNAUTHENTICATED"), "admitted": ("OK", None),
                       "limited": ("RESOURCE_EXHAUSTED", "RATE_LIMITED")}),
    ("guard", "agui", {"refused": (401, "agui.unauthenticated"), "admitted": (200, None),
                       "limited": (429, "agui.rate_limited")}),
    # 2. past migration.cutoff a v0.3 caller gets the version error (with the deprecation headers); v1.0 served
    ("cutoff", "jsonrpc", (200, -32009)),
    ("cutoff", "rest", (400, -32009)),
    ("cutoff", "grpc", ("FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")),
    ("cutoff", "agui", NO_V03_CALLER),
    #    before it, a v0.3 caller's reply carries the deprecation headers (gRPC: initial metadata) ...
    ("deprecation", "jsonrpc", DEPRECATION_HEADERS),
    ("deprecation", "rest", DEPRECATION_HEADERS),
    ("deprecation", "grpc", DEPRECATION_HEADERS),
    ("deprecation", "agui", NO_V03_CALLER),
    #    ... and a v1.0 caller's never
    ("deprecation_v10", "jsonrpc", {}),
    ("deprecation_v10", "rest", {}),
    ("deprecation_v10", "grpc", {}),
    ("deprecation_v10", "agui", {}),
    # 3. a coerced timestamp (v0.3 → v1.0): its note in the exchange's one log line and in the notes metric
    *[("notes", door, "timestamp_normalized") for door in DOORS],
    # 4. the requests counter and the duration histogram count the exchange once: binding, operation, versions
    ("metrics", "jsonrpc", ("JSONRPC", "send_message", "1.0")),
    ("metrics", "rest", ("HTTP+JSON", "send_message", "1.0")),
    ("metrics", "grpc", ("GRPC", "send_message", "1.0")),
    ("metrics", "agui", ("AG-UI", "agui_run", "")),
    # 5. a v0.3 and a v1.0 call: each caller counted once, by version, under the door's binding
    ("migration", "jsonrpc", ({"0.3": 1, "1.0": 1}, "JSONRPC")),
    ("migration", "rest", ({"0.3": 1, "1.0": 1}, "HTTP+JSON")),
    ("migration", "grpc", ({"0.3": 1, "1.0": 1}, "GRPC")),
    ("migration", "agui", NOT_A2A_CALLER),
    # 6. a task a v1.0 caller saw through the door (a v0.3 agent) is listed by ListTasks through every A2A door
    *[("task_index", door, ["t1"]) for door in DOORS],
    # 7. the v1.0 flows composed for a v0.3 agent, alike through every A2A door
    *[("list_tasks", door, [("t1", "TASK_STATE_COMPLETED")]) for door in A2A_DOORS],
    ("list_tasks", "agui", NO_SUCH_CALL),
    #    SubscribeToTask: t1's Task first, its events to the terminal state; a terminal task (t2) refused
    *[("subscribe", door, ((["task", "statusUpdate", "statusUpdate"], "TASK_STATE_COMPLETED"), refused))
      for door, refused in (("jsonrpc", (200, -32004)), ("rest", (400, "FAILED_PRECONDITION")),
                            ("grpc", ("FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")))],
    ("subscribe", "agui", NO_SUCH_CALL),
    *[("push_config", door, ("second", "https://hooks.example/second")) for door in A2A_DOORS],
    ("push_config", "agui", NO_SUCH_CALL),
]


@pytest.mark.parametrize(("concern", "door", "expected"), [pytest.param(*row, id=f"{row[0]}-{row[1]}")
                                                           for row in TABLE])
async def test_every_concern_through_every_door(concern: str, door: str, expected: Any, fake_agent_factory: Any,
                                                grpc_gateway: Any) -> None:
    fake = await _agent(fake_agent_factory, concern)
    client, _, channel = await grpc_gateway(fake, **CONFIG.get(concern, {}))
    driver = DRIVERS[door](client, channel)
    await CHECKS[concern](driver, expected, Gateway(client, channel, fake))


# ---- the checks, one per concern ----------------------------------------------------------------------------


@dataclass
class Gateway:
    """One gateway serving every door (its HTTP test client, a channel to its gRPC listener) and its agent."""

    client: TestClient[Any, Any]
    channel: grpc.aio.Channel
    agent: FakeAgent

    def a2a_doors(self) -> list[A2ADoor]:
        return [DRIVERS[door](self.client, self.channel) for door in A2A_DOORS]   # type: ignore[misc]


async def check_guard(door: Door, expected: dict[str, Any], gw: Gateway) -> None:
    refused = await door.send(Version.V10)
    assert refused.outcome == expected["refused"] and refused.headers["www-authenticate"].startswith("ApiKey ")
    assert gw.agent.calls("message/send") == [] and gw.agent.calls("message/stream") == []
    assert (await door.send(Version.V10, KEY)).outcome == expected["admitted"]
    limited = await door.send(Version.V10, KEY)   # alice's burst of one is spent
    assert limited.outcome == expected["limited"] and int(limited.headers["retry-after"]) >= 1
    samples = parse(gw.client.app[METRICS].render().decode())
    assert [value(samples, "a2a_gateway_edge_refusals_total", reason=reason)
            for reason in ("unauthenticated", "rate_limited")] == [1, 1]   # both refusals counted, once each


async def check_cutoff(door: Door, expected: Any, gw: Gateway) -> None:
    if isinstance(expected, NotApplicable):   # the door's own (v1.0) caller is untouched by the cut-off
        return await check_deprecation_v10(door, {}, gw)
    seen = await door.send(Version.V03)
    assert seen.outcome == expected and "1.0" in seen.message, seen
    assert {k: seen.headers.get(k) for k in DEPRECATION_HEADERS} == DEPRECATION_HEADERS
    assert [r.rpc_method for r in gw.agent.requests if r.rpc_method] == []   # nothing went to the agent
    await check_deprecation_v10(door, {}, gw)   # a v1.0 caller is served, without the headers


async def check_deprecation(door: Door, expected: Any, gw: Gateway) -> None:
    if isinstance(expected, NotApplicable):
        return await check_deprecation_v10(door, {}, gw)
    seen = await door.send(Version.V03)
    assert seen.outcome[1] is None, seen
    assert {k: seen.headers.get(k) for k in expected} == expected


async def check_deprecation_v10(door: Door, expected: dict[str, str], gw: Gateway) -> None:
    seen = await door.send(Version.V10)
    assert seen.outcome[1] is None and seen.headers["x-request-id"], seen   # stamped as every reply: without them
    assert {k: v for k, v in seen.headers.items() if k in DEPRECATION_HEADERS} == expected


async def check_notes(door: Door, expected: str, gw: Gateway) -> None:
    before = _notes_counted(gw)
    with capture_logs() as captured:
        seen = await door.send(Version.V10)
    assert seen.outcome[1] is None, seen
    lines = [line for line in captured if line["event"] == "exchange"]
    assert len(lines) == 1, captured   # the exchange's one line ...
    assert expected in [note["code"] for note in lines[0].get("notes", [])], lines[0]   # ... with its note
    assert _notes_counted(gw) - before == len(lines[0]["notes"])   # counted as the line says, once


async def check_metrics(door: Door, expected: tuple[str, str, str], gw: Gateway) -> None:
    binding, operation, client_version = expected
    seen = await door.send(Version.V10)
    assert seen.outcome[1] is None, seen
    samples = parse(gw.client.app[METRICS].render().decode())
    requests = "a2a_gateway_requests_total"
    assert total(samples, requests) == 1, samples   # once, and ...
    assert value(samples, requests, route="default", operation=operation, client_version=client_version,
                 upstream_version="0.3", binding=binding, outcome="stream" if binding == "AG-UI" else "ok") == 1
    duration = "a2a_gateway_request_duration_seconds_count"
    assert total(samples, duration) == 1
    assert value(samples, duration, route="default", operation=operation, client_version=client_version,
                 upstream_version="0.3") == 1


async def check_migration(door: Door, expected: Any, gw: Gateway) -> None:
    migration = gw.client.app[MIGRATION]
    if isinstance(expected, NotApplicable):
        assert (await door.send(Version.V10)).outcome[1] is None
        assert view(migration.snapshot(), time.time())["totals"] == {}
        return
    totals, binding = expected
    for version in (Version.V03, Version.V10):
        assert (await door.send(version)).outcome[1] is None
    data = view(migration.snapshot(), time.time())
    assert data["totals"] == totals, data
    assert {row["binding"] for caller in data["callers"] for row in caller["by"]} == {binding}


async def check_task_index(door: Door, expected: list[str], gw: Gateway) -> None:
    assert (await door.send(Version.V10, {"authorization": "Bearer alice"})).outcome[1] is None
    for lister in gw.a2a_doors():   # one index, whichever door lists it
        assert [t for t, _ in await lister.list_tasks({"authorization": "Bearer alice"})] == expected, lister
        assert await lister.list_tasks({"authorization": "Bearer bob"}) == [], lister   # and in alice's scope


async def check_list_tasks(door: Door, expected: Any, gw: Gateway) -> None:
    if isinstance(expected, NotApplicable):
        assert not hasattr(door, "list_tasks")
        return
    assert isinstance(door, A2ADoor)
    assert (await door.send(Version.V10)).outcome[1] is None
    assert await door.list_tasks({}) == expected   # each task read again (tasks/get): completed now
    assert len(gw.agent.calls("tasks/get")) == 1


async def check_subscribe(door: Door, expected: Any, gw: Gateway) -> None:
    if isinstance(expected, NotApplicable):
        assert not hasattr(door, "subscribe")
        return
    assert isinstance(door, A2ADoor)
    followed, refused = expected
    assert await door.subscribe("t1") == ((200 if door.http else "OK", None), *followed)
    assert await door.subscribe("t2") == (refused, [], "")   # read first (tasks/get): terminal, refused
    assert len(gw.agent.calls("tasks/get")) == 2 and len(gw.agent.calls("tasks/resubscribe")) == 1


async def check_push_config(door: Door, expected: Any, gw: Gateway) -> None:
    if isinstance(expected, NotApplicable):
        assert not hasattr(door, "push_config")
        return
    assert isinstance(door, A2ADoor)
    assert await door.push_config("t1", "second") == expected   # from the agent's list, never another config
    assert gw.agent.calls("tasks/pushNotificationConfig/list")


CHECKS: dict[str, Callable[[Any, Any, Gateway], Awaitable[None]]] = {
    "guard": check_guard, "cutoff": check_cutoff, "deprecation": check_deprecation,
    "deprecation_v10": check_deprecation_v10, "notes": check_notes, "metrics": check_metrics,
    "migration": check_migration, "task_index": check_task_index, "list_tasks": check_list_tasks,
    "subscribe": check_subscribe, "push_config": check_push_config,
}


def _notes_counted(gw: Gateway) -> float:
    return total(parse(gw.client.app[METRICS].render().decode()), "a2a_gateway_translation_notes_total")


# ---- the agent: one v0.3 agent with a task t1 ---------------------------------------------------------------


def _v03_task(state: str, **status: Any) -> dict[str, Any]:
    return {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": state, **status}}


def _v03_config(config_id: str) -> dict[str, Any]:
    return {"taskId": "t1", "pushNotificationConfig": {"id": config_id, "url": f"https://hooks.example/{config_id}"}}


async def _agent(fake_agent_factory: Any, concern: str) -> FakeAgent:
    """A v0.3 JSON-RPC agent: t1 made working (for `notes` with a timestamp v1.0 must coerce), read back working
    (for `list_tasks` completed; for `subscribe` then t2, completed), streamed to its end, and two push configs."""
    fake: FakeAgent = await fake_agent_factory("0.3")
    working = _v03_task("working", **({"timestamp": "2024-01-01T00:00:00"} if concern == "notes" else {}))
    update = {"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": False,
              "status": {"state": "working"}}
    done = {**update, "final": True, "status": {"state": "completed"}}
    fake.reply_json("message/send", working)
    fake.reply_sse("message/stream", [working, done])
    fake.reply_json("tasks/get", _v03_task("completed" if concern == "list_tasks" else "working"))
    if concern == "subscribe":
        fake.reply_json("tasks/get", {**_v03_task("completed"), "id": "t2"})
    fake.reply_sse("tasks/resubscribe", [update, done])
    fake.reply_json("tasks/pushNotificationConfig/get", _v03_config("first"))
    fake.reply_json("tasks/pushNotificationConfig/list", [_v03_config("first"), _v03_config("second")])
    return fake


# ---- the doors: one driver each ------------------------------------------------------------------------------


@dataclass
class Seen:
    """A call's answer as the table reads it: `outcome` is (status, the error's code or None)."""

    outcome: tuple[Any, Any]
    headers: dict[str, str] = field(default_factory=dict)   # lower-cased reply headers, or initial metadata
    message: str = ""


class Door:
    """A door's SendMessage (of `version`, with `headers` as headers or metadata)."""

    def __init__(self, client: TestClient[Any, Any], channel: grpc.aio.Channel) -> None:
        self.client, self.channel = client, channel

    async def send(self, version: Version, headers: dict[str, str] | None = None) -> Seen:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__


Subscribed = tuple[tuple[Any, Any], list[str], str]   # the outcome, each StreamResponse's kind, the last state


class A2ADoor(Door):
    """An A2A door: the v1.0 calls composed for a v0.3 agent too."""

    http = True

    async def list_tasks(self, headers: dict[str, str]) -> list[tuple[str, str]]:
        raise NotImplementedError

    async def subscribe(self, task_id: str) -> Subscribed:
        raise NotImplementedError

    async def push_config(self, task_id: str, config_id: str) -> tuple[str, str]:
        raise NotImplementedError


V10_MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
V03_MESSAGE = {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
V10_HEADERS = {"A2A-Version": "1.0"}


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def _sse_data(raw: bytes) -> list[Any]:
    return [json.loads(line[5:]) for line in raw.split(b"\n") if line.startswith(b"data:")]


class JsonRpcDoor(A2ADoor):
    async def _rpc(self, method: str, params: Any, headers: dict[str, str], **more: str) -> tuple[Any, Any, bytes]:
        payload = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
        async with self.client.post("/", json=payload, headers={**headers, **more}) as resp:
            return resp.status, resp.headers, await resp.read()

    async def send(self, version: Version, headers: dict[str, str] | None = None) -> Seen:
        v10 = version is Version.V10
        status, hdrs, raw = await self._rpc("SendMessage" if v10 else "message/send",
                                            {"message": V10_MESSAGE if v10 else V03_MESSAGE},
                                            {**(V10_HEADERS if v10 else {}), **(headers or {})})
        reply = json.loads(raw)
        assert reply["id"] == 7, reply   # the caller's own id, answered or refused
        error = reply.get("error") or {}
        return Seen((status, error.get("code")), _lower(hdrs), error.get("message", ""))

    async def list_tasks(self, headers: dict[str, str]) -> list[tuple[str, str]]:
        _, _, raw = await self._rpc("ListTasks", {}, {**V10_HEADERS, **headers})
        return [(t["id"], t["status"]["state"]) for t in json.loads(raw)["result"]["tasks"]]

    async def subscribe(self, task_id: str) -> Subscribed:
        status, hdrs, raw = await self._rpc("SubscribeToTask", {"id": task_id}, V10_HEADERS,
                                            Accept="text/event-stream")
        if hdrs["Content-Type"].startswith("application/json"):   # refused before the stream
            return (status, json.loads(raw)["error"]["code"]), [], ""
        return (status, None), *_kinds([item["result"] for item in _sse_data(raw)])

    async def push_config(self, task_id: str, config_id: str) -> tuple[str, str]:
        _, _, raw = await self._rpc("GetTaskPushNotificationConfig", {"taskId": task_id, "id": config_id},
                                    V10_HEADERS)
        config = json.loads(raw)["result"]
        return config["id"], config["url"]


class RestDoor(A2ADoor):
    async def send(self, version: Version, headers: dict[str, str] | None = None) -> Seen:
        if version is Version.V10:
            path, message, more = "/message:send", V10_MESSAGE, V10_HEADERS
        else:   # the v0.3 HTTP+JSON binding: proto JSON
            path, message, more = "/v1/message:send", {"messageId": "m1", "role": "ROLE_USER",
                                                       "content": [{"text": "hi"}]}, {}
        async with self.client.post(path, json={"message": message}, headers={**more, **(headers or {})}) as resp:
            status, hdrs, reply = resp.status, resp.headers, await resp.json()
        if status < 300:
            return Seen((status, None), _lower(hdrs))
        error = reply.get("error", reply)   # v1.0: google.rpc.Status in `error`; v0.3: the JSON-RPC error object
        return Seen((status, error.get("status", error.get("code"))), _lower(hdrs), error.get("message", ""))

    async def list_tasks(self, headers: dict[str, str]) -> list[tuple[str, str]]:
        async with self.client.get("/tasks", headers={**V10_HEADERS, **headers}) as resp:
            return [(t["id"], t["status"]["state"]) for t in (await resp.json())["tasks"]]

    async def subscribe(self, task_id: str) -> Subscribed:
        async with self.client.post(f"/tasks/{task_id}:subscribe", headers=V10_HEADERS) as resp:
            if resp.status != 200:   # refused before the stream
                return (resp.status, (await resp.json())["error"]["status"]), [], ""
            return (resp.status, None), *_kinds(_sse_data(await resp.read()))

    async def push_config(self, task_id: str, config_id: str) -> tuple[str, str]:
        async with self.client.get(f"/tasks/{task_id}/pushNotificationConfigs/{config_id}",
                                   headers=V10_HEADERS) as resp:
            config = await resp.json()
        return config["id"], config["url"]


V10_SERVICE, V03_SERVICE = "/lf.a2a.v1.A2AService/", "/a2a.v1.A2AService/"


class GrpcDoor(A2ADoor):
    http = False

    async def _unary(self, path: str, request: bytes, headers: dict[str, str]) -> tuple[bytes | None, Seen]:
        call = self.channel.unary_unary(path)(request, metadata=tuple(headers.items()))
        try:
            reply = await call
        except grpc.aio.AioRpcError as err:
            metadata = {**dict(err.initial_metadata() or ()), **dict(err.trailing_metadata() or ())}
            return None, Seen((err.code().name, _reason(err)), _lower(metadata), err.details() or "")
        return reply, Seen(("OK", None), _lower(dict(await call.initial_metadata() or ())))

    async def send(self, version: Version, headers: dict[str, str] | None = None) -> Seen:
        service = V10_SERVICE if version is Version.V10 else V03_SERVICE
        _, seen = await self._unary(service + "SendMessage", send_request(version), headers or {})
        return seen

    async def list_tasks(self, headers: dict[str, str]) -> list[tuple[str, str]]:
        request = message_class(Version.V10, "ListTasksRequest")().SerializeToString()
        reply, seen = await self._unary(V10_SERVICE + "ListTasks", request, headers)
        assert reply is not None, seen
        listed = message_class(Version.V10, "ListTasksResponse").FromString(reply)
        return [(t.id, _state(t.status.state)) for t in listed.tasks]

    async def subscribe(self, task_id: str) -> Subscribed:
        request = message_class(Version.V10, "SubscribeToTaskRequest")(id=task_id).SerializeToString()
        cls = message_class(Version.V10, "StreamResponse")
        call = self.channel.unary_stream(V10_SERVICE + "SubscribeToTask")
        try:
            items = [cls.FromString(m) async for m in call(request)]
        except grpc.aio.AioRpcError as err:
            return (err.code().name, _reason(err)), [], ""
        kinds = [{"status_update": "statusUpdate"}.get(k, k) for k in (i.WhichOneof("payload") for i in items)]
        last = items[-1].status_update.status.state if kinds[-1] == "statusUpdate" else items[-1].task.status.state
        return ("OK", None), kinds, _state(last)

    async def push_config(self, task_id: str, config_id: str) -> tuple[str, str]:
        request = message_class(Version.V10, "GetTaskPushNotificationConfigRequest")(task_id=task_id, id=config_id)
        reply, seen = await self._unary(V10_SERVICE + "GetTaskPushNotificationConfig", request.SerializeToString(),
                                        {})
        assert reply is not None, seen
        config = message_class(Version.V10, "TaskPushNotificationConfig").FromString(reply)
        return config.id, config.url


class AguiDoor(Door):
    """An AG-UI run (POST /agui): the gateway calls the agent as a v1.0 client; no v0.3 caller, no other call."""

    async def send(self, version: Version, headers: dict[str, str] | None = None) -> Seen:
        assert version is Version.V10, "an AG-UI client has no A2A version; toward the agent it is v1.0"
        data = json.dumps(body(user("hi"))).encode()
        hdrs = {"Content-Type": "application/json", "Accept": "text/event-stream", **(headers or {})}
        async with self.client.post("/agui", data=data, headers=hdrs) as resp:
            status, hdrs_seen, raw = resp.status, _lower(resp.headers), await resp.read()
        if status != 200:   # refused before any stream: the front door's JSON error
            error = json.loads(raw)["error"]
            return Seen((status, error["code"]), hdrs_seen, error["message"])
        events = parse_sse(raw)
        assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), events
        return Seen((status, events[-1].get("code")), hdrs_seen, events[-1].get("message", ""))


DRIVERS: dict[str, Callable[[TestClient[Any, Any], grpc.aio.Channel], Door]] = {
    "jsonrpc": JsonRpcDoor, "rest": RestDoor, "grpc": GrpcDoor, "agui": AguiDoor,
}


def _reason(err: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a gRPC status's details."""
    info = error_details_pb2.ErrorInfo()
    details = dict(err.trailing_metadata() or ())[DETAILS_KEY]
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    return info.reason


def _state(number: int) -> str:
    return message_class(Version.V10, "TaskStatus").DESCRIPTOR.fields_by_name["state"].enum_type \
        .values_by_number[number].name


def _kinds(items: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The payload kind of each v1.0 StreamResponse, and the state the last one says."""
    kinds = [next(iter(item)) for item in items]
    last = items[-1][kinds[-1]]
    return kinds, last["status"]["state"]
