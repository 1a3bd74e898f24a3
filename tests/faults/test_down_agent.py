"""An agent that is down, in front of a port where nothing listens, through every door (JSON-RPC, HTTP+JSON,
gRPC; v0.3 and v1.0 callers) of a gateway on its defaults: every call answered within 5 s, in the caller's
shape, naming the agent and the cause in plain words; a few log lines, not one per attempt; /readyz says so;
and once an agent starts on that port it is served within seconds."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import aiohttp
import grpc
import pytest

from gateway.core.bindings.grpc import message_class
from gateway.core.types import Version
from tests.faults.hostile import HostileAgent
from tests.faults.test_upstream import Client
from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.shell.conftest import send_request

ANSWER_S = 5.0
LIBRARY_WORDS = ("ssl:default", "ClientConnectorError", "ServerDisconnectedError", "ClientOSError", "Errno")
GRPC_SEND = {Version.V03: "/a2a.v1.A2AService/SendMessage", Version.V10: "/lf.a2a.v1.A2AService/SendMessage"}
HTTP_CALLERS = [Client("0.3", False), Client("1.0", False), Client("0.3", True), Client("1.0", True)]


@pytest.fixture
def down() -> Iterator[tuple[Gateway, int, int]]:
    """(the gateway, the agent's port where nothing listens yet, the gateway's gRPC port)."""
    port, grpc_port = free_port(), free_port()
    with run_gateway(f"http://127.0.0.1:{port}", "--grpc-listen", f"127.0.0.1:{grpc_port}",
                     card_status=503) as gateway:
        yield gateway, port, grpc_port


async def _http(session: aiohttp.ClientSession, gateway: Gateway, client: Client, case: str) -> tuple[int, Any, float]:
    path, body, headers = client.request(case, False)
    started = time.monotonic()
    async with session.post(gateway.base_url + path, json=body, headers=headers,
                            timeout=aiohttp.ClientTimeout(total=60)) as resp:
        return resp.status, (await resp.json(content_type=None), resp.headers), time.monotonic() - started


async def _grpc(channel: grpc.aio.Channel, version: Version) -> tuple[grpc.StatusCode, str, float]:
    started = time.monotonic()
    try:
        reply = await channel.unary_unary(GRPC_SEND[version])(send_request(version), timeout=60)
    except grpc.aio.AioRpcError as err:
        return err.code(), err.details() or "", time.monotonic() - started
    cls = message_class(version, "SendMessageResponse")
    return grpc.StatusCode.OK, str(cls.FromString(reply)), time.monotonic() - started


def _plain(message: str, port: int) -> None:
    assert f"http://127.0.0.1:{port}" in message and "refused" in message, message
    assert not any(word in message for word in LIBRARY_WORDS), message


async def _all_down(gateway: Gateway, port: int, grpc_port: int, session: aiohttp.ClientSession,
                    channel: grpc.aio.Channel) -> int:
    """Every door's call answered as an error in its shape, within ANSWER_S each; the number of calls."""
    calls = 0
    for round_ in range(2):
        for client in HTTP_CALLERS:
            status, (body, headers), took = await _http(session, gateway, client, f"down{round_}")
            calls += 1
            assert took <= ANSWER_S, (client, took)
            client.error(body, f"down{round_}")
            error = body["error"] if not client.rest or client.version == "1.0" else body
            _plain(error["message"], port)
            if client.rest:   # the agent known down: 503 with Retry-After (502 for the call that found it so)
                assert status in (502, 503), status
                assert status == 502 or int(headers["Retry-After"]) >= 1, headers
        for version in (Version.V03, Version.V10):
            code, details, took = await _grpc(channel, version)
            calls += 1
            assert took <= ANSWER_S, (version, took)
            assert code is grpc.StatusCode.UNAVAILABLE, (code, details)
            _plain(details, port)
    return calls


async def _served_within(gateway: Gateway, session: aiohttp.ClientSession, seconds: float) -> float:
    """How long until a v1.0 JSON-RPC call is answered by the agent (at most `seconds`)."""
    started = time.monotonic()
    while True:
        status, (body, _), _ = await _http(session, gateway, Client("1.0", False), "ok")
        if status == 200 and "result" in body:
            return time.monotonic() - started
        assert time.monotonic() - started < seconds, body
        await asyncio.sleep(0.1)


@pytest.mark.parametrize(("version", "binding"), [("1.0", "JSONRPC"), ("0.3", "HTTP+JSON")])
async def test_a_down_agent_is_answered_at_once_and_served_when_it_comes_up(down: tuple[Gateway, int, int],
                                                                             version: str, binding: str) -> None:
    gateway, port, grpc_port = down
    lines_before = len(gateway.log().splitlines())
    # the card fetch begun at the start found the agent down within one retry budget (the first caller's wait)
    at_start = [json.loads(line) for line in gateway.log().splitlines()]
    events = {line["event"]: datetime.fromisoformat(line["timestamp"]) for line in at_start
              if line.get("event") in ("listening", "upstream_down")}
    assert (events["upstream_down"] - events["listening"]).total_seconds() < ANSWER_S, events
    async with aiohttp.ClientSession() as session, grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        calls = await _all_down(gateway, port, grpc_port, session, channel)
        logged = gateway.log().splitlines()[lines_before:]
        assert len(logged) <= 60 * calls / 10, "\n".join(logged)
        assert sum('"upstream_down"' in line for line in logged) <= 1, "\n".join(logged)
        async with session.get(gateway.admin_url + "/readyz") as resp:
            ready = await resp.json()
        assert "unavailable" in ready["reason"] and f"127.0.0.1:{port}" in ready["reason"], ready

        agent = HostileAgent(version, binding, port=port).start()
        try:
            took = await _served_within(gateway, session, 5.0)
            for client in HTTP_CALLERS:   # every door serves it now
                status, (body, _), _ = await _http(session, gateway, client, "ok")
                assert status == 200, body
                client.item(body, "ok")
            for version in (Version.V03, Version.V10):
                code, details, _ = await _grpc(channel, version)
                assert code is grpc.StatusCode.OK, details
            async with session.get(gateway.admin_url + "/readyz") as resp:
                ready = await resp.json()
            assert ready["ready"] and ready["reason"] == "ready", ready
        finally:
            agent.stop()
    print(f"{calls} calls to a down agent, {len(logged)} log lines; served {took:.2f} s after it came up")
