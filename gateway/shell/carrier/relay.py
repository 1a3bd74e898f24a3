"""The one loop between an agent's event stream (an HTTP reply) and the caller's stream, whatever the caller's
side: an SSE `web.StreamResponse` (SSE headers, no compression), or a gRPC caller's messages (a `Sink`).
Keep-alives while the agent is silent, the look-ahead timer of `final`, the idle timeout, the drain, the
caller's budgets, and the agent's reply closed in `finally` whoever leaves. It never inspects events: a
translator (core.stream.StreamRelay) or a checker (core.passthrough.CheckedStream) does."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Coroutine
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from gateway.core.errors import GatewayError, UpstreamTimeout, UpstreamUnavailable
from gateway.core.passthrough import CheckedStream
from gateway.core.sse import RewrittenStream, SseComment, encode
from gateway.observability import get_logger
from gateway.shell.agent.link_failures import stream_broke
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.edge.callers import StreamBudget
from gateway.shell.process.lifecycle import Drained, Lifecycle, StreamHandle

log = get_logger("gateway.relay")

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",   # no buffering in front (nginx)
}
LOOKAHEAD_SECONDS = 0.25
# A burst the agent has already sent is relayed in slices of this many bytes, each written as soon as it
# is translated: the client's first event does not wait for the whole burst (and other streams get turns).
# A pass-through has nothing to wait for: it writes each chunk whole (one write where slices took many).
FEED_BYTES = 16384
KEEPALIVE = encode(SseComment(" keep-alive"))
DRAINING = encode(SseComment(" draining"))
# the context the pump's deadline timer runs in: it reads no context variable, so none is copied per arming
_TIMER_CONTEXT = contextvars.Context()


class Relay(Protocol):
    """What the loop needs of a stream translator (core.stream.StreamRelay) or checker (core.passthrough):
    what each call gives is the sink's to write (SSE bytes, or a gRPC caller's frames)."""

    @property
    def done(self) -> bool: ...
    @property
    def holding(self) -> bool: ...
    @property
    def events_out(self) -> int: ...
    def feed(self, chunk: bytes) -> Any: ...
    def close(self) -> Any: ...
    def release(self) -> Any: ...
    def fail(self, error: GatewayError) -> Any: ...


class SinkEnded(Exception):
    """Raised by a sink's write once the caller's stream can take nothing more (a gRPC status ends the call):
    the loop stops there."""


class Sink(Protocol):
    """The caller's side of the loop: writes what the relay gives (the bytes written), and says what goes out
    last when the drain ends the stream."""

    async def write(self, out: Any) -> int: ...
    def draining(self, out: Any) -> Any: ...


class SseSink:
    """An HTTP caller's event stream: SSE bytes written as they come; the drain's last word a `: draining`
    comment after whatever the relay still held."""

    __slots__ = ("response",)

    def __init__(self, response: web.StreamResponse) -> None:
        self.response = response

    async def write(self, out: bytes) -> int:
        if out:
            await self.response.write(out)
        return len(out)

    def draining(self, out: bytes) -> bytes:
        return out + DRAINING


def pump(response: web.StreamResponse | Sink, upstream: StreamReply, relay: Relay, *,
         heartbeat: float, lifecycle: Lifecycle | None = None,
         keepalive: bytes = KEEPALIVE, hold_seconds: float = LOOKAHEAD_SECONDS,
         budget: StreamBudget | None = None) -> Coroutine[None, None, int]:
    """Relay upstream chunks through `relay` until either side ends; returns bytes written. The upstream response
    is always released, also when the client has gone (write fails or the handler is cancelled). With a
    `lifecycle`, the stream is registered and counted, and the drain (or the caller's `budget`,
    shell.process.lifecycle.StreamHandle) ends it after its last complete event (`: draining`). `keepalive` is written
    after `heartbeat` seconds without a write; while the relay is `holding`, `release()` is called once the
    upstream has been quiet for `hold_seconds`. A bug in the relay ends the stream with its error frame. (The
    loop's own coroutine is returned: an open stream holds one frame less.)"""
    upstream.forget_headers()   # passed on with the stream's head: not kept while it is open
    handle = None
    if lifecycle is not None:
        checker = relay
        while isinstance(checker, RewrittenStream):   # its output rewritten (timestamps, a mixed caller's shapes)
            checker = checker.inner
        mode = "passthrough" if isinstance(checker, CheckedStream) else "translated"
        handle = lifecycle.stream(upstream.content, relay, mode, budget)
    sink = SseSink(response) if isinstance(response, web.StreamResponse) else response
    return _Pump(sink, upstream, relay, handle, heartbeat=heartbeat, idle_timeout=upstream.idle,
                 keepalive=keepalive, hold_seconds=hold_seconds).run()


class _Pump:
    """One stream's relay loop (see pump): what it waits for next, and what a chunk, a quiet upstream, a
    broken upstream and the end do; `written` counts the bytes the client was sent. One per open stream:
    slots, no dict.

    Its deadlines share one lazy timer: a chunk moves `last_upstream` on and leaves the timer alone; the timer,
    when it fires early, re-arms for the deadline as it stands then, and when a deadline has passed it cancels
    the waiting read (told apart from any other cancellation by `fired` and Task.uncancel). A busy stream so
    arms a timer about once a deadline period, not once a chunk as a timeout around each read would."""

    __slots__ = ("beat", "due_at", "fired", "handle", "heartbeat", "hold_seconds", "idle_timeout", "keepalive",
                 "last_upstream", "last_write", "reader", "relay", "sink", "task", "timer", "upstream",
                 "waiting", "written")

    def __init__(self, sink: Sink, upstream: StreamReply, relay: Relay,
                 handle: StreamHandle | None, *, heartbeat: float, idle_timeout: float, keepalive: bytes,
                 hold_seconds: float) -> None:
        self.sink, self.upstream, self.reader, self.relay = sink, upstream, upstream.content, relay
        self.handle, self.heartbeat, self.idle_timeout = handle, heartbeat, idle_timeout
        self.keepalive, self.hold_seconds = keepalive, hold_seconds
        self.written = 0
        self.last_upstream = self.last_write = time.monotonic()
        self.beat = False  # whether the current wait includes the keep-alive deadline
        self.task: asyncio.Task[object] | None = None   # the loop's own task, while it waits on a read
        self.timer: asyncio.TimerHandle | None = None
        self.due_at = 0.0   # when the timer fires (time.monotonic)
        self.waiting = self.fired = False

    async def run(self) -> int:
        relay, handle = self.relay, self.handle
        self.task = asyncio.current_task()
        try:
            while not relay.done:
                if handle is not None and handle.stopping:
                    await self.write(self.sink.draining(relay.release()))
                    break
                try:
                    chunk = await self.read()
                except TimeoutError:
                    if await self.quiet():
                        break
                    continue
                except aiohttp.ClientError as exc:
                    broke = UpstreamUnavailable(stream_broke(exc))
                    await self.fail("stream_broken", broke)
                    break
                except Drained:  # the drain woke the loop: the check at its top ends the stream
                    continue
                if not chunk:  # upstream EOF
                    await self.write(relay.close())
                    break
                await self.chunk(chunk)
        except SinkEnded:
            pass   # the caller's stream was ended by what was written (a gRPC status)
        finally:
            self.finish()
        return self.written

    async def read(self) -> bytes:
        """The next upstream chunk (b"" at its end): what is already buffered at once, else awaited until
        the first deadline (TimeoutError), under the pump's one timer and no task of its own."""
        reader = self.reader
        chunk = reader.read_nowait()
        if chunk or reader.at_eof():
            return chunk
        now = time.monotonic()
        due_at = self.deadline()
        task = self.task
        if due_at <= now or task is None:
            raise TimeoutError
        timer = self.timer
        if timer is not None and self.due_at > due_at:   # the deadline came nearer (the lookahead holds)
            timer.cancel()
            timer = None
        if timer is None:
            self.arm(task, now, due_at)
        self.waiting = True
        try:
            return await reader.readany()
        except asyncio.CancelledError:
            if self.fired:
                self.fired = False
                if task.uncancel() == 0:   # the deadline's cancellation alone: the stream goes on
                    raise TimeoutError from None
            raise
        finally:
            self.waiting = False

    def arm(self, task: asyncio.Task[object], now: float, due_at: float) -> None:
        self.due_at = due_at
        self.timer = task.get_loop().call_later(due_at - now, self.due, context=_TIMER_CONTEXT)

    def due(self) -> None:
        """The timer fired: re-armed for the deadline as it stands now, or the waiting read cancelled."""
        self.timer = None
        task = self.task
        if not self.waiting or task is None:
            return   # the loop is busy: its next read looks at the deadlines itself
        now, due_at = time.monotonic(), self.deadline()
        if due_at > now:
            self.arm(task, now, due_at)
            return
        self.fired = True
        task.cancel()

    def deadline(self) -> float:
        """The first deadline (time.monotonic): the idle timeout, the keep-alive, the lookahead's hold."""
        due_at = self.last_upstream + self.idle_timeout
        self.beat = self.heartbeat > 0  # every relay writes whole events: a keep-alive never lands inside one
        if self.beat:
            due_at = min(due_at, self.last_write + self.heartbeat)
        if self.relay.holding:
            due_at = min(due_at, self.last_upstream + self.hold_seconds)
        return due_at

    async def quiet(self) -> bool:
        """A deadline passed with nothing from upstream: fail on the idle timeout (True: the stream is
        over), else release what the lookahead holds or send a keep-alive."""
        now = time.monotonic()
        if now >= self.last_upstream + self.idle_timeout:
            await self.fail("timeout", UpstreamTimeout(f"upstream stream idle for {self.idle_timeout:g} s"))
            return True
        if self.relay.holding and now >= self.last_upstream + self.hold_seconds:
            out = self.relay.release()
        elif self.beat and now >= self.last_write + self.heartbeat:
            out = self.keepalive
        else:
            return False
        if out:
            await self.write(out)
            self.last_write = time.monotonic()
        return False

    async def chunk(self, chunk: bytes) -> None:
        """Feed an upstream chunk through the relay (a translator's in FEED_BYTES pieces) and write what it
        gives."""
        relay, handle = self.relay, self.handle
        self.last_upstream = time.monotonic()
        step = len(chunk) if isinstance(relay, CheckedStream) else FEED_BYTES
        for start in range(0, len(chunk), step):
            try:
                out = relay.feed(chunk[start:start + step] if len(chunk) > step else chunk)
            except Exception as exc:  # a bug, not the agent's fault: logged, and the stream ends cleanly
                log.exception("relay_internal_error", error=f"{type(exc).__name__}: {exc}")
                await self.write(relay.fail(GatewayError(f"internal error: {type(exc).__name__}")))
                return
            if out:
                await self.write(out)
                self.last_write = time.monotonic()
                if handle is not None:
                    handle.sync()
            if _ended(relay):
                return

    async def fail(self, kind: str, error: GatewayError) -> None:
        """The upstream failed (`kind` counted on the stream): the relay's error frame ends the stream."""
        if self.handle is not None:
            self.handle.upstream_error(kind)
        await self.write(self.relay.fail(error))

    async def write(self, data: Any) -> None:
        n = await self.sink.write(data)
        self.written += n
        if self.handle is not None:
            self.handle.wrote(n)   # a caller's byte budget ends the stream as a drain does

    def finish(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.task = None
        if self.handle is not None:
            self.handle.close()
        if self.reader.at_eof():
            self.upstream.release()
        else:  # the client left, the relay ended early, or the upstream broke: drop the connection
            self.upstream.close()


def _ended(relay: Relay) -> bool:
    """`relay.done`, read through a call: the loop's test would otherwise keep it narrowed for mypy."""
    return relay.done
