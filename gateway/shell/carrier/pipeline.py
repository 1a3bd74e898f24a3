"""Owns the one path every request takes through the gateway: its context (request id, the settings in force,
who is calling and in what shape its errors must go), the boundary that turns any GatewayError or unexpected
exception into the caller's error reply, and the exchange's one log line and its metrics."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from gateway.config import Settings
from gateway.core import jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.compose import caller_scope
from gateway.core.errors import (
    AgentUnavailable,
    ClientTooSlow,
    EdgeRefusal,
    GatewayError,
    GatewayOverloaded,
    InvalidAgentResponse,
    LimitExceeded,
    UnreadableBody,
)
from gateway.core.exchange import Reply, error_reply
from gateway.core.notes import Note
from gateway.core.quirks import Quirks
from gateway.core.types import Binding, Version
from gateway.core.versions import method_version
from gateway.observability import bind_exchange, bound, get_logger, log_exchange, open_exchange
from gateway.shell.agent.headers import RawHeaders
from gateway.shell.agent.upstream import UPSTREAM, Upstream
from gateway.shell.carrier.migration import MIGRATION, Migration, deprecation
from gateway.shell.carrier.relay import SSE_HEADERS
from gateway.shell.edge.callers import StreamBudget
from gateway.shell.edge.guard import GUARD, Guard, Verdict
from gateway.shell.process.keys import ROUTE_NAME, SEALER, SERVED_BINDINGS
from gateway.shell.process.lifecycle import LIFECYCLE, OVERLOADED, Lifecycle
from gateway.shell.process.metrics import METRICS, Metrics

__all__ = ["A2ACaller", "Caller", "Context", "Door", "PlainCaller", "Recorded", "SeenCaller", "body_response",
           "read_body", "record", "respond", "serve", "start_stream"]

log = get_logger("gateway.exchange")

JSON = "application/json"
_random_bits = random.getrandbits  # the module reseeds itself in a forked child
CARD_OPERATION = "get_agent_card"  # the card door's operation label: a card read is in no version


class Caller(Protocol):
    """Who is calling, as far as the door has read: the shape every error answered to it must take."""

    @property
    def label(self) -> str:
        """The metrics' and log's `binding` label."""
        ...

    def error_reply(self, err: GatewayError, quirks: Quirks) -> Reply: ...


@dataclass(slots=True)
class A2ACaller:
    """An A2A client: errors are A2A errors of its version and binding, with its JSON-RPC id."""

    version: Version
    binding: Binding
    rpc_id: Any = None

    @property
    def label(self) -> str:
        return self.binding._value_   # (an Enum's .value is a descriptor call: this is a request's hot path)

    def error_reply(self, err: GatewayError, quirks: Quirks) -> Reply:
        if isinstance(err, jsonrpc.EnvelopeFacts):   # a rejected JSON-RPC envelope: the id and method read
            method = jsonrpc.rpc_method_of(err)
            version = method_version(method) if method else self.version
            return error_reply(err, version, self.binding, jsonrpc.rpc_id_of(err), quirks)
        return error_reply(err, self.version, self.binding, self.rpc_id, quirks)


@dataclass(slots=True)
class PlainCaller:
    """A caller that is no A2A client (the agent posting to the push webhook, an AG-UI client before its
    stream): errors are a status and a JSON `{"error": {"code", "message"}}`."""

    label: str
    status_of: Callable[[GatewayError], int] = lambda err: err.http_status

    def error_reply(self, err: GatewayError, quirks: Quirks) -> Reply:
        body = {"error": {"code": err.reason.lower(), "message": err.message}}
        return Reply(self.status_of(err), jsoncodec.dumpb(body), error=True)


class Context:
    """One request on its way through the gateway: what every door and the proxy need of the app, and what
    the exchange's log line and metrics will say."""

    __slots__ = (
        "app",
        "budget",
        "caller",
        "fields",
        "lifecycle",
        "notes",
        "outcome",
        "request",
        "request_id",
        "settings",
        "started",
        "verdict",
        "who",
    )

    def __init__(self, request: web.Request, caller: Caller) -> None:
        app = request.app
        self.request = request
        self.app = app
        self.lifecycle: Lifecycle = app[LIFECYCLE]
        self.settings: Settings = self.lifecycle.settings   # the settings in force (SIGHUP replaces them)
        self.caller = caller
        # 32 hex, as uuid4().hex: a correlation id, not a secret, so no getrandom() system call per request
        self.request_id = request.headers.get("X-Request-Id") or f"{_random_bits(128):032x}"
        self.fields: dict[str, Any] = {}   # more fields of the log line (error, fallback, events, bytes, …)
        self.notes: list[Note] = []        # the exchange's translation notes, logged and counted once
        self.outcome: str | None = None    # ok, stream, error, rejected; None: decided from the reply
        self.started = time.monotonic()
        self.who: str | None = None        # the caller, as its [callers] limits know it (the guard admitted it)
        self.verdict: Verdict | None = None   # the guard's, when it admitted the request
        self.budget: StreamBudget | None = None   # the budgets of the stream it relays (stream_slot)

    @property
    def upstream(self) -> Upstream:
        """The agent this app serves (a [[routes]] root app has none: each route's sub-app has its own)."""
        return self.app[UPSTREAM]

    @property
    def metrics(self) -> Metrics:
        return self.app[METRICS]

    def caller_seen(self) -> SeenCaller | None:
        caller = self.caller
        if not isinstance(caller, A2ACaller):
            return None
        return SeenCaller(self.app[MIGRATION], self.request.headers, caller.version, caller.binding)

    def task_scope(self) -> str:
        """The caller's scope in the task index: its authenticated subject, else its credential headers."""
        return caller_scope(self.request.headers.items(), None if self.verdict is None else self.verdict.subject)

    def forwarded_headers(self) -> CIMultiDictProxy[str] | CIMultiDict[str]:
        """The request's headers as they may go on to the agent: its credentials dropped when [auth] says
        they must not (the request itself keeps them: the task index scopes the caller by them)."""
        headers = self.request.headers
        if self.verdict is None or not self.verdict.strip:
            return headers
        return CIMultiDict(self.verdict.kept(headers.items()))

    def forwarded_raw(self) -> RawHeaders | CIMultiDictProxy[str] | CIMultiDict[str]:
        """`forwarded_headers()`, as the request's parser read them when none is dropped (one pass over those
        builds the agent's: shell.agent.headers.upstream_request_headers)."""
        return self.request.raw_headers if self.verdict is None or not self.verdict.strip else self.forwarded_headers()

    @property
    def sealer(self) -> Any:
        return self.app.get(SEALER)

    @property
    def served_bindings(self) -> tuple[Binding, ...]:
        return self.app[SERVED_BINDINGS]

    @contextlib.asynccontextmanager
    async def stream_slot(self) -> AsyncIterator[None]:
        """Held while this request relays a stream: the caller's stream slot ([callers] max_streams; a
        RateLimited refusal when none is free), its budgets in `budget` meanwhile."""
        guard = self.app.get(GUARD)
        if guard is None:
            yield
            return
        async with guard.stream(self.who) as self.budget:
            yield
        self.budget = None

    def bind(self, **fields: Any) -> None:
        """Fields every line of this exchange carries (operation, versions, method, …)."""
        bind_exchange(**fields)

    def stamp(self, response: web.StreamResponse) -> None:
        """What every reply of the exchange carries, set before it starts: its request id, and to a v0.3 A2A
        client (the card aside: reading it says no version) the `[migration]` deprecation headers of its
        route's settings. Set by finish() on the reply a door returns, by start_stream() and
        _write_and_close() on the ones they start themselves (no on_response_prepare signal: aiohttp would
        run it for every reply)."""
        response.headers["X-Request-Id"] = self.request_id
        caller = self.caller
        if not isinstance(caller, A2ACaller) or caller.version is not Version.V03 \
                or bound().get("operation") == CARD_OPERATION:
            return
        for name, value in deprecation(self.settings.migration).headers():
            response.headers[name] = value

    def fail(self, err: GatewayError) -> Reply:
        """The caller's error reply for `err`, recorded as the exchange's outcome."""
        self.outcome = self.outcome if self.outcome == "rejected" else "error"
        self.fields.update(error=err.message, code=err.jsonrpc_code)
        return self.caller.error_reply(err, self.settings.quirks)


Door = Callable[[Context], Awaitable["web.StreamResponse | Reply"]]


def respond(reply: Reply, headers: CIMultiDict[str] | None = None) -> web.Response:
    return body_response(reply.status, reply.body, reply.content_type, headers)


def body_response(status: int, body: bytes, content_type: str, headers: CIMultiDict[str] | None) -> web.Response:
    """A reply of `status` with `body` of `content_type` (no body, no type) and `headers` (which hold no
    Content-Type). The type goes to the constructor, which writes the header as it is: the content_type
    setter parses and rebuilds it, more than half the cost of a small reply (one with a charset parameter,
    which the constructor refuses, takes the setter)."""
    if not body:
        return web.Response(status=status, headers=headers)
    if "charset" in content_type:
        response = web.Response(body=body, status=status, headers=headers)
        response.content_type = content_type
        return response
    return web.Response(body=body, status=status, headers=headers, content_type=content_type)


async def start_stream(ctx: Context, headers: CIMultiDict[str]) -> web.StreamResponse:
    """The caller's event stream, started: `headers`, the SSE ones and what every reply carries (`stamp`)."""
    response = web.StreamResponse(status=200, headers=headers)
    response.headers.update(SSE_HEADERS)
    ctx.stamp(response)
    await response.prepare(ctx.request)
    return response


async def read_body(request: web.Request, limit: int) -> bytes:
    """The request body, refused past `limit` bytes (LimitExceeded) without reading the rest, and
    within server.body_timeout_seconds (ClientTooSlow: 408, the connection closed). A body aiohttp
    cannot take apart (a broken chunked framing, a Content-Encoding that does not decode) is the
    caller's parse error (UnreadableBody, the connection closed), not the gateway's."""
    try:
        return await _read_body(request, limit)
    except web.RequestPayloadError as exc:
        cause = exc.__cause__ or exc.__context__ or exc
        raise UnreadableBody(f"the request body could not be read: {cause}") from None


async def _read_body(request: web.Request, limit: int) -> bytes:
    if request.content_length is not None and request.content_length > limit:
        raise LimitExceeded(f"request body larger than {limit} bytes")
    content = request.content
    if content.is_eof():  # the whole body is already in (the common case): no timer
        data = content.read_nowait()
        if len(data) > limit:
            raise LimitExceeded(f"request body larger than {limit} bytes")
        return data
    lifecycle = request.app[LIFECYCLE]
    deadline = lifecycle.settings.server.body_timeout_seconds
    chunks, size = [], 0
    try:
        async with asyncio.timeout(deadline):
            async for chunk in content.iter_any():
                size += len(chunk)
                if size > limit:
                    raise LimitExceeded(f"request body larger than {limit} bytes")
                chunks.append(chunk)
    except TimeoutError:
        lifecycle.metrics.client_timeout("body")
        raise ClientTooSlow(f"the request body did not arrive within {deadline:g} seconds "
                            "(server.body_timeout_seconds)") from None
    return b"".join(chunks)


async def serve(request: web.Request, door: Door, caller: Caller, *,
                operation: str | None = None, public: bool = False) -> web.StreamResponse:
    """Run `door` for `request`: the edge's guard first unless `public` (caller authentication and limits),
    the one boundary (every GatewayError and every unexpected exception becomes the caller's error reply,
    the latter with its traceback logged), then the one log line and the metrics."""
    ctx = Context(request, caller)
    app = ctx.app
    open_exchange(request_id=ctx.request_id, binding=caller.label, route=app.get(ROUTE_NAME, "default"),
                  operation=operation)
    try:
        overloaded = OVERLOADED.get()
        if overloaded is not None:   # beyond limits.max_client_connections: answered, the door not run
            OVERLOADED.set(None)
            ctx.outcome = "rejected"
            await _learn_caller(ctx)
            raise overloaded
        guard = None if public else app.get(GUARD)
        if guard is not None:
            await _admit(ctx, guard)
        result = await door(ctx)
        response = respond(result) if isinstance(result, Reply) else result
        if isinstance(result, Reply) and ctx.outcome is None:
            ctx.outcome = "error" if result.error else "ok"
    except GatewayError as err:
        response = _error_response(ctx, err)
        if isinstance(err, ClientTooSlow | UnreadableBody):
            await _write_and_close(ctx, response)
    except (asyncio.CancelledError, ConnectionResetError):
        raise   # the client left: the lifecycle counts it as cancelled
    except Exception as exc:   # the top-level guard: a bug must still answer in the caller's shape
        log.exception("internal_error", error=f"{type(exc).__name__}: {exc}")
        response = respond(ctx.fail(GatewayError(f"internal error: {type(exc).__name__}")))
    finish(ctx, response)
    return response


def _error_response(ctx: Context, err: GatewayError) -> web.Response:
    """The caller's error reply for `err`. The gateway's own saturation and a client too slow to send
    its request are transport conditions: they keep their HTTP status (503, 408) in every binding, a
    JSON-RPC error body included, so that load balancers and clients' retry logic see them; an overload
    says when to retry, and a slow client's connection is closed."""
    reply = ctx.fail(err)
    if isinstance(err, GatewayOverloaded | ClientTooSlow | EdgeRefusal) and reply.status != err.http_status:
        reply = Reply(err.http_status, reply.body, reply.content_type, reply.error)
    response = respond(reply)
    if isinstance(err, EdgeRefusal):   # 401/403 with WWW-Authenticate, 429 with Retry-After
        response.headers.update(err.headers)
        ctx.metrics.edge_refusal(err.reason.lower())
    elif isinstance(err, GatewayOverloaded) or (isinstance(err, AgentUnavailable) and response.status == 503):
        response.headers["Retry-After"] = str(err.retry_after)   # (a JSON-RPC error's 200 says nothing of it)
    elif isinstance(err, ClientTooSlow | UnreadableBody):
        response.force_close()
    return response


async def _write_and_close(ctx: Context, response: web.Response) -> None:
    """Send a slow client (or one whose body cannot be read) its reply now and close the connection behind
    it (aiohttp would otherwise go on reading the rest of its body for up to ten seconds before closing)."""
    ctx.stamp(response)
    try:
        await response.prepare(ctx.request)
        await response.write_eof()
    except ConnectionResetError:
        pass
    ctx.request.protocol.force_close()


async def _admit(ctx: Context, guard: Guard) -> None:
    """The guard's verdict on the request; a refused JSON-RPC caller's id is read first, for its error."""
    try:
        verdict = await guard.admit(ctx.request)
    except EdgeRefusal:
        ctx.outcome = "rejected"
        await _learn_caller(ctx)
        raise
    ctx.verdict, ctx.who = verdict, verdict.who
    if verdict.subject is not None:
        ctx.fields["subject"] = verdict.subject


async def _learn_caller(ctx: Context) -> None:
    """Before an overload is answered to a JSON-RPC caller: its request id and version, from the body
    (read only now, when the error must be written; anything unreadable leaves the defaults)."""
    caller = ctx.caller
    if not isinstance(caller, A2ACaller) or caller.binding is not Binding.JSONRPC:
        return
    try:
        rpc = jsonrpc.parse_request(await read_body(ctx.request, ctx.settings.limits.max_body_bytes))
    except (GatewayError, ValueError):
        return
    caller.rpc_id, caller.version = rpc.id, method_version(rpc.method)


def finish(ctx: Context, response: web.StreamResponse) -> None:
    """Stamp what every reply carries on a reply not yet started, write the one log line of the exchange and
    count it in the metrics."""
    if not response.prepared:
        ctx.stamp(response)
    record(ctx, response.status)


class Recorded(Protocol):
    """What the log line and the metrics read of an exchange (a Context, or a gRPC door's call)."""

    notes: list[Note]
    fields: dict[str, Any]
    outcome: str | None
    started: float

    @property
    def metrics(self) -> Metrics: ...

    def caller_seen(self) -> SeenCaller | None:
        """The A2A caller, for the migration counts (None: not an A2A call)."""


class SeenCaller(NamedTuple):
    """An A2A caller as the migration counts see it: where it is counted, its headers (or gRPC metadata),
    the version and binding it spoke."""

    migration: Migration
    headers: Mapping[str, str]
    version: Version
    binding: Binding


def record(ctx: Recorded, status: int) -> None:
    """The one log line of an exchange whose reply had `status` (HTTP, or the gRPC door's), and its metrics."""
    duration = time.monotonic() - ctx.started
    outcome = ctx.outcome or ("ok" if status < 400 else "error")
    notes, fields = ctx.notes, ctx.fields
    # in hundredths of a millisecond, half up (round(x, 2) goes through a decimal conversion: ~3,000 instructions)
    duration_ms = int(duration * 100_000 + 0.5) / 100
    log_exchange(notes=notes, status=status, duration_ms=duration_ms, outcome=outcome, **fields)
    at = bound()
    route, operation = str(at.get("route", "default")), str(at.get("operation", "unknown"))
    metrics = ctx.metrics
    metrics.exchange(route=route, operation=operation, client_version=str(at.get("client_version", "")),
                     upstream_version=str(at.get("upstream_version", "")), binding=str(at.get("binding", "")),
                     outcome=outcome, duration_s=duration, notes=notes)
    if fields.get("code") == InvalidAgentResponse.jsonrpc_code:
        metrics.upstream_error("bad_reply")  # the agent's reply could not be read or translated
    seen = ctx.caller_seen()
    if seen is not None and operation != CARD_OPERATION:
        seen.migration.record(route=route, headers=seen.headers, version=seen.version._value_,
                              binding=seen.binding._value_, notes=notes)
