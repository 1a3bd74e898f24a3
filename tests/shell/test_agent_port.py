"""The agent port over HTTP against a scripted agent (its gRPC side runs against real a2a-sdk agents in
tests/peers/test_peers_agui.py): a v1.0 result read back, the caller's headers carried with the interface's
version and the configured extras, an authentication challenge handed back, a 5xx that is no JSON the agent
unavailable, an unreadable reply the gateway's fault, a stream opened on the interface."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from multidict import CIMultiDict

from gateway.config import load
from gateway.core.card import Interface
from gateway.core.errors import GatewayError, UpstreamUnavailable
from gateway.core.exchange import Call, Exchange, Result
from gateway.core.operations import by_name
from gateway.core.types import Binding, Version
from gateway.shell.agent.port import Caller, Challenge, open_stream, result
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import Upstream

GET = {"id": "t1"}
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}
MESSAGE = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


@pytest.fixture
async def agent(fake_agent_factory: Any) -> Any:
    return await fake_agent_factory(version="1.0")


@pytest.fixture
async def upstream(agent: Any) -> AsyncIterator[Upstream]:
    settings = load(None, {}, {"upstream.url": agent.url, "upstream.headers": {"X-Team": "blue"}})
    port = Upstream(settings.upstream, settings.limits)
    await port.start()
    try:
        yield port
    finally:
        await port.close()


def _exchange(agent: Any, op: str, params: Any) -> Exchange:
    iface = Interface(Version.V10, Binding.JSONRPC, agent.url)
    return Exchange(Call(by_name(op), Version.V10, Binding.JSONRPC, params, 1), iface)


async def test_a_result_with_the_callers_headers_and_the_interfaces_version(agent: Any, upstream: Upstream) -> None:
    agent.reply_json("GetTask", TASK)
    got = await result(upstream, _exchange(agent, "get_task", GET), Caller(CIMultiDict({"Authorization": "Bearer k"})),
                       read_only=True)
    assert got == Result(True, TASK)
    (sent,) = agent.calls("GetTask")
    assert sent.headers["Authorization"] == "Bearer k" and sent.headers["X-Team"] == "blue"
    assert sent.headers["A2A-Version"] == "1.0" and sent.headers["Accept"] == "application/json"


async def test_an_a2a_error_is_a_result_too(agent: Any, upstream: Upstream) -> None:
    agent.reply_json("GetTask", error={"code": -32001, "message": "Task not found"})
    got = await result(upstream, _exchange(agent, "get_task", GET))
    assert isinstance(got, Result) and not got.ok and got.value["code"] == -32001


async def test_a_challenge_goes_back_to_the_caller(agent: Any, upstream: Upstream) -> None:
    agent.reply_json("GetTask", raw=b"denied", status=401, headers={"WWW-Authenticate": "Bearer"})
    got = await result(upstream, _exchange(agent, "get_task", GET))
    assert isinstance(got, Challenge) and got.status == 401 and got.headers["WWW-Authenticate"] == "Bearer"


async def test_an_html_5xx_is_the_agent_unavailable_and_junk_the_gateways_fault(agent: Any, upstream: Upstream) -> None:
    agent.reply_json("GetTask", raw=b"<html>down</html>", status=502, headers={"Content-Type": "text/html"})
    with pytest.raises(UpstreamUnavailable, match="HTTP 502"):
        await result(upstream, _exchange(agent, "get_task", GET))
    agent.reply_json("GetTask", raw=b"{not json")
    with pytest.raises(GatewayError):
        await result(upstream, _exchange(agent, "get_task", GET))


async def test_a_stream_is_opened_on_the_interface_and_closed_with_the_block(agent: Any, upstream: Upstream) -> None:
    agent.reply_sse("SendStreamingMessage", [b'data: {"jsonrpc":"2.0","id":1,"result":{"task":' +
                                             b'{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n'])
    async with open_stream(upstream, _exchange(agent, "send_streaming_message", MESSAGE)) as resp:
        assert isinstance(resp, StreamReply) and resp.status == 200 and resp.content_type == "text/event-stream"
        assert b"TASK_STATE_COMPLETED" in await resp.read()
    (sent,) = agent.calls("SendStreamingMessage")
    assert sent.headers["Accept"] == "text/event-stream"
    assert resp.closed
