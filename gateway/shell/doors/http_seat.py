"""The HTTP doors' (JSON-RPC, HTTP+JSON) `forward` and their seat at a composed flow (shell.carrier.compose.Seat): a
composed v1.0 call answered with respond / start_stream / pump, anything else carried on by shell.carrier.proxy."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from gateway.core.card import Interface
from gateway.core.errors import GatewayError
from gateway.core.exchange import Call, Exchange
from gateway.core.stream import StreamRelay
from gateway.core.types import Version
from gateway.shell.agent.headers import client_response_headers
from gateway.shell.agent.port import Caller, Challenge
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import Upstream
from gateway.shell.carrier.compose import Got, compose, may_compose
from gateway.shell.carrier.pipeline import Context, respond, start_stream
from gateway.shell.carrier.proxy import Raw, exchange_for
from gateway.shell.carrier.proxy import forward as proxy_forward
from gateway.shell.carrier.relay import KEEPALIVE, pump
from gateway.shell.carrier.task_index import TASK_INDEX, TaskStore

__all__ = ["HttpSeat", "forward"]


async def forward(ctx: Context, call: Call, raw: Raw) -> web.StreamResponse:
    """A v1.0 call the agent's v0.3 interface cannot serve as v1.0 requires: composed; anything else: proxied.
    A streaming call holds one of the caller's stream slots ([callers] max_streams) either way."""
    if call.op.streaming:
        async with ctx.stream_slot():
            return await _forward(ctx, call, raw)
    return await _forward(ctx, call, raw) if may_compose(call) else await proxy_forward(ctx, call, raw)


async def _forward(ctx: Context, call: Call, raw: Raw) -> web.StreamResponse:
    composed = await compose(HttpSeat(ctx, call)) if may_compose(call) else None
    return composed if composed is not None else await proxy_forward(ctx, call, raw)


def _headers() -> CIMultiDict[str]:
    return client_response_headers(CIMultiDict(), Version.V10)


class HttpSeat:
    """A composed flow's HTTP caller: its request's headers forwarded, answers as the caller's JSON-RPC or
    HTTP+JSON replies, a stream as SSE."""

    __slots__ = ("call", "ctx", "stream")

    def __init__(self, ctx: Context, call: Call) -> None:
        self.ctx, self.call = ctx, call
        self.stream: web.StreamResponse | None = None

    @property
    def door(self) -> Context:
        return self.ctx

    @property
    def upstream(self) -> Upstream:
        return self.ctx.upstream

    @property
    def store(self) -> TaskStore:
        return self.ctx.request.config_dict[TASK_INDEX]

    @property
    def scope(self) -> str:
        return self.ctx.task_scope()

    @property
    def ended(self) -> bool:
        return False   # an SSE stream takes events until it is closed

    def exchange(self, call: Call, iface: Interface) -> Exchange:
        return exchange_for(self.ctx, call, iface)

    @property
    def caller(self) -> Caller:
        return Caller(self.ctx.forwarded_raw(), self.ctx.request.remote)

    async def answer(self, main: Exchange, got: Got) -> web.StreamResponse:
        ctx = self.ctx
        if isinstance(got, Challenge):
            ctx.outcome = "error"
            return web.Response(body=got.body, status=got.status,
                                headers=client_response_headers(got.headers, Version.V10))
        reply = main.error_reply(got) if isinstance(got, GatewayError) else main.reply_for(got)
        ctx.outcome = "error" if reply.error else "ok"
        return respond(reply, _headers())

    def relay(self, main: Exchange) -> StreamRelay[bytes, bytes]:
        return main.stream(max_event_bytes=self.ctx.settings.limits.max_sse_event_bytes)

    async def start(self) -> None:
        self.stream = await start_stream(self.ctx, _headers())

    def _open(self) -> web.StreamResponse:
        assert self.stream is not None, "the stream is started first"
        return self.stream

    async def write(self, out: bytes) -> int:
        await self._open().write(out)
        return len(out)

    async def pump(self, resp: StreamReply, relay: StreamRelay[Any, bytes]) -> int:
        settings = self.ctx.settings
        return await pump(self._open(), resp, relay, heartbeat=settings.server.heartbeat_seconds,
                          lifecycle=self.ctx.lifecycle,
                          budget=self.ctx.budget)

    async def keepalive(self) -> int:
        return await self.write(KEEPALIVE)

    async def end(self, written: int, relay: StreamRelay[Any, bytes]) -> web.StreamResponse:
        stream = self._open()
        await stream.write_eof()
        ctx = self.ctx
        ctx.outcome, ctx.fields["bytes"], ctx.fields["events"] = "stream", written, relay.events_out
        return stream
