"""The JSON-RPC endpoint: body bytes → envelope → client version → upstream interface, then a
byte-for-byte pass-through (same version) or a translated exchange (core.exchange), unary or
streamed. Every failure answers a JSON-RPC error in the caller's version, with its id."""

from __future__ import annotations

import time
from typing import Any
import uuid

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import Settings
from gateway.core import jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.errors import GatewayError, LimitExceeded, UpstreamUnavailable
from gateway.core.exchange import RPC_DIALECT, Again, RpcExchange
from gateway.core.operations import by_method
from gateway.core.translate.errors import jsonrpc_error
from gateway.core.types import Binding, Version
from gateway.core.versions import (
    check_method_version,
    client_version,
    method_version,
    version_declared,
)
from gateway.observability import bind_exchange, clear, log_exchange
from gateway.shell.headers import client_response_headers, upstream_request_headers
from gateway.shell.keys import SETTINGS, UPSTREAM
from gateway.shell.relay import PassThrough, Relay, pump, start_stream
from gateway.shell.upstream import Upstream, read_bounded
from gateway.shell.urls import public_base

JSON = "application/json"
RPC_BINDINGS = (Binding.JSONRPC,)


async def read_body(request: web.Request, limit: int) -> bytes:
    if request.content_length is not None and request.content_length > limit:
        raise LimitExceeded(f"request body larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise LimitExceeded(f"request body larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _json(body: bytes, headers: CIMultiDict[str] | None = None, status: int = 200) -> web.Response:
    response = web.Response(body=body, status=status, headers=headers)
    response.content_type = JSON
    return response


def _error(rpc_id: jsonrpc.RpcId, err: GatewayError, version: Version) -> web.Response:
    error = jsonrpc_error(err, RPC_DIALECT[version])
    return _json(jsoncodec.dumpb(jsonrpc.error_envelope(rpc_id, error)))


async def handle(request: web.Request) -> web.StreamResponse:
    started = time.monotonic()
    settings, upstream = request.app[SETTINGS], request.app[UPSTREAM]
    request_id = request.headers.get("X-Request-Id") or uuid.uuid4().hex
    clear()
    bind_exchange(request_id=request_id, binding=Binding.JSONRPC)
    fields: dict[str, Any] = {}
    try:
        response = await _exchange(request, settings, upstream, fields)
    except GatewayError as err:  # raised before the caller's version was known
        fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        response = _error(jsonrpc.rpc_id_of(err), err, _version_of_method(jsonrpc.rpc_method_of(err)))
    if not response.prepared:
        response.headers["X-Request-Id"] = request_id
    notes = fields.pop("notes", ())
    log_exchange(notes=notes if isinstance(notes, list) else (), status=response.status,
                 duration_ms=round((time.monotonic() - started) * 1000, 2), **fields)
    return response


def _version_of_method(method: str | None) -> Version:
    return method_version(method) if method else Version.V03


async def _exchange(request: web.Request, settings: Settings, upstream: Upstream,
                    fields: dict[str, Any]) -> web.StreamResponse:
    body = await read_body(request, settings.limits.max_body_bytes)
    rpc = jsonrpc.parse_request(body)
    spelled = method_version(rpc.method)
    try:
        header, query = request.headers.get("A2A-Version"), request.query.get("A2A-Version")
        client = check_method_version(spelled, client_version(header, query), version_declared(header, query),
                                      settings.server.version_mode)
    except GatewayError as err:
        fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        return _error(rpc.id, err, spelled)
    bind_exchange(method=rpc.method, client_version=client)
    try:
        op, _ = by_method(rpc.method)
        iface = await upstream.interface(client, Binding.JSONRPC)
    except GatewayError as err:
        fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        return _error(rpc.id, err, client)
    bind_exchange(upstream_version=iface.version)
    headers = upstream_request_headers(request.headers, iface.version, peer=request.remote,
                                       extra=settings.upstream.headers, content_type=JSON)
    if iface.version is client:
        fields["passthrough"] = True
        return await _pass_through(request, settings, upstream, iface.url, headers, body, op.streaming,
                                   client, fields)
    exchange = RpcExchange(rpc, op, client, iface.version, quirks=settings.quirks, tenant=iface.tenant,
                           base_url=public_base(request, settings), bindings=RPC_BINDINGS)
    try:
        out = exchange.upstream_request()
        if op.streaming:
            return await _stream(request, settings, upstream, iface.url, headers, out, exchange, fields)
        return await _unary(upstream, iface.url, headers, out, exchange, client, fields)
    except GatewayError as err:
        fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        return _json(exchange.error_reply(err))
    finally:
        fields["notes"] = exchange.notes


async def _unary(upstream: Upstream, url: str, headers: CIMultiDict[str], out: bytes,
                 exchange: RpcExchange, client: Version, fields: dict[str, Any]) -> web.Response:
    while True:
        reply = await upstream.request("POST", url, headers=headers, body=out)
        if reply.status in (401, 403):  # authentication is end to end: the challenge passes unchanged
            fields["outcome"] = f"http {reply.status}"
            return web.Response(body=reply.body, status=reply.status,
                                headers=client_response_headers(reply.headers, client))
        if reply.status >= 500 and not _is_json(reply.headers):
            raise UpstreamUnavailable(f"upstream agent answered HTTP {reply.status}")
        step = exchange.client_reply(reply.body)
        if isinstance(step, Again):
            out = step.body
            continue
        fields["outcome"] = "ok"
        return _json(step.body, client_response_headers(reply.headers, client))


async def _stream(request: web.Request, settings: Settings, upstream: Upstream, url: str,
                  headers: CIMultiDict[str], out: bytes, exchange: RpcExchange,
                  fields: dict[str, Any]) -> web.StreamResponse:
    headers["Accept"] = "text/event-stream"
    resp = await upstream.open("POST", url, headers=headers, body=out)
    try:
        if resp.status != 200 or resp.content_type != "text/event-stream":
            # rejected before the first event: a plain JSON-RPC reply, translated like a unary one
            data = await read_bounded(resp, upstream.max_body_bytes)
            if resp.status >= 500 and not _is_json(resp.headers):
                raise UpstreamUnavailable(f"upstream agent answered HTTP {resp.status}")
            step = exchange.client_reply(data)
            fields["outcome"] = "rejected"
            return _json(step.body, client_response_headers(CIMultiDict(resp.headers), exchange.client))
        stream = await start_stream(request, client_response_headers(CIMultiDict(resp.headers), exchange.client))
        relay = exchange.stream(max_event_bytes=settings.limits.max_sse_event_bytes)
        fields["bytes"] = await _pump(stream, resp, relay, settings)
        fields.update(outcome="stream", events=getattr(relay, "events_out", None))
        return stream
    finally:
        if not resp.closed:
            resp.close()


async def _pump(stream: web.StreamResponse, resp: aiohttp.ClientResponse, relay: Relay,
                settings: Settings) -> int:
    written = await pump(stream, resp, relay, heartbeat=settings.server.heartbeat_seconds,
                         idle_timeout=settings.upstream.timeout.idle_stream)
    await stream.write_eof()
    return written


async def _pass_through(request: web.Request, settings: Settings, upstream: Upstream, url: str,
                        headers: CIMultiDict[str], body: bytes, streaming: bool, client: Version,
                        fields: dict[str, Any]) -> web.StreamResponse:
    if not streaming:
        reply = await upstream.request("POST", url, headers=headers, body=body)
        fields["outcome"] = f"http {reply.status}"
        response = web.Response(body=reply.body, status=reply.status,
                                headers=client_response_headers(reply.headers, client))
        response.content_type = reply.headers.get("Content-Type", JSON).split(";")[0]
        return response
    headers["Accept"] = request.headers.get("Accept", "text/event-stream")
    resp = await upstream.open("POST", url, headers=headers, body=body)
    try:
        if resp.content_type != "text/event-stream":
            data = await read_bounded(resp, upstream.max_body_bytes)
            fields["outcome"] = f"http {resp.status}"
            return _json(data, client_response_headers(CIMultiDict(resp.headers), client), resp.status)
        stream = await start_stream(request, client_response_headers(CIMultiDict(resp.headers), client))
        fields["bytes"] = await _pump(stream, resp, PassThrough(), settings)
        fields["outcome"] = "stream"
        return stream
    finally:
        if not resp.closed:
            resp.close()


def _is_json(headers: CIMultiDict[str] | object) -> bool:
    ctype = getattr(headers, "get", lambda *_: "")("Content-Type", "") or ""
    return "json" in ctype

