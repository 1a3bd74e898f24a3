"""The HTTP+JSON surface of both versions as one catch-all resource: the caller's version from
`A2A-Version` (header or query; absent means 0.3 on `/v1/...` paths and 1.0 elsewhere), the route
resolved by core.bindings.rest, then shell.proxy. Errors answer in the caller's REST dialect."""

from __future__ import annotations

import time

from aiohttp import web

from gateway.core.bindings import rest
from gateway.core.errors import GatewayError
from gateway.core.exchange import Call, error_reply
from gateway.core.types import Binding, Version
from gateway.core.versions import client_version, version_declared
from gateway.observability import bind_exchange
from gateway.shell.handlers.jsonrpc import context, finish, read_body
from gateway.shell.proxy import Context, pass_through, respond, route_missing, translated
from gateway.shell.urls import route_path


def caller_version(request: web.Request) -> Version:
    header, query = request.headers.get("A2A-Version"), request.query.get("A2A-Version")
    if version_declared(header, query):
        return client_version(header, query)
    return Version.V03 if route_path(request).startswith("/v1/") else Version.V10


async def handle(request: web.Request) -> web.StreamResponse:
    started = time.monotonic()
    ctx = context(request, Binding.REST)
    version = Version.V03 if route_path(request).startswith("/v1/") else Version.V10
    try:
        version = caller_version(request)
        response = await _exchange(ctx, version)
    except GatewayError as err:
        ctx.fields.update(outcome=f"error {err.jsonrpc_code}", error=err.message)
        response = respond(error_reply(err, version, Binding.REST, None, ctx.settings.quirks))
    return finish(ctx, response, started)


async def _exchange(ctx: Context, version: Version) -> web.StreamResponse:
    request = ctx.request
    body = await read_body(request, ctx.settings.limits.max_body_bytes)
    query = [(k, v) for k, v in request.query.items() if k != "A2A-Version"]
    path = route_path(request)
    call = rest.parse(request.method, path, query, body, version=version)
    bind_exchange(method=f"{request.method} {call.op.name}", client_version=version, operation=call.op.name)
    ifaces = await ctx.upstream.interfaces(version, Binding.REST, call.op.name)
    iface, *others = ifaces
    bind_exchange(upstream_version=iface.version, upstream_binding=iface.binding)
    if iface.version is version and iface.binding is Binding.REST:
        ctx.fields["passthrough"] = True
        response = await pass_through(ctx, iface, request.method, path, query, body, call.op.streaming)
        if not (others and isinstance(response, web.Response) and route_missing(response.status, response.body)):
            return response
        ctx.fields["passthrough"] = False
        ctx.fields.setdefault("fallback", []).append(f"{iface.version.value} {iface.binding.value}")
        iface, *others = others
    return await translated(ctx, Call(call.op, version, Binding.REST, call.params), iface, tuple(others))
