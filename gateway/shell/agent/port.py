"""The agent port: the one place a call's exchange with the agent is made (what the agent's interface is
known to need: its file-bytes convention, the quirks made for it; what the gateway writes of itself), and for
the calls the gateway makes as a v1.0 client (an AG-UI run, a push delivery's task fetch, a composed flow's
sub-calls) that exchange sent on
the agent's interface over its own binding (HTTP JSON-RPC, HTTP+JSON or gRPC), the request's headers or
metadata built from what of the caller travels, the unary reply read back as a v1.0 result (pages followed)
and a stream opened for its messages. A user of the port never branches on the agent's binding."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from multidict import CIMultiDict

from gateway.core.bindings.grpc.metadata import from_headers, toward_agent
from gateway.core.bindings.rest import Outgoing
from gateway.core.card import Interface
from gateway.core.errors import GatewayError, GatewayOverloaded, UpstreamTimeout, UpstreamUnavailable
from gateway.core.exchange import Again, Call, Exchange, Result
from gateway.core.mixed import RESENT_NOTE, refused_v10_parts, refused_v10_stream, v10_file_parts
from gateway.core.notes import Cx, RestBytes
from gateway.core.push import PushSealer
from gateway.core.quirks import Quirks
from gateway.core.types import Binding, JsonObj, Version
from gateway.core.verify import method_missing
from gateway.shell.agent.headers import AnyHeaders, RawHeaders, RequestHeaders, upstream_request_headers
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import Upstream

if TYPE_CHECKING:
    from gateway.shell.agent.channels import GrpcReply, GrpcStream  # grpcio is imported only when an agent speaks gRPC

__all__ = ["CONTENT_TYPE", "LINK_FAULTS", "PROTO_BYTES", "Caller", "Challenge", "Serving", "exchange", "grpc_metadata",
           "grpc_stream", "grpc_unary", "http_headers", "learn", "open_stream", "quiet_too_long", "reach",
           "refused_shapes", "refused_stream_shapes", "resent_unknown", "rest_bytes_of_client", "result"]

JSON = "application/json"
SSE = "text/event-stream"
# the request body's type on each HTTP binding: JSON-RPC's and v0.3 HTTP+JSON's is JSON, v1.0 HTTP+JSON's its own
CONTENT_TYPE = {(Version.V03, Binding.JSONRPC): JSON, (Version.V10, Binding.JSONRPC): JSON,
                (Version.V03, Binding.REST): JSON, (Version.V10, Binding.REST): "application/a2a+json"}
# the v0.3 bindings whose file bytes are a proto `bytes` field, which a2a-sdk for Python fills with the
# base64 text itself (double base64 in ProtoJSON): the convention each such agent uses is learned
PROTO_BYTES = frozenset({Binding.REST, Binding.GRPC})


@dataclass(frozen=True, slots=True)
class Serving:
    """What an exchange writes of the gateway itself: in a card it serves, its public base URL, its gRPC target
    and its signature; the bindings it serves; the push sealer for the webhooks a call registers (None: the
    push relay is off, or the call registers none)."""

    base_url: str = ""
    grpc_target: str = ""
    sign_card: Callable[[JsonObj, JsonObj | None], JsonObj] | None = None
    bindings: tuple[Binding, ...] = (Binding.JSONRPC,)
    sealer: PushSealer | None = None


AS_CLIENT = Serving()   # a call the gateway makes as a v1.0 client: it serves the agent's answer to no one


def exchange(upstream: Upstream, call: Call, iface: Interface, quirks: Quirks, *, user_agent: str | None = None,
             serving: Serving = AS_CLIENT) -> Exchange:
    """The exchange of `call` with the agent's interface `iface`, every door's and the gateway's own: toward a
    v0.3 agent whose file bytes are a proto field, the convention its replies showed (else the one its server
    suggests) and the quirks made for it; from a v0.3 caller of such a binding, the convention its User-Agent
    suggests."""
    rest_agent = iface.version is Version.V03 and iface.binding in PROTO_BYTES
    rest_client = call.version is Version.V03 and call.binding in PROTO_BYTES
    guess = rest_bytes_of_client(user_agent) if rest_client else upstream.rest_bytes_guess if rest_agent else None
    return Exchange(call, iface, quirks=upstream.quirks_for_agent(quirks) if rest_agent else quirks,
                    base_url=serving.base_url, bindings=serving.bindings, sealer=serving.sealer,
                    grpc_target=serving.grpc_target, sign_card=serving.sign_card,
                    rest_bytes=upstream.rest_bytes.get(iface.url) if rest_agent else None, rest_bytes_guess=guess)


def learn(upstream: Upstream, exchange: Exchange, *, rest_bytes: bool = True) -> None:
    """What a finished exchange showed of the agent's interface, kept for its next calls: the file-bytes
    convention of a v0.3 agent whose bytes are a proto field (`rest_bytes`; off where the caller's own bytes
    may have been what was seen), and v0.3-shaped items behind a 1.0 card (langgraph-api: it is spoken to in
    v0.3 from then on)."""
    iface = exchange.upstream
    if rest_bytes and exchange.cx.rest_bytes_seen is not None and iface.version is Version.V03 \
            and iface.binding in PROTO_BYTES:
        upstream.rest_bytes[iface.url] = exchange.cx.rest_bytes_seen
    if exchange.spoke_v03 or (exchange.relay is not None and exchange.relay.spoke_v03):
        upstream.spoken(iface, Version.V03)


def refused_shapes(upstream: Upstream, iface: Interface, request: bytes | None, reply: bytes, cx: Cx) -> bool:
    """Whether a v1.0 send (`request`) was refused for its v1.0-shaped file parts by an interface said to speak
    v1.0 over JSON-RPC (langgraph-api reads only v0.3 parts; core.mixed.refused_v10_parts): then it is learned
    as speaking v0.3 — a refused call was not carried out, and the door sends it again (once) in v0.3. Not once
    such a resend met no v0.3 method (`resent_unknown`). Noted in `cx`."""
    if iface.version is Version.V10 and iface.binding is Binding.JSONRPC and request \
            and refused_v10_parts(request, reply) and upstream.shown(iface) is None:
        _resend(upstream, iface, cx)
        return True
    return False


def _resend(upstream: Upstream, iface: Interface, cx: Cx) -> None:
    """A refused v1.0 call is sent again in v0.3: the interface learned as speaking it, noted."""
    upstream.spoken(iface, Version.V03)
    cx.note(RESENT_NOTE, "$.params.message.parts", "refused in v1.0's part shapes, sent again in v0.3")


async def refused_stream_shapes(upstream: Upstream, iface: Interface, request: bytes | None, resp: StreamReply,
                                cx: Cx) -> bool:
    """refused_shapes for a stream request, whose refusal comes as the first event of a 200 event stream
    (langgraph-api's): asked only of an interface not yet known to speak v1.0 items whose request may hold a
    v1.0 file part (a byte test); its first event is then read ahead (given back for the relay, within the
    stream's idle deadline) before the caller's stream starts."""
    if not (iface.version is Version.V10 and iface.binding is Binding.JSONRPC and request
            and iface.url not in upstream.v10_items and v10_file_parts(request) and upstream.shown(iface) is None):
        return False
    try:
        async with asyncio.timeout(upstream.deadlines.idle):
            head = await resp.peek_event(upstream.max_body_bytes)
    except TimeoutError:
        return False   # the relay meets the silence itself
    if not refused_v10_stream(request, head):
        return False
    _resend(upstream, iface, cx)
    return True


def resent_unknown(upstream: Upstream, iface: Interface, status: int, reply: bytes) -> None:
    """The call `refused_shapes` had sent again in v0.3 met a v1.0 agent with no v0.3 method names (it refused
    the file part for its own reasons): the interface is spoken to in v1.0 again, as its card says."""
    if method_missing(iface.binding, status, reply):
        upstream.spoken(iface, Version.V10)


def rest_bytes_of_client(user_agent: str | None) -> RestBytes | None:
    """The v0.3 file-bytes convention a client's User-Agent suggests: a2a-sdk 0.3 for Python (httpx, grpcio)
    writes double base64, the JS SDK (Node's fetch, browsers) single; None when it says nothing."""
    agent = (user_agent or "").lower()
    if "python" in agent:
        return "double"
    if any(name in agent for name in ("node", "undici", "mozilla", "deno", "bun")):
        return "single"
    return None


@dataclass(frozen=True, slots=True)
class Caller:
    """What of the caller travels to the agent: its headers (the end-to-end ones go on: authorization, the
    extensions it asked for, the application's own; as its parser read them, or decoded), the gateway's own
    calls none; its address for X-Forwarded-For."""

    headers: AnyHeaders | RawHeaders | None = None
    peer: str | None = None


# the link's own failures (the agent unreachable or silent, the pool full): a caller's fault, not a reply's
LINK_FAULTS = (UpstreamUnavailable, UpstreamTimeout, GatewayOverloaded)

NOBODY = Caller()   # a call the gateway makes on its own (a push delivery's task fetch)


@dataclass(frozen=True, slots=True)
class Challenge:
    """The agent's authentication challenge (HTTP 401/403): authentication is end to end, so it is the
    caller's answer, as its door renders a challenge."""

    status: int
    headers: Any
    body: bytes | None = None


def http_headers(upstream: Upstream, iface: Interface, caller: Caller, accept: str) -> RequestHeaders:
    """The headers of a request to an HTTP interface: the caller's end-to-end ones, the configured extras,
    the interface's version and content type."""
    client = caller.headers if caller.headers is not None else CIMultiDict()
    headers = upstream_request_headers(client, iface.version, peer=caller.peer,
                                       extra=upstream.settings.headers,
                                       content_type=CONTENT_TYPE[iface.version, iface.binding])
    headers["Accept"] = accept
    return headers


def grpc_metadata(upstream: Upstream, iface: Interface,
                  forwarded: Any = ()) -> list[tuple[str, str | bytes]]:
    """The metadata of a call to a gRPC interface: the caller's (transport keys dropped, the agent's version
    and extension keys), then the configured extra headers."""
    pairs = toward_agent(forwarded, iface.version)
    pairs.extend((k.lower(), v) for k, v in upstream.settings.headers.items())
    return pairs


async def reach(upstream: Upstream, client: Version) -> tuple[Interface, JsonObj | None]:
    """The agent's best interface for a caller of `client`'s version (any binding) and its card in v1.0 (None
    when it has none to give: a fixed upstream version works without one), within the head deadline."""
    async with asyncio.timeout(upstream.deadlines.first_byte):
        iface = (await upstream.interfaces(client, Binding.JSONRPC))[0]
        try:
            card: JsonObj | None = (await upstream.card()).card
        except GatewayError:
            card = None
    return iface, card


def grpc_unary(upstream: Upstream, iface: Interface, path: str, request: bytes, metadata: Any, *,
               left: float | None = None) -> Awaitable[GrpcReply]:
    """One unary call to a gRPC interface within the unary deadline (`left`: the caller's own time left,
    when it has a deadline: the agent then has no more)."""
    timeout = upstream.deadlines.unary
    return upstream.channels.unary(iface.url, path, request, metadata,
                                   timeout=timeout if left is None else min(left, timeout))


def grpc_stream(upstream: Upstream, iface: Interface, path: str, request: bytes, metadata: Any, *,
                left: float | None = None) -> GrpcStream:
    """A server-streaming call to a gRPC interface (`left`: the caller's deadline, None when it has none),
    its head and each message due within the stream deadlines."""
    deadlines = upstream.deadlines
    return upstream.channels.stream(iface.url, path, request, metadata, timeout=left,
                                    first_byte=deadlines.first_byte, idle=deadlines.idle)


def _metadata(upstream: Upstream, iface: Interface, caller: Caller) -> list[tuple[str, str | bytes]]:
    given = caller.headers
    pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in given] if isinstance(given, tuple) else \
        list(given.items()) if given is not None else []
    return grpc_metadata(upstream, iface, from_headers(pairs))


def quiet_too_long(upstream: Upstream, seconds: float) -> bool:
    """Whether a task followed by polling (a subscription the agent no longer streams) has been quiet past
    the stream idle deadline: it ends as a quiet stream does."""
    return seconds >= upstream.deadlines.idle


async def result(upstream: Upstream, exchange: Exchange, caller: Caller = NOBODY, *,
                 read_only: bool = False) -> Result | Challenge:
    """The exchange's unary call on its interface, whatever the binding, every page followed: the agent's
    result or A2A error read for the exchange's caller, or its authentication challenge. The gateway's own
    fault reading it is raised (a GatewayError); a 5xx that is no JSON is the agent unavailable."""
    iface, out = exchange.upstream, exchange.upstream_request()
    read_only = read_only or exchange.op.read_only
    while True:
        if iface.binding is Binding.GRPC:
            got = await grpc_unary(upstream, iface, out.path, out.body or b"", _metadata(upstream, iface, caller))
            step = exchange.read_grpc_result(got.status if got.status is not None else got.message or b"")
        else:
            reply = await upstream.request(out.method, iface.at(out.path), body=out.body, query=out.query,
                                           headers=http_headers(upstream, iface, caller, JSON), read_only=read_only)
            if reply.status in (401, 403):
                return Challenge(reply.status, reply.headers, reply.body)
            if reply.status >= 500 and "json" not in reply.headers.get("Content-Type", ""):
                raise UpstreamUnavailable(f"upstream agent answered HTTP {reply.status}")
            step = exchange.read_result(reply.status, reply.body)
        if not isinstance(step, Again):
            return step
        out = step.request


@asynccontextmanager
async def open_stream(upstream: Upstream, exchange: Exchange, caller: Caller = NOBODY,
                      out: Outgoing | None = None) -> AsyncIterator[StreamReply | GrpcStream]:
    """The exchange's streaming call, opened on its interface: an HTTP interface's reply (its head read; an
    event stream when its status is 200 and its type text/event-stream, else a refusal to read whole), or a
    gRPC interface's call (its messages, then its status). Closed when the block ends. `out`: the request,
    when the exchange already made it."""
    iface = exchange.upstream
    out = out or exchange.upstream_request()
    if iface.binding is Binding.GRPC:
        async with grpc_stream(upstream, iface, out.path, out.body or b"", _metadata(upstream, iface, caller)) as call:
            yield call
        return
    resp = await upstream.open(out.method, iface.at(out.path), headers=http_headers(upstream, iface, caller, SSE),
                               body=out.body, query=out.query, read_only=exchange.op.read_only)
    try:
        yield resp
    finally:
        if not resp.closed:
            resp.close()
