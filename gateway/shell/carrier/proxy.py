"""Carrying one parsed call to the agent and back, whatever the bindings: a byte-for-byte pass-through when
the agent speaks the caller's version and binding, else a translated exchange (core.exchange), unary (with
follow-up pages) or streamed, falling back to the agent's next interface when its REST binding lacks the
operation; a gRPC agent over its channel. The doors parse; this module moves bytes. Errors are raised: the
pipeline answers them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from aiohttp import web
from multidict import CIMultiDict

from gateway.core import jsoncodec
from gateway.core.bindings.grpc.metadata import from_headers, to_headers
from gateway.core.bindings.jsonrpc import response_from_json
from gateway.core.bindings.rest import Outgoing
from gateway.core.card import Interface
from gateway.core.compose import awaited
from gateway.core.dialects import DIALECTS
from gateway.core.errors import GatewayError, InvalidAgentResponse, UpstreamUnavailable
from gateway.core.exchange import Call, Done, Exchange, Reply
from gateway.core.mixed import RESENT_NOTE, agent_v10_frames, agent_v10_reply, reply_frames
from gateway.core.notes import Cx
from gateway.core.passthrough import CheckedStream
from gateway.core.sse import RewrittenStream, encode_data
from gateway.core.stream import ERROR_EVENT, SseFrames
from gateway.core.timestamps import RepairingStream, habit_of, repair_body
from gateway.core.types import Binding, Version
from gateway.core.verify import method_missing
from gateway.core.versions import is_passthrough
from gateway.shell.agent.headers import AnyHeaders, RequestHeaders, client_response_headers, upstream_request_headers
from gateway.shell.agent.port import (
    CONTENT_TYPE,
    Caller,
    Serving,
    exchange,
    grpc_metadata,
    grpc_stream,
    grpc_unary,
    learn,
    refused_shapes,
    refused_stream_shapes,
    resent_unknown,
)
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import read_bounded
from gateway.shell.carrier.compose import settle
from gateway.shell.carrier.migration import check_cutoff
from gateway.shell.carrier.pipeline import Context, body_response, respond, start_stream
from gateway.shell.carrier.relay import Relay, pump
from gateway.shell.carrier.task_index import TASK_INDEX, remember, tracked
from gateway.shell.carrier.urls import grpc_target, public_base
from gateway.shell.edge.signing import CARD_SIGNER, vouch

if TYPE_CHECKING:
    from gateway.shell.agent.channels import GrpcStream  # grpcio is imported only when an agent speaks gRPC

__all__ = ["MIXED", "Raw", "Relearned", "exchange_for", "forward", "upstream_headers"]

JSON = "application/json"
# the exchange field a mixed-dialect caller's door sets (True: its replies are written in v0.3's enum spellings)
MIXED = "mixed_dialect"


@dataclass(frozen=True, slots=True)
class Raw:
    """The client's request as it came, for a pass-through: method, raw path (no route prefix), query, body."""

    method: str
    path: str
    query: Any
    body: bytes


class RouteMissing(Exception):
    """The agent's REST binding has no route for this operation; try its next interface."""


class Relearned(Exception):
    """The agent answered "method not found" in the version its card claims, and a new probe showed it
    speaks the other one: a read-only call is sent again."""


async def forward(ctx: Context, call: Call, raw: Raw) -> web.StreamResponse:
    """Carry `call` to the best of the agent's interfaces: a pass-through when it speaks the caller's version
    and binding, else translated; the next interface when an a2a-sdk 0.3 REST server lacks the route; once
    more when the agent turned out to speak another version than its card says (a read-only call). Past the
    route's `migration.cutoff`, a v0.3 caller gets the version error instead. (A streaming call's stream
    slot is held by the door's forward, shell.doors.http_seat, around this and the composed flows alike.)"""
    check_cutoff(ctx.settings.migration, call.version)
    try:
        return await _forward(ctx, call, raw)
    except Relearned:
        ctx.fields["relearned"] = True
        return await _forward(ctx, call, raw)


def _unknown_method(ctx: Context, iface: Interface, status: int, body: bytes) -> bool:
    """Whether an agent's reply says the method is unknown (and this call has not been sent again yet): then
    `_relearn`. (A check apart from the await: nearly every reply has nothing to learn.)"""
    return method_missing(iface.binding, status, body) and not ctx.fields.get("relearned")


async def _relearn(ctx: Context, call: Call, iface: Interface) -> None:
    """Re-probe the interface (the upstream remembers the version it finds); raise Relearned when the call
    may be sent again in that version."""
    found = await ctx.upstream.relearn(iface)
    if found is not None and call.op.read_only:
        raise Relearned


def _refused_shapes(ctx: Context, iface: Interface, request: bytes | None, body: bytes) -> None:
    """A v1.0 send refused for its v1.0-shaped file parts (agent_port.refused_shapes: langgraph-api): sent
    again in v0.3 (Relearned; once a call, noted)."""
    if not ctx.fields.get("relearned") and refused_shapes(ctx.upstream, iface, request, body, Cx(ctx.notes)):
        ctx.fields[RESENT_NOTE] = True
        raise Relearned


def _resent_unknown(ctx: Context, iface: Interface, status: int, body: bytes) -> None:
    """The call `_refused_shapes` sent again in v0.3 met no v0.3 method: the interface back to v1.0."""
    if ctx.fields.get(RESENT_NOTE):
        resent_unknown(ctx.upstream, iface, status, body)


async def _forward(ctx: Context, call: Call, raw: Raw) -> web.StreamResponse:
    ifaces = await ctx.upstream.interfaces(call.version, call.binding, call.op)
    iface, *others = ifaces
    ctx.bind(upstream_version=iface.version, upstream_binding=iface.binding)
    # an (extended) card never passes through: it is served as the gateway's, pointing at it, signed by it
    if is_passthrough(call.version, iface.version, call.binding, iface.binding) and not call.op.card_result:
        ctx.fields["passthrough"] = True
        try:
            return await pass_through(ctx, call, iface, raw, fallback=bool(others) and call.binding is Binding.REST)
        except RouteMissing:
            pass
        ctx.fields["passthrough"] = False
        ctx.fields.setdefault("fallback", []).append(f"{iface.version.value} {iface.binding.value}")
        iface, *others = others
    return await translated(ctx, call, iface, tuple(others))


def upstream_headers(ctx: Context, iface: Interface,
                     content_type: str | None = None) -> RequestHeaders:
    """The headers of a request to `iface`: the client's end-to-end ones, the configured extras (in force);
    `content_type`, else the binding's own."""
    ctype = content_type or CONTENT_TYPE[iface.version, iface.binding]
    return upstream_request_headers(ctx.forwarded_raw(), iface.version, peer=ctx.request.remote,
                                    extra=ctx.settings.upstream.headers, content_type=ctype)


def exchange_for(ctx: Context, call: Call, iface: Interface) -> Exchange:
    """The exchange of an HTTP door's call (agent_port.exchange): the gateway's public base, its gRPC target
    and its signature show only in a card it serves."""
    serving = Serving(bindings=ctx.served_bindings, sealer=ctx.sealer)
    if call.op.card_result:
        base = public_base(ctx.request, ctx.settings)
        signer = vouch(ctx.app.get(CARD_SIGNER), ctx.upstream.card_signature, checked=ctx.upstream.verify is not None,
                       required=ctx.settings.card.require_verified)
        serving = Serving(base, grpc_target(base, ctx.settings, ctx.lifecycle.grpc_port),
                          signer.signing_for(base) if signer is not None else None, ctx.served_bindings, ctx.sealer)
    return exchange(ctx.upstream, call, iface, ctx.settings.quirks, user_agent=ctx.request.headers.get("User-Agent"),
                    serving=serving)


async def translated(ctx: Context, call: Call, iface: Interface,
                     fallbacks: tuple[Interface, ...] = ()) -> web.StreamResponse:
    """A call whose version or binding differs from the agent's interface."""
    exchange = exchange_for(ctx, call, iface)
    try:
        out = exchange.upstream_request()
        for url in exchange.webhooks:
            ctx.notes.extend(await ctx.sealer.check_url(url))  # a host that does not resolve yet: noted
        if iface.binding is Binding.GRPC:
            return await _grpc(ctx, exchange, out)
        if call.op.streaming:
            return await _stream(ctx, exchange, out)
        return await _unary(ctx, exchange, out, fallback=bool(fallbacks))
    except RouteMissing:
        ctx.fields.setdefault("fallback", []).append(f"{iface.version.value} {iface.binding.value}")
        return await translated(ctx, call, fallbacks[0], fallbacks[1:])
    finally:
        ctx.notes.extend(exchange.notes)
        # the tasks it showed, for ListTasks (v1.0 callers of v0.3 agents)
        if tracked(exchange):   # looked at first: most exchanges record nothing, and need no store nor scope
            await remember(ctx.request.config_dict[TASK_INDEX], ctx.task_scope(), exchange)
        learn(ctx.upstream, exchange)   # its file-bytes convention, its v0.3 shapes behind a 1.0 card



def route_missing(status: int, body: Any) -> bool:
    """A framework's own 404/405/501 (no A2A error body), or a2a-sdk 0.3's NotImplementedError."""
    if status in (405, 501):
        return True
    if not isinstance(body, bytes):
        return False
    if status == 404:
        return b'"code"' not in body and b'"type"' not in body and b"Task" not in body
    return status == 500 and b"NotImplemented" in body


async def _unary(ctx: Context, exchange: Exchange, out: Outgoing, fallback: bool = False) -> web.Response:
    while True:
        url = exchange.upstream.at(out.path)
        reply = await ctx.upstream.request(out.method, url, headers=upstream_headers(ctx, exchange.upstream),
                                           body=out.body, query=out.query, read_only=exchange.op.read_only)
        status, headers, body = reply.status, reply.headers, reply.body
        if fallback and exchange.upstream.binding is Binding.REST and route_missing(status, body):
            raise RouteMissing
        if _unknown_method(ctx, exchange.upstream, status, body):
            await _relearn(ctx, exchange.call, exchange.upstream)
        _refused_shapes(ctx, exchange.upstream, out.body, body)
        _resent_unknown(ctx, exchange.upstream, status, body)
        if status in (401, 403):  # authentication is end to end: the challenge passes unchanged
            ctx.outcome = "error"
            return web.Response(body=body, status=status,
                                headers=client_response_headers(headers, exchange.call.version))
        if status >= 500 and not _is_json(headers):
            raise UpstreamUnavailable(f"upstream agent answered HTTP {status}")
        step = exchange.client_reply(status, body)
        if isinstance(step, Done):
            ctx.outcome = "error" if step.reply.error else "ok"
            if step.reply.error:
                ctx.fields.setdefault("error", "the agent answered an A2A error")
            elif exchange.op.settles and (task_id := _awaited(ctx, exchange.call, exchange.upstream, body)):
                return respond(await _settled(ctx, exchange.call, exchange.upstream, task_id, exchange) or step.reply,
                               client_response_headers(headers, exchange.call.version))
            return respond(step.reply, client_response_headers(headers, exchange.call.version))
        out = step.request


def _awaited(ctx: Context, call: Call, iface: Interface, body: bytes) -> str | None:
    """The task of a blocking send the agent answered with its task just submitted (`body`, its reply): the
    send is answered once it settles (`_settled`). None for nearly every reply, found by a byte search."""
    return awaited(call.params, DIALECTS[call.version, call.binding], ctx.settings.quirks, body,
                   jsonrpc=iface.binding is Binding.JSONRPC)


async def _settled(ctx: Context, call: Call, iface: Interface, task_id: str, main: Exchange | None) -> Reply | None:
    """The reply to a blocking send whose task `_awaited` found just submitted: the task once it settled
    (carrier.compose.settle), within what is left of the unary deadline; None when it did not settle.
    `main`: the call's exchange, made here for a pass-through."""
    made = main is None
    main = exchange_for(ctx, call, iface) if main is None else main
    within = ctx.upstream.deadlines.unary - (time.monotonic() - ctx.started)
    try:
        got = await settle(ctx.upstream, main, task_id, Caller(ctx.forwarded_raw(), ctx.request.remote),
                           within=within)
    finally:
        if made:
            ctx.notes.extend(main.notes)
    if got is None:
        return None
    ctx.fields["settled"] = task_id
    return main.reply_for(got)


async def _open_stream(ctx: Context, exchange: Exchange, out: Outgoing) -> StreamReply:
    """The agent's reply to a translated stream request, opened (its headers are not kept while it is open)."""
    headers = upstream_headers(ctx, exchange.upstream)
    headers["Accept"] = "text/event-stream"
    return await ctx.upstream.open(out.method, exchange.upstream.at(out.path), headers=headers,
                                   body=out.body, query=out.query, read_only=exchange.op.read_only)


async def _stream(ctx: Context, exchange: Exchange, out: Outgoing) -> web.StreamResponse:
    resp = await _open_stream(ctx, exchange, out)
    client = exchange.call.version
    try:
        if resp.status != 200 or resp.content_type != "text/event-stream":
            # rejected before the first event: a plain reply, translated like a unary one
            data = await read_bounded(resp, ctx.upstream.max_body_bytes)
            if _unknown_method(ctx, exchange.upstream, resp.status, data):
                await _relearn(ctx, exchange.call, exchange.upstream)
            if resp.status >= 500 and not _is_json(resp.headers):
                raise UpstreamUnavailable(f"upstream agent answered HTTP {resp.status}")
            step = exchange.client_reply(resp.status, data)
            assert isinstance(step, Done)
            ctx.outcome = "rejected"
            if exchange.src in exchange.op.sse_errors:
                return await _sse_error(ctx, step.reply, resp.headers, client)
            return respond(step.reply, client_response_headers(resp.headers, client))
        if not ctx.fields.get("relearned") and await refused_stream_shapes(ctx.upstream, exchange.upstream, out.body,
                                                                           resp, exchange.cx):
            raise Relearned   # its v1.0 file parts refused as the stream's first event: sent again in v0.3
        stream = await start_stream(ctx, client_response_headers(resp.headers, client))
        relay = exchange.stream(max_event_bytes=ctx.settings.limits.max_sse_event_bytes)
        await _pump(ctx, stream, resp, relay)
        return stream
    finally:
        if not resp.closed:
            resp.close()


async def _sse_error(ctx: Context, reply: Reply, headers: AnyHeaders, client: Version) -> web.StreamResponse:
    stream = await start_stream(ctx, client_response_headers(headers, client))
    await stream.write(encode_data(reply.body.decode(), event=ERROR_EVENT))
    await stream.write_eof()
    return stream


async def _pump(ctx: Context, stream: web.StreamResponse, resp: StreamReply, relay: Relay) -> None:
    """The agent's stream relayed to the caller's until either ends, then closed; the exchange's outcome, its
    bytes and events recorded."""
    if ctx.fields.get(MIXED):  # a mixed-dialect caller reading v0.3's enum spellings (doors.jsonrpc)
        relay = RewrittenStream(relay, reply_frames)
    ctx.fields["bytes"] = await pump(stream, resp, relay, heartbeat=ctx.settings.server.heartbeat_seconds,
                                     budget=ctx.budget, lifecycle=ctx.lifecycle)
    await stream.write_eof()
    ctx.outcome = "stream"
    ctx.fields["events"] = relay.events_out


async def pass_through(ctx: Context, call: Call, iface: Interface, raw: Raw, *,
                       fallback: bool = False) -> web.StreamResponse:
    """Same version and binding on both sides: the agent's bytes go through untouched, both ways, once they
    are checked as far as is free (`relayed_reply`; a stream by core.passthrough, whole events only).
    `fallback`: a framework's own 404/405/501 raises RouteMissing (the agent's next interface is tried)."""
    client = iface.version
    if not call.op.streaming:
        reply = await ctx.upstream.request(raw.method, iface.at(raw.path), headers=_relayed_headers(ctx, iface),
                                           body=raw.body or None, query=raw.query, read_only=call.op.read_only)
        if _unknown_method(ctx, iface, reply.status, reply.body):
            await _relearn(ctx, call, iface)
        _refused_shapes(ctx, iface, raw.body, reply.body)
        if fallback and route_missing(reply.status, reply.body):
            raise RouteMissing
        body = reply.body
        if iface.version is Version.V10 and iface.binding is Binding.JSONRPC \
                and (v10 := agent_v10_reply(body, call.op.result_family, Cx(ctx.notes))) is not None:
            body = v10   # a v0.3-shaped result behind a 1.0 card (langgraph-api): written as v1.0, and learned
            ctx.upstream.spoken(iface, Version.V03)
        if call.op.settles and reply.status < 300 and (task_id := _awaited(ctx, call, iface, body)):
            settled = await _settled(ctx, call, iface, task_id, None)
            if settled is not None:
                ctx.outcome = "ok"
                return respond(settled, client_response_headers(reply.headers, client))
        return _relayed(ctx, iface, reply.status, reply.headers, body)
    resp = await _open_relayed(ctx, call, iface, raw)
    try:
        if resp.content_type != "text/event-stream":
            data = await read_bounded(resp, ctx.upstream.max_body_bytes)
            if fallback and route_missing(resp.status, data):
                raise RouteMissing
            response = _relayed(ctx, iface, resp.status, resp.headers, data)
            ctx.outcome = "rejected"
            return response
        if resp.status != 200:
            raise InvalidAgentResponse(f"upstream agent answered an event stream with HTTP {resp.status}")
        dialect = DIALECTS[(iface.version, iface.binding)]
        frames = SseFrames(dialect, iface.binding, call.rpc_id, Cx(ctx.notes, ctx.settings.quirks),
                           ctx.settings.quirks.rest_v03_status_table)
        relay: Relay
        relay = checked = CheckedStream(frames, dialect=dialect, binding=iface.binding,
                                        max_event_bytes=ctx.settings.limits.max_sse_event_bytes)
        habit = ctx.upstream.timestamp_habit.get(iface.url)
        if habit is not False:  # an agent whose timestamps need repair, or one not known yet
            relay = repairing = RepairingStream(relay, jsonrpc=iface.binding is Binding.JSONRPC, cx=frames.cx,
                                                habit=habit)
        # v0.3-shaped items behind a 1.0 card (langgraph-api) written as v1.0, until the interface's streams
        # showed v1.0 items only
        shapes = iface.version is Version.V10 and iface.binding is Binding.JSONRPC \
            and iface.url not in ctx.upstream.v10_items
        if not ctx.fields.get("relearned") and await refused_stream_shapes(ctx.upstream, iface, raw.body, resp,
                                                                           Cx(ctx.notes)):
            raise Relearned   # its v1.0 file parts refused as the stream's first event: sent again in v0.3
        if shapes:
            relay = RewrittenStream(relay, partial(agent_v10_frames, cx=frames.cx))
        stream = await start_stream(ctx, client_response_headers(resp.headers, client))
        try:
            await _pump(ctx, stream, resp, relay)
        finally:
            if habit is None and repairing.habit is not None:
                ctx.upstream.timestamp_habit.setdefault(iface.url, repairing.habit)
            if checked.spoke_v03:
                ctx.upstream.spoken(iface, Version.V03)   # v0.3-shaped events behind a 1.0 card (langgraph-api)
            elif shapes and checked.events_out > 1:   # (langgraph-api's are flat v0.3 after the first)
                ctx.upstream.v10_items.add(iface.url)
        return stream
    finally:
        if not resp.closed:
            resp.close()


def _relayed_headers(ctx: Context, iface: Interface) -> RequestHeaders:
    """A pass-through request's headers: those of any request to `iface`, with the client's content type."""
    return upstream_headers(ctx, iface, ctx.request.headers.get("Content-Type"))


async def _open_relayed(ctx: Context, call: Call, iface: Interface, raw: Raw) -> StreamReply:
    """The agent's reply to a pass-through stream request, opened; the request's headers are not kept for
    as long as the stream is open."""
    headers = _relayed_headers(ctx, iface)
    headers["Accept"] = ctx.request.headers.get("Accept", "text/event-stream")
    return await ctx.upstream.open(raw.method, iface.at(raw.path), headers=headers, body=raw.body or None,
                                   query=raw.query, read_only=call.op.read_only)


async def _grpc(ctx: Context, exchange: Exchange, out: Outgoing) -> web.StreamResponse:
    """A gRPC agent for an HTTP caller: the exchange's request message over the agent's channel, its
    reply (or its stream, message by message) read back by the exchange; the client's headers as the
    call's metadata, the agent's initial metadata as the reply's headers."""
    iface, settings, client = exchange.upstream, ctx.settings, exchange.call.version
    metadata = grpc_metadata(ctx.upstream, iface, from_headers(ctx.forwarded_headers().items()))
    if not exchange.op.streaming:
        while True:
            reply = await grpc_unary(ctx.upstream, iface, out.path, out.body or b"", metadata)
            step = exchange.client_grpc_reply(reply.status or reply.message or b"")
            if isinstance(step, Done):
                ctx.outcome = "error" if step.reply.error else "ok"
                return respond(step.reply, _grpc_headers(reply.initial, client))
            out = step.request
    relay = exchange.stream(max_event_bytes=settings.limits.max_sse_event_bytes)
    async with grpc_stream(ctx.upstream, iface, out.path, out.body or b"", metadata) as call:
        handle = ctx.lifecycle.stream(call, relay, "translated")   # the drain cancels the agent's call
        try:
            return await _grpc_stream(ctx, exchange, call, relay)
        finally:
            handle.close()


async def _grpc_stream(ctx: Context, exchange: Exchange, call: GrpcStream, relay: Any) -> web.StreamResponse:
    """A gRPC agent's stream as the HTTP caller's SSE: a refusal before the first message is a plain reply."""
    client = exchange.call.version
    head = await call.head()
    stream: web.StreamResponse | None = None
    async for message in call.messages():
        stream = stream or await start_stream(ctx, _grpc_headers(head, client))
        await stream.write(relay.feed_item(exchange.grpc_item(message)))
        if relay.done:
            break
    if stream is None and call.status is not None:  # refused before the first event: a plain reply
        step = exchange.client_grpc_reply(call.status)
        assert isinstance(step, Done)
        ctx.outcome = "rejected"
        return respond(step.reply, _grpc_headers(head, client))
    stream = stream or await start_stream(ctx, _grpc_headers(head, client))
    await stream.write(relay.close() if call.status is None else relay.error(exchange.grpc_error(call.status)))
    await stream.write_eof()
    ctx.outcome, ctx.fields["events"] = "stream", relay.events_out
    return stream


def _grpc_headers(metadata: Any, client: Version) -> CIMultiDict[str]:
    """A gRPC agent's initial metadata as an HTTP caller's response headers."""
    return client_response_headers(CIMultiDict(to_headers(metadata)), client)


def _relayed(ctx: Context, iface: Interface, status: int, headers: AnyHeaders, body: bytes) -> web.Response:
    """The agent's unary reply relayed as it is, once `relayed_reply` has found it fit to relay; its status
    timestamps repaired when the interface has that habit (learned from its first reply showing one)."""
    content_type = relayed_reply(iface.binding, status, headers, body)
    habits = ctx.upstream.timestamp_habit
    if status < 300 and habits.get(iface.url) is not False:
        found = habit_of(body)
        if found is not None:
            habits.setdefault(iface.url, found)
        if found:
            body = repair_body(body, iface.binding is Binding.JSONRPC, Cx(ctx.notes))
    ctx.outcome = "ok" if status < 400 else "error"
    return body_response(status, body, content_type, client_response_headers(headers, iface.version))


def relayed_reply(binding: Binding, status: int, headers: AnyHeaders, body: bytes) -> str:
    """Check an agent's unary reply before its bytes go to a client of its own version and binding; the
    content type to relay it with. What is free to check is checked: an authentication challenge (401/403)
    passes as it is (end to end); a 5xx that is not JSON (an ingress's HTML page) is the agent unreachable;
    any other body must be JSON text (one C parse, `jsoncodec.loads_relayed`), over JSON-RPC a JSON-RPC
    response, and JSON-RPC has a body. A JSON body labelled otherwise is relayed as JSON."""
    content_type = (headers.get("Content-Type") or JSON).split(";")[0].strip()
    if status in (401, 403):
        return content_type
    if status >= 500 and "json" not in content_type:
        raise UpstreamUnavailable(f"upstream agent answered HTTP {status} ({content_type or 'no body type'})")
    if not body:
        if binding is Binding.JSONRPC:
            raise InvalidAgentResponse(f"upstream agent answered HTTP {status} with no JSON-RPC body")
        return content_type
    try:
        value = jsoncodec.loads_relayed(body)
    except GatewayError:
        raise InvalidAgentResponse(f"agent reply (HTTP {status}, {content_type}) is not JSON") from None
    if binding is Binding.JSONRPC:
        response_from_json(value)
    return content_type if "json" in content_type else JSON


def _is_json(headers: Any) -> bool:
    return "json" in (headers.get("Content-Type", "") or "")
