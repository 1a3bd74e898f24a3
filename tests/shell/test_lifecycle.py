"""Tests for gateway/shell/process/lifecycle.py: requests beyond `limits.max_client_connections` are refused
(503, Retry-After, closed, in the caller's A2A shape); the client deadlines (slow headers, slow body, idle
keep-alive) on raw connections; a listener that cannot open, said in one line; the event loop choice; open
streams and their handles (events counted, stopped at an event boundary); the SIGHUP reload (a new upstream
session, invalid files kept out, the keys read at start-up kept); and the drain (100 open streams and unary
calls, nothing lost), SIGHUP and SIGTERM on the real command line. Its requests, replies and helpers are
shared with tests/test_workers.py."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

import aiohttp
import pytest

from gateway.config import Settings, load
from gateway.core import jsoncodec
from gateway.shell.process.app import build_app, loop_factory
from gateway.shell.process.lifecycle import (
    LIFECYCLE,
    Drained,
    Lifecycle,
    ListenFailed,
    Process,
    keep_static,
    restart_keys,
)
from gateway.shell.process.metrics import METRICS, PREFIX
from tests.core.test_passthrough import checked
from tests.shell.test_metrics import parse, total, value

ROOT = Path(__file__).resolve().parents[2]
STREAMS = 100
UNARY = 20
GRACE = 8.0

V03_STREAM = {"jsonrpc": "2.0", "id": 7, "method": "message/stream", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
V10_STREAM = {"jsonrpc": "2.0", "id": "a", "method": "SendStreamingMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
V10_SEND = {**V10_STREAM, "method": "SendMessage"}
V03_SEND = {**V03_STREAM, "method": "message/send"}
V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}


async def _until(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _raw(port: int, request: bytes) -> tuple[int, bytes, bytes, asyncio.StreamWriter]:
    """One request on a new connection, left open: (status, head, body, the connection)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    return int(head.split()[1]), head, await reader.readexactly(length), writer


def _post(path: str, body: Any, **headers: str) -> bytes:
    data = jsoncodec.dumpb(body)
    lines = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    return (f"POST {path} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            f"{lines}\r\n").encode() + data


async def test_requests_beyond_max_client_connections_get_503_in_the_callers_shape(fake_agent_factory) -> None:
    fake = await fake_agent_factory("1.0")
    settings = load(None, {}, {"upstream.url": fake.url, "log.format": "console",
                               "limits.max_client_connections": 2})
    app = build_app(settings)
    process = Process(app, app[LIFECYCLE])
    await process.start("127.0.0.1", 0)
    card = b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: gw\r\n\r\n"
    conns = []
    try:
        for _ in range(2):  # keep-alive connections, all left open
            status, _, _, writer = await _raw(process.port, card)
            conns.append(writer)
            assert status == 200
        calls = len(fake.requests)
        cases = [  # (request, what its body must say)
            (_post("/", {**V10_SEND, "id": "x7"}, A2A_Version="1.0"),
             {"jsonrpc": "2.0", "id": "x7", "error": {"code": -32099, "data": [
                 {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "GATEWAY_OVERLOADED",
                  "domain": "a2a-protocol.org"}]}}),
            (_post("/", {**V03_SEND, "id": 5}), {"jsonrpc": "2.0", "id": 5, "error": {"code": -32099}}),
            (_post("/message:send", V10_SEND["params"], A2A_Version="1.0"),
             {"error": {"code": 503, "status": "UNAVAILABLE", "details": [
                 {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "GATEWAY_OVERLOADED",
                  "domain": "a2a-protocol.org"}]}}),
            (_post("/v1/message:send", V03_SEND["params"]), {"code": -32099}),
            (b"DELETE / HTTP/1.1\r\nHost: gw\r\n\r\n", {"jsonrpc": "2.0", "error": {"code": -32099}}),  # any method
        ]
        for request, want in cases:
            status, head, body, writer = await _raw(process.port, request)
            conns.append(writer)
            assert status == 503 and b"Retry-After: 1" in head and b"Connection: close" in head, head
            got = jsoncodec.loads(body)
            assert _contains(got, want), got
            message = got["error"]["message"] if "error" in got else got["message"]
            assert "gateway overloaded" in message and "limits.max_client_connections" in message
        assert len(fake.requests) == calls  # no door ran: the agent never heard of them
        m = parse(app[METRICS].render().decode())
        assert value(m, "a2a_gateway_connection_limit_rejections_total", limit="limits.max_client_connections") == 5
        assert total(m, "a2a_gateway_requests_total", outcome="rejected") == 5  # the pipeline answered them
    finally:
        for writer in conns:
            writer.close()
        await process.drain()


def _contains(got: Any, want: Any) -> bool:
    """Whether `got` holds every member of `want` (objects by member, arrays item by item)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _contains(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_contains, got, want))
    return bool(got == want)


def test_event_loop_choice() -> None:
    assert loop_factory("asyncio") is None
    try:
        import uvloop
    except ImportError:
        assert loop_factory("auto") is None
    else:
        assert loop_factory("auto") is uvloop.new_event_loop
        assert loop_factory("uvloop") is uvloop.new_event_loop

# --- open streams ------------------------------------------------------------------------------------


def _metric(lc: Lifecycle, name: str, **labels: str) -> float:
    return value(parse(lc.metrics.render().decode()), PREFIX + name, **labels)


async def test_a_stream_handle_counts_events_and_stops_at_an_event_boundary() -> None:
    lc = build_app(load(None, {}, {"upstream.url": "http://127.0.0.1:9", "log.format": "console"}))[LIFECYCLE]
    loop = asyncio.get_running_loop()
    reader = aiohttp.StreamReader(mock.Mock(), 2**16, loop=loop)
    relay = checked()
    handle = lc.stream(reader, relay, "passthrough")
    assert lc.open_streams == 1 and _metric(lc, "open_streams") == 1

    relay.feed(b"data: {}\n\ndata: {}\n\ndata: {")  # two whole events and the start of a third
    handle.sync()
    handle.sync()  # counted once
    assert _metric(lc, "sse_events_relayed_total", mode="passthrough") == 2

    assert lc.stop_streams() == 1
    assert handle.stopping  # what a checker writes ends with a whole event: the loop is woken at once
    assert isinstance(reader.exception(), Drained)

    late_reader = aiohttp.StreamReader(mock.Mock(), 2**16, loop=loop)
    late = lc.stream(late_reader, checked(), "passthrough")  # opened during the drain: stopped at once
    assert late.stopping and isinstance(late_reader.exception(), Drained)

    handle.close()
    late.close()
    assert lc.open_streams == 0 and _metric(lc, "open_streams") == 0

# --- reload (SIGHUP) ---------------------------------------------------------------------------------


async def test_reload_swaps_the_upstream_after_its_requests_finish(fake_agent_factory, gateway_factory) -> None:
    first, second = await fake_agent_factory("1.0"), await fake_agent_factory("1.0")
    for fake in (first, second):
        fake.reply_json("SendMessage", {"task": V10_TASK})
    first.reply_delay("SendMessage", 0.5)
    gateway = await gateway_factory(first.url, upstream__version="1.0")
    lc = gateway.app[LIFECYCLE]
    old = lc.settings

    async def send() -> Any:
        resp = await gateway.post("/", data=jsoncodec.dumpb(V10_SEND),
                                  headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
        return await resp.json()

    slow = asyncio.get_running_loop().create_task(send())
    await _until(lambda: len(first.calls("SendMessage")) == 1)
    old_session = lc.upstream.unary_pool
    assert lc.reload(lambda: load(None, {}, {"upstream.url": second.url, "upstream.version": "1.0",
                                             "server.listen": "127.0.0.1:1", "log.format": "console"}))
    assert lc.settings.upstream.url == second.url
    assert lc.settings.server.listen == old.server.listen  # read at start-up: kept until a restart
    assert "result" in await send()  # new requests: the new agent, through a new session
    assert len(second.calls("SendMessage")) == 1 and lc.upstream.unary_pool is not old_session
    assert not old_session.closed  # the slow request still uses it
    assert "result" in await slow
    await _until(lambda: old_session.closed)
    assert not lc.reload(lambda: load(None, {"A2A_GATEWAY_SERVER_WORKERS": "0"}, {"upstream.url": second.url}))
    assert lc.settings.upstream.url == second.url


def _settings(**values: object) -> Settings:
    return load(None, {}, {"upstream.url": "http://127.0.0.1:9", "log.format": "console", **values})


def test_keys_read_at_start_up_need_a_restart_and_stay() -> None:
    old = _settings()
    new = _settings(**{"server.listen": "127.0.0.1:1", "upstream.url": "http://127.0.0.1:10",
                       "limits.max_body_bytes": 1000})
    assert restart_keys(old, new) == ["server.listen"]
    kept = keep_static(old, new)
    assert kept.server.listen == old.server.listen
    assert (kept.upstream.url, kept.limits.max_body_bytes) == ("http://127.0.0.1:10", 1000)
    assert restart_keys(old, old) == []


def test_keep_static_keeps_exactly_the_restart_keys() -> None:
    old = _settings()
    changes = {"server.listen": "127.0.0.1:1", "server.workers": 2, "server.heartbeat_seconds": 3.0,
               "push.max_attempts": 9, "agui.max_sessions": 7, "admin.listen": "127.0.0.1:2",
               "tracing.exporter": "console", "limits.max_body_bytes": 1000, "log.level": "debug"}
    new = _settings(**changes)
    kept = keep_static(old, new)
    restart = set(restart_keys(old, new))
    assert restart == {"server.listen", "server.workers", "push.max_attempts", "agui.max_sessions", "admin.listen",
                       "tracing.exporter"}
    for dotted in changes:
        section, field = dotted.split(".")
        source = old if dotted in restart else new
        assert getattr(getattr(kept, section), field) == getattr(getattr(source, section), field), dotted


def test_with_routes_the_upstream_needs_a_restart_too(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text('[[routes]]\nname = "billing"\npath_prefix = "/billing"\n'
                    '[routes.upstream]\nurl = "http://127.0.0.1:9"\n', encoding="utf-8")
    old = load(path, {})
    new = load(path, {}, {"upstream.url": "http://127.0.0.1:10"})
    assert restart_keys(old, new) == ["upstream.url"]
    assert keep_static(old, new).routes == old.routes


async def test_an_invalid_configuration_keeps_the_running_one_and_is_counted_unless_supervised() -> None:
    lc = build_app(_settings())[LIFECYCLE]
    before = lc.settings

    def invalid() -> Settings:
        return load(None, {"A2A_GATEWAY_SERVER_WORKERS": "0"}, {"upstream.url": "http://127.0.0.1:10"})

    assert not lc.reload(invalid)
    assert lc.settings is before and lc.generation == 0
    lc.supervised = True  # a worker: its parent counts reloads
    assert not lc.reload(invalid)
    samples = parse(lc.metrics.render().decode())
    assert value(samples, "a2a_gateway_config_reloads_total", outcome="error") == 1

# --- drain, signals, the command line ----------------------------------------------------------------


def _halves(n: int) -> list[bytes | dict[str, Any]]:
    """`n` v1.0 stream events, each written in two pieces: the agent is often in the middle of one."""
    out: list[bytes | dict[str, Any]] = []
    for i in range(n):
        item = ({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}} if i == 0
                else {"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                       "status": {"state": "TASK_STATE_WORKING"}, "metadata": {"n": i}}})
        frame = b"data: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": item}) + b"\n\n"
        out += [frame[:20], frame[20:]]
    return out


def _complete_events(body: bytes) -> list[Any]:
    """Every event of an SSE body, parsed; fails on a half event or a body not ending an event."""
    assert body.endswith(b"\n\n"), body[-80:]
    events = []
    for block in body.split(b"\n\n")[:-1]:
        lines = block.split(b"\n")
        if all(line.startswith(b":") for line in lines):
            continue
        data = b"\n".join(line[5:].lstrip(b" ") for line in lines if line.startswith(b"data:"))
        events.append(jsoncodec.loads(data))
    return events


async def test_drain_with_open_streams_and_unary_calls_loses_nothing(fake_agent_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", _halves(400), delay=0.05)
    fake.reply_json("SendMessage", {"task": V10_TASK})
    fake.reply_delay("SendMessage", 1.0)  # replies still on their way when the drain starts
    settings = load(None, {}, {"upstream.url": fake.url, "upstream.version": "1.0", "log.format": "console",
                               "server.shutdown_grace_seconds": GRACE, "server.stream_drain_seconds": 0.3,
                               "server.heartbeat_seconds": 0, "limits.max_connections": STREAMS + UNARY})
    app = build_app(settings)
    lc = app[LIFECYCLE]
    process = Process(app, lc)
    await process.start("127.0.0.1", 0)
    url = f"http://127.0.0.1:{process.port}/"
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    try:
        async def stream(i: int) -> tuple[int, bytes]:
            v03 = i % 2 == 0  # half translated for v0.3 clients, half passed through for v1.0 clients
            headers = {"Content-Type": "application/json", **({} if v03 else {"A2A-Version": "1.0"})}
            async with session.post(url, data=jsoncodec.dumpb(V03_STREAM if v03 else V10_STREAM),
                                    headers=headers) as resp:
                return i, await resp.read()

        async def unary(i: int) -> Any:
            v03 = i % 2 == 0
            headers = {"Content-Type": "application/json", **({} if v03 else {"A2A-Version": "1.0"})}
            async with session.post(url, data=jsoncodec.dumpb(V03_SEND if v03 else V10_SEND),
                                    headers=headers) as resp:
                return resp.status, await resp.json()

        loop = asyncio.get_running_loop()
        streams = [loop.create_task(stream(i)) for i in range(STREAMS)]
        await _until(lambda: lc.open_streams == STREAMS)
        await asyncio.sleep(0.3)  # a few events each
        calls = [loop.create_task(unary(i)) for i in range(UNARY)]
        await _until(lambda: len(fake.calls("SendMessage")) == UNARY)

        started = time.monotonic()
        drain = loop.create_task(process.drain())
        await asyncio.sleep(0)
        assert lc.readiness() == (False, "draining: the gateway is shutting down")  # at once
        await asyncio.sleep(0.1)
        with pytest.raises(aiohttp.ClientConnectionError):  # the listener is closed
            async with aiohttp.ClientSession() as fresh:
                await fresh.post(url, data=b"{}")
        await asyncio.wait_for(drain, GRACE + 5)
        elapsed = time.monotonic() - started
        assert elapsed < GRACE, elapsed

        replies = await asyncio.gather(*calls)
        assert [status for status, _ in replies] == [200] * UNARY  # no unary call lost
        assert all("result" in body and "error" not in body for _, body in replies)
        assert fake.open_streams == 0  # the gateway stopped reading and closed every upstream stream

        for i, body in await asyncio.gather(*streams):
            assert body.endswith(b": draining\n\n"), (i, body[-120:])
            events = _complete_events(body)
            assert len(events) >= 2
            assert all(e["id"] == (7 if i % 2 == 0 else 1) and "result" in e for e in events)
            if i % 2 == 0:  # v0.3: kind-tagged items, none `final` (the task is still working)
                assert events[0]["result"]["kind"] == "task"
                assert all(e["result"].get("final") is False for e in events[1:])
        assert lc.in_flight == 0 and lc.open_streams == 0
    finally:
        await session.close()
        await process.drain()


async def test_streams_past_the_grace_are_cancelled_and_drain_still_ends(fake_agent_factory) -> None:
    """An agent stuck in the middle of an event: the pass-through waits for its end until the grace,
    then the request is cancelled; the drain ends on time all the same."""
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [b'data: {"jsonrpc": "2.0", "id": 1, "res'], then="hang")
    settings = load(None, {}, {"upstream.url": fake.url, "upstream.version": "1.0", "log.format": "console",
                               "server.shutdown_grace_seconds": 0.5, "server.stream_drain_seconds": 0})
    app = build_app(settings)
    lc = app[LIFECYCLE]
    process = Process(app, lc)
    await process.start("127.0.0.1", 0)
    async with aiohttp.ClientSession() as session:
        resp = await session.post(f"http://127.0.0.1:{process.port}/", data=jsoncodec.dumpb(V10_STREAM),
                                  headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
        await _until(lambda: lc.open_streams == 1)
        started = time.monotonic()
        await process.drain()
        assert time.monotonic() - started < 0.5 + 3
        assert lc.in_flight == 0
        resp.close()


# --- the real command line ------------------------------------------------------------------------


def _config(upstream: str, port: int, admin: int, extra: str = "") -> str:
    return (f'[server]\nlisten = "127.0.0.1:{port}"\nshutdown_grace_seconds = 5.0\n'
            f'[upstream]\nurl = "{upstream}"\nversion = "1.0"\n'
            f'[admin]\nlisten = "127.0.0.1:{admin}"\n[log]\nformat = "json"\n{extra}')


async def _metrics(session: aiohttp.ClientSession, admin: int) -> Any:
    async with session.get(f"http://127.0.0.1:{admin}/metrics") as resp:
        return parse(await resp.text())


async def _reloads(session: aiohttp.ClientSession, admin: int, outcome: str) -> float:
    """The reloads counted with `outcome`, once there is one (or after about five seconds)."""
    for _ in range(100):
        count = value(await _metrics(session, admin), "a2a_gateway_config_reloads_total", outcome=outcome)
        if count == 1:
            break
        await asyncio.sleep(0.05)
    return count


async def _wait_ready(session: aiohttp.ClientSession, admin: int, proc: Any) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert proc.returncode is None, "the gateway exited"
        try:
            async with session.get(f"http://127.0.0.1:{admin}/readyz") as resp:
                if resp.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError("the gateway did not become ready")


async def _send(session: aiohttp.ClientSession, port: int) -> int:
    async with session.post(f"http://127.0.0.1:{port}/", data=jsoncodec.dumpb(V10_SEND),
                            headers={"A2A-Version": "1.0", "Content-Type": "application/json"}) as resp:
        await resp.read()
        return resp.status


async def test_sighup_reloads_a_valid_file_and_keeps_the_running_one_on_an_invalid_file(
        fake_agent_factory, tmp_path: Path) -> None:
    first, second = await fake_agent_factory("1.0"), await fake_agent_factory("1.0")
    for fake in (first, second):
        fake.reply_json("SendMessage", {"task": V10_TASK})
    port, admin = _free_port(), _free_port()
    path = tmp_path / "gateway.toml"
    path.write_text(_config(first.url, port, admin))
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "serve", "--config", str(path),
                                                cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    try:
        async with aiohttp.ClientSession() as session:
            await _wait_ready(session, admin, proc)
            assert await _send(session, port) == 200
            assert len(first.calls("SendMessage")) == 1

            path.write_text(_config(second.url, port, admin))  # a new upstream
            os.kill(proc.pid, signal.SIGHUP)
            assert await _reloads(session, admin, "ok") == 1
            assert await _send(session, port) == 200
            assert (len(first.calls("SendMessage")), len(second.calls("SendMessage"))) == (1, 1)

            path.write_text(_config(first.url, port, admin, extra='[limits]\nmax_body_bytes = "big"\n'))
            os.kill(proc.pid, signal.SIGHUP)
            assert await _reloads(session, admin, "error") == 1
            assert await _send(session, port) == 200  # still the second agent: the running config stayed
            assert (len(first.calls("SendMessage")), len(second.calls("SendMessage"))) == (1, 2)

        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 10) == 0
        assert proc.stdout is not None
        log = (await proc.stdout.read()).decode()
        assert "config_reloaded" in log
        failed = [line for line in log.splitlines() if '"event": "config_reload_failed"' in line]
        assert len(failed) == 1 and "limits.max_body_bytes: must be an integer" in failed[0]
        assert '"event": "drain_done"' in log
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# --- client deadlines (server.header_timeout_seconds, body_timeout_seconds, idle_timeout_seconds) --------


async def _deadline_gateway(fake_agent_factory: Any, **keys: float) -> tuple[Any, Process, Any]:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    settings = load(None, {}, {"upstream.url": fake.url, "log.format": "console",
                               **{f"server.{k}": v for k, v in keys.items()}})
    app = build_app(settings)
    process = Process(app, app[LIFECYCLE])
    await process.start("127.0.0.1", 0)
    return fake, process, app


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """What the gateway sends before it closes the connection, which it must do within `seconds`."""
    async with asyncio.timeout(seconds):
        return await reader.read()


def test_the_default_deadlines_are_in_the_range_production_proxies_use() -> None:
    server = load(None, {}, {"upstream.url": "http://127.0.0.1:9"}).server
    assert server.header_timeout_seconds <= 15 and server.body_timeout_seconds <= 60
    assert 60 < server.idle_timeout_seconds <= 120   # above the 60 s of common load balancers


async def test_slow_headers_are_cut_at_the_header_deadline(fake_agent_factory) -> None:
    _, process, app = await _deadline_gateway(fake_agent_factory, header_timeout_seconds=0.5)
    request = b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: gw\r\nX-Slow: " + b"a" * 100
    try:
        conns = [await asyncio.open_connection("127.0.0.1", process.port) for _ in range(4)]
        silent = await asyncio.open_connection("127.0.0.1", process.port)   # sends nothing at all
        started = time.monotonic()

        async def trickle(writer: asyncio.StreamWriter) -> None:   # one byte every 50 ms, never done
            for byte in request:
                if writer.is_closing():
                    return
                writer.write(bytes([byte]))
                await asyncio.sleep(0.05)

        feeders = [asyncio.create_task(trickle(w)) for _, w in conns]
        for reader, _ in [*conns, silent]:
            assert await _closed_within(reader, 3.0) == b""   # closed, nothing answered
        assert time.monotonic() - started < 2.0
        for task in feeders:
            task.cancel()
        for _, writer in [*conns, silent]:
            writer.close()
        m = parse(app[METRICS].render().decode())
        assert value(m, "a2a_gateway_client_timeouts_total", phase="headers") == 5
    finally:
        await process.drain()


async def test_idle_keep_alive_is_not_a_slow_head_and_ends_at_the_idle_deadline(fake_agent_factory) -> None:
    _, process, _ = await _deadline_gateway(fake_agent_factory, header_timeout_seconds=0.3,
                                            idle_timeout_seconds=1.2)
    card = b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: gw\r\n\r\n"
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", process.port)
        for _ in range(2):   # idle between requests for longer than the header deadline: kept
            writer.write(card)
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200")
            length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            await asyncio.sleep(0.6)
        started = time.monotonic()
        assert await _closed_within(reader, 3.0) == b""   # then closed at the idle deadline
        assert time.monotonic() - started > 0.3
        writer.close()
    finally:
        await process.drain()


async def test_a_slow_body_is_answered_408_in_the_callers_shape_and_closed(fake_agent_factory) -> None:
    fake, process, app = await _deadline_gateway(fake_agent_factory, body_timeout_seconds=0.5)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", process.port)
        writer.write(b"POST / HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n"
                     b"Content-Length: 200\r\n\r\n" + jsoncodec.dumpb(V10_SEND)[:20])
        raw = await _closed_within(reader, 3.0)
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"Connection: close" in head, head
        error = jsoncodec.loads(body)["error"]
        assert error["code"] == -32600 and "server.body_timeout_seconds" in error["message"]
        assert fake.calls("SendMessage") == []
        m = parse(app[METRICS].render().decode())
        assert value(m, "a2a_gateway_client_timeouts_total", phase="body") == 1
        writer.close()
    finally:
        await process.drain()


async def test_a_request_whose_head_arrived_in_time_is_not_cut_later(fake_agent_factory) -> None:
    fake, process, _ = await _deadline_gateway(fake_agent_factory, header_timeout_seconds=0.4)
    working = {**V10_TASK, "status": {"state": "TASK_STATE_WORKING"}}  # not terminal: the stream goes on
    fake.reply_sse("SendStreamingMessage", [{"task": working}, {"task": V10_TASK}], delay=0.8)
    try:
        async with aiohttp.ClientSession() as session, session.post(
                f"http://127.0.0.1:{process.port}/", json=V10_STREAM, headers={"A2A-Version": "1.0"}) as resp:
            assert (await resp.read()).count(b"data: ") == 2
    finally:
        await process.drain()


# --- a listener that cannot be opened: one line that names the key ------------------------------------


async def test_a_taken_port_is_said_in_one_line_naming_the_key(fake_agent_factory) -> None:
    fake = await fake_agent_factory("1.0")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        for admin, key, env in ((None, "server.listen", "A2A_GATEWAY_SERVER_LISTEN"),
                                (("127.0.0.1", taken), "admin.listen", "A2A_GATEWAY_ADMIN_LISTEN")):
            settings = load(None, {}, {"upstream.url": fake.url, "log.format": "console"})
            app = build_app(settings)
            process = Process(app, app[LIFECYCLE], admin=build_app(settings) if admin else None)
            with pytest.raises(ListenFailed) as info:
                await process.start("127.0.0.1", _free_port() if admin else taken, admin)
            await process.close()
            message = str(info.value)
            assert "\n" not in message and f"127.0.0.1:{taken}" in message and "address already in use" in message
            assert f"set {key} ({env}) to a free HOST:PORT" in message


async def test_a_second_gateway_on_the_admin_port_exits_saying_so(fake_agent_factory, tmp_path: Path) -> None:
    fake = await fake_agent_factory("1.0")
    with socket.socket() as held:   # the first gateway's admin listener, as far as the second can tell
        held.bind(("127.0.0.1", 0))
        held.listen()
        env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}
        env["A2A_GATEWAY_ADMIN_LISTEN"] = f"127.0.0.1:{held.getsockname()[1]}"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gateway", "--listen", f"127.0.0.1:{_free_port()}", "--upstream", fake.url,
            cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 1   # it keeps exiting: a gateway without its admin listener would be worse
    failed = [line for line in out.decode().splitlines() if "listen_failed" in line]
    assert len(failed) == 1 and "admin.listen (A2A_GATEWAY_ADMIN_LISTEN)" in failed[0], out.decode()
