"""The JSON-RPC door: body bytes → envelope → the caller's version (header or query parameter, cross-checked
by the method's spelling) → shell.carrier.proxy. Its errors are JSON-RPC errors of the caller's version, with its id."""

from __future__ import annotations

from aiohttp import web

from gateway.core.bindings import jsonrpc
from gateway.core.bindings.protojson import json_names, may_have_proto_names
from gateway.core.errors import ContentTypeNotSupported, GatewayError, InvalidRequest
from gateway.core.exchange import Call
from gateway.core.mixed import mixed_call, reply_body
from gateway.core.operations import by_method
from gateway.core.types import Binding, Version
from gateway.core.versions import check_method_version, client_version, method_version, version_declared
from gateway.shell.carrier.pipeline import A2ACaller, Context, read_body, serve
from gateway.shell.carrier.proxy import MIXED, Raw
from gateway.shell.doors.http_seat import forward

_WRONG_TYPE = "Incompatible content types: a JSON-RPC request body is application/json"


async def handle(request: web.Request) -> web.StreamResponse:
    return await serve(request, _door, A2ACaller(Version.V03, Binding.JSONRPC))


async def _door(ctx: Context) -> web.StreamResponse:
    caller = ctx.caller
    assert isinstance(caller, A2ACaller)
    if ctx.request.method != "POST":
        raise InvalidRequest(f"a JSON-RPC request is POSTed here, not sent with {ctx.request.method}")
    request = ctx.request
    body = await read_body(request, ctx.settings.limits.max_body_bytes)
    headers = request.headers
    # (the query is parsed only when the URL has one)
    header, query = headers.get("A2A-Version"), request.query.get("A2A-Version") if request.query_string else None
    json_body = jsonrpc.json_media_type(headers.get("Content-Type"))
    declared = version_declared(header, query)
    try:
        rpc = jsonrpc.parse_request(body)
    except GatewayError:
        if not json_body and declared and client_version(header, query) is Version.V10:
            caller.version = Version.V10
            raise ContentTypeNotSupported(_WRONG_TYPE) from None
        raise
    caller.rpc_id = rpc.id
    caller.version = spelled = method_version(rpc.method)   # an error is answered in the method's dialect
    caller.version = client = check_method_version(spelled, client_version(header, query), declared,
                                                   ctx.settings.server.version_mode)
    if not json_body and client is Version.V10:   # a v0.3 caller keeps its version's answer (the body decides)
        raise ContentTypeNotSupported(_WRONG_TYPE)
    op, _ = by_method(rpc.method)
    ctx.bind(method=rpc.method, client_version=client, operation=op.name)
    params = rpc.params
    if client is Version.V10 and may_have_proto_names(body):
        params = json_names(op, params)   # ProtoJSON's proto field names, as v1.0 parsers accept them
    mixed = mixed_call(op, rpc.id, params, ctx.notes) if client is Version.V03 else None
    if mixed is not None:  # v0.3 names, v1.0-shaped objects (fasta2a's client): a v1.0 call, answered in its shapes
        caller.version = client = Version.V10
        params, body = mixed.params, mixed.body
        ctx.fields[MIXED] = mixed.v03_enums   # shell.carrier.proxy writes its stream back too
    response = await forward(ctx, Call(op, client, Binding.JSONRPC, params, rpc.id), Raw("POST", "", (), body))
    if mixed is not None and mixed.v03_enums and isinstance(response, web.Response) \
            and isinstance(response.body, bytes):
        response.body = reply_body(response.body)
    return response
