"""Scripted fake upstream A2A agents for fault injection that real SDK peers cannot produce: canned JSON
and SSE replies (CRLF, pings, raw bytes), slow, hanging, reset and dropped connections, recorded requests.

Start one on a loopback port with pytest-aiohttp's `aiohttp_server`:

    async def test_timeout(aiohttp_server) -> None:
        fake = await start_fake(aiohttp_server, "1.0")            # or "0.3"; binding="HTTP+JSON"
        fake.reply_delay("SendMessage", 5)                        # silent upstream
        ...                                                       # point the gateway at fake.url
        await asyncio.wait_for(fake.on_disconnect.wait(), 1)      # the gateway gave up on it
        assert fake.requests[0].headers["A2A-Version"] == "1.0"

or with the fixture `fake_agent_factory` (import it into a conftest.py):
`fake = await fake_agent_factory("0.3")`.

Replies are scripted per key: the JSON-RPC `method` of a JSON-RPC request, else "<HTTP method> <path>"
(e.g. "POST /v1/message:send", "GET /.well-known/agent-card.json"). Each key holds a queue of replies: a
request takes the first one, and the last one stays and answers every later request. Unscripted keys get
the fake's card (card path) or a -32601 error (404 for non-JSON-RPC requests). For JSON-RPC requests,
`result`/`error`/dict SSE events are wrapped in a JSON-RPC envelope echoing the request id (a dict event
that already has "jsonrpc" is sent as is); for other requests they are the body itself.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from aiohttp import web
from multidict import CIMultiDict

from gateway.core import jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.sse import encode_data
from gateway.core.verify import PROBE_TASK_ID

__all__ = ["FakeAgent", "Recorded", "fake_agent_factory", "start_fake"]

FakeVersion = Literal["0.3", "1.0"]
Then = Literal["close", "hang", "reset"]
CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
POLL = 0.01  # how often a waiting handler checks whether its client is still there
MAX_HANG = 60.0  # a "hang" never outlives a test run


@dataclass(frozen=True)
class Recorded:
    """One request as the fake received it."""

    method: str  # HTTP method
    path: str
    query: dict[str, str]
    headers: CIMultiDict[str]
    raw: bytes
    body: Any  # the parsed JSON body; None when the body is empty or not JSON

    @property
    def rpc_method(self) -> str | None:
        method = self.body.get("method") if isinstance(self.body, dict) else None
        return method if isinstance(method, str) else None

    @property
    def rpc_id(self) -> Any:
        return self.body.get("id") if isinstance(self.body, dict) else None

    @property
    def params(self) -> Any:
        return self.body.get("params") if isinstance(self.body, dict) else None


@dataclass(frozen=True)
class _Json:
    result: Any
    error: Any
    status: int
    raw: bytes | None
    headers: dict[str, str]


@dataclass(frozen=True)
class _Sse:
    events: list[bytes | dict[str, Any]]
    delay: float
    crlf: bool
    pings: bool
    then: Then
    status: int
    headers: dict[str, str]


@dataclass(frozen=True)
class _Disconnect:
    mid_body: bool


_Reply = _Json | _Sse | _Disconnect


@dataclass
class FakeAgent:
    """A fake A2A agent of `version` ("0.3" or "1.0") on `binding` ("JSONRPC" or "HTTP+JSON"). `card`
    replaces the default card; `url` is set by `start_fake` (no trailing slash)."""

    version: FakeVersion = "1.0"
    binding: str = "JSONRPC"
    card_override: dict[str, Any] | None = None
    url: str = ""
    claims: FakeVersion | None = None  # the version its card claims, when it lies (None: its own)
    probe_failures: int = 0  # the first N version probes answer HTTP 503 (they prove nothing)
    probes: int = 0
    requests: list[Recorded] = field(default_factory=list)
    on_disconnect: asyncio.Event = field(default_factory=asyncio.Event)  # a client left a pending reply
    disconnects: int = 0
    open_streams: int = 0
    _script: dict[str, list[_Reply]] = field(default_factory=dict)
    _delays: dict[str, float] = field(default_factory=dict)

    # --- scripting ------------------------------------------------------------------------------------

    def reply_json(self, method: str, result: Any = None, *, error: Any = None, status: int = 200,
                   raw: bytes | None = None, headers: dict[str, str] | None = None) -> FakeAgent:
        """Answer with `error` if given, else `result` (None = JSON null); `raw` replaces the whole body
        verbatim (broken JSON, HTML from an ingress...); `headers` override Content-Type and friends."""
        return self._add(method, _Json(result, error, status, raw, headers or {}))

    def reply_sse(self, method: str, events: list[bytes | dict[str, Any]], *, delay: float = 0.0,
                  crlf: bool = False, pings: bool = False, then: Then = "close", status: int = 200,
                  headers: dict[str, str] | None = None) -> FakeAgent:
        """Stream `events`: a dict is one `data:` event (wrapped as described in the module docstring), bytes
        are written verbatim (frame them yourself). `delay` seconds between events; `crlf` ends lines with
        CRLF (as sse-starlette does); `pings` sends a ": ping - N" comment before every event and every
        `delay` (at least 50 ms) while hanging. `then`: "close" ends the body cleanly, "hang" keeps the
        connection open until the client leaves, "reset" aborts the connection (no final chunk)."""
        return self._add(method, _Sse(list(events), delay, crlf, pings, then, status, headers or {}))

    def reply_delay(self, method: str, seconds: float) -> FakeAgent:
        """Every request for `method` waits `seconds` before its (scripted) answer: a slow or, with a large
        value, silent upstream. A client leaving meanwhile sets `on_disconnect`."""
        self._delays[method] = seconds
        return self

    def reply_disconnect(self, method: str, *, mid_body: bool = True) -> FakeAgent:
        """Drop the connection: after the headers and part of a JSON body (`mid_body`), or before any byte."""
        return self._add(method, _Disconnect(mid_body))

    def calls(self, key: str) -> list[Recorded]:
        """The recorded requests for one script key."""
        return [r for r in self.requests if self._key(r) == key]

    def _add(self, key: str, reply: _Reply) -> FakeAgent:
        self._script.setdefault(key, []).append(reply)
        return self

    def _next(self, key: str) -> _Reply | None:
        queue = self._script.get(key)
        if not queue:
            return None
        return queue.pop(0) if len(queue) > 1 else queue[0]

    # --- serving ------------------------------------------------------------------------------------

    @property
    def card(self) -> dict[str, Any]:
        if self.card_override is not None:
            return self.card_override
        url = self.url + "/" if self.binding == "JSONRPC" else self.url
        card: dict[str, Any] = {"name": f"fake v{self.version} agent", "description": "scripted test agent"}
        if (self.claims or self.version) == "0.3":
            card |= {"protocolVersion": "0.3.0", "url": url, "preferredTransport": self.binding}
        else:
            interface = {"url": url, "protocolBinding": self.binding, "protocolVersion": "1.0"}
            card["supportedInterfaces"] = [interface]
        return card | {
            "version": "1.0.0",
            "capabilities": {"streaming": True, "pushNotifications": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "fake", "name": "fake", "description": "answers from a script",
                        "tags": ["test"]}],
        }

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        return app

    def _key(self, rec: Recorded) -> str:
        if self.binding == "JSONRPC" and rec.method == "POST" and rec.rpc_method is not None:
            return rec.rpc_method
        return f"{rec.method} {rec.path}"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        try:
            return await self._answer(request)
        except asyncio.CancelledError:  # the client left and the server cancelled the handler
            self._left()
            raise

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = jsoncodec.loads(raw) if raw else None
        except GatewayError:
            body = None
        rec = Recorded(request.method, request.path, dict(request.query), CIMultiDict(request.headers),
                       raw, body)
        if PROBE_TASK_ID in request.path or PROBE_TASK_ID.encode() in raw:
            return self._probe(rec)  # the gateway's version probe: answered as a real agent does, not recorded
        self.requests.append(rec)
        key = self._key(rec)
        if (delay := self._delays.get(key)) and not await self._wait(request, delay):
            self._left()
            return web.Response(status=499)
        reply = self._next(key)
        if isinstance(reply, _Json):
            return self._json(rec, reply)
        if isinstance(reply, _Sse):
            return await self._sse(request, rec, reply)
        if isinstance(reply, _Disconnect):
            return await self._disconnect(request, reply)
        if request.method == "GET" and request.path in CARD_PATHS:
            return web.json_response(self.card, dumps=jsoncodec.dumps)
        return self._json(rec, _unscripted(rec, key))

    def _probe(self, rec: Recorded) -> web.Response:
        """The version probe (GetTask of an impossible id): TaskNotFound when spelled in this fake's version
        (JSON-RPC method or REST route), else what an SDK says of an unknown method or route."""
        self.probes += 1
        if self.probes <= self.probe_failures:
            return web.Response(status=503, text="busy")
        if rec.rpc_method is not None:
            mine = rec.rpc_method == ("tasks/get" if self.version == "0.3" else "GetTask")
            error = {"code": -32001, "message": "Task not found"} if mine else \
                {"code": -32601, "message": "Method not found"}
            return self._json(rec, _Json(None, error, 200, None, {}))
        mine = rec.path.startswith("/v1/") == (self.version == "0.3")
        if not mine:
            return web.Response(status=404, text="Not Found")
        return web.json_response({"message": "Task not found"} if self.version == "0.3" else
                                 {"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found"}},
                                 status=404)

    def _json(self, rec: Recorded, reply: _Json) -> web.Response:
        body = reply.raw
        if body is None:
            member = "error" if reply.error is not None else "result"
            payload = reply.error if reply.error is not None else reply.result
            if rec.rpc_method is not None:
                payload = {"jsonrpc": "2.0", "id": rec.rpc_id, member: payload}
            body = jsoncodec.dumpb(payload)
        headers = {"Content-Type": "application/json"} | reply.headers
        return web.Response(body=body, status=reply.status, headers=headers)

    def _frame(self, rec: Recorded, event: bytes | dict[str, Any], crlf: bool) -> bytes:
        if isinstance(event, bytes):
            return event
        if rec.rpc_method is not None and "jsonrpc" not in event:
            event = {"jsonrpc": "2.0", "id": rec.rpc_id, "result": event}
        frame = encode_data(jsoncodec.dumps(event))
        return frame.replace(b"\n", b"\r\n") if crlf else frame

    async def _sse(self, request: web.Request, rec: Recorded, reply: _Sse) -> web.StreamResponse:
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"} | reply.headers
        response = web.StreamResponse(status=reply.status, headers=headers)
        pings = itertools.count(1) if reply.pings else None
        eol = "\r\n" if reply.crlf else "\n"
        self.open_streams += 1
        try:
            await response.prepare(request)
            for i, event in enumerate(reply.events):
                if i and reply.delay and not await self._wait(request, reply.delay, response, pings, eol):
                    self._left()
                    return response
                if pings is not None:
                    await response.write(f": ping - {next(pings)}{eol}{eol}".encode())
                await response.write(self._frame(rec, event, reply.crlf))
            if reply.then == "hang":
                await self._wait(request, MAX_HANG, response, pings, eol, max(reply.delay, 0.05))
                self._left()
                return response
            if reply.then == "reset":
                _abort(request)
                return response
            await response.write_eof()
        except ConnectionResetError:
            self._left()
        finally:
            self.open_streams -= 1
        return response

    async def _disconnect(self, request: web.Request, reply: _Disconnect) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        if reply.mid_body:
            response.content_length = 4096
            await response.prepare(request)
            await response.write(b'{"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t')
        _abort(request)
        return response

    async def _wait(self, request: web.Request, seconds: float, response: web.StreamResponse | None = None,
                    pings: itertools.count[int] | None = None, eol: str = "\n", every: float = 0.0) -> bool:
        """Sleep `seconds` unless the client leaves first (then False); ping every `every` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        next_ping = loop.time() + (every or seconds)
        while (now := loop.time()) < deadline:
            if _gone(request):
                return False
            if response is not None and pings is not None and now >= next_ping:
                await response.write(f": ping - {next(pings)}{eol}{eol}".encode())
                next_ping = now + (every or seconds)
            await asyncio.sleep(min(POLL, deadline - now))
        return not _gone(request)

    def _left(self) -> None:
        self.disconnects += 1
        self.on_disconnect.set()


def _unscripted(rec: Recorded, key: str) -> _Json:
    error = {"code": -32601, "message": f"fake agent: nothing scripted for {key}"}
    if rec.rpc_method is not None:
        return _Json(None, error, 200, None, {})
    return _Json(None, {"error": error}, 404, None, {})


def _gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


def _abort(request: web.Request) -> None:
    if request.transport is not None:
        request.transport.abort()


async def start_fake(aiohttp_server: Callable[..., Awaitable[Any]], version: FakeVersion = "1.0",
                     binding: str = "JSONRPC", *, card: dict[str, Any] | None = None,
                     claims: FakeVersion | None = None) -> FakeAgent:
    """Start a FakeAgent on a loopback port with pytest-aiohttp's `aiohttp_server` fixture (which stops it
    at the end of the test); its `url` and card then point at that port; `claims`: its card lies."""
    fake = FakeAgent(version, binding, card, claims=claims)
    server = await aiohttp_server(fake.app())
    fake.url = str(server.make_url("")).rstrip("/")
    return fake


@pytest.fixture
def fake_agent_factory(aiohttp_server: Any) -> Callable[..., Awaitable[FakeAgent]]:
    """Fixture: `await fake_agent_factory(version="1.0", binding="JSONRPC", card=None, claims=None)` -> a
    started FakeAgent."""

    async def make(version: FakeVersion = "1.0", binding: str = "JSONRPC",
                   card: dict[str, Any] | None = None, claims: FakeVersion | None = None) -> FakeAgent:
        return await start_fake(aiohttp_server, version, binding, card=card, claims=claims)

    return make
