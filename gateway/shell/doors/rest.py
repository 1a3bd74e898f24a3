"""The HTTP+JSON door of both versions, one catch-all resource: the caller's version from `A2A-Version`
(header or query; absent means 0.3 on `/v1/...` paths and 1.0 elsewhere), the route resolved by
core.bindings.rest, then shell.carrier.proxy. Its errors are REST errors of the caller's version."""

from __future__ import annotations

from aiohttp import web

from gateway.core.bindings import rest
from gateway.core.bindings.jsonrpc import json_media_type
from gateway.core.bindings.protojson import json_names, may_have_proto_names
from gateway.core.errors import ContentTypeNotSupported
from gateway.core.exchange import Call
from gateway.core.types import Binding, Version
from gateway.core.versions import client_version, version_declared
from gateway.shell.carrier.pipeline import A2ACaller, Context, read_body, serve
from gateway.shell.carrier.proxy import Raw
from gateway.shell.carrier.urls import route_path
from gateway.shell.doors.http_seat import forward


def path_version(request: web.Request) -> Version:
    """The version a REST path implies: v0.3 routes all start with /v1."""
    return Version.V03 if route_path(request).startswith("/v1/") else Version.V10


def caller_version(request: web.Request) -> Version:
    header, query = request.headers.get("A2A-Version"), request.query.get("A2A-Version")
    if version_declared(header, query):
        return client_version(header, query)
    return path_version(request)


async def handle(request: web.Request) -> web.StreamResponse:
    return await serve(request, _door, A2ACaller(path_version(request), Binding.REST))


async def _door(ctx: Context) -> web.StreamResponse:
    request, caller = ctx.request, ctx.caller
    assert isinstance(caller, A2ACaller)
    caller.version = version = caller_version(request)
    body = await read_body(request, ctx.settings.limits.max_body_bytes)
    if body and version is Version.V10 and not json_media_type(request.headers.get("Content-Type")):
        raise ContentTypeNotSupported("Incompatible content types: an HTTP+JSON request body is "
                                      "application/json or application/a2a+json")
    query = [(k, v) for k, v in request.query.items() if k != "A2A-Version"]
    path = route_path(request)
    call = rest.parse(request.method, path, query, body, version=version)
    ctx.bind(method=f"{request.method} {call.op.name}", client_version=version, operation=call.op.name)
    params = call.params
    if version is Version.V10 and body and may_have_proto_names(body):
        params = json_names(call.op, params)   # ProtoJSON's proto field names, as v1.0 parsers accept them
    return await forward(ctx, Call(call.op, version, Binding.REST, params), Raw(request.method, path, query, body))
