"""gRPC channels toward agents against a real grpc.aio server on loopback: targets and TLS from the URL,
bytes both ways, metadata and statuses read back, an unreachable agent as the gateway's own fault."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from gateway.core.bindings.grpc import DETAILS_KEY
from gateway.core.errors import UpstreamTimeout, UpstreamUnavailable
from gateway.shell.agent.channels import Channels, target_of
from gateway.shell.process.lifecycle import Drained


@pytest.mark.parametrize(("url", "target", "secure"), [
    ("127.0.0.1:50051", "127.0.0.1:50051", False),   # what a2a-sdk's cards list
    ("grpc://agent:7000", "agent:7000", False),
    ("http://agent:7000/", "agent:7000", False),
    ("grpcs://agent.example", "agent.example:443", True),
    ("https://[::1]:9443", "[::1]:9443", True),
])
def test_target_of(url: str, target: str, secure: bool) -> None:
    assert target_of(url) == (target, secure)


def test_target_of_refuses_other_schemes() -> None:
    with pytest.raises(UpstreamUnavailable):
        target_of("ftp://agent:21")


async def _echo(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    said = dict(context.invocation_metadata() or ())
    await context.send_initial_metadata((("seen-auth", str(said.get("authorization", ""))),))
    if request == b"fail":
        await context.abort(grpc.StatusCode.NOT_FOUND, "TaskNotFoundError: no", ((DETAILS_KEY, b"\x08\x05"),))
    return request[::-1]


async def _count(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
    for i in range(int(request)):
        yield str(i).encode()
        if int(request) > 10:   # a long stream: one message every 50 ms
            await asyncio.sleep(0.05)
    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "done badly")


@pytest.fixture
async def server() -> AsyncIterator[str]:
    srv = grpc.aio.server()
    srv.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("t.S", {
        "Echo": grpc.unary_unary_rpc_method_handler(_echo),
        "Count": grpc.unary_stream_rpc_method_handler(_count),
    })])
    port = srv.add_insecure_port("127.0.0.1:0")
    await srv.start()
    yield f"127.0.0.1:{port}"
    await srv.stop(0)


async def test_unary_bytes_metadata_and_status(server: str) -> None:
    channels = Channels(1 << 20)
    try:
        ok = await channels.unary(server, "/t.S/Echo", b"abc", [("authorization", "Bearer t")], timeout=5)
        assert ok.message == b"cba" and ok.status is None and ("seen-auth", "Bearer t") in ok.initial
        failed = await channels.unary(server, "/t.S/Echo", b"fail", [], timeout=5)
        assert failed.message is None and failed.status is not None
        assert (failed.status.name, failed.status.message, failed.status.details) == (
            "NOT_FOUND", "TaskNotFoundError: no", b"\x08\x05")
        assert channels.channel(server) is channels.channel(server)  # pooled
    finally:
        await channels.close()


async def test_stream_messages_then_status(server: str) -> None:
    channels = Channels(1 << 20)
    try:
        async with channels.stream(server, "/t.S/Count", b"3", [], timeout=5, first_byte=5, idle=5) as call:
            await call.head()
            got: list[Any] = [m async for m in call.messages()]
        assert got == [b"0", b"1", b"2"]
        assert call.status is not None and call.status.name == "FAILED_PRECONDITION"
    finally:
        await channels.close()


async def test_unreachable_agent_is_the_gateways_fault() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    channels = Channels(1 << 20)
    try:
        with pytest.raises((UpstreamUnavailable, UpstreamTimeout)):
            await channels.unary(f"127.0.0.1:{port}", "/t.S/Echo", b"x", [], timeout=2)
    finally:
        await channels.close()


async def test_drain_ends_the_stream_cleanly(server: str) -> None:
    """The lifecycle's stream handle wakes a gRPC agent's stream: its call is cancelled, the messages end
    with no status (the caller's stream then ends as a drained HTTP one does)."""
    channels = Channels(1 << 20)
    try:
        async with channels.stream(server, "/t.S/Count", b"1000", [], timeout=30, first_byte=5,
                                   idle=5) as call:
            await call.head()
            got = []
            async for message in call.messages():
                got.append(message)
                if len(got) == 2:
                    call.set_exception(Drained())
        assert got == [b"0", b"1"] and call.status is None and call.events_out == 2
        assert call.call.cancelled()
    finally:
        await channels.close()
