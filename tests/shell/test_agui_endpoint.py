"""POST /agui end to end on loopback: a real gateway in front of scripted fake A2A agents (v0.3 and v1.0),
checking the HTTP answers before any stream, the A2A requests sent, and every AG-UI event and frame."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.core.agui.conformance import parse_sse, snapshots, texts, validate
from tests.core.agui.helpers import action, body, create, delete, update, user
from tests.fakes.agents import FakeAgent
from tests.shell.conftest import GatewayFactory

A2UI_V10 = "https://a2ui.org/a2a-extension/a2ui/v1.0"
A2UI_V09 = "https://a2ui.org/a2a-extension/a2ui/v0.9"
STREAM = {"1.0": "SendStreamingMessage", "0.3": "message/stream"}
SEND = {"1.0": "SendMessage", "0.3": "message/send"}


async def _agent(
    factory: Any, version: str = "1.0", *, a2ui: str | None = None, streaming: bool = True
) -> FakeAgent:
    fake: FakeAgent = await factory(version)
    card = fake.card
    card["capabilities"] = {"streaming": streaming, **({"extensions": [{"uri": a2ui}]} if a2ui else {})}
    fake.card_override = card
    return fake


def _rpc_calls(fake: FakeAgent) -> list[Any]:
    return [r for r in fake.requests if r.method == "POST"]


async def _run(
    client: TestClient[Any, Any], payload: Any, path: str = "/agui", **headers: str
) -> tuple[int, str, bytes]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    hdrs = {"Content-Type": "application/json", "Accept": "text/event-stream", **headers}
    async with client.post(path, data=data, headers=hdrs) as resp:
        return resp.status, resp.headers.get("Content-Type", ""), await resp.read()


# ---- the scenario, in each A2A version's own wire shapes ------------------------------------------------


def _a2ui_part(version: str, *messages: dict[str, Any]) -> dict[str, Any]:
    data: Any = messages[0] if len(messages) == 1 else list(messages)
    if version == "1.0":
        return {"data": data, "mediaType": "application/a2ui+json"}
    if isinstance(data, list):
        return {
            "kind": "data",
            "data": {"value": data},
            "metadata": {"mimeType": "application/json+a2ui", "data_part_compat": True},
        }
    return {"kind": "data", "data": data, "metadata": {"mimeType": "application/json+a2ui"}}


def _items(
    version: str, state: str, *parts: dict[str, Any], mid: str = "m1", final: bool = False, first: bool = True
) -> list[dict[str, Any]]:
    v1 = version == "1.0"
    text_parts = [
        ({"text": p["text"]} if v1 else {"kind": "text", "text": p["text"]}) if "text" in p else p
        for p in parts
    ]
    message = {"messageId": mid, "role": "ROLE_AGENT" if v1 else "agent", "parts": text_parts}
    if not v1:
        message["kind"] = "message"
    st = {"state": "TASK_STATE_" + state.upper().replace("-", "_") if v1 else state, "message": message}
    update_ = {"taskId": "T1", "contextId": "C1", "status": st}
    out: list[dict[str, Any]] = []
    if first:
        task = {
            "id": "T1",
            "contextId": "C1",
            "status": {"state": "TASK_STATE_SUBMITTED" if v1 else "submitted"},
        }
        out.append({"task": task} if v1 else {"kind": "task", **task})
    out.append({"statusUpdate": update_} if v1 else {"kind": "status-update", "final": final, **update_})
    return out


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_text_run_paints_two_surfaces_then_an_action_updates_and_deletes(
    fake_agent_factory: Any, gateway_factory: GatewayFactory, version: str
) -> None:
    v = "v1.0" if version == "1.0" else "v0.9"
    fake = await _agent(fake_agent_factory, version, a2ui=A2UI_V10 if version == "1.0" else A2UI_V09)
    fake.reply_sse(
        STREAM[version],
        _items(
            version,
            "input-required",
            {"text": "Pick a table"},
            _a2ui_part(version, create("s1", v)),
            _a2ui_part(version, create("s2", v)),
            _a2ui_part(version, update("s1", v)),
            final=True,
        ),
    )
    fake.reply_sse(
        STREAM[version],
        _items(
            version,
            "completed",
            {"text": "Booked"},
            _a2ui_part(version, update("s1", v, n=2), delete("s2", v)),
            mid="m2",
            first=False,
        ),
    )
    # v1.0, which few renderers draw, is activated only when the configuration widens agui.a2ui_versions
    widened = {"agui__a2ui_versions": ["v1.0", "v0.9"]} if version == "1.0" else {}
    client = await gateway_factory(fake.url, **widened)
    status, ctype, raw = await _run(client, body(user("show tables")))
    assert status == 200 and ctype == "text/event-stream; charset=utf-8"
    events = parse_sse(raw)
    validate(events, protocol10=True)
    assert texts(events) == {"m1": "Pick a table"}
    assert [s[0] for s in snapshots(events)] == ["a2ui-surface-s1", "a2ui-surface-s2"]
    first = fake.calls(STREAM[version])[0]
    ext_header = "A2A-Extensions" if version == "1.0" else "X-A2A-Extensions"
    assert first.headers[ext_header] == (A2UI_V10 if version == "1.0" else A2UI_V09)
    assert ("A2A-Version" in first.headers) is (version == "1.0")

    status, _, raw = await _run(client, body(run="r2", forwardedProps=action(context={"seats": 2})))
    events = parse_sse(raw)
    validate(events, protocol10=True)
    assert snapshots(events) == [
        ("a2ui-surface-s1", [create("s1", v), update("s1", v), update("s1", v, n=2)]),
        ("a2ui-surface-s2", [create("s2", v), delete("s2", v)]),
    ]
    sent = fake.calls(STREAM[version])[1].params["message"]
    assert sent["taskId"] == "T1" and sent["contextId"] == "C1" and len(sent["parts"]) == 1
    data = sent["parts"][0]["data"]
    assert (
        data["version"] == v
        and data["action"]["name"] == "book"
        and data["action"]["context"] == {"seats": 2}
    )


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_failing_run(fake_agent_factory: Any, gateway_factory: GatewayFactory, version: str) -> None:
    fake = await _agent(fake_agent_factory, version)
    fake.reply_sse(STREAM[version], _items(version, "failed", {"text": "quota exceeded"}, final=True))
    client = await gateway_factory(fake.url)
    events = parse_sse((await _run(client, body(user("go"), v1=False)))[2])
    validate(events, protocol10=False)
    assert events[-1] == {"type": "RUN_ERROR", "message": "quota exceeded", "code": "a2a.task_failed"}
    assert (
        "A2A-Extensions" not in fake.requests[-1].headers
        and "X-A2A-Extensions" not in fake.requests[-1].headers
    )


@pytest.mark.parametrize(
    "payload,headers,status,code",
    [
        (b"{nope", {}, 400, "agui.invalid_json"),
        (b"[1]", {}, 422, "agui.invalid_input"),
        (json.dumps({"threadId": "t"}).encode(), {}, 422, "agui.invalid_input"),
        (json.dumps(body(forwardedProps={"a2uiAction": {}})).encode(), {}, 422, "a2ui.invalid_action"),
        (json.dumps(body()).encode(), {"Content-Type": "text/plain"}, 415, "agui.unsupported_media_type"),
        (
            json.dumps(body()).encode(),
            {"Accept": "application/vnd.ag-ui.event+proto"},
            406,
            "agui.not_acceptable",
        ),
    ],
)
async def test_bad_requests_get_json_errors_before_any_stream(  # cases 1-4, 7, 8, 17
    fake_agent_factory: Any,
    gateway_factory: GatewayFactory,
    payload: bytes,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    fake = await _agent(fake_agent_factory)
    client = await gateway_factory(fake.url)
    got, ctype, raw = await _run(client, payload, **headers)
    assert (got, ctype) == (status, "application/json")
    assert json.loads(raw)["error"]["code"] == code
    assert not _rpc_calls(fake)


async def test_oversize_unknown_route_and_accept_variants(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # 7, 8
    fake = await _agent(fake_agent_factory)
    client = await gateway_factory(fake.url, limits__max_body_bytes=3000)
    status, _, raw = await _run(client, body(user("x" * 4000)))
    assert status == 413 and json.loads(raw)["error"]["code"] == "agui.too_large"
    assert (await _run(client, body(), "/agui/other"))[0] == 404
    for accept in ("*/*", "text/event-stream, application/json"):
        assert (await _run(client, body(), "/agui/default", Accept=accept))[0] == 200
    async with client.post("/agui", json=body()) as resp:  # no Accept header at all
        assert resp.status == 200
        assert [e["type"] for e in parse_sse(await resp.read())] == ["RUN_STARTED", "RUN_FINISHED"]
    assert not _rpc_calls(fake)  # case 9: no new user message, no upstream call


async def test_upstream_failures_end_with_run_error(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # case 40
    fake = await _agent(fake_agent_factory)
    fake.reply_json(
        "SendStreamingMessage", raw=b"<html>oops</html>", status=500, headers={"Content-Type": "text/html"}
    )
    fake.reply_json("SendStreamingMessage", error={"code": -32001, "message": "Task not found"})
    client = await gateway_factory(fake.url)
    events = parse_sse((await _run(client, body(user("go"))))[2])
    validate(events)
    assert events[-1]["code"] == "upstream.http_500"
    events = parse_sse((await _run(client, body(user("go"), run="r2")))[2])
    assert events[-1] == {"type": "RUN_ERROR", "message": "Task not found", "code": "a2a.rpc.-32001"}
    gone = await gateway_factory("http://127.0.0.1:9", upstream__version="1.0", upstream__retry_attempts=0)
    events = parse_sse((await _run(gone, body(user("go"))))[2])
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "upstream.unreachable"


async def test_broken_and_incomplete_streams(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:
    fake = await _agent(fake_agent_factory)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "working", {"text": "half"}))  # case 41
    fake.reply_sse("SendStreamingMessage", [b"data: {not json\n\n"])
    fake.reply_sse("SendStreamingMessage", _items("1.0", "working", {"text": "x"}), then="reset")
    client = await gateway_factory(fake.url)
    events = parse_sse((await _run(client, body(user("go"))))[2])
    validate(events)
    assert events[-1]["code"] == "upstream.incomplete" and texts(events) == {"m1": "half"}
    events = parse_sse((await _run(client, body(user("go", mid="u2"), run="r2")))[2])
    assert events[-1]["code"] == "upstream.protocol_error"
    events = parse_sse((await _run(client, body(user("go", mid="u3"), run="r3")))[2])
    validate(events)
    assert events[-1]["code"] in ("upstream.unreachable", "upstream.incomplete")


async def test_crlf_and_pinging_upstream_is_read(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:
    fake = await _agent(fake_agent_factory, "0.3")
    fake.reply_sse(
        "message/stream", _items("0.3", "completed", {"text": "ok"}, final=True), crlf=True, pings=True
    )
    client = await gateway_factory(fake.url)
    events = parse_sse((await _run(client, body(user("go"))))[2])
    validate(events)
    assert texts(events) == {"m1": "ok"} and events[-1]["type"] == "RUN_FINISHED"


async def test_v03_input_required_without_final_then_open_stream_settles(  # case 42
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:
    fake = await _agent(fake_agent_factory, "0.3")
    fake.reply_sse("message/stream", _items("0.3", "input-required", {"text": "?"}, final=False), then="hang")
    client = await gateway_factory(fake.url, agui__settle_seconds=0.2)
    started = time.monotonic()
    events = parse_sse((await _run(client, body(user("go"))))[2])
    assert events[-1]["type"] == "RUN_FINISHED" and time.monotonic() - started < 3
    await asyncio.wait_for(fake.on_disconnect.wait(), 2)


async def test_silent_upstream_gets_pings_then_times_out(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # case 43
    fake = await _agent(fake_agent_factory)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "working", {"text": "thinking"}), then="hang")
    client = await gateway_factory(
        fake.url, server__heartbeat_seconds=0.1, upstream__timeout__idle_stream=0.6
    )
    _, _, raw = await _run(client, body(user("go")))
    assert raw.count(b": ping\n\n") >= 3
    events = parse_sse(raw)
    validate(events)
    assert events[-1]["code"] == "upstream.timeout"


async def test_slow_first_byte_gets_pings_and_run_started_first(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # 57
    fake = await _agent(fake_agent_factory)
    fake.reply_delay("SendStreamingMessage", 0.5)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "completed", {"text": "ok"}))
    client = await gateway_factory(fake.url, server__heartbeat_seconds=0.1)
    async with client.post("/agui", json=body(user("go"))) as resp:
        first = await resp.content.readuntil(b"\n\n")
        assert json.loads(first[6:])["type"] == "RUN_STARTED"
        rest = await resp.read()
    assert rest.count(b": ping\n\n") >= 2 and parse_sse(rest)[-1]["type"] == "RUN_FINISHED"


async def test_blocking_agent_gets_send_message(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # case 44
    fake = await _agent(fake_agent_factory, "0.3", streaming=False)
    task = {
        "kind": "task",
        "id": "T1",
        "contextId": "C1",
        "status": {
            "state": "completed",
            "message": {
                "kind": "message",
                "messageId": "m1",
                "role": "agent",
                "parts": [{"kind": "text", "text": "done"}],
            },
        },
    }
    fake.reply_json("message/send", task)
    client = await gateway_factory(fake.url)
    events = parse_sse((await _run(client, body(user("go"))))[2])
    validate(events)
    assert texts(events) == {"m1": "done"} and events[-1]["type"] == "RUN_FINISHED"
    assert fake.calls("message/send")[0].params["message"]["parts"] == [{"kind": "text", "text": "go"}]


async def test_one_run_per_thread_and_disconnect_does_not_cancel(  # cases 46, 49
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:
    fake = await _agent(fake_agent_factory)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "working", {"text": "busy"}), then="hang")
    fake.reply_sse("SendStreamingMessage", _items("1.0", "completed", {"text": "done"}))
    client = await gateway_factory(fake.url, upstream__timeout__idle_stream=5)
    resp = await client.post("/agui", json=body(user("go")), headers={"Accept": "text/event-stream"})
    await resp.content.readuntil(b"\n\n")
    busy = await _run(client, body(user("go"), run="r2"))
    assert busy[0] == 409 and json.loads(busy[2])["error"]["code"] == "agui.thread_busy"
    other = await _run(client, body(user("go"), thread="other", run="r3"))
    assert other[0] == 200
    resp.close()  # the client leaves mid-stream
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    await asyncio.sleep(0.05)
    assert not fake.calls("CancelTask")
    # case 47: the next run without new input re-attaches to the task, which is still working
    fake.reply_sse("SubscribeToTask", _items("1.0", "completed", {"text": "finished"}, mid="m9"))
    events = parse_sse((await _run(client, body(user("go"), run="r4")))[2])
    validate(events)
    assert fake.calls("SubscribeToTask")[0].params == {"id": "T1"}
    assert texts(events) == {"m9": "finished"} and events[-1]["type"] == "RUN_FINISHED"
    assert (await _run(client, body(user("go"), user("again", mid="u2"), run="r5")))[0] == 200


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_cancel_on_disconnect_cancels_the_task_of_a_client_that_left(  # case 46, opt-in
    fake_agent_factory: Any, gateway_factory: GatewayFactory, version: str
) -> None:
    fake = await _agent(fake_agent_factory, version)
    fake.reply_sse(STREAM[version], _items(version, "working", {"text": "busy"}), then="hang")
    cancel = {"1.0": "CancelTask", "0.3": "tasks/cancel"}[version]
    canceled = {"id": "T1", "contextId": "C1", "status": {"state": "canceled" if version == "0.3"
                                                          else "TASK_STATE_CANCELED"}}
    fake.reply_json(cancel, {"kind": "task", **canceled} if version == "0.3" else canceled)
    client = await gateway_factory(fake.url, agui__cancel_on_disconnect=True, upstream__timeout__idle_stream=5)
    resp = await client.post("/agui", json=body(user("go")), headers={"Accept": "text/event-stream"})
    while b"busy" not in await resp.content.readuntil(b"\n\n"):
        pass
    resp.close()  # the client leaves mid-run
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    for _ in range(100):
        if fake.calls(cancel):
            break
        await asyncio.sleep(0.01)
    assert [c.params for c in fake.calls(cancel)] == [{"id": "T1"}]


async def test_cancel_on_disconnect_spares_finished_and_paused_runs(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:
    fake = await _agent(fake_agent_factory)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "input-required", {"text": "which?"}), then="hang")
    client = await gateway_factory(fake.url, agui__cancel_on_disconnect=True, agui__settle_seconds=5)
    resp = await client.post("/agui", json=body(user("go")), headers={"Accept": "text/event-stream"})
    while b"which?" not in await resp.content.readuntil(b"\n\n"):
        pass
    resp.close()  # the agent asked for input: the run is over for the user, leaving cancels nothing
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    fake.reply_sse("SendStreamingMessage", _items("1.0", "completed", {"text": "done"}))
    events = parse_sse((await _run(client, body(user("go"), user("this", mid="u2"), run="r2")))[2])
    assert events[-1]["type"] == "RUN_FINISHED"
    await asyncio.sleep(0.1)
    assert not fake.calls("CancelTask")


async def test_frames_are_lf_only_and_utf8_intact(
    fake_agent_factory: Any, gateway_factory: GatewayFactory
) -> None:  # 52, 55
    fake = await _agent(fake_agent_factory)
    text = "ünïcødé ✓ " * 200 + "\r\nline"
    chunked = [
        b"data: " + json.dumps({"jsonrpc": "2.0", "id": "r1", "result": item}).encode() + b"\n\n"
        for item in _items("1.0", "completed", {"text": text})
    ]
    fake.reply_sse("SendStreamingMessage", [bytes([b]) for b in b"".join(chunked)])  # one byte per write
    client = await gateway_factory(fake.url)
    _, _, raw = await _run(client, body(user("go")))
    assert b"\r" not in raw
    assert texts(parse_sse(raw)) == {"m1": text}


THROUGHPUT_ITEMS = 20_000


async def test_throughput_events_per_second(
    aiohttp_server: Any, gateway_factory: GatewayFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bounded loop on loopback: a fast fake v1.0 agent streams THROUGHPUT_ITEMS artifact chunks (plus an
    A2UI update every 100) pre-encoded in one body; the figure is what the front door sustains end to end."""
    from aiohttp import web

    def frame(item: dict[str, Any]) -> bytes:
        return b"data: " + json.dumps({"jsonrpc": "2.0", "id": "r", "result": item}).encode() + b"\n\n"

    chunks = [frame({"task": {"id": "T1", "contextId": "C1", "status": {"state": "TASK_STATE_WORKING"}}})]
    for i in range(THROUGHPUT_ITEMS):
        parts: list[dict[str, Any]] = [{"text": f"chunk {i} "}]
        if i % 100 == 0:
            parts = [{"data": update("s1", n=i), "mediaType": "application/a2ui+json"}]
        chunks.append(
            frame(
                {
                    "artifactUpdate": {
                        "taskId": "T1",
                        "contextId": "C1",
                        "append": i > 0,
                        "artifact": {"artifactId": "a", "parts": parts},
                    }
                }
            )
        )
    chunks.append(
        frame(
            {"statusUpdate": {"taskId": "T1", "contextId": "C1", "status": {"state": "TASK_STATE_COMPLETED"}}}
        )
    )
    payload = b"".join(chunks)
    card = {
        "name": "fast",
        "description": "fast fake",
        "version": "1",
        "capabilities": {"streaming": True},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [],
        "supportedInterfaces": [],
    }

    async def agent(request: web.Request) -> web.StreamResponse:
        if request.method == "GET":
            return web.json_response(card)
        await request.read()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(payload)
        return resp

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", agent)
    server = await aiohttp_server(app)
    url = str(server.make_url("")).rstrip("/")
    card["supportedInterfaces"] = [{"url": url + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    client = await gateway_factory(url, log__level="warning")
    started = time.perf_counter()
    _, _, raw = await _run(client, body(user("go")))
    elapsed = time.perf_counter() - started
    events = parse_sse(raw)
    validate(events)
    assert events[-1]["type"] == "RUN_FINISHED"
    rate = len(events) / elapsed
    with capsys.disabled():
        print(
            f"\nAG-UI front door: {len(events)} events in {elapsed:.2f} s = {rate:,.0f} events/s "
            f"({len(raw) / elapsed / 1e6:.1f} MB/s out)"
        )
    assert rate > 2_000
