"""The loop between an upstream event stream and a client `web.StreamResponse`: SSE headers, no
compression, keep-alives while the agent is silent, the look-ahead timer of `final`, the idle timeout,
the drain, and the upstream closed in `finally` whoever leaves. It never inspects events."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Protocol

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.core.errors import GatewayError, UpstreamTimeout, UpstreamUnavailable
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
# A blank line ends an event; a line ends with CRLF, LF or CR (a CR followed by LF is one ending).
_EOL = rb"(?:\r\n|\r(?!\n)|\n)"
_BLANK = re.compile(_EOL + _EOL)
_ENDS_EVENT = re.compile(_EOL + _EOL + rb"\Z")


class Relay(Protocol):
    """What the loop needs of a stream translator (core.stream.StreamRelay, or a pass-through)."""

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


class PassThrough:
    """Same version on both sides: bytes go through untouched. It counts SSE blocks and knows whether
    what it wrote ends an event; once `stopping` (drain), it writes up to the next event's end only."""

    done = False
    holding = False

    def __init__(self) -> None:
        self.events_out = 0
        self.stopping = False
        self._tail = b"\n\n"  # the last bytes written (the start of a stream is an event boundary)
        self._cr_end = False  # the last event ended with a CR at the end of a chunk (an LF may follow)

    @property
    def at_boundary(self) -> bool:
        return _ENDS_EVENT.search(self._tail) is not None

    def feed(self, chunk: bytes) -> bytes:
        if self.stopping and self.at_boundary:
            return b""
        buf = self._tail + chunk
        skip = len(self._tail)
        if not self.stopping and not self._cr_end and b"\r" not in buf:  # LF only, the usual case: count in C
            self.events_out += buf.count(b"\n\n") - buf.count(b"\n\n", 0, skip)
            self._tail = buf[-4:]
            return chunk
        # "…\r\n\r" then "\n…": the LF completes the CRLF of an event already counted
        same = skip + 1 if self._cr_end and chunk[:1] == b"\n" else -1
        self._cr_end = False
        for m in _BLANK.finditer(buf):
            if m.end() <= skip or m.end() == same:
                continue
            self.events_out += 1
            self._cr_end = m.end() == len(buf) and buf[-1:] == b"\r"
            if self.stopping:  # the drain: nothing after this event's end
                chunk = buf[skip:m.end()]
                break
        self._tail = (self._tail + chunk)[-4:]
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
        mode = "passthrough" if isinstance(relay, PassThrough) else "translated"
        handle = lifecycle.stream(reader, relay, mode)
    last_upstream = last_write = time.monotonic()
    try:
        while not relay.done:
            if handle is not None and handle.stopping and handle.at_boundary:
                written += await _write(response, relay.release() + DRAINING)
                break
            now = time.monotonic()
            deadlines = [last_upstream + idle_timeout]
            # a keep-alive comment never goes inside a pass-through event the agent has not finished
            beat = heartbeat > 0 and getattr(relay, "at_boundary", True)
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
