"""One AG-UI run's SSE response (`Door`): writes events as they are made, pings while the agent is
quiet, makes the run's one A2A call and reads its reply or stream, ends the run whatever happens, and
cancels the agent's task for a client that left when [agui] cancel_on_disconnect says so."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import Settings
from gateway.core.agui import a2ui, events, wire
from gateway.core.agui.request import Agent, Call
from gateway.core.agui.run import AguiRun
from gateway.core.card import Interface
from gateway.core.errors import GatewayError
from gateway.core.sse import SseEvent, SseParser
from gateway.core.types import Binding, JsonObj, Version
from gateway.observability import get_logger
from gateway.shell.relay import SSE_HEADERS
from gateway.shell.upstream import Upstream, read_bounded

log = get_logger("gateway.agui")
T = TypeVar("T")


class Door:
    """One run's SSE response: writes events, pings while waiting, ends the run whatever happens."""

    def __init__(self, request: web.Request, settings: Settings, run: AguiRun) -> None:
        self.request, self.settings, self.run = request, settings, run
        self.response = web.StreamResponse(status=200, headers=SSE_HEADERS)
        self.heartbeat = settings.server.heartbeat_seconds or float("inf")
        self.last_write = time.monotonic()
        self.sent = 0
        self.outcome = "open"
        self.upstream: Upstream | None = None
        self.iface: Interface | None = None
        self.authorization: str | None = None

    async def start(self) -> web.StreamResponse:
        await self.response.prepare(self.request)
        return self.response

    async def send(self, batch: list[JsonObj]) -> None:
        if not batch:
            return
        for event in batch:   # one write per event: each is flushed as it is made
            await self.response.write(events.frame(event))
        self.sent += len(batch)
        self.last_write = time.monotonic()
        if batch[-1]["type"] in events.TERMINAL:
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

    async def drive(self, upstream: Upstream, authorization: str | None) -> None:
        self.upstream, self.authorization = upstream, authorization
        try:
            await self.send(self.run.opening())
            await self._call(upstream, authorization)
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

    async def _call(self, upstream: Upstream, authorization: str | None) -> None:
        timeout = self.settings.upstream.timeout
        try:
            iface, agent = await self.waiting(_agent(upstream, self.settings), timeout.first_byte)
        except (GatewayError, TimeoutError) as err:
            await self.send(self.run.fail("upstream.unreachable", _message(err, "agent card not available")))
            return
        self.iface = iface
        batch, call = self.run.plan(agent)
        await self.send(batch)
        if call is None:
            return
        try:
            resp = await self.waiting(self._open(upstream, iface, call, authorization), timeout.first_byte)
        except GatewayError as err:
            await self.send(self.run.fail("upstream.unreachable", err.message))
            return
        except TimeoutError:
            await self.send(self.run.fail("upstream.timeout", "the agent did not answer in time"))
            return
        try:
            await self._reply(upstream, resp, call, iface.version)
        finally:
            resp.close()

    def _open(self, upstream: Upstream, iface: Interface, call: Call,
              authorization: str | None) -> Awaitable[aiohttp.ClientResponse]:
        out = wire.encode(call, iface.version, self.run.input.run_id)
        headers = {**({"Authorization": authorization} if authorization else {}),
                   **self.settings.upstream.headers, **out.headers, "Accept-Encoding": "identity"}
        return upstream.open("POST", iface.url, headers=CIMultiDict(headers), body=out.body)

    def cancel_upstream(self, tasks: set[asyncio.Task[None]]) -> None:
        """With cancel_on_disconnect: cancel the task of a run its client left before it ended (not
        after an input-required pause: that run was over for the user). Runs in the background."""
        session = self.run.session
        if not self.settings.agui.cancel_on_disconnect or self.run.done or self.run.settled \
                or not session.task_id or self.upstream is None or self.iface is None:
            return
        task = asyncio.get_running_loop().create_task(self._cancel(self.upstream, self.iface, session.task_id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def _cancel(self, upstream: Upstream, iface: Interface, task_id: str) -> None:
        try:
            async with asyncio.timeout(self.settings.upstream.timeout.total_unary):
                resp = await self._open(upstream, iface, Call("cancel_task", {"id": task_id}), self.authorization)
                try:
                    result = wire.decode_bytes(await read_bounded(resp, upstream.max_body_bytes), iface.version,
                                               "cancel_task")
                finally:
                    resp.close()
            log.info("agui_task_cancelled", task=task_id, thread=self.run.input.thread_id,
                     error=None if result.error is None else result.error.get("code"))
        except (GatewayError, TimeoutError, aiohttp.ClientError) as exc:
            log.warning("agui_cancel_failed", task=task_id, thread=self.run.input.thread_id,
                        error=_message(exc, type(exc).__name__))

    async def _reply(self, upstream: Upstream, resp: aiohttp.ClientResponse, call: Call,
                     version: Version) -> None:
        try:
            if resp.status == 200 and resp.content_type == "text/event-stream":
                await self._stream(resp, call, version)
                return
            body = await self.waiting(read_bounded(resp, upstream.max_body_bytes),
                                      self.settings.upstream.timeout.total_unary)
            try:
                result = wire.decode_bytes(body, version, call.operation)
            except wire.ProtocolError as err:
                code = "upstream.protocol_error" if resp.status == 200 else f"upstream.http_{resp.status}"
                await self.send(self.run.fail(code, err.message if resp.status == 200 else
                                              f"the agent answered HTTP {resp.status}"))
                return
            await self._result(result)
        except wire.ProtocolError as err:
            await self.send(self.run.fail("upstream.protocol_error", err.message))
        except TimeoutError:
            await self.send(self.run.fail("upstream.timeout", "the agent was silent for too long"))
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
            if isinstance(exc, ConnectionResetError):   # our client left while we were writing
                raise
            broke = f"upstream stream broke: {type(exc).__name__}"
            await self.send(self.run.fail("upstream.unreachable", broke))
        except GatewayError as err:
            await self.send(self.run.fail("upstream.protocol_error", err.message))

    async def _result(self, result: wire.Result) -> None:
        if result.error is not None:
            await self.send(self.run.on_rpc_error(result.error))
        elif result.item is not None:
            await self.send(self.run.on_item(result.item))

    async def _stream(self, resp: aiohttp.ClientResponse, call: Call, version: Version) -> None:
        parser = SseParser(self.settings.limits.max_sse_event_bytes)
        reader = resp.content
        idle = self.settings.upstream.timeout.idle_stream
        settle = self.settings.agui.settle_seconds
        while not self.run.done:
            chunk = reader.read_nowait()   # whatever is buffered already, without a wait
            if not chunk and not reader.at_eof():
                try:
                    chunk = await self._read(reader, settle if self.run.settled else idle)
                except TimeoutError:
                    if self.run.settled:
                        break   # the agent left the stream open after input-required: the run is over
                    raise
            if not chunk:
                break
            for item in parser.feed(chunk):
                if isinstance(item, SseEvent) and item.data.strip():
                    await self._result(wire.decode_bytes(item.data, version, call.operation))
                    if _over(self.run):
                        return
        await self.send(self.run.on_eof())   # nothing when the run already ended

    async def _read(self, reader: aiohttp.StreamReader, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError
            try:
                async with asyncio.timeout(min(deadline, self.last_write + self.heartbeat) - now):
                    return await reader.readany()
            except TimeoutError:
                if time.monotonic() >= self.last_write + self.heartbeat:
                    await self.ping()


async def _agent(upstream: Upstream, settings: Settings) -> tuple[Interface, Agent]:
    """Where to call (JSON-RPC; v1.0 first, so a v1.0 agent is spoken to as itself) and what the agent
    card says of streaming and A2UI. A fixed upstream version works without a card."""
    iface = await upstream.interface(Version.V10, Binding.JSONRPC)
    if iface.binding is not Binding.JSONRPC:
        raise GatewayError("the AG-UI front door needs a JSON-RPC interface, the agent offers "
                           + iface.binding.value)
    try:
        card: dict[str, Any] | None = (await upstream.card()).card
    except GatewayError:
        card = None
    caps = card.get("capabilities") if card else None
    streaming = card is None or (type(caps) is dict and caps.get("streaming") is True)
    return iface, Agent(streaming=streaming, a2ui=a2ui.negotiate(card, settings.agui.a2ui_versions))


def _over(run: AguiRun) -> bool:
    """Whether the run has ended (a call, so type narrowing does not outlive the events it fed)."""
    return run.done


def _message(err: BaseException, default: str) -> str:
    return err.message if isinstance(err, GatewayError) else default
