"""The loop between an upstream event stream and a client `web.StreamResponse`: SSE headers, no
compression, keep-alive comments while the agent is silent, the look-ahead timer of `final`, the
idle timeout, and the upstream closed in `finally` whoever leaves. It never inspects events."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.core.errors import GatewayError, UpstreamUnavailable
from gateway.core.sse import SseComment, encode

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",   # no buffering in front (nginx)
}
LOOKAHEAD_SECONDS = 0.25
KEEPALIVE = encode(SseComment(" keep-alive"))


class Relay(Protocol):
    """What the loop needs of a stream translator (core.stream.StreamRelay, or a pass-through)."""

    @property
    def done(self) -> bool: ...
    @property
    def holding(self) -> bool: ...
    def feed(self, chunk: bytes) -> bytes: ...
    def close(self) -> bytes: ...
    def release(self) -> bytes: ...
    def fail(self, error: GatewayError) -> bytes: ...


class PassThrough:
    """Same version on both sides: bytes go through untouched."""

    done = False
    holding = False

    def feed(self, chunk: bytes) -> bytes:
        return chunk

    def close(self) -> bytes:
        return b""

    def release(self) -> bytes:
        return b""

    def fail(self, error: GatewayError) -> bytes:
        return b""


async def start_stream(request: web.Request, headers: CIMultiDict[str]) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers=headers)
    response.headers.update(SSE_HEADERS)
    await response.prepare(request)
    return response


async def pump(response: web.StreamResponse, upstream: aiohttp.ClientResponse, relay: Relay, *,
               heartbeat: float, idle_timeout: float) -> int:
    """Relay upstream chunks through `relay` until either side ends; returns bytes written.
    The upstream response is always released, also when the client has gone (write fails or the
    handler is cancelled)."""
    written = 0
    reader = upstream.content
    last_upstream = last_write = time.monotonic()
    try:
        while not relay.done:
            now = time.monotonic()
            deadlines = [last_upstream + idle_timeout]
            if heartbeat > 0:
                deadlines.append(last_write + heartbeat)
            if relay.holding:
                deadlines.append(last_upstream + LOOKAHEAD_SECONDS)
            wait = max(0.0, min(deadlines) - now)
            try:
                chunk = await asyncio.wait_for(reader.readany(), timeout=wait)
            except TimeoutError:
                now = time.monotonic()
                if now >= last_upstream + idle_timeout:
                    out = relay.fail(UpstreamUnavailable(f"upstream stream idle for {idle_timeout:g} s"))
                    written += await _write(response, out)
                    break
                if relay.holding and now >= last_upstream + LOOKAHEAD_SECONDS:
                    out = relay.release()
                elif heartbeat > 0 and now >= last_write + heartbeat:
                    out = KEEPALIVE
                else:
                    continue
                if out:
                    written += await _write(response, out)
                    last_write = time.monotonic()
                continue
            except aiohttp.ClientError as exc:
                written += await _write(response, relay.fail(
                    UpstreamUnavailable(f"upstream stream broke: {type(exc).__name__}")))
                break
            if not chunk:  # upstream EOF
                written += await _write(response, relay.close())
                break
            last_upstream = time.monotonic()
            out = relay.feed(chunk)
            if out:
                written += await _write(response, out)
                last_write = time.monotonic()
    finally:
        if reader.at_eof():
            upstream.release()
        else:  # the client left, the relay ended early, or the upstream broke: drop the connection
            upstream.close()
    return written


async def _write(response: web.StreamResponse, data: bytes) -> int:
    if data:
        await response.write(data)
    return len(data)
