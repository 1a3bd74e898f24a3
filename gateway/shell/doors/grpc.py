"""The gRPC door: grpc.aio's server with both versions' A2AService on one port (generic handlers, bytes in
and out: core.bindings.grpc decodes and encodes), each call admitted by the edge's guard, carried to the agent's
best interface (or composed by shell.carrier.compose, its GrpcSeat) and answered as gRPC (messages, a status with
google.rpc.Status details, metadata), logged and counted once."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import grpc
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import Settings
from gateway.core.bindings.grpc import (
    DETAILS_KEY,
    RPCS,
    GrpcFrames,
    GrpcStatus,
    Rpc,
    decode_request,
    encode_response,
    from_fault,
    from_hub_error,
)
from gateway.core.bindings.grpc.metadata import (
    check_version,
    from_headers,
    to_headers,
    toward_caller,
)
from gateway.core.bindings.grpc.status import HTTP_STATUS, STATUS_CODES
from gateway.core.card import Interface
from gateway.core.compose import awaited, caller_scope
from gateway.core.errors import (
    EdgeRefusal,
    GatewayError,
    TranslationError,
    UpstreamUnavailable,
    as_agent_error,
)
from gateway.core.exchange import Again, Call, Exchange
from gateway.core.mixed import RESENT_NOTE
from gateway.core.notes import Cx, Note
from gateway.core.stream import StreamRelay
from gateway.core.types import Binding, Version
from gateway.observability import bind_exchange, clear, get_logger
from gateway.shell.agent.channels import GrpcStream
from gateway.shell.agent.headers import RequestHeaders
from gateway.shell.agent.port import (
    Caller,
    Challenge,
    Serving,
    exchange,
    grpc_metadata,
    grpc_stream,
    grpc_unary,
    http_headers,
    learn,
    refused_shapes,
    refused_stream_shapes,
    resent_unknown,
)
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import UPSTREAM, Upstream, read_bounded
from gateway.shell.carrier.compose import Got, compose, settle
from gateway.shell.carrier.migration import MIGRATION, Migration, check_cutoff, deprecation
from gateway.shell.carrier.pipeline import SeenCaller, record
from gateway.shell.carrier.proxy import Relearned
from gateway.shell.carrier.relay import SinkEnded, pump
from gateway.shell.carrier.task_index import TASK_INDEX, TaskStore, remember, tracked
from gateway.shell.carrier.urls import grpc_target, listener_base
from gateway.shell.edge.callers import StreamBudget
from gateway.shell.edge.guard import GUARD, Guard, Verdict
from gateway.shell.edge.signing import CARD_SIGNER, vouch
from gateway.shell.process.keys import SEALER, SERVED_BINDINGS
from gateway.shell.process.lifecycle import LIFECYCLE, Lifecycle, StreamHandle, listen_failed
from gateway.shell.process.metrics import Metrics

__all__ = ["GrpcListener", "GrpcSeat"]

log = get_logger("gateway.exchange")

_STATUS = {code.value[0]: code for code in grpc.StatusCode}
_SSE = "text/event-stream"
Metadata = Sequence[tuple[str, str | bytes]]
Context = grpc.aio.ServicerContext[bytes, bytes]


class GrpcCall:
    """One gRPC call on its way through the gateway: what the log line and the metrics say of it
    (shell.carrier.pipeline.Recorded), the caller's metadata and the settings in force when it started."""

    __slots__ = ("budget", "context", "fields", "headed", "lifecycle", "metadata", "migration", "notes", "outcome",
                 "request_id", "rpc", "settings", "started", "verdict")

    def __init__(self, lifecycle: Lifecycle, migration: Migration, rpc: Rpc, context: Context) -> None:
        self.lifecycle, self.migration, self.rpc, self.context = lifecycle, migration, rpc, context
        self.settings: Settings = lifecycle.settings
        self.metadata: list[tuple[str, str | bytes]] = list(context.invocation_metadata() or ())
        said = next((v for k, v in self.metadata if k == "x-request-id" and isinstance(v, str)), "")
        self.request_id = said or os.urandom(16).hex()
        self.fields: dict[str, Any] = {}
        self.notes: list[Note] = []
        self.outcome: str | None = None
        self.started = time.monotonic()
        self.budget: StreamBudget | None = None   # the budgets of its stream, in a caller's stream slot
        self.verdict: Verdict | None = None   # the guard's, when it admitted the call
        self.headed = False   # its initial metadata was sent

    @property
    def metrics(self) -> Metrics:
        return self.lifecycle.metrics

    @property
    def version(self) -> Version:
        return self.rpc.version

    def headers(self) -> CIMultiDict[str]:
        """The caller's text metadata, read as the HTTP doors read request headers."""
        return CIMultiDict((k, v) for k, v in self.metadata if isinstance(v, str))

    def forwarded(self) -> list[tuple[str, str | bytes]]:
        """The caller's metadata as it may go on to the agent: its credentials dropped when [auth] says they
        must not (the call keeps them: the task index scopes the caller by them)."""
        if self.verdict is None or not self.verdict.strip:
            return self.metadata
        return self.verdict.kept(self.metadata)

    def task_scope(self) -> str:
        """The caller's scope in the task index, as the HTTP doors draw it (its metadata read as headers)."""
        return caller_scope(to_headers(self.metadata), None if self.verdict is None else self.verdict.subject)

    def caller_seen(self) -> SeenCaller:
        return SeenCaller(self.migration, self.headers(), self.rpc.version, Binding.GRPC)

    def caller(self) -> Caller:
        """What of the caller travels to an HTTP agent: its forwarded metadata read as headers, its address."""
        return Caller(CIMultiDict(to_headers(self.forwarded())), _peer(self.context))

    def stamp(self) -> list[tuple[str, str]]:
        """What every reply of the call carries, as the HTTP doors' replies do (pipeline.Context.stamp): its
        request id, and to a v0.3 caller the [migration] deprecation headers, as metadata."""
        pairs = [("x-request-id", self.request_id)]
        if self.rpc.version is Version.V03:
            pairs.extend((name.lower(), value) for name, value in deprecation(self.settings.migration).headers())
        return pairs

    def remaining(self, cap: float) -> float:
        """Seconds this call may still take: the caller's deadline, at most `cap`."""
        left = self.context.time_remaining()
        return cap if left is None else max(0.0, min(cap, left))


class GrpcListener:
    """The gRPC listener of one gateway app (shell.process.lifecycle.Listener): its server, and the handlers of
    every RPC of both services."""

    def __init__(self, app: web.Application, settings: Settings, *, reuse_port: bool = False) -> None:
        self.app = app
        self.lifecycle: Lifecycle = app[LIFECYCLE]
        self.upstream: Upstream = app[UPSTREAM]
        self.address = settings.grpc.listen
        limit = settings.limits.max_body_bytes
        # one message is bounded like one HTTP body; keep-alive pings let either side see a dead peer
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", limit),
            ("grpc.so_reuseport", 1 if reuse_port else 0), ("grpc.keepalive_time_ms", 60_000),
            ("grpc.http2.max_pings_without_data", 0), ("grpc.keepalive_permit_without_calls", 1),
        ]
        self.server = grpc.aio.server(options=options, maximum_concurrent_rpcs=settings.limits.max_client_connections)
        self.server.add_generic_rpc_handlers(self._handlers())

    def _handlers(self) -> list[grpc.GenericRpcHandler]:
        by_service: dict[str, dict[str, grpc.RpcMethodHandler[bytes, bytes]]] = {}
        for rpc in RPCS:
            service, name = rpc.path.lstrip("/").split("/")
            handler: grpc.RpcMethodHandler[bytes, bytes]
            if rpc.streaming:
                handler = grpc.unary_stream_rpc_method_handler(self._streaming(rpc))
            else:
                handler = grpc.unary_unary_rpc_method_handler(self._unary(rpc))
            by_service.setdefault(service, {})[name] = handler
        return [grpc.method_handlers_generic_handler(service, methods) for service, methods in by_service.items()]

    # ---- the listener (shell.process.lifecycle.Listener) ---------------------------------------------------

    async def start(self) -> int:
        try:
            port = self.server.add_insecure_port(self.address)
        except RuntimeError as exc:
            raise listen_failed(OSError(str(exc)), "gRPC listener", "grpc.listen", self.address) from None
        if port == 0 and not self.address.endswith(":0"):
            raise listen_failed(OSError("the address is in use or cannot be bound"), "gRPC listener",
                                "grpc.listen", self.address)
        await self.server.start()
        self.lifecycle.grpc_port = port
        return port

    async def stop(self, grace: float) -> None:
        await self.server.stop(grace)

    # ---- one call ---------------------------------------------------------------------------------

    def _unary(self, rpc: Rpc) -> Callable[[bytes, Context], Awaitable[bytes]]:
        async def handle(request: bytes, context: Context) -> bytes:
            return await self.lifecycle.tracked(self._call(rpc, request, context))
        return handle

    def _streaming(self, rpc: Rpc) -> Callable[[bytes, Context], Awaitable[None]]:
        async def handle(request: bytes, context: Context) -> None:
            await self.lifecycle.tracked(self._call(rpc, request, context))
        return handle

    async def _call(self, rpc: Rpc, request: bytes, context: Context) -> bytes:
        """The one boundary of a gRPC call: every GatewayError and every unexpected exception becomes
        the caller's status (the latter with its traceback logged), then the log line and the metrics."""
        clear()
        call = GrpcCall(self.lifecycle, self.app[MIGRATION], rpc, context)
        bind_exchange(request_id=call.request_id, binding=Binding.GRPC.value, route="default",
                      operation=rpc.op.name, client_version=rpc.version, method=rpc.name)
        status: GrpcStatus | None = None
        reply = b""
        refusal: list[tuple[str, str]] = []
        try:
            result = await self._guarded(call, request)
            if isinstance(result, GrpcStatus):
                status = result
                call.outcome = call.outcome or "error"
            else:
                reply = result
        except GatewayError as err:
            status = from_fault(err, rpc.version)
            call.outcome = "rejected" if call.outcome == "rejected" or isinstance(err, EdgeRefusal) else "error"
            call.fields.update(error=err.message, code=err.jsonrpc_code)
            if isinstance(err, EdgeRefusal):   # www-authenticate, retry-after: trailing metadata beside the status
                refusal = [(name.lower(), value) for name, value in err.headers.items()]
                self.lifecycle.metrics.edge_refusal(err.reason.lower())
        except asyncio.CancelledError:
            raise   # the caller left (or the drain's grace is over): the lifecycle counts it as cancelled
        except Exception as exc:   # a bug must still answer as a status
            log.exception("internal_error", error=f"{type(exc).__name__}: {exc}")
            status = from_fault(GatewayError(f"internal error: {type(exc).__name__}"), rpc.version)
            call.outcome, call.fields["error"] = "error", f"internal error: {type(exc).__name__}"
        call.fields["grpc_status"] = status.name if status is not None else "OK"
        record(call, 200 if status is None else _http_of(status))
        if status is not None:
            trailer = (*(((DETAILS_KEY, status.details),) if status.details else ()), *refusal,
                       *(() if call.headed else call.stamp()))   # a call refused before its head: in the trailer
            await context.abort(_STATUS.get(status.code, grpc.StatusCode.UNKNOWN), status.message, trailer)
        return reply

    async def _guarded(self, call: GrpcCall, request: bytes) -> bytes | GrpcStatus:
        """The edge's guard first (the HTTP doors' admission, on the metadata; the credentials dropped from
        what goes on when they must not), then the call: a server-streaming one in one of the caller's
        stream slots, with its budgets."""
        guard: Guard | None = self.app.get(GUARD)
        if guard is None:
            return await self._serve(call, request)
        verdict = await guard.admit_headers(call.headers(), _peer(call.context))
        call.verdict = verdict
        if verdict.subject is not None:
            call.fields["subject"] = verdict.subject
        if not call.rpc.streaming:
            return await self._serve(call, request)
        async with guard.stream(verdict.who) as call.budget:
            return await self._serve(call, request)

    async def _serve(self, call: GrpcCall, request: bytes) -> bytes | GrpcStatus:
        rpc, settings = call.rpc, call.settings
        check_version(rpc.version, call.metadata, strict=settings.server.version_mode == "strict")
        check_cutoff(settings.migration, rpc.version)
        cx = Cx(quirks=settings.quirks)
        try:
            params = decode_request(rpc, request, cx)
        finally:
            call.notes.extend(cx.notes)
        op = rpc.op
        composed = await compose(GrpcSeat(self, call, Call(op, rpc.version, Binding.GRPC, params)))
        if composed is not None:
            return composed
        try:
            return await self._carry(call, request, params)
        except Relearned:   # the agent refused v1.0's part shapes (langgraph-api): learned, sent again in v0.3
            return await self._carry(call, request, params)

    async def _carry(self, call: GrpcCall, request: bytes, params: Any) -> bytes | GrpcStatus:
        """The call carried to the agent's best interface: the caller's bytes to a gRPC agent of its version,
        else a translated exchange."""
        rpc = call.rpc
        op = rpc.op
        iface, *_ = await self.upstream.interfaces(rpc.version, Binding.GRPC, op)
        bind_exchange(upstream_version=iface.version, upstream_binding=iface.binding)
        if iface.binding is Binding.GRPC and iface.version is rpc.version and not op.card_result:   # a card: ours
            call.fields["passthrough"] = True   # the caller's bytes and the agent's, untouched
            return await self._grpc_agent(call, iface, rpc.path, request, None)
        exchange = self.exchange(call, Call(op, rpc.version, Binding.GRPC, params), iface)
        try:
            out = exchange.upstream_request()
            sealer: Any = self.app.get(SEALER)
            for url in exchange.webhooks:
                call.notes.extend(await sealer.check_url(url))
            if iface.binding is Binding.GRPC:
                return await self._grpc_agent(call, iface, out.path, out.body or b"", exchange)
            if op.streaming:
                return await self._http_stream(call, exchange, out.method, out.path, out.body, out.query)
            return await self._http_unary(call, exchange, out.method, out.path, out.body, out.query)
        finally:
            call.notes.extend(exchange.notes)
            await self._remember(call, exchange)
            # what the agent's replies showed (a v0.3 caller's own file bytes may be what was seen)
            learn(self.upstream, exchange, rest_bytes=rpc.version is not Version.V03)

    async def _remember(self, call: GrpcCall, exchange: Exchange) -> None:
        """The tasks a translated call showed, in the task index (as the HTTP doors record theirs), in the
        caller's scope: the same subject or credentials list the same tasks whichever door made them."""
        if tracked(exchange):
            await remember(self.app[TASK_INDEX], call.task_scope(), exchange)

    def exchange(self, call: GrpcCall, client: Call, iface: Interface) -> Exchange:
        """The exchange of a gRPC caller's call (agent_port.exchange): a v0.3 caller's file bytes as its
        User-Agent suggests (a2a-sdk for Python's gRPC client sends the base64 text, double)."""
        settings = call.settings
        base = listener_base(settings)
        upstream = self.upstream
        signer = vouch(self.app.get(CARD_SIGNER), upstream.card_signature, checked=upstream.verify is not None,
                       required=settings.card.require_verified) if client.op.card_result else None
        serving = Serving(base, grpc_target(base, settings, self.lifecycle.grpc_port),
                          signer.signing_for(base) if signer is not None else None, self.app[SERVED_BINDINGS],
                          self.app.get(SEALER))
        agent = next((v for k, v in call.metadata if k == "user-agent" and isinstance(v, str)), None)
        return exchange(upstream, client, iface, settings.quirks, user_agent=agent, serving=serving)

    # ---- toward an HTTP agent (JSON-RPC or HTTP+JSON) -------------------------------------------------

    def _headers(self, call: GrpcCall, iface: Interface, accept: str) -> RequestHeaders:
        """The caller's metadata as the agent's request headers (agent_port.http_headers: authorization and
        the application's keys untouched, the transport's dropped, the agent's version and extensions)."""
        return http_headers(self.upstream, iface, call.caller(), accept)

    async def _initial(self, call: GrpcCall, headers: Any) -> None:
        """An HTTP agent's reply headers as the caller's initial metadata (activated extensions included)."""
        await self.send_head(call, from_headers(headers.items()))

    async def _http_unary(self, call: GrpcCall, exchange: Exchange, method: str, path: str, body: bytes | None,
                          query: Any) -> bytes | GrpcStatus:
        iface = exchange.upstream
        while True:
            async with asyncio.timeout(call.context.time_remaining()):   # the unary deadline is the port's
                reply = await self.upstream.request(method, iface.at(path), body=body, query=query,
                                                    headers=self._headers(call, iface, "*/*"))
            failed = _http_failure(reply.status, reply.headers)
            if failed is not None:
                return failed
            if call.fields.get(RESENT_NOTE):
                resent_unknown(self.upstream, iface, reply.status, reply.body)
            elif refused_shapes(self.upstream, iface, body, reply.body, exchange.cx):
                call.fields[RESENT_NOTE] = True
                raise Relearned
            step = exchange.read_result(reply.status, reply.body)
            if isinstance(step, Again):
                more = step.request
                method, path, body, query = more.method, more.path, more.body, more.query
                continue
            await self._initial(call, reply.headers)
            if not step.ok:
                call.fields.setdefault("error", "the agent answered an A2A error")
                return from_hub_error(step.value, call.version, exchange.cx)
            call.outcome = "ok"
            value = step.value
            task_id = awaited(exchange.call.params, exchange.src, call.settings.quirks, reply.body,
                              jsonrpc=iface.binding is Binding.JSONRPC) if exchange.op.settles else None
            if task_id is not None:   # a blocking send the agent answered at once (fasta2a)
                got = await settle(self.upstream, exchange, task_id, call.caller(),
                                   within=call.remaining(self.upstream.deadlines.unary))
                value = value if got is None else got.value
            return _result(call.rpc, value, exchange.cx)

    async def _http_stream(self, call: GrpcCall, exchange: Exchange, method: str, path: str, body: bytes | None,
                           query: Any) -> bytes | GrpcStatus:
        iface = exchange.upstream
        resp = await self.upstream.open(method, iface.at(path), headers=self._headers(call, iface, _SSE),
                                        body=body, query=query)
        try:
            if resp.status != 200 or resp.content_type != _SSE:   # refused before the first event
                data = await read_bounded(resp, self.upstream.max_body_bytes)
                failed = _http_failure(resp.status, resp.headers)
                if failed is not None:
                    return failed
                step = exchange.read_result(resp.status, data)
                assert not isinstance(step, Again)
                call.outcome = "rejected"
                if not step.ok:
                    return from_hub_error(step.value, call.version, exchange.cx)
                await call.context.write(_result(call.rpc, step.value, exchange.cx))
                call.outcome = "stream"
                return b""
            if not call.fields.get(RESENT_NOTE) \
                    and await refused_stream_shapes(self.upstream, iface, body, resp, exchange.cx):
                call.fields[RESENT_NOTE] = True
                raise Relearned   # its v1.0 file parts refused as the stream's first event: sent again in v0.3
            await self._initial(call, resp.headers)
            relay = exchange.framed(GrpcFrames(call.rpc, exchange.cx),
                                   max_event_bytes=call.settings.limits.max_sse_event_bytes)
            status, _ = await self.pump(call, resp, relay)
            call.outcome, call.fields["events"] = "stream", relay.events_out
            return status if status is not None else b""
        finally:
            if not resp.closed:
                resp.close()

    async def pump(self, call: GrpcCall, resp: StreamReply,
                   relay: Any) -> tuple[GrpcStatus | None, int]:
        """Relay the agent's SSE stream as the caller's messages through the one relay loop (carrier.relay:
        its idle deadline, look-ahead, drain and the caller's budgets; no keep-alives, HTTP/2 keeps the call
        alive): the status that ends the call when the relay produced one, and the message bytes written.
        The agent's response is always closed."""
        sink = GrpcSink(call)
        written = await pump(sink, resp, relay, heartbeat=0.0, lifecycle=self.lifecycle, budget=call.budget)
        return sink.ending, written


    # ---- toward a gRPC agent -------------------------------------------------------------------------

    async def send_head(self, call: GrpcCall, initial: list[tuple[str, str | bytes]]) -> None:
        """The agent's initial metadata as the caller's, with the request id and, for a v0.3 caller, the
        [migration] deprecation headers as metadata."""
        pairs = toward_caller(initial, call.version)
        pairs.extend(call.stamp())
        call.headed = True
        await call.context.send_initial_metadata(pairs)

    def _agent_trailer(self, call: GrpcCall, trailing: list[tuple[str, str | bytes]]) -> None:
        """The agent's trailing metadata for the caller (its status details travel in the status)."""
        pairs = [(k, v) for k, v in toward_caller(trailing, call.version) if k != DETAILS_KEY]
        if pairs:
            call.context.set_trailing_metadata(pairs)

    async def _grpc_agent(self, call: GrpcCall, iface: Interface, path: str, request: bytes,
                          exchange: Exchange | None) -> bytes | GrpcStatus:
        """A gRPC agent: the same version's bytes passed through (`exchange` None), or the exchange's
        request and each reply read by it. The caller's deadline is the agent's."""
        settings = call.settings
        metadata = grpc_metadata(self.upstream, iface, call.forwarded())
        if not call.rpc.streaming:
            reply = await grpc_unary(self.upstream, iface, path, request, metadata,
                                     left=call.context.time_remaining())
            await self.send_head(call, reply.initial)
            self._agent_trailer(call, reply.trailing)
            outcome: bytes | GrpcStatus = reply.status if reply.status is not None else reply.message or b""
            if reply.status is not None:
                call.fields.setdefault("error", "the agent answered an A2A error")
            if exchange is None:
                call.outcome = call.outcome or "ok"
                return outcome
            step = exchange.read_grpc_result(outcome)
            assert not isinstance(step, Again)  # paging is for v0.3 JSON-RPC callers only
            if not step.ok:
                return from_hub_error(step.value, call.version, exchange.cx)
            call.outcome = "ok"
            return _result(call.rpc, step.value, exchange.cx)
        relay = None if exchange is None else exchange.framed(
            GrpcFrames(call.rpc, exchange.cx), max_event_bytes=settings.limits.max_sse_event_bytes)

        def frames_of(message: bytes) -> list[Any]:
            if relay is None or exchange is None:
                return [message]
            return relay.feed_item(exchange.grpc_item(message))
        async with grpc_stream(self.upstream, iface, path, request, metadata,
                               left=call.context.time_remaining()) as stream:
            # the drain cancels the agent's call and ends the caller's cleanly, as the HTTP relay does
            handle = self.lifecycle.stream(stream, stream if relay is None else relay,
                                           "passthrough" if relay is None else "translated", call.budget)
            try:
                return await self._grpc_agent_stream(call, stream, handle, relay, frames_of, exchange)
            finally:
                handle.close()

    async def _grpc_agent_stream(self, call: GrpcCall, stream: GrpcStream, handle: StreamHandle, relay: Any,
                                 frames_of: Callable[[bytes], list[Any]],
                                 exchange: Exchange | None) -> bytes | GrpcStatus:
        """A gRPC agent's stream to the caller: each message (passed through, or its relay's frames), the
        agent's trailer, then its status (or the relay's ending)."""
        events = 0
        await self.send_head(call, await stream.head())
        async for message in stream.messages():
            ending, _, sent = await _send(call, frames_of(message), handle)
            if ending is not None:
                return ending
            events += sent
            if relay is not None and relay.done:
                break
        self._agent_trailer(call, stream.trailing)
        call.outcome, call.fields["events"] = "stream", events
        if relay is None or exchange is None:
            return stream.status if stream.status is not None else b""
        last = relay.close() if stream.status is None else relay.error(exchange.grpc_error(stream.status))
        ending, _, _ = await _send(call, last)
        return ending if ending is not None else b""


class GrpcSeat:
    """A composed flow's gRPC caller (shell.carrier.compose.Seat): its metadata forwarded as headers, answers as its
    RPC's reply message or a status, a stream as its RPC's messages (an ending status ends the call)."""

    __slots__ = ("call", "ending", "grpc_call", "listener")

    def __init__(self, listener: GrpcListener, grpc_call: GrpcCall, call: Call) -> None:
        self.listener, self.grpc_call, self.call = listener, grpc_call, call
        self.ending: GrpcStatus | None = None   # the status a relayed stream ended with

    @property
    def door(self) -> GrpcCall:
        return self.grpc_call

    @property
    def upstream(self) -> Upstream:
        return self.listener.upstream

    @property
    def store(self) -> TaskStore:
        return self.listener.app[TASK_INDEX]

    @property
    def scope(self) -> str:
        return self.grpc_call.task_scope()

    @property
    def ended(self) -> bool:
        return self.ending is not None

    def exchange(self, call: Call, iface: Interface) -> Exchange:
        return self.listener.exchange(self.grpc_call, call, iface)

    @property
    def caller(self) -> Caller:
        return self.grpc_call.caller()

    async def answer(self, main: Exchange, got: Got) -> bytes | GrpcStatus:
        grpc_call = self.grpc_call
        if isinstance(got, GatewayError):
            raise got   # the door's boundary answers the gateway's own faults
        grpc_call.outcome = "error"
        if isinstance(got, Challenge):
            failed = _http_failure(got.status, got.headers)
            assert failed is not None, "a challenge is a 401 or 403"
            return failed
        await self.start()
        if not got.ok:
            grpc_call.fields.setdefault("error", "the agent answered an A2A error")
            return from_hub_error(got.value, grpc_call.version, main.cx)
        grpc_call.outcome = "ok"
        return _result(grpc_call.rpc, got.value, main.cx)

    def relay(self, main: Exchange) -> StreamRelay[Any, list[bytes | GrpcStatus]]:
        return main.framed(GrpcFrames(self.grpc_call.rpc, main.cx),
                           max_event_bytes=self.grpc_call.settings.limits.max_sse_event_bytes)

    async def start(self) -> None:
        await self.listener.send_head(self.grpc_call, [])

    async def write(self, out: list[bytes | GrpcStatus]) -> int:
        if self.ending is not None:
            return 0
        self.ending, written, _ = await _send(self.grpc_call, out)
        return written

    async def pump(self, resp: StreamReply, relay: StreamRelay[Any, list[bytes | GrpcStatus]]) -> int:
        self.ending, written = await self.listener.pump(self.grpc_call, resp, relay)
        return written   # counted against the stream's byte budget by the composition, as the HTTP seat's

    async def keepalive(self) -> int:
        return 0   # HTTP/2 keeps the call alive

    async def end(self, written: int, relay: StreamRelay[Any, list[bytes | GrpcStatus]]) -> bytes | GrpcStatus:
        self.grpc_call.outcome, self.grpc_call.fields["events"] = "stream", relay.events_out
        return self.ending if self.ending is not None else b""


class GrpcSink:
    """A gRPC caller's stream as the relay loop's sink (carrier.relay.Sink): each frame a message, a status
    the end of the call (kept in `ending`; the loop stops). The drain sends what the relay held, nothing more."""

    __slots__ = ("call", "ending")

    def __init__(self, call: GrpcCall) -> None:
        self.call = call
        self.ending: GrpcStatus | None = None

    async def write(self, out: list[bytes | GrpcStatus]) -> int:
        ending, written, _ = await _send(self.call, out)
        if ending is not None:
            self.ending = ending
            raise SinkEnded
        return written

    def draining(self, out: list[bytes | GrpcStatus]) -> list[bytes | GrpcStatus]:
        return out


async def _send(call: GrpcCall, frames: Iterable[bytes | GrpcStatus],
                handle: StreamHandle | None = None) -> tuple[GrpcStatus | None, int, int]:
    """Write `frames` to the caller up to the first status among them, which ends the call (returned, not
    written): (that status or None, the bytes written, the messages written). With the stream's `handle`,
    each message counts against the caller's stream budgets."""
    written = count = 0
    for frame in frames:
        if isinstance(frame, GrpcStatus):
            return frame, written, count
        await call.context.write(frame)
        written, count = written + len(frame), count + 1
        if handle is not None:
            handle.wrote(len(frame))
    return None, written, count



def _peer(context: Context) -> str | None:
    """The caller's address from grpc's peer string (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`)."""
    kind, _, rest = context.peer().partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return None


def _http_failure(status: int, headers: Any) -> GrpcStatus | None:
    """An HTTP agent's reply that is about the call, not an A2A error: authentication passes as its
    status; a 5xx without a JSON body is the agent unavailable."""
    if status in (401, 403):
        return GrpcStatus(STATUS_CODES[HTTP_STATUS[status]], f"the agent answered HTTP {status}")
    if status >= 500 and "json" not in (headers.get("Content-Type", "") or ""):
        raise UpstreamUnavailable(f"upstream agent answered HTTP {status}")
    return None


def _http_of(status: GrpcStatus) -> int:
    """The HTTP status the log line and metrics give a gRPC status (the other doors' vocabulary)."""
    return {0: 200, 3: 400, 5: 404, 7: 403, 8: 429, 9: 400, 12: 501, 14: 503, 16: 401, 4: 504}.get(status.code, 500)


def _result(rpc: Rpc, value: Any, cx: Cx) -> bytes:
    """The agent's translated result as the caller's reply message; one the proto cannot hold is the
    agent's fault (-32006), not the caller's invalid params."""
    try:
        return encode_response(rpc, value, cx)
    except TranslationError as err:
        raise as_agent_error(err) from None
