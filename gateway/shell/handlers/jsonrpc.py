"""The JSON-RPC endpoint: body bytes → envelope → the caller's version (header or query parameter,
cross-checked by the method's spelling) → the agent interface to use → shell.proxy. Every failure
answers a JSON-RPC error in the caller's version, with its id."""

from __future__ import annotations

import os
import time
from typing import Any

from aiohttp import web

from gateway.config import Settings
from gateway.core.bindings import jsonrpc
from gateway.core.errors import GatewayError, InvalidAgentResponse, LimitExceeded
from gateway.core.exchange import Call, error_reply
from gateway.core.operations import by_method
from gateway.core.types import Binding, Version
from gateway.core.versions import check_method_version, client_version, method_version, version_declared
from gateway.observability import bind_exchange, bound, clear, log_exchange
from gateway.shell.keys import LIFECYCLE, METRICS, ROUTE_NAME, SEALER, SERVED_BINDINGS, UPSTREAM
from gateway.shell.metrics import outcome_label
from gateway.shell.proxy import Context, pass_through, respond, translated

_BAD_REPLY = f"error {InvalidAgentResponse.jsonrpc_code}"


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


def context(request: web.Request, binding: Binding) -> Context:
    """Fresh per-request context; binds the log fields every line of this request carries."""
    clear()
    request_id = request.headers.get("X-Request-Id") or os.urandom(16).hex()  # 32 hex digits, as uuid4().hex
    app = request.app
    bind_exchange(request_id=request_id, binding=binding, route=app.get(ROUTE_NAME, "default"))
    return Context(request, app[LIFECYCLE].settings, app[UPSTREAM], {"request_id": request_id},
                   app[SERVED_BINDINGS], app.get(SEALER))


def finish(ctx: Context, response: web.StreamResponse, started: float) -> web.StreamResponse:
    """Stamp the request id, write the one log line of the exchange and count it in the metrics."""
    fields = ctx.fields
    request_id = fields.pop("request_id")
    if not response.prepared:
        response.headers["X-Request-Id"] = request_id
    notes = fields.pop("notes", ())
    notes = notes if isinstance(notes, list) else []
    duration = time.monotonic() - started
    log_exchange(notes=notes, status=response.status, duration_ms=round(duration * 1000, 2), **fields)
    at = bound()
    metrics = ctx.request.app[METRICS]
    metrics.exchange(route=str(at.get("route", "default")), operation=str(at.get("operation", "unknown")),
                     client_version=str(at.get("client_version", "")),
                     upstream_version=str(at.get("upstream_version", "")), binding=str(at.get("binding", "")),
                     outcome=outcome_label(fields.get("outcome"), response.status), duration_s=duration,
                     notes=notes)
    if fields.get("outcome") == _BAD_REPLY:
        metrics.upstream_error("bad_reply")  # the agent's reply could not be read or translated
    return response


async def handle(request: web.Request) -> web.StreamResponse:
    started = time.monotonic()
    ctx = context(request, Binding.JSONRPC)
    try:
        response = await _exchange(ctx)
    except GatewayError as err:  # raised before the caller's version was known
        ctx.fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        method = jsonrpc.rpc_method_of(err)
        version = method_version(method) if method else Version.V03
        response = respond(error_reply(err, version, Binding.JSONRPC, jsonrpc.rpc_id_of(err), ctx.settings.quirks))
    return finish(ctx, response, started)


async def _exchange(ctx: Context) -> web.StreamResponse:
    settings: Settings = ctx.settings
    body = await read_body(ctx.request, settings.limits.max_body_bytes)
    rpc = jsonrpc.parse_request(body)
    spelled = method_version(rpc.method)
    client = spelled
    try:
        header, query = ctx.request.headers.get("A2A-Version"), ctx.request.query.get("A2A-Version")
        client = check_method_version(spelled, client_version(header, query), version_declared(header, query),
                                      settings.server.version_mode)
        bind_exchange(method=rpc.method, client_version=client)
        op, _ = by_method(rpc.method)
        bind_exchange(operation=op.name)
        ifaces = await ctx.upstream.interfaces(client, Binding.JSONRPC, op.name)
    except GatewayError as err:
        ctx.fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        return respond(error_reply(err, client, Binding.JSONRPC, rpc.id, settings.quirks))
    iface, *others = ifaces
    bind_exchange(upstream_version=iface.version, upstream_binding=iface.binding)
    if iface.version is client and iface.binding is Binding.JSONRPC:
        ctx.fields["passthrough"] = True
        return await pass_through(ctx, iface, "POST", "", (), body, op.streaming)
    params: Any = rpc.params
    return await translated(ctx, Call(op, client, Binding.JSONRPC, params, rpc.id), iface, tuple(others))
