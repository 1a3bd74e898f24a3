"""GET of the agent card at both well-known paths: the upstream card (cached) translated for the
caller's version, every interface pointing at the gateway, `Vary: A2A-Version`."""

from __future__ import annotations

from aiohttp import web

from gateway.core import jsoncodec
from gateway.core.card import served_card
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate.errors import rest_error
from gateway.core.types import Dialect
from gateway.core.versions import client_version
from gateway.observability import get_logger, log_notes
from gateway.shell.keys import LIFECYCLE, SERVED_BINDINGS, UPSTREAM
from gateway.shell.urls import public_base

log = get_logger("gateway.card")


async def handle(request: web.Request) -> web.Response:
    settings, upstream = request.app[LIFECYCLE].settings, request.app[UPSTREAM]
    headers = {"Vary": "A2A-Version", "Cache-Control": "public, max-age=60"}
    try:
        client = client_version(request.headers.get("A2A-Version"), request.query.get("A2A-Version"))
        card = await upstream.card()
        cx = Cx()
        body = served_card(card, client=client, base_url=public_base(request, settings),
                           bindings=request.app[SERVED_BINDINGS], cx=cx)
        log_notes(log, cx.notes, event="card_notes", client_version=client.value)
        status = 200
    except GatewayError as err:
        dialect = Dialect.V10 if request.headers.get("A2A-Version", "").startswith("1") else Dialect.V03REST
        status, body = rest_error(err, dialect)
        if status < 500 and err.jsonrpc_code == -32603:
            status = 502
        headers.pop("Cache-Control")
        log.warning("card_unavailable", error=err.message)
    return web.Response(body=jsoncodec.dumpb(body), status=status, headers=headers,
                        content_type="application/json")

