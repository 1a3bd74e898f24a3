"""Carrying one parsed call to the agent and back, whatever the bindings: a byte-for-byte pass-through
when the agent speaks the caller's version and binding, else a translated exchange (core.exchange),
unary (with follow-up pages) or streamed. The handlers parse; this module moves bytes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import Settings
from gateway.core.bindings.rest import Outgoing
from gateway.core.card import Interface
from gateway.core.errors import GatewayError, UpstreamUnavailable
from gateway.core.exchange import Call, Done, Exchange, Reply
from gateway.core.sse import encode_data
from gateway.core.types import Binding, Version
from gateway.shell.headers import AnyHeaders, client_response_headers, upstream_request_headers
from gateway.shell.keys import LIFECYCLE
from gateway.shell.relay import PassThrough, Relay, pump, start_stream
from gateway.shell.upstream import Upstream, read_bounded
from gateway.shell.urls import public_base

JSON = "application/json"
CONTENT_TYPE = {Version.V03: JSON, Version.V10: JSON}
REST_CONTENT_TYPE = {Version.V03: JSON, Version.V10: "application/a2a+json"}


@dataclass(slots=True)
class Context:
    """What every exchange of one request needs from the app."""

    request: web.Request
    settings: Settings
    upstream: Upstream
    fields: dict[str, Any]
    served_bindings: tuple[Binding, ...]
    sealer: Any = None


def respond(reply: Reply, headers: CIMultiDict[str] | None = None) -> web.Response:
    response = web.Response(body=reply.body or None, status=reply.status, headers=headers)
    if reply.body:
        response.content_type = reply.content_type
    return response


def _url(iface: Interface, path: str) -> str:
    return iface.url if not path else iface.url.rstrip("/") + path


def _headers(ctx: Context, iface: Interface) -> CIMultiDict[str]:
    ctype = JSON if iface.binding is Binding.JSONRPC else REST_CONTENT_TYPE[iface.version]
    return upstream_request_headers(ctx.request.headers, iface.version, peer=ctx.request.remote,
                                    extra=ctx.settings.upstream.headers, content_type=ctype)


async def translated(ctx: Context, call: Call, iface: Interface,
                     fallbacks: tuple[Interface, ...] = ()) -> web.StreamResponse:
    """A call whose version or binding differs from the agent's interface. When the agent's REST
    binding lacks the operation (a2a-sdk 0.3 has no push-config list or delete route), the call
    goes to its next interface instead."""
    exchange = Exchange(call, iface, quirks=ctx.settings.quirks,
                        base_url=public_base(ctx.request, ctx.settings), bindings=ctx.served_bindings,
                        sealer=ctx.sealer)
    try:
        out = exchange.upstream_request()
        for url in exchange.webhooks:
            await _vet_webhook(ctx, url)
        if call.op.streaming:
            return await _stream(ctx, exchange, out)
        return await _unary(ctx, exchange, out, fallback=bool(fallbacks))
    except RouteMissing:
        ctx.fields.setdefault("fallback", []).append(f"{iface.version.value} {iface.binding.value}")
        return await translated(ctx, call, fallbacks[0], fallbacks[1:])
    except GatewayError as err:
        ctx.fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        return respond(exchange.error_reply(err))
    finally:
        ctx.fields["notes"] = exchange.notes


async def _vet_webhook(ctx: Context, url: str) -> None:
    check = getattr(ctx.sealer, "check_url", None)
    if check is not None:
        await check(url)


async def _send(ctx: Context, iface: Interface, out: Outgoing) -> tuple[int, AnyHeaders, bytes]:
    url = _url(iface, out.path)
    reply = await ctx.upstream.request(out.method, url, headers=_headers(ctx, iface), body=out.body,
                                       query=out.query)
    return reply.status, reply.headers, reply.body


class RouteMissing(Exception):
    """The agent's REST binding has no route for this operation; try its next interface."""


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
        status, headers, body = await _send(ctx, exchange.upstream, out)
        if fallback and exchange.upstream.binding is Binding.REST and route_missing(status, body):
            raise RouteMissing
        if status in (401, 403):  # authentication is end to end: the challenge passes unchanged
            ctx.fields["outcome"] = f"http {status}"
            return web.Response(body=body, status=status,
                                headers=client_response_headers(headers, exchange.call.version))
        if status >= 500 and not _is_json(headers):
            raise UpstreamUnavailable(f"upstream agent answered HTTP {status}")
        step = exchange.client_reply(status, body)
        if isinstance(step, Done):
            ctx.fields["outcome"] = "ok" if step.reply.status < 400 and b'"error"' not in step.reply.body[:64] \
                else "error"
            return respond(step.reply, client_response_headers(headers, exchange.call.version))
        out = step.request


async def _stream(ctx: Context, exchange: Exchange, out: Outgoing) -> web.StreamResponse:
    headers = _headers(ctx, exchange.upstream)
    headers["Accept"] = "text/event-stream"
    resp = await ctx.upstream.open(out.method, _url(exchange.upstream, out.path), headers=headers,
                                   body=out.body, query=out.query)
    client = exchange.call.version
    try:
        if resp.status != 200 or resp.content_type != "text/event-stream":
            # rejected before the first event: a plain reply, translated like a unary one
            data = await read_bounded(resp, ctx.upstream.max_body_bytes)
            if resp.status >= 500 and not _is_json(resp.headers):
                raise UpstreamUnavailable(f"upstream agent answered HTTP {resp.status}")
            step = exchange.client_reply(resp.status, data)
            assert isinstance(step, Done)
            ctx.fields["outcome"] = "rejected"
            if _sse_errors(exchange.call):
                return await _sse_error(ctx, step.reply, resp.headers, client)
            return respond(step.reply, client_response_headers(resp.headers, client))
        stream = await start_stream(ctx.request, client_response_headers(resp.headers, client))
        relay = exchange.stream(max_event_bytes=ctx.settings.limits.max_sse_event_bytes)
        ctx.fields["bytes"] = await _pump(ctx, stream, resp, relay)
        ctx.fields.update(outcome="stream", events=relay.events_out)
        return stream
    finally:
        if not resp.closed:
            resp.close()


def _sse_errors(call: Call) -> bool:
    """Strict v0.3 JSON-RPC clients read `tasks/resubscribe` only as SSE, errors included (a2a-js)."""
    return call.version is Version.V03 and call.binding is Binding.JSONRPC and call.op.name == "subscribe_to_task"


async def _sse_error(ctx: Context, reply: Reply, headers: AnyHeaders, client: Version) -> web.StreamResponse:
    stream = await start_stream(ctx.request, client_response_headers(headers, client))
    await stream.write(encode_data(reply.body.decode(), event="error"))
    await stream.write_eof()
    return stream


async def _pump(ctx: Context, stream: web.StreamResponse, resp: aiohttp.ClientResponse, relay: Relay) -> int:
    written = await pump(stream, resp, relay, heartbeat=ctx.settings.server.heartbeat_seconds,
                         lifecycle=ctx.request.app.get(LIFECYCLE),
                         idle_timeout=ctx.settings.upstream.timeout.idle_stream)
    await stream.write_eof()
    return written


async def pass_through(ctx: Context, iface: Interface, method: str, path: str, query: Any, body: bytes,
                       streaming: bool) -> web.StreamResponse:
    """Same version and binding on both sides: bytes go through untouched, both ways."""
    client = iface.version
    headers = _headers(ctx, iface)
    if ctx.request.headers.get("Content-Type"):
        headers["Content-Type"] = ctx.request.headers["Content-Type"]
    url = _url(iface, path)
    if not streaming:
        reply = await ctx.upstream.request(method, url, headers=headers, body=body or None, query=query)
        ctx.fields["outcome"] = f"http {reply.status}"
        response = web.Response(body=reply.body, status=reply.status,
                                headers=client_response_headers(reply.headers, client))
        if reply.body:
            response.content_type = reply.headers.get("Content-Type", JSON).split(";")[0]
        return response
    headers["Accept"] = ctx.request.headers.get("Accept", "text/event-stream")
    resp = await ctx.upstream.open(method, url, headers=headers, body=body or None, query=query)
    try:
        if resp.content_type != "text/event-stream":
            data = await read_bounded(resp, ctx.upstream.max_body_bytes)
            ctx.fields["outcome"] = f"http {resp.status}"
            response = web.Response(body=data, status=resp.status,
                                    headers=client_response_headers(resp.headers, client))
            response.content_type = resp.content_type
            return response
        stream = await start_stream(ctx.request, client_response_headers(resp.headers, client))
        ctx.fields["bytes"] = await _pump(ctx, stream, resp, PassThrough())
        ctx.fields["outcome"] = "stream"
        return stream
    finally:
        if not resp.closed:
            resp.close()


def _is_json(headers: Any) -> bool:
    return "json" in (headers.get("Content-Type", "") or "")
