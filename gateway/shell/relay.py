"""The loop between an upstream event stream and a client `web.StreamResponse`: SSE headers, no
compression, keep-alives while the agent is silent, the look-ahead timer of `final`, the idle timeout,
the drain, and the upstream closed in `finally` whoever leaves. It never inspects events: a translator
(core.stream.StreamRelay) or a checker (core.passthrough.CheckedStream) does."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.core.errors import GatewayError, UpstreamTimeout, UpstreamUnavailable
from gateway.core.passthrough import CheckedStream
from gateway.core.sse import SseComment, encode
from gateway.observability import get_logger
from gateway.shell.lifecycle import Drained, Lifecycle

log = get_logger("gateway.relay")

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",   # no buffering in front (nginx)
}
LOOKAHEAD_SECONDS = 0.25
# A burst the agent has already sent is relayed in slices of this many bytes, each written as soon as it
# is translated: the client's first event does not wait for the whole burst (and other streams get turns).
FEED_BYTES = 16384
KEEPALIVE = encode(SseComment(" keep-alive"))
DRAINING = encode(SseComment(" draining"))


class Relay(Protocol):
    """What the loop needs of a stream translator (core.stream.StreamRelay) or checker (core.passthrough)."""

    @property
    def done(self) -> bool: ...
    @property
    def holding(self) -> bool: ...
    @property
    def events_out(self) -> int: ...
    def feed(self, chunk: bytes) -> bytes: ...
    def close(self) -> bytes: ...
    def release(self) -> bytes: ...
    def fail(self, error: GatewayError) -> bytes: ...


async def start_stream(request: web.Request, headers: CIMultiDict[str]) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers=headers)
    response.headers.update(SSE_HEADERS)
    await response.prepare(request)
    return response


async def pump(response: web.StreamResponse, upstream: aiohttp.ClientResponse, relay: Relay, *,
               heartbeat: float, idle_timeout: float, lifecycle: Lifecycle | None = None,
               keepalive: bytes = KEEPALIVE, hold_seconds: float = LOOKAHEAD_SECONDS) -> int:
    """Relay upstream chunks through `relay` until either side ends; returns bytes written.
    The upstream response is always released, also when the client has gone (write fails or the
    handler is cancelled). With a `lifecycle`, the stream is registered and counted, and the drain
    ends it after its last complete event (`: draining`). `keepalive` is written after `heartbeat`
    seconds without a write; while the relay is `holding`, `release()` is called once the upstream
    has been quiet for `hold_seconds`. A bug in the relay ends the stream with its error frame."""
    written = 0
    reader = upstream.content
    handle = None
    if lifecycle is not None:
        mode = "passthrough" if isinstance(relay, CheckedStream) else "translated"
        handle = lifecycle.stream(reader, relay, mode)
    last_upstream = last_write = time.monotonic()
    try:
        while not relay.done:
            if handle is not None and handle.stopping and handle.at_boundary:
                written += await _write(response, relay.release() + DRAINING)
                break
            now = time.monotonic()
            deadlines = [last_upstream + idle_timeout]
            beat = heartbeat > 0  # every relay writes whole events: a keep-alive never lands inside one
            if beat:
                deadlines.append(last_write + heartbeat)
            if relay.holding:
                deadlines.append(last_upstream + hold_seconds)
            wait = max(0.0, min(deadlines) - now)
            try:
                chunk = await asyncio.wait_for(reader.readany(), timeout=wait)
            except TimeoutError:
                now = time.monotonic()
                if now >= last_upstream + idle_timeout:
                    if handle is not None:
                        handle.upstream_error("timeout")
                    out = relay.fail(UpstreamTimeout(f"upstream stream idle for {idle_timeout:g} s"))
                    written += await _write(response, out)
                    break
                if relay.holding and now >= last_upstream + hold_seconds:
                    out = relay.release()
                elif beat and now >= last_write + heartbeat:
                    out = keepalive
                else:
                    continue
                if out:
                    written += await _write(response, out)
                    last_write = time.monotonic()
                continue
            except aiohttp.ClientError as exc:
                if handle is not None:
                    handle.upstream_error("stream_broken")
                written += await _write(response, relay.fail(
                    UpstreamUnavailable(f"upstream stream broke: {type(exc).__name__}")))
                break
            except Drained:  # the drain woke the loop: the check at its top ends the stream
                continue
            if not chunk:  # upstream EOF
                written += await _write(response, relay.close())
                break
            last_upstream = time.monotonic()
            for start in range(0, len(chunk), FEED_BYTES):
                try:
                    out = relay.feed(chunk[start:start + FEED_BYTES] if len(chunk) > FEED_BYTES else chunk)
                except Exception as exc:  # a bug, not the agent's fault: logged, and the stream ends cleanly
                    log.exception("relay_internal_error", error=f"{type(exc).__name__}: {exc}")
                    out = relay.fail(GatewayError(f"internal error: {type(exc).__name__}"))
                    written += await _write(response, out)
                    break
                if out:
                    written += await _write(response, out)
                    last_write = time.monotonic()
                    if handle is not None:
                        handle.sync()
                if _ended(relay):
                    break
    finally:
        if handle is not None:
            handle.close()
        if reader.at_eof():
            upstream.release()
        else:  # the client left, the relay ended early, or the upstream broke: drop the connection
            upstream.close()
    return written


def _ended(relay: Relay) -> bool:
    """`relay.done`, read through a call: the loop's test would otherwise keep it narrowed for mypy."""
    return relay.done


async def _write(response: web.StreamResponse, data: bytes) -> int:
    if data:
        await response.write(data)
    return len(data)
