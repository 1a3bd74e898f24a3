"""Process: a gateway holding 100 open streams and in-flight unary calls drains (nothing lost, complete
events only, within the grace); SIGHUP on the real command line; SIGTERM exits 0."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from gateway.config import load
from gateway.core import jsoncodec
from gateway.shell.app import build_app
from gateway.shell.keys import LIFECYCLE
from gateway.shell.lifecycle_process import Process
from tests.shell.test_lifecycle import V03_SEND, V03_STREAM, V10_SEND, V10_STREAM, V10_TASK, _free_port, _until
from tests.shell.test_metrics import parse, value

ROOT = Path(__file__).resolve().parents[2]
STREAMS = 100
UNARY = 20
GRACE = 8.0


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


# ---- the real command line -------------------------------------------------------------------------


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
