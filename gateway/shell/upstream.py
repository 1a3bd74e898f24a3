"""The conversation with the upstream agent: two connection pools (unary calls and streams, each a
ClientSession with no cookies, no decompression, no redirects, explicit timeouts, and its own bounded
slots), its gRPC channels (shell.channels), agent-card discovery with caching and refresh, and the
bounded reads of its replies. It never translates."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiohttp
from multidict import CIMultiDict, CIMultiDictProxy

from gateway.config import LimitsSettings, UpstreamSettings
from gateway.core import jsoncodec
from gateway.core.card import CARD_PATHS, Interface, UpstreamCard, read_upstream_card
from gateway.core.errors import (
    GatewayError,
    GatewayOverloaded,
    InvalidAgentResponse,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from gateway.core.notes import Cx, RestBytes
from gateway.core.operations import Operation
from gateway.core.quirks import Quirks
from gateway.core.types import Binding, Version
from gateway.observability import get_logger, log_notes

if TYPE_CHECKING:
    from gateway.shell.channels import Channels
    from gateway.shell.metrics import Metrics

log = get_logger("gateway.upstream")

_FIXED = {"0.3": Version.V03, "1.0": Version.V10}
_BINDINGS = {"JSONRPC": Binding.JSONRPC, "HTTP+JSON": Binding.REST, "GRPC": Binding.GRPC}


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: CIMultiDictProxy[str]  # the response's own (read-only) headers: no copy
    body: bytes


class Pool:
    """One pool of connections to the agent: a session, and `size` slots that bound the calls using it
    (one connection each). A call waits at most `wait` seconds for a slot, then fails as the gateway's
    own overload: a full pool is the gateway's queue, not the agent's slowness."""

    __slots__ = ("key", "name", "session", "size", "slots", "wait")

    def __init__(self, name: str, key: str, size: int, wait: float, timeout: aiohttp.ClientTimeout) -> None:
        self.name, self.key, self.size, self.wait = name, key, size, wait
        self.slots = asyncio.Semaphore(size)
        # the slots bound the connections; the connector itself is unbounded so it never queues a call
        # behind the connect timeout
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False,
                                             connector=aiohttp.TCPConnector(limit=0), timeout=timeout)

    async def acquire(self, metrics: Metrics | None) -> None:
        """Take a slot; GatewayOverloaded when none is free within `wait` seconds."""
        slots = self.slots
        if not slots.locked():  # the common case: a free slot, no timer
            await slots.acquire()
            return
        try:
            async with asyncio.timeout(self.wait):
                await slots.acquire()
        except TimeoutError:
            if metrics is not None:
                metrics.overload(self.key)
            raise GatewayOverloaded(f"gateway overloaded: all {self.size} upstream {self.name} connections are "
                                    f"busy ({self.key}, limits.pool_wait_seconds)", limit=self.key) from None

    def release_with(self, resp: aiohttp.ClientResponse) -> None:
        """Give the slot back when `resp`'s connection is released or closed (at once if it already is)."""
        conn = resp.connection
        if conn is None:
            self.slots.release()
        else:
            conn.add_callback(self.slots.release)


class Upstream:
    """One upstream agent: where it is, what it speaks, and the pools to reach it."""

    def __init__(self, settings: UpstreamSettings, limits: LimitsSettings, *, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.limits = limits
        self.max_body_bytes = limits.max_body_bytes
        self._unary: Pool | None = None
        self._streams: Pool | None = None
        self._retired: list[Pool] = []  # replaced by reconfigure(), closed by their owner
        self._channels: Channels | None = None  # the gRPC channels, once an interface of the agent needs one
        self._card: UpstreamCard | None = None
        self._card_at = 0.0
        self._card_lock = asyncio.Lock()
        self._wake = asyncio.Event()  # reconfigure() wakes the refresher
        self.last_card_error: str | None = None
        # interfaces() by (client version, binding, operation), for the card and settings they came from
        self._found: dict[tuple[Version, Binding, str], list[Interface]] = {}
        self._found_for: tuple[UpstreamCard | None, UpstreamSettings | None] = (None, None)
        self.metrics = metrics
        # the file-bytes convention each of the agent's v0.3 REST interfaces showed in its replies (by URL)
        self.rest_bytes: dict[str, RestBytes] = {}
        # …and the one its server software suggests before any reply showed it (the card's Server header)
        self.rest_bytes_guess: RestBytes | None = None
        # the quirks in force with their "auto" choices made for this agent (Quirks.for_agent), by the
        # quirks object they were made from: a reload brings a new one
        self._agent_quirks: tuple[Quirks, Quirks] | None = None
        # tracing: writes the current trace context into outgoing headers (None: tracing off)
        self.inject: Callable[[MutableMapping[str, str]], None] | None = None

    def quirks_for_agent(self, quirks: Quirks) -> Quirks:
        """`quirks` with their "auto" choices made for this agent: a2a-sdk for Python's server software
        (the card's Server header, as for the file bytes) or not. Made once per card and quirks object."""
        made = self._agent_quirks
        if made is None or made[0] is not quirks:
            made = self._agent_quirks = (quirks, quirks.for_agent(self.rest_bytes_guess == "double"))
        return made[1]

    # ---- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        self._unary, self._streams = self._new_pools()

    def _new_pools(self) -> tuple[Pool, Pool]:
        t, limits = self.settings.timeout, self.limits
        # no per-read timer (aiohttp re-arms it on every chunk): unary calls are bounded by one
        # asyncio.timeout(total_unary), streams by first_byte until their head, then by the relay
        timeout = aiohttp.ClientTimeout(total=None, connect=t.connect, sock_connect=t.connect, sock_read=None)
        return (Pool("unary", "limits.max_connections", limits.max_connections, limits.pool_wait_seconds, timeout),
                Pool("stream", "limits.max_stream_connections", limits.max_stream_connections,
                     limits.pool_wait_seconds, timeout))

    @property
    def channels(self) -> Channels:
        """The gRPC channels to the agent's gRPC interfaces (grpcio imported only when one is used)."""
        if self._channels is None:
            from gateway.shell.channels import Channels

            self._channels = Channels(self.limits.max_body_bytes)
        return self._channels

    async def close(self) -> None:
        if self._channels is not None:
            await self._channels.close()
        for pool in [*self._retired, self._unary, self._streams]:
            if pool is not None:
                await pool.session.close()
        self._retired.clear()

    def reconfigure(self, settings: UpstreamSettings, limits: LimitsSettings) -> list[Pool]:
        """New settings for new requests (SIGHUP). A changed agent (URL, version, binding, tenant) drops
        the cached card; changed timeouts, pool sizes, pool wait or URL get new pools, and the old ones
        are returned for the caller to close once the requests using them are done."""
        old, old_limits = self.settings, self.limits
        self.settings, self.limits, self.max_body_bytes = settings, limits, limits.max_body_bytes
        if (old.url, old.version, old.binding, old.tenant) != (settings.url, settings.version,
                                                               settings.binding, settings.tenant):
            self._card, self._card_at, self.last_card_error = None, 0.0, None
        self._wake.set()
        pools = (old_limits.max_connections, old_limits.max_stream_connections, old_limits.pool_wait_seconds)
        new_pools = (limits.max_connections, limits.max_stream_connections, limits.pool_wait_seconds)
        if self._unary is None or self._streams is None or (old.url, old.timeout, pools) == (
                settings.url, settings.timeout, new_pools):
            return []
        retired = [self._unary, self._streams]
        self._unary, self._streams = self._new_pools()
        self._retired.extend(retired)
        return retired

    async def close_retired(self, pool: Pool) -> None:
        if pool in self._retired:
            self._retired.remove(pool)
            await pool.session.close()

    def _error(self, kind: str) -> None:
        if self.metrics is not None:
            self.metrics.upstream_error(kind)

    @property
    def session(self) -> aiohttp.ClientSession:
        """The unary calls' session."""
        assert self._unary is not None, "Upstream.start() not awaited"
        return self._unary.session

    # ---- the agent card -----------------------------------------------------------------------

    @property
    def card_known(self) -> bool:
        return self._card is not None

    async def card(self, *, refresh: bool = False) -> UpstreamCard:
        """The cached upstream card, fetched when missing, stale or asked for."""
        fresh = time.monotonic() - self._card_at < self.settings.card_refresh_seconds
        if self._card is not None and fresh and not refresh:
            return self._card
        async with self._card_lock:
            if self._card is not None and time.monotonic() - self._card_at < 1.0:
                return self._card
            try:
                self._card = await self._fetch_card()
                self._card_at = time.monotonic()
                self.last_card_error = None
                if self.metrics is not None:
                    self.metrics.card_refresh("ok")
            except GatewayError as err:
                self.last_card_error = err.message
                if self.metrics is not None:
                    self.metrics.card_refresh("error")
                if self._card is None:
                    raise
                log.warning("card_refresh_failed", error=err.message)
            return self._card

    async def _fetch_card(self) -> UpstreamCard:
        base = self.settings.url.rstrip("/")
        last: GatewayError = UpstreamUnavailable("no agent card")
        for path in CARD_PATHS:
            try:
                reply = await self.request("GET", base + path, headers={"A2A-Version": "1.0",
                                                                        "Accept": "application/json"})
            except GatewayError as err:
                last = err
                continue
            if reply.status == 404:
                last = UpstreamUnavailable(f"agent card not found at {base + path}")
                continue
            if reply.status != 200:
                raise UpstreamUnavailable(f"agent card answered HTTP {reply.status}")
            cx = Cx()
            card = read_upstream_card(jsoncodec.loads(reply.body), cx)
            self.rest_bytes_guess = rest_bytes_of_server(reply.headers.get("Server"))
            self._agent_quirks = None
            log_notes(log, cx.notes, event="upstream_card_notes")
            log.info("upstream_card", interfaces=[f"{i.version.value} {i.binding.value} {i.url}"
                                                  for i in card.interfaces])
            return card
        raise last

    async def refresh_forever(self) -> None:
        """Keep the card fresh: every card_refresh_seconds, every card_retry_seconds after a failure, at
        once after reconfigure(); idle while the version is fixed in configuration."""
        while True:
            delay = self.settings.card_refresh_seconds
            if self.settings.version == "auto":
                try:
                    await self.card(refresh=True)
                except GatewayError as err:
                    log.warning("card_fetch_failed", error=err.message)
                    delay = self.settings.card_retry_seconds
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)

    async def interfaces(self, client: Version, binding: Binding, op: Operation | None = None) -> list[Interface]:
        """Every usable interface, best first (see UpstreamCard.candidates); a fixed version in
        configuration skips discovery and uses the configured URL alone."""
        fixed = _FIXED.get(self.settings.version)
        if fixed is not None:
            return [await self.interface(client, binding)]
        card = await self.card()
        settings = self.settings
        if self._found_for[0] is not card or self._found_for[1] is not settings:
            self._found, self._found_for = {}, (card, settings)
        key = (client, binding, op.name if op is not None else "")  # the known operations: a bounded cache
        found = self._found.get(key)
        if found is None:
            pinned = _BINDINGS.get(settings.binding)  # `upstream.binding` other than auto
            found = self._found[key] = [
                Interface(i.version, i.binding, i.url, settings.tenant or i.tenant)
                for i in card.candidates(client, binding, op) if pinned is None or i.binding is pinned]
        if not found:
            raise UpstreamUnavailable("the agent's card lists no interface the gateway speaks")
        return list(found)

    async def interface(self, client: Version, binding: Binding = Binding.JSONRPC) -> Interface:
        """Where to send a request of a `client`-version caller. A fixed version in configuration
        skips discovery and uses the configured URL."""
        fixed = _FIXED.get(self.settings.version)
        if fixed is not None:
            bound = _BINDINGS.get(self.settings.binding, Binding.JSONRPC)
            return Interface(fixed, bound, self.settings.url, self.settings.tenant)
        card = await self.card()
        found = card.choose(client, binding)
        tenant = self.settings.tenant or found.tenant
        return Interface(found.version, found.binding, found.url, tenant)

    # ---- requests -----------------------------------------------------------------------------

    async def request(self, method: str, url: str, *, headers: CIMultiDict[str] | dict[str, str],
                      body: bytes | None = None, query: Sequence[tuple[str, str]] = ()) -> Reply:
        """One unary exchange with a bounded body; transport failures become UpstreamUnavailable, a full
        pool GatewayOverloaded."""
        pool = self._unary
        assert pool is not None, "Upstream.start() not awaited"
        if self.inject is not None:
            self.inject(headers)
        await pool.acquire(self.metrics)
        try:
            async with asyncio.timeout(self.settings.timeout.total_unary):
                async with pool.session.request(method, url, data=body, headers=headers,
                                                params=list(query) or None, allow_redirects=False) as resp:
                    if resp.status >= 500:
                        self._error("http_5xx")
                    data = await read_bounded(resp, self.max_body_bytes)
                    return Reply(resp.status, resp.headers, data)
        except TimeoutError:
            self._error("timeout")
            raise UpstreamTimeout("upstream agent timed out") from None
        except aiohttp.ClientError as exc:
            self._error(_kind(exc))
            raise UpstreamUnavailable(f"upstream agent unreachable: {type(exc).__name__}: {exc}") from None
        finally:
            pool.slots.release()

    async def open(self, method: str, url: str, *, headers: CIMultiDict[str],
                   body: bytes | None, query: Sequence[tuple[str, str]] = ()) -> aiohttp.ClientResponse:
        """Start a streaming exchange on the streams' pool; the caller must release the response (its
        connection's slot comes back with it)."""
        pool = self._streams
        assert pool is not None, "Upstream.start() not awaited"
        t = self.settings.timeout
        if self.inject is not None:
            self.inject(headers)
        await pool.acquire(self.metrics)
        try:
            async with asyncio.timeout(t.first_byte):  # until the reply's head; the relay watches the rest
                resp = await pool.session.request(method, url, data=body, headers=headers, allow_redirects=False,
                                                  params=list(query) or None)
        except TimeoutError:
            pool.slots.release()
            self._error("timeout")
            raise UpstreamTimeout("upstream agent timed out") from None
        except aiohttp.ClientError as exc:
            pool.slots.release()
            self._error(_kind(exc))
            raise UpstreamUnavailable(f"upstream agent unreachable: {type(exc).__name__}: {exc}") from None
        except BaseException:
            pool.slots.release()
            raise
        pool.release_with(resp)
        if resp.status >= 500:
            self._error("http_5xx")
        return resp


def rest_bytes_of_server(server: str | None) -> RestBytes | None:
    """The v0.3 REST file-bytes convention an agent's Server header suggests: a2a-sdk for Python serves its
    ASGI apps from uvicorn or hypercorn (double base64); the JS SDK's Express sends no Server header."""
    name = (server or "").lower()
    return "double" if any(s in name for s in ("uvicorn", "hypercorn", "gunicorn", "daphne", "granian")) else None


def _kind(exc: aiohttp.ClientError) -> str:
    """The upstream_errors kind of a transport failure."""
    return "connect" if isinstance(exc, aiohttp.ClientConnectorError) else "bad_reply"


async def read_bounded(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    length = resp.content_length
    if length is not None and length <= limit:  # the common case: one read, no chunk loop
        return await resp.read()
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise InvalidAgentResponse(f"upstream reply larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
