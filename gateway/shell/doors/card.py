"""The agent-card door: GET at both well-known paths, the upstream card (cached) translated for the caller's
version, every interface pointing at the gateway, `Vary: A2A-Version`, signed with the gateway's key when it has
one and vouches for the agent's card (its JWKS beside), a strong `ETag` per variant and the card's `Last-Modified`,
conditional GETs answered 304. Errors are REST errors of the caller's version (an agent that cannot be reached, or
whose card is required verified and is not, answers 502)."""

from __future__ import annotations

from email.utils import formatdate

from aiohttp import web

from gateway.core import jsoncodec
from gateway.core.card import card_etag, not_modified, served_card
from gateway.core.errors import GatewayError
from gateway.core.exchange import Reply
from gateway.core.notes import Cx
from gateway.core.quirks import Quirks
from gateway.core.types import Binding, Version
from gateway.core.versions import client_version
from gateway.shell.carrier.pipeline import A2ACaller, Context, serve
from gateway.shell.carrier.urls import grpc_target, public_base
from gateway.shell.edge.signing import CARD_SIGNER, JWKS_PATH, vouch

HEADERS = {"Vary": "A2A-Version", "Cache-Control": "public, max-age=60"}
OPERATION = "get_agent_card"  # the metrics' and log's operation label (no A2A operation fetches the card)


class CardCaller(A2ACaller):
    """A card reader: errors in the REST shape of its version, the agent's unavailability as 502."""

    def error_reply(self, err: GatewayError, quirks: Quirks) -> Reply:
        reply = super().error_reply(err, quirks)
        if reply.status < 500 and err.jsonrpc_code == -32603:
            return Reply(502, reply.body, reply.content_type, error=True)
        return reply


async def jwks(request: web.Request) -> web.Response:
    """The public key of the gateway's card signatures (a JWKS)."""
    return web.Response(body=jsoncodec.dumpb(request.app[CARD_SIGNER].jwks), content_type="application/json",
                        headers={"Cache-Control": "public, max-age=300"})


async def handle(request: web.Request) -> web.StreamResponse:
    said = request.headers.get("A2A-Version", "")
    caller = CardCaller(Version.V10 if said.strip().startswith("1") else Version.V03, Binding.REST)
    response = await serve(request, _door, caller, operation=OPERATION, public=True)  # the public card
    response.headers["Vary"] = HEADERS["Vary"]
    return response


async def _door(ctx: Context) -> web.Response:
    request = ctx.request
    client = client_version(request.headers.get("A2A-Version"), request.query.get("A2A-Version"))
    ctx.bind(client_version=client)
    card = await ctx.upstream.card()
    cx = Cx()
    base = public_base(request, ctx.settings)
    target = grpc_target(base, ctx.settings, ctx.lifecycle.grpc_port)
    body = served_card(card, client=client, base_url=base, bindings=ctx.served_bindings, cx=cx, grpc_target=target)
    signer = vouch(ctx.app.get(CARD_SIGNER), ctx.upstream.card_signature, checked=ctx.upstream.verify is not None,
                   required=ctx.settings.card.require_verified)
    if signer is not None:  # each variant signed as served, its key published beside the card
        # a v1.0 reader (a2a-sdk 1.x) of the v0.3 card reads the v1.0 card out of it: signed too
        v10 = served_card(card, client=Version.V10, base_url=base, bindings=ctx.served_bindings, cx=Cx(),
                          grpc_target=target) if client is Version.V03 else None
        body = signer.sign_once((client, base), card, body, jku=base.rstrip("/") + JWKS_PATH, read_as=v10)
    ctx.notes.extend(cx.notes)
    ctx.outcome = "ok"
    data = jsoncodec.dumpb(body)
    etag, changed = card_etag(data), ctx.upstream.card_changed_at
    headers = {**HEADERS, "ETag": etag, "Last-Modified": formatdate(changed, usegmt=True)}
    if not_modified(etag, changed, request.headers.get("If-None-Match"), request.headers.get("If-Modified-Since")):
        return web.Response(status=304, headers=headers)
    return web.Response(body=data, status=200, headers=headers, content_type="application/json")
