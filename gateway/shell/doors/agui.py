"""The AG-UI door: POST /agui and /agui/{route} take a RunAgentInput, answer 4xx JSON before any stream, else
AG-UI SSE driven by core.agui: the run's one A2A call planned as a v1.0 call and carried by the same exchange
and stream relay as every other door (so any agent interface serves it), keep-alives while the agent is quiet,
and one terminal event whatever happens. A client leaving cancels the agent's task only with [agui]
cancel_on_disconnect (the cancel goes out in the background, bounded by the unary timeout)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

import gateway.shell.agent.port as agent_port
from gateway.config import Settings
from gateway.core import jsoncodec
from gateway.core.agui import a2ui, events, inputs
from gateway.core.agui.request import Agent, Call, Options
from gateway.core.agui.run import AguiRun
from gateway.core.agui.session import Sessions
from gateway.core.card import Interface
from gateway.core.errors import (
    ClientTooSlow,
    EdgeRefusal,
    GatewayError,
    GatewayOverloaded,
    LimitExceeded,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from gateway.core.exchange import Exchange, Reply, Result
from gateway.core.operations import Operation
from gateway.core.quirks import Quirks
from gateway.core.stream import HubItem, StreamRelay
from gateway.core.types import JsonObj, Version
from gateway.observability import get_logger
from gateway.shell.agent.link_failures import stream_broke
from gateway.shell.agent.port import LINK_FAULTS, Caller
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import Upstream, read_bounded
from gateway.shell.carrier.pipeline import Context, read_body, serve
from gateway.shell.carrier.relay import SSE_HEADERS, pump
from gateway.shell.carrier.task_index import TASK_INDEX, remember, tracked
from gateway.shell.process.lifecycle import Track

if TYPE_CHECKING:
    from gateway.shell.agent.channels import GrpcStream  # grpcio is imported only when an agent speaks gRPC

log = get_logger("gateway.agui")
T = TypeVar("T")
DEFAULT_ROUTES = frozenset({"", "default"})
OPERATION = "agui_run"  # the metrics' and log's operation label of a run
_STREAM_TYPES = ("text/event-stream", "text/*", "*/*")
_JSON = "application/json"
# a wait whose bound is the agent port's own deadline (the waits here only add keep-alives while it runs)
FOREVER = float("inf")


@dataclass(slots=True)
class AguiState:
    sessions: Sessions
    options: Options
    active: set[tuple[str, str]] = field(default_factory=set)   # (route, threadId) of running runs
    cancels: set[asyncio.Task[None]] = field(default_factory=set)  # cancels sent for clients that left


AGUI = web.AppKey("agui", AguiState)


def install(app: web.Application, settings: Settings, track: Track) -> None:
    """The state and the two routes (add them before any catch-all), their handler as `track` runs it."""
    conf = settings.agui
    options = Options(contextid_mode=conf.contextid_mode, unknown_surface=conf.unknown_surface,
                      action_encoding=conf.action_encoding, a2ui_sniff=conf.a2ui_sniff,
                      input_required_as_interrupt=conf.input_required_as_interrupt,
                      snapshot_mode=conf.snapshot_mode, compact_above_bytes=conf.compact_above_bytes,
                      mirror_ids_in_state=conf.mirror_ids_in_state)
    app[AGUI] = AguiState(Sessions(max_entries=conf.max_sessions, ttl=conf.session_ttl_seconds), options)
    app.router.add_post("/agui", track(handle))
    app.router.add_post("/agui/{route}", track(handle))


class _Refused(GatewayError):
    """A request answered before any stream: `{"error": {code, message, details}}` with `status`."""

    def __init__(self, status: int, code: str, message: str, details: list[JsonObj] | None = None) -> None:
        super().__init__(message)
        self.http_status, self.code, self.details = status, code, details


@dataclass(slots=True)
class AguiCaller:
    """An AG-UI client before its stream: errors are a status and the front door's JSON error body."""

    label: str = "AG-UI"

    def error_reply(self, err: GatewayError, quirks: Quirks) -> Reply:
        if isinstance(err, _Refused):
            body = inputs.InputError(err.http_status, err.code, err.message, err.details).body()
        elif isinstance(err, LimitExceeded):
            return self.error_reply(_Refused(413, "agui.too_large", err.message), quirks)
        elif isinstance(err, GatewayOverloaded | ClientTooSlow | EdgeRefusal):   # the gateway's own condition
            return self.error_reply(_Refused(err.http_status, f"agui.{err.reason.lower()}", err.message), quirks)
        else:
            body = inputs.InputError(500, "agui.internal_error", err.message).body()
            return Reply(500, jsoncodec.dumpb(body), error=True)
        return Reply(err.http_status, jsoncodec.dumpb(body), error=True)


async def handle(request: web.Request) -> web.StreamResponse:
    return await serve(request, _door, AguiCaller(), operation=OPERATION)


def _check_headers(request: web.Request) -> None:
    ctype = request.headers.get("Content-Type")
    if ctype is not None and not ctype.split(";")[0].strip().lower().endswith(("/json", "+json")):
        raise _Refused(415, "agui.unsupported_media_type", f"expected application/json, got {ctype!r}")
    accept = request.headers.get("Accept", "").lower()
    if accept and not any(t in accept for t in _STREAM_TYPES):
        raise _Refused(406, "agui.not_acceptable", "this endpoint answers text/event-stream only")


async def _door(ctx: Context) -> web.StreamResponse:
    request = ctx.request
    route = request.match_info.get("route", "")
    if route not in DEFAULT_ROUTES:
        raise _Refused(404, "agui.unknown_route", f"no upstream agent is routed as {route!r}")
    _check_headers(request)
    try:
        inp = inputs.parse(await read_body(request, ctx.settings.limits.max_body_bytes))
    except inputs.InputError as err:
        raise _Refused(err.status, err.code, err.message, err.details) from None
    state = ctx.app[AGUI]
    key = (route or "default", inp.thread_id)
    if key in state.active:
        raise _Refused(409, "agui.thread_busy", f"a run on thread {inp.thread_id!r} is still active")
    state.active.add(key)
    held = contextlib.AsyncExitStack()
    try:
        # every run is a stream: the caller's stream slot, before any event
        await held.enter_async_context(ctx.stream_slot())
        run = AguiRun(inp, state.sessions.get(key, time.time()), state.options,
                      new_id=lambda: uuid.uuid4().hex, now=time.time)
        door = RunDoor(ctx, run)
        await door.start()
        ctx.outcome = "stream"
        try:
            await door.drive()
        except asyncio.CancelledError:   # aiohttp cancels the handler when its client disconnects
            if request.transport is None or request.transport.is_closing():
                door.outcome = "client_gone"
                door.cancel_upstream(state.cancels)
            raise
        if door.outcome == "client_gone":
            door.cancel_upstream(state.cancels)
        ctx.fields.update(thread=inp.thread_id, run=inp.run_id, items=run.items, events=door.sent,
                          run_outcome=door.outcome)
        return door.response
    finally:
        await held.aclose()
        state.active.discard(key)


class RunDoor:
    """One run's SSE response: writes events as they are made, pings while the agent is quiet, makes the
    run's one A2A call through the exchange, and ends the run whatever happens."""

    def __init__(self, ctx: Context, run: AguiRun) -> None:
        self.ctx, self.settings, self.run = ctx, ctx.settings, run
        self.response = web.StreamResponse(status=200, headers=SSE_HEADERS)
        self.heartbeat = self.settings.server.heartbeat_seconds or float("inf")
        self.last_write = time.monotonic()
        self.sent = 0
        self.outcome = "open"
        self.iface: Interface | None = None

    async def start(self) -> None:
        self.ctx.stamp(self.response)   # what every reply carries (its request id), as the other doors' streams
        await self.response.prepare(self.ctx.request)

    async def send(self, batch: list[JsonObj]) -> None:
        if not batch:
            return
        for event in batch:   # one write per event: each is flushed as it is made
            await self.response.write(events.frame(event))
        self.sent += len(batch)
        self.last_write = time.monotonic()
        self._ended(batch)

    def _ended(self, batch: list[JsonObj]) -> None:
        if batch and batch[-1]["type"] in events.TERMINAL:
            self.outcome = batch[-1].get("code") or batch[-1]["type"]

    async def ping(self) -> None:
        await self.response.write(events.PING)
        self.last_write = time.monotonic()

    async def waiting(self, aw: Awaitable[T], timeout: float) -> T:
        """`aw` with keep-alive comments meanwhile; TimeoutError after `timeout` seconds."""
        task = asyncio.ensure_future(aw)
        deadline = time.monotonic() + timeout
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    raise TimeoutError
                wake = min(deadline, self.last_write + self.heartbeat)
                done, _ = await asyncio.wait({task}, timeout=wake - now)
                if done:
                    return task.result()
                if time.monotonic() >= self.last_write + self.heartbeat:
                    await self.ping()
        finally:
            if not task.done():
                task.cancel()

    async def drive(self) -> None:
        try:
            await self.send(self.run.opening())
            await self._call()
            if not self.run.done:
                await self.send(self.run.on_eof())
        except (ConnectionResetError, aiohttp.ClientConnectionResetError):
            self.outcome = "client_gone"   # the agent's task goes on unless cancel_on_disconnect
            return
        except Exception as exc:   # the top-level guard: the stream still ends with RUN_ERROR
            log.exception("agui_internal_error")
            with contextlib.suppress(ConnectionResetError):
                await self.send(self.run.fail("agui.internal_error", f"{type(exc).__name__}: {exc}"))
        with contextlib.suppress(ConnectionResetError):
            await self.response.write_eof()

    async def _call(self) -> None:
        try:
            iface, agent = await self.waiting(_agent(self.ctx.upstream, self.settings), FOREVER)
        except (GatewayError, TimeoutError) as err:
            await self.send(self.run.fail("upstream.unreachable", _message(err, "agent card not available")))
            return
        self.iface = iface
        self.ctx.bind(upstream_version=iface.version, upstream_binding=iface.binding)
        batch, call = self.run.plan(agent)
        await self.send(batch)
        if call is not None:
            await self._exchange(iface, call)

    def _exchange_for(self, iface: Interface, call: Call) -> Exchange:
        return agent_port.exchange(self.ctx.upstream, call.a2a(self.run.input.run_id), iface, self.settings.quirks)

    def _caller(self, call: Call) -> Caller:
        """What of the run's caller travels to the agent: its credentials and the extensions the run asks for."""
        headers: CIMultiDict[str] = CIMultiDict()
        authorization = self.ctx.forwarded_headers().get("Authorization")
        if authorization:
            headers["Authorization"] = authorization
        if call.extensions:
            headers["A2A-Extensions"] = ", ".join(call.extensions)
        return Caller(headers)

    async def _exchange(self, iface: Interface, call: Call) -> None:
        """The run's one A2A call, through the agent port: whatever binding the agent's interface speaks."""
        exchange = self._exchange_for(iface, call)
        try:
            if exchange.op.streaming:
                await self._stream(exchange, self._caller(call))
            else:
                await self._unary(exchange, self._caller(call))
        except GatewayError as err:   # the call could not be made (untranslatable params), or read
            await self.send(self.run.fail(*_fault(err)))
        finally:
            self.ctx.notes.extend(exchange.notes)
            if tracked(exchange):   # the tasks the run saw of a v0.3 agent, for ListTasks through any door
                await remember(self.ctx.request.config_dict[TASK_INDEX], self.ctx.task_scope(), exchange)

    async def _unary(self, exchange: Exchange, caller: Caller) -> None:
        # the port's deadlines bound the call (UpstreamTimeout, answered by _exchange as every link fault)
        got = await self.waiting(agent_port.result(self.ctx.upstream, exchange, caller), FOREVER)
        if isinstance(got, agent_port.Challenge):
            await self.send(self.run.fail(f"upstream.http_{got.status}", f"the agent answered HTTP {got.status}"))
        elif not got.ok:
            await self.send(self.run.on_rpc_error(got.value))
        else:
            member = exchange.op.unary_member
            await self.send(self.run.on_item({member: got.value} if member else got.value))

    async def _stream(self, exchange: Exchange, caller: Caller) -> None:
        upstream = self.ctx.upstream
        async with contextlib.AsyncExitStack() as held:
            try:
                resp = await self.waiting(held.enter_async_context(
                    agent_port.open_stream(upstream, exchange, caller)), FOREVER)
            except LINK_FAULTS as err:   # no head within first_byte, the agent unreachable, the pool full
                await self.send(self.run.fail(*_fault(err)))
                return
            if isinstance(resp, StreamReply):
                await self._reply(exchange, exchange.op, resp)
            else:
                await self._grpc_stream(exchange, resp)

    async def _grpc_stream(self, exchange: Exchange, stream: GrpcStream) -> None:
        """A gRPC agent's stream into the run: each message through the v1.0 hub relay, keep-alives while the
        agent is quiet, the agent's idle deadline, and the settle wait after an interrupted state."""
        relay = RunRelay(exchange.hub_stream(max_event_bytes=self.settings.limits.max_sse_event_bytes), self.run, self)
        handle = self.ctx.lifecycle.stream(stream, relay.relay, "translated", self.ctx.budget)
        try:
            await self.waiting(stream.head(), FOREVER)
            messages = stream.messages().__aiter__()
            while not relay.done and not stream.drained:
                try:
                    message = await self.waiting(messages.__anext__(),
                                                 self.settings.agui.settle_seconds if relay.holding else FOREVER)
                except TimeoutError:   # the settle wait after an interrupted state is over
                    await self._write(relay.release())
                    break
                except StopAsyncIteration:
                    await self._write(relay.close() if stream.status is None
                                      else relay.fail_with(exchange.grpc_error(stream.status)))
                    break
                await self._write(relay.feed_item(exchange.grpc_item(message)))
        except UpstreamTimeout:
            await self._write(relay.fail(UpstreamTimeout("the agent was silent for too long")))
        finally:
            handle.close()
        self.sent += relay.events_out
        self._ended(relay.last)

    async def _write(self, data: bytes) -> None:
        if data:
            await self.response.write(data)
            self.last_write = time.monotonic()

    async def _reply(self, exchange: Exchange, op: Operation, resp: StreamReply) -> None:
        try:
            if resp.status == 200 and resp.content_type == "text/event-stream":
                relay = RunRelay(exchange.hub_stream(max_event_bytes=self.settings.limits.max_sse_event_bytes),
                                 self.run, self)
                await pump(self.response, resp, relay, heartbeat=self.settings.server.heartbeat_seconds,
                           lifecycle=self.ctx.lifecycle,
                           keepalive=events.PING, hold_seconds=self.settings.agui.settle_seconds,
                           budget=self.ctx.budget)
                self.sent += relay.events_out
                self._ended(relay.last)
                return
            body = await self.waiting(read_bounded(resp, self.ctx.upstream.max_body_bytes), resp.idle)
            await self._result(exchange, op, resp.status, body)
        except TimeoutError:
            await self.send(self.run.fail("upstream.timeout", "the agent was silent for too long"))
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
            if isinstance(exc, ConnectionResetError):   # our client left while we were writing
                raise
            await self.send(self.run.fail("upstream.unreachable", stream_broke(exc)))

    async def _result(self, exchange: Exchange, op: Operation, status: int, body: bytes) -> None:
        """A unary reply (or a stream refused before its first event), read for the v1.0 run."""
        step = exchange.read_reply(status, body)
        if isinstance(step, Result):
            if not step.ok:
                await self.send(self.run.on_rpc_error(step.value))
            else:
                await self.send(self.run.on_item({op.unary_member: step.value} if op.unary_member else step.value))
            return
        code = "upstream.protocol_error" if status == 200 else f"upstream.http_{status}"
        message = "the agent's reply is not a usable A2A result" if status == 200 else \
            f"the agent answered HTTP {status}"
        await self.send(self.run.fail(code, message))

    def cancel_upstream(self, tasks: set[asyncio.Task[None]]) -> None:
        """With cancel_on_disconnect: cancel the task of a run its client left before it ended (not
        after an input-required pause: that run was over for the user). Runs in the background."""
        session = self.run.session
        if not self.settings.agui.cancel_on_disconnect or self.run.done or self.run.settled \
                or not session.task_id or self.iface is None:
            return
        task = asyncio.get_running_loop().create_task(self._cancel(self.iface, session.task_id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def _cancel(self, iface: Interface, task_id: str) -> None:
        call = Call("cancel_task", {"id": task_id})
        exchange = self._exchange_for(iface, call)
        try:
            got = await agent_port.result(self.ctx.upstream, exchange, self._caller(call))
            error = None if isinstance(got, Result) and got.ok else \
                got.value if isinstance(got, Result) else {"code": got.status}
            log.info("agui_task_cancelled", task=task_id, thread=self.run.input.thread_id,
                     error=None if error is None else error.get("code"))
        except (GatewayError, TimeoutError, aiohttp.ClientError) as exc:
            log.warning("agui_cancel_failed", task=task_id, thread=self.run.input.thread_id,
                        error=_message(exc, type(exc).__name__))


class RunRelay:
    """The relay loop's view of a run (shell.carrier.relay.Relay): upstream bytes through the v1.0 hub relay, each
    item into the run, the run's AG-UI events as SSE bytes; `holding` while the run waits for the agent
    to close its stream after an interrupted state (the loop's timer then finishes the run)."""

    def __init__(self, relay: StreamRelay[HubItem, list[HubItem]], run: AguiRun, door: RunDoor) -> None:
        self.relay, self.run, self.door = relay, run, door
        self.events_out = 0
        self.last: list[JsonObj] = []

    @property
    def done(self) -> bool:
        return self.run.done or self.relay.done

    @property
    def holding(self) -> bool:
        return self.run.settled and not self.run.done

    def _frames(self, batch: list[JsonObj]) -> bytes:
        if batch:
            self.events_out += len(batch)
            self.last = batch
        return events.frames(batch)

    def _items(self, items: list[HubItem]) -> bytes:
        batch: list[JsonObj] = []
        for item in items:
            if item.item is not None:
                batch += self.run.on_item(item.item)
            elif item.error is not None:
                batch += self.run.on_rpc_error(item.error)
            elif item.fault is not None:
                batch += self.run.fail(*_fault(item.fault))
        return self._frames(batch)

    def feed(self, chunk: bytes) -> bytes:
        out = self._items(self.relay.feed(chunk))
        if self.relay.done and not self.run.done:
            out += self._frames(self.run.on_eof())
        return out

    def close(self) -> bytes:
        return self._items(self.relay.close()) + self._frames(self.run.on_eof())

    def feed_item(self, raw: Any) -> bytes:
        """One item of an agent that sends items rather than bytes (a gRPC agent's message, decoded)."""
        out = self._items(self.relay.feed_item(raw))
        if self.relay.done and not self.run.done:
            out += self._frames(self.run.on_eof())
        return out

    def release(self) -> bytes:
        return self._frames(self.run.on_eof())

    def fail(self, error: GatewayError) -> bytes:
        return self._items(self.relay.fail(error))

    def fail_with(self, hub_error: JsonObj) -> bytes:
        """The agent's own error status ending its stream (a gRPC agent's), as the v1.0 hub's error."""
        return self._items(self.relay.error(hub_error))


def _fault(err: GatewayError) -> tuple[str, str]:
    """The RUN_ERROR code and message of a fault of the agent's call or stream: its deadlines, the agent or the
    pool out of reach, else the agent's reply not usable."""
    if isinstance(err, UpstreamTimeout):
        return "upstream.timeout", "the agent was silent for too long"
    if isinstance(err, UpstreamUnavailable | GatewayOverloaded):
        return "upstream.unreachable", err.message
    return "upstream.protocol_error", err.message


async def _agent(upstream: Upstream, settings: Settings) -> tuple[Interface, Agent]:
    """Where to call (the agent's best interface for a v1.0 caller, any binding) and what its card says of
    streaming and A2UI. A fixed upstream version works without a card."""
    iface, card = await agent_port.reach(upstream, Version.V10)
    caps = card.get("capabilities") if card else None
    streaming = card is None or (type(caps) is dict and caps.get("streaming") is True)
    return iface, Agent(streaming=streaming, a2ui=a2ui.negotiate(card, settings.agui.a2ui_versions))


def _message(err: BaseException, default: str) -> str:
    return err.message if isinstance(err, GatewayError) else default
