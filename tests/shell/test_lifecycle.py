"""Lifecycle: requests beyond `limits.max_client_connections` are refused (503, Retry-After, closed);
the event loop choice; and the requests, agents' replies and helpers the other lifecycle tests share."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from gateway.config import load
from gateway.shell.app import build_app, loop_factory
from gateway.shell.keys import LIFECYCLE, METRICS
from gateway.shell.lifecycle import Process
from tests.shell.test_metrics import parse, value

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
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_requests_beyond_max_client_connections_get_503(fake_agent_factory) -> None:
    fake = await fake_agent_factory("1.0")
    settings = load(None, {}, {"upstream.url": fake.url, "log.format": "console",
                               "limits.max_client_connections": 2})
    app = build_app(settings)
    process = Process(app, app[LIFECYCLE])
    await process.start("127.0.0.1", 0)
    request = b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: gw\r\n\r\n"
    conns = []
    try:
        statuses = []
        for _ in range(3):  # keep-alive connections, all left open
            reader, writer = await asyncio.open_connection("127.0.0.1", process.port)
            conns.append(writer)
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            statuses.append(int(head.split()[1]))
            length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            if statuses[-1] == 503:
                assert b"Retry-After: 1" in head and b"Connection: close" in head
        assert statuses == [200, 200, 503]
        m = parse(app[METRICS].render().decode())
        assert value(m, "a2a_gateway_connection_limit_rejections_total") == 1
    finally:
        for writer in conns:
            writer.close()
        await process.drain()


def test_event_loop_choice() -> None:
    assert loop_factory("asyncio") is None
    try:
        import uvloop
    except ImportError:
        assert loop_factory("auto") is None
    else:
        assert loop_factory("auto") is uvloop.new_event_loop
        assert loop_factory("uvloop") is uvloop.new_event_loop
