"""The push relay's door, the webhook the upstream agent calls: seal, token and body checked, 200 at once,
then planned (the task fetched through a GetTask exchange when needed) and delivered in the background,
its notes logged and counted; plus installing the relay into the app."""

from __future__ import annotations

import asyncio
import hmac
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from aiohttp import web
from multidict import CIMultiDictProxy

import gateway.shell.agent.port as agent_port
from gateway.config import Settings
from gateway.core import jsoncodec
from gateway.core.errors import GatewayError, InvalidAgentResponse, LimitExceeded, UpstreamUnavailable
from gateway.core.exchange import Reply, Result
from gateway.core.notes import Cx, Note
from gateway.core.push import (
    NONCE_BYTES,
    BadSeal,
    ClientRoute,
    Delivery,
    NeedTask,
    PushSealer,
    fetched_task,
    notification_version,
    plan_delivery,
)
from gateway.core.types import Binding, JsonObj, Version
from gateway.observability import get_logger, log_notes
from gateway.shell.agent.upstream import UPSTREAM
from gateway.shell.carrier.pipeline import Context, PlainCaller, read_body, serve
from gateway.shell.process.keys import ROUTE_HOST, ROUTE_PREFIX, SEALER
from gateway.shell.process.lifecycle import LIFECYCLE, Track
from gateway.shell.process.metrics import METRICS
from gateway.shell.push.sender import MAX_BACKOFF_S, PUSH_SENDER, PushSender
from gateway.shell.push.ssrf import Network, check_url

__all__ = ["OPERATION", "RelaySealer", "cleanup_ctx", "handle", "install", "webhook_base"]

log = get_logger("gateway.push")

JSON = "application/json"
OPERATION = "push_notification"  # the metrics' and log's operation label of a webhook call
_BEARER = "bearer "


class RelaySealer(PushSealer):
    """The app's PushSealer plus the SSRF policy: `await check_url(url)` before sealing a client URL."""

    def __init__(self, keys: Sequence[bytes], *, webhook_base: str, webhook_path: str,
                 allow: Sequence[Network]) -> None:
        super().__init__(keys, webhook_base=webhook_base, webhook_path=webhook_path,
                         nonce=lambda: os.urandom(NONCE_BYTES))
        self.allow = tuple(allow)

    async def check_url(self, url: str, at: str = "$.params") -> list[Note]:
        """Refuse a client webhook URL the SSRF policy blocks (PushUrlRejected, -32602); the notes of one
        it lets through unjudged (a host that does not resolve yet: delivery judges it)."""
        note = await check_url(url, self.allow, at=at)
        return [] if note is None else [note]


def webhook_base(settings: Settings, *, route_host: str = "", route_prefix: str = "") -> str:
    """Where the upstream reaches the webhook: push.webhook_base_url, server.public_url, else the listen
    address (an unspecified host becomes loopback: the sidecar case). A [[routes]] route's webhook has
    its prefix appended and, for a Host-matched route, its host in place of the base's."""
    if settings.push.webhook_base_url:
        base = settings.push.webhook_base_url
    elif settings.server.public_url:
        base = settings.server.public_url
    else:
        host = settings.server.host
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
        base = f"http://{f'[{host}]' if ':' in host else host}:{settings.server.port}"
    if route_host:
        parts = urlsplit(base)
        base = urlunsplit(parts._replace(netloc=route_host + (f":{parts.port}" if parts.port else "")))
    return base + route_prefix


def install(app: web.Application, settings: Settings, track: Track) -> None:
    """Set up the relay when push.enabled: the sealer (app[SEALER]), the sender and the webhook route (its
    handler as `track` runs it).
    Add `cleanup_ctx` to app.cleanup_ctx after the upstream's, so jobs drain before it closes."""
    push = settings.push
    if not push.enabled:
        log.info("push_relay_disabled", reason="push.enabled is false: webhook configs pass through")
        return
    keys = push.keys
    if not keys:
        keys = (os.urandom(32),)
        log.warning("push_ephemeral_key",
                    detail="push.keys is empty: sealing with a random per-process key; webhooks registered "
                           "here stop working on restart and cannot be delivered by other replicas; set "
                           "push.keys (A2A_GATEWAY_PUSH_KEYS) to the same key(s) on every replica")
    base = webhook_base(settings, route_host=app.get(ROUTE_HOST, ""), route_prefix=app.get(ROUTE_PREFIX, ""))
    app[SEALER] = RelaySealer(keys, webhook_base=base, webhook_path=push.webhook_path,
                              allow=push.allow_networks)
    app[PUSH_SENDER] = PushSender(push)
    app.router.add_post(push.webhook_path + "/{sealed}", track(handle))
    log.info("push_relay", webhook=base + push.webhook_path, keys=len(keys),
             allow_networks=[str(n) for n in push.allow_networks])


async def cleanup_ctx(app: web.Application) -> AsyncIterator[None]:
    """The sender's session, opened with the app; jobs drained (bounded) and the session closed with it."""
    sender = app.get(PUSH_SENDER)
    if sender is None:
        yield
        return
    await sender.start()
    yield
    await sender.close(grace=min(5.0, app[LIFECYCLE].settings.server.shutdown_grace_seconds))


# ---- the webhook --------------------------------------------------------------------------------


def _presented(headers: CIMultiDictProxy[str]) -> list[str]:
    tokens = [v for name in ("X-A2A-Notification-Token", "A2A-Notification-Token")
              for v in headers.getall(name, [])]
    for value in headers.getall("Authorization", []):
        if value[:len(_BEARER)].lower() == _BEARER:
            tokens.append(value[len(_BEARER):].strip())
    return tokens


def _token_ok(presented: list[str], expected: str) -> bool:
    want = expected.encode()
    ok = False
    for token in presented:  # compare every one, in constant time each
        ok |= hmac.compare_digest(token.encode("utf-8", "replace"), want)
    return ok


async def handle(request: web.Request) -> web.StreamResponse:
    # the agent's own deliveries: sealed routes authenticate them, not the callers' [auth]
    return await serve(request, _door, PlainCaller("webhook", _status_of), operation=OPERATION, public=True)


def _status_of(err: GatewayError) -> int:
    return 413 if isinstance(err, LimitExceeded) else 400


def _empty(status: int) -> Reply:
    return Reply(status, b"", error=status >= 400)


async def _door(ctx: Context) -> web.StreamResponse | Reply:
    """POST {webhook_path}/{sealed}: 404/403 for a foreign/tampered seal, 401/403 for a missing/wrong
    token, 413/400 for an oversized/non-JSON body, 503 when the backlog is full, else 200 at once."""
    request, app = ctx.request, ctx.app
    sealer = app[SEALER]
    sender = app[PUSH_SENDER]
    sealed = request.match_info["sealed"]
    try:
        route = sealer.open(sealed)
        expected = sealer.upstream_token(sealed)
    except BadSeal as err:
        sender.counter.add("bad_seal")
        log.warning("push_bad_seal", status=err.http_status, peer=request.remote)
        return _empty(err.http_status)
    presented = _presented(request.headers)
    if not _token_ok(presented, expected):
        status = 403 if presented else 401
        sender.counter.add("unauthorized")
        log.warning("push_unauthorized", status=status, peer=request.remote, task_id=route.task_id or None)
        return _empty(status)
    ctx.bind(client_version=route.version)
    try:
        body: Any = jsoncodec.loads(await read_body(request, ctx.settings.push.max_body_bytes))
    except GatewayError as err:
        sender.counter.add("bad_body")
        log.warning("push_bad_body", status=_status_of(err), error=err.message, task_id=route.task_id or None)
        return _empty(_status_of(err))
    sender.counter.add("received")
    if not sender.submit(_relay(app, route, body)):
        return web.Response(status=503, headers={"Retry-After": "1"})
    return _empty(200)


async def _relay(app: web.Application, route: ClientRoute, body: Any) -> None:
    fields: dict[str, Any] = {"task_id": route.task_id or None, "client_version": route.version.value}
    sender = app[PUSH_SENDER]
    cx = Cx()
    try:
        delivery = await _plan(app, route, body, cx)
    except GatewayError as err:
        sender.counter.add("dropped")
        log.warning("push_dropped", error=err.message, **fields)
        return
    finally:
        if cx.notes:   # loss is data here too: logged and counted like an exchange's
            log_notes(log, cx.notes, event="push_notes", **fields)
            app[METRICS].count_notes(cx.notes)
    await sender.deliver(delivery, **fields)


async def _plan(app: web.Application, route: ClientRoute, body: Any, cx: Cx) -> Delivery:
    """plan_delivery, with the task fetched upstream (a GetTask exchange) when the client needs it."""
    upstream = app[UPSTREAM]
    version = notification_version(body)
    if version is None:
        version = (await upstream.interfaces(route.version, Binding.JSONRPC))[0].version
    step = plan_delivery(route, body, upstream=version, cx=cx)
    if isinstance(step, Delivery):
        return step
    push = app[LIFECYCLE].settings.push
    for attempt in range(1, push.max_attempts + 1):  # the upstream has its 200: retry transport failures
        try:
            task = await _fetch_task(app, step, cx)
            break
        except UpstreamUnavailable as err:
            if attempt == push.max_attempts:
                raise
            log.info("push_fetch_retry", attempt=attempt, error=err.message, task_id=step.task_id)
            await asyncio.sleep(min(MAX_BACKOFF_S, push.backoff_seconds * 2 ** (attempt - 1)))
    again = plan_delivery(route, task, upstream=Version.V10, cx=cx)
    if isinstance(again, NeedTask):
        raise InvalidAgentResponse("the fetched task is not a Task")
    return again


async def _fetch_task(app: web.Application, need: NeedTask, cx: Cx) -> JsonObj:
    """The task, read in v1.0 through a GetTask exchange with the agent's best interface (the agent port), with
    the headers in force (a SIGHUP that rotates upstream.headers reaches this call too)."""
    settings, upstream = app[LIFECYCLE].settings, app[UPSTREAM]
    call = need.call
    iface = (await upstream.interfaces(call.version, call.binding, call.op))[0]
    exchange = agent_port.exchange(upstream, call, iface, settings.quirks)
    try:
        try:
            got = await agent_port.result(upstream, exchange, read_only=True)   # a GetTask, over any binding
        except UpstreamUnavailable:
            raise   # retried by the caller
        except GatewayError:
            got = None   # the agent's reply could not be read
        return fetched_task(got if isinstance(got, Result) else None)
    finally:
        cx.notes.extend(exchange.notes)
