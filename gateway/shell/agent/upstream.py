"""The conversation with the upstream agent: two connection pools with their own bounded slots (unary
calls and event streams, both on shell.agent.stream_link's connections: no cookies, no decompression, no
redirects, explicit timeouts), its gRPC channels (shell.agent.channels), agent-card discovery with caching and
refresh, the retries, and the bounded reads of its replies. It never translates."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import errno
import os
import random
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web
from multidict import CIMultiDictProxy

from gateway.config import LimitsSettings, TimeoutSettings, TlsSettings, UpstreamSettings
from gateway.config.tls import AgentTls, TlsFileError, agent_tls
from gateway.core import jsoncodec
from gateway.core.card import CARD_PATHS, Interface, UpstreamCard, read_upstream_card
from gateway.core.errors import (
    AgentUnavailable,
    GatewayError,
    GatewayOverloaded,
    InvalidAgentResponse,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from gateway.core.notes import Cx, RestBytes
from gateway.core.operations import Operation
from gateway.core.quirks import Quirks
from gateway.core.types import Binding, JsonObj, Version
from gateway.core.verify import Probe, Verified
from gateway.observability import get_logger, log_notes
from gateway.shell.agent.health import AgentHealth
from gateway.shell.agent.link_failures import CLASSES, Failure, classify, timed_out
from gateway.shell.agent.stream_link import DEFAULT_BOUNDS, Bounds, Links, ReplyTooLarge, StreamReply, TlsFailed
from gateway.shell.agent.verify import Send, verify_card, verify_interface

if TYPE_CHECKING:
    from gateway.shell.agent.channels import Channels
    from gateway.shell.edge.signing import Verdict
    from gateway.shell.process.metrics import Metrics

log = get_logger("gateway.upstream")

_FIXED = {"0.3": Version.V03, "1.0": Version.V10}
_RESETS = frozenset({errno.ECONNRESET, errno.EPIPE})
# what the background check of an agent known down asks for: any HTTP reply shows it is back
_CHECK_PATH = CARD_PATHS[0]
_BINDINGS = {"JSONRPC": Binding.JSONRPC, "HTTP+JSON": Binding.REST, "GRPC": Binding.GRPC}


@dataclass(frozen=True, slots=True)
class Deadlines:
    """Every deadline toward the agent, one value built once from [upstream.timeout] (as httpx's Timeout) and
    carried by the Upstream: the shell reads the deadlines here and nowhere else, so a new one is a field of
    this class (and its key in the configuration), not an edit at each call site."""

    connect: float      # a connection's set-up, TCP and TLS
    first_byte: float   # the reply's head, unary call or stream (and the AG-UI run's wait for the agent's card)
    idle: float         # a stream quiet between two events
    unary: float        # a unary call, whole: request sent, reply read (its head within first_byte)

    @classmethod
    def of(cls, timeout: TimeoutSettings) -> Deadlines:
        return cls(timeout.connect, timeout.first_byte, timeout.idle_stream, timeout.total_unary)


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: CIMultiDictProxy[str]  # the response's own (read-only) headers: no copy
    body: bytes


# the descriptors (dup'd) of the reused connections the agent closed before replying to the call being sent
# (set by Upstream._send, filled by shell.agent.stream_link)
_WATCH: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("upstream_watch", default=None)


def _so_error(fd: int) -> int:
    """The pending error of the socket behind `fd`, which stays open."""
    sock = socket.socket(fileno=fd)
    try:
        return sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    finally:
        sock.detach()


async def _reset_follows(fds: list[int]) -> bool:
    """Whether a connection that ended without a reply was then reset by the agent's end: a socket closed
    with our request unread, or receiving it after its close, answers with a reset; one that read the
    request and then closed (an agent dying mid-call) does not. Over the network the reset trails the close
    by a round trip: looked for a little while."""
    for wait in (0.0, 0.005, 0.02, 0.05) if fds else ():
        await asyncio.sleep(wait)
        if any(_so_error(fd) in _RESETS for fd in fds):
            return True
    return False


class Pool:
    """A pool of connections to the agent on shell.agent.stream_link (unary calls and event streams have one
    each, so that long streams never starve unary calls): `size` slots bound its calls, one connection
    each (the links themselves never queue a call behind the connect timeout). A call waits at most `wait`
    seconds for a slot, then fails as the gateway's own overload: a full pool is the gateway's queue, not
    the agent's slowness."""

    __slots__ = ("free", "key", "links", "name", "size", "wait", "waiters")

    def __init__(self, name: str, key: str, size: int, wait: float, connect_timeout: float,
                 bounds: Bounds = DEFAULT_BOUNDS, tls: AgentTls | None = None) -> None:
        self.name, self.key, self.size, self.wait = name, key, size, wait
        # the slots: a count and the calls waiting in turn (asyncio.Semaphore's rule, without its two
        # coroutine calls and the look over its waiters a free slot costs there)
        self.free = size
        self.waiters: deque[asyncio.Future[None]] = deque()
        self.links = Links(connect_timeout, bounds, tls)

    def take(self) -> bool:
        """Take a free slot at once; False when none is, or calls already wait for one (acquire)."""
        if self.free and not self.waiters:
            self.free -= 1
            return True
        return False

    async def acquire(self, metrics: Metrics | None) -> None:
        """Take a slot, in turn; GatewayOverloaded when none is free within `wait` seconds."""
        if self.take():
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait):
                await waiter
        except TimeoutError:
            self._leave(waiter)
            if metrics is not None:
                metrics.overload(self.key)
            raise GatewayOverloaded(f"gateway overloaded: all {self.size} upstream {self.name} connections are "
                                    f"busy ({self.key}, limits.pool_wait_seconds)", limit=self.key) from None
        except BaseException:
            self._leave(waiter)
            raise

    def _leave(self, waiter: asyncio.Future[None]) -> None:
        """A call that stops waiting: out of the queue, and a slot it was handed meanwhile passed on."""
        if waiter.done() and not waiter.cancelled():
            self.release()
        else:
            waiter.cancel()
            with contextlib.suppress(ValueError):
                self.waiters.remove(waiter)

    def release(self) -> None:
        """Give a slot back: to the first call still waiting, else to the count."""
        waiters = self.waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self.free += 1

    async def send(self, method: str, url: str, headers: MutableMapping[str, str], body: bytes | None,
                   query: Sequence[tuple[str, str]], due: float | None) -> StreamReply:
        """One attempt: the request written, its reply's head read; while the call watches (see
        Upstream._send), a descriptor of a reused connection the agent closed before the reply. Past `due`
        (time.monotonic), the reply fails with TimeoutError wherever it is read (Links)."""
        return await self.links.request(method, url, headers, body, query, _WATCH.get(), due)

    @property
    def closed(self) -> bool:
        return self.links.closed

    async def close(self) -> None:
        self.links.close()


class Upstream:
    """One upstream agent: where it is, what it speaks, and the pools to reach it."""

    def __init__(self, settings: UpstreamSettings, limits: LimitsSettings, *, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.deadlines = Deadlines.of(settings.timeout)
        self.limits = limits
        self.max_body_bytes = limits.max_body_bytes
        self.tls = _agent_tls(settings.tls)
        self._unary: Pool | None = None
        self._streams: Pool | None = None
        self._retired: list[Pool] = []  # replaced by reconfigure(), closed by their owner
        self._channels: Channels | None = None  # the gRPC channels, once an interface of the agent needs one
        self._card: UpstreamCard | None = None
        self._card_at = 0.0
        self.card_changed_at = 0.0   # wall clock: when the card last changed (the served card's Last-Modified)
        self._card_lock = asyncio.Lock()
        self._card_fetches = 0   # fetches begun: a caller that waited on the lock for one shares its outcome
        self._card_failure: GatewayError | None = None   # the last fetch's failure, while no card is known
        self._wake = asyncio.Event()  # reconfigure() and the agent coming back wake the refresher
        self.last_card_error: str | None = None
        # the agent's addresses known down, answered at once until the background check reaches them
        self.health = AgentHealth(self._check, self._wake.set, metrics)
        # interfaces() by (client version, binding, operation), for the card and settings they came from
        self._found: dict[tuple[Version, Binding, str], list[Interface]] = {}
        self._found_for: tuple[UpstreamCard | None, UpstreamSettings | None] = (None, None)
        self.metrics = metrics
        # the file-bytes convention each of the agent's v0.3 REST interfaces showed in its replies (by URL)
        self.rest_bytes: dict[str, RestBytes] = {}
        # …and the one its server software suggests before any reply showed it (the card's Server header)
        self.rest_bytes_guess: RestBytes | None = None
        # whether each interface (by URL) writes status timestamps that readers refuse (core.timestamps'
        # habit_of), learned from its first reply holding one: its same-version replies are then repaired
        self.timestamp_habit: dict[str, bool] = {}
        # the v1.0 JSON-RPC interfaces (by URL) whose streams showed v1.0-shaped items only: their pass-through
        # streams are no longer looked at for v0.3-shaped ones (langgraph-api's, behind a 1.0 card)
        self.v10_items: set[str] = set()
        # the interfaces (by URL) that left a blocking send's task under way past the unary deadline: their
        # tasks are not waited on again (a queue that leaves tasks submitted for its workers, told by push)
        self.leaves_tasks: set[str] = set()
        # the quirks in force with their "auto" choices made for this agent (Quirks.for_agent), by the
        # quirks object they were made from: a reload brings a new one
        self._agent_quirks: tuple[Quirks, Quirks] | None = None
        # tracing: writes the current trace context into outgoing headers (None: tracing off)
        self.inject: Callable[[MutableMapping[str, str]], None] | None = None
        # [card] verification: checks the card as the agent served it (None: not checked), and its last verdict
        self.verify: Callable[[JsonObj], Awaitable[Verdict]] | None = None
        self.card_signature: Verdict | None = None
        # `auto`: each interface of the card as the version probes found it (gateway.shell.agent.verify), and
        # the interfaces re-probed after a real call's "method not found" since the card was fetched
        self.verified: list[Verified] = []
        self._relearned: set[tuple[str, Binding]] = set()
        self.on_probe: Callable[[Interface, Probe], None] | None = None  # told of each probe (`probe`'s progress)
        # the version real calls showed an interface speaking (its items' shapes), by (URL, binding) and the
        # version its card claims: kept across card refreshes while the card claims the same (`spoken`)
        self._spoken: dict[tuple[str, Binding, Version], Version] = {}

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
        t, limits = self.deadlines, self.limits
        # no per-read timer: unary calls are bounded by one asyncio.timeout(total_unary), streams by
        # first_byte until their head, then by the relay
        bounds = Bounds.of(limits)
        return (Pool("unary", "limits.max_connections", limits.max_connections, limits.pool_wait_seconds, t.connect,
                     bounds, self.tls),
                Pool("stream", "limits.max_stream_connections", limits.max_stream_connections,
                     limits.pool_wait_seconds, t.connect, bounds, self.tls))

    @property
    def channels(self) -> Channels:
        """The gRPC channels to the agent's gRPC interfaces (grpcio imported only when one is used)."""
        if self._channels is None:
            from gateway.shell.agent.channels import Channels

            self._channels = Channels(self.limits.max_body_bytes, self.tls)
        return self._channels

    async def close(self) -> None:
        await self.health.close()
        if self._channels is not None:
            await self._channels.close()
        for pool in [*self._retired, self._unary, self._streams]:
            if pool is not None:
                await pool.close()
        self._retired.clear()

    def reconfigure(self, settings: UpstreamSettings, limits: LimitsSettings) -> list[Pool]:
        """New settings for new requests (SIGHUP). A changed agent (URL, version, binding, tenant) drops
        the cached card; changed timeouts, pool sizes, pool wait or URL get new pools, and the old ones
        are returned for the caller to close once the requests using them are done."""
        old, old_limits = self.settings, self.limits
        self.settings, self.limits, self.max_body_bytes = settings, limits, limits.max_body_bytes
        old_deadlines, self.deadlines = self.deadlines, Deadlines.of(settings.timeout)
        if (old.url, old.version, old.binding, old.tenant) != (settings.url, settings.version,
                                                               settings.binding, settings.tenant):
            self._card, self._card_at, self.last_card_error = None, 0.0, None
            self.card_signature = None   # the verdict was on the other agent's card
            self.verified = []
            self.health.reset()   # (its checks end on their own once cancelled)
        self._wake.set()
        self.reload_tls()
        pools = (old_limits.max_connections, old_limits.max_stream_connections, old_limits.pool_wait_seconds,
                 Bounds.of(old_limits))
        new_pools = (limits.max_connections, limits.max_stream_connections, limits.pool_wait_seconds,
                     Bounds.of(limits))
        if self._unary is None or self._streams is None or (old.url, old_deadlines, pools) == (
                settings.url, self.deadlines, new_pools):
            return []
        retired = [self._unary, self._streams]
        self._unary, self._streams = self._new_pools()
        self._retired.extend(retired)
        return retired

    def reload_tls(self) -> None:
        """[upstream.tls] read again (SIGHUP: rotated certificates) for new connections and gRPC channels;
        files that no longer load leave the running ones in force (logged)."""
        try:
            tls = _agent_tls(self.settings.tls)
        except TlsFileError as exc:
            log.error("upstream_tls_reload_failed", key=f"upstream.tls.{exc.key}", error=str(exc),
                      detail="keeping the certificates in force")
            return
        if tls is not None or self.tls is not None:
            self.health.reset()   # new certificates: an agent down for TLS is tried again at once
        self.tls = tls
        for pool in (self._unary, self._streams):
            if pool is not None:
                pool.links.tls = tls
        if self._channels is not None:
            self._channels.use_tls(tls)

    async def close_retired(self, pool: Pool) -> None:
        if pool in self._retired:
            self._retired.remove(pool)
            await pool.close()

    def _error(self, kind: str) -> None:
        if self.metrics is not None:
            self.metrics.upstream_error(kind)

    @property
    def unary_pool(self) -> Pool:
        """The unary calls' pool."""
        assert self._unary is not None, "Upstream.start() not awaited"
        return self._unary

    # ---- the agent card -----------------------------------------------------------------------

    @property
    def card_known(self) -> bool:
        return self._card is not None

    async def card(self, *, refresh: bool = False) -> UpstreamCard:
        """The cached upstream card, fetched when missing, stale or asked for."""
        fresh = time.monotonic() - self._card_at < self.settings.card_refresh_seconds
        if self._card is not None and fresh and not refresh:
            return self._card
        fetches = self._card_fetches
        async with self._card_lock:
            if self._card is not None and time.monotonic() - self._card_at < 1.0:
                return self._card
            if self._card is None and self._card_failure is not None and self._card_fetches != fetches:
                raise self._card_failure   # a fetch failed while this caller waited: its answer, not another try
            self._card_fetches += 1
            try:
                card = await self._verify(await self._fetch_card())
                if self._card is None or card != self._card:
                    self.card_changed_at = time.time()
                self._card = card
                self._card_at = time.monotonic()
                self.last_card_error, self._card_failure = None, None
                if self.metrics is not None:
                    self.metrics.card_refresh("ok")
            except GatewayError as err:
                self.last_card_error, self._card_failure = err.message, err
                if self.metrics is not None:
                    self.metrics.card_refresh("error")
                if self._card is None:
                    raise
                if not isinstance(err, AgentUnavailable):   # the agent's going down was logged once
                    log.warning("card_refresh_failed", error=err.message)
            return self._card

    async def _fetch_card(self) -> UpstreamCard:
        """The card at the first of CARD_PATHS the agent has; a failure to reach it ends the fetch (the next
        path is asked only after a 404)."""
        base = self.settings.url.rstrip("/")
        last: GatewayError = UpstreamUnavailable("no agent card")
        for path in CARD_PATHS:
            reply = await self.request("GET", base + path, headers={"A2A-Version": "1.0",
                                                                    "Accept": "application/json"},
                                       read_only=True)
            if reply.status == 404:
                tried = " nor ".join(base + p for p in CARD_PATHS[:CARD_PATHS.index(path) + 1])
                last = UpstreamUnavailable(f"agent card not found at {tried} (HTTP 404)")
                continue
            if reply.status != 200:
                raise UpstreamUnavailable(f"agent card answered HTTP {reply.status}")
            cx = Cx()
            raw = jsoncodec.loads(reply.body)
            card = read_upstream_card(raw, cx)
            if self.verify is not None:
                await self._check_signature(raw)
            self.rest_bytes_guess = rest_bytes_of_server(reply.headers.get("Server"))
            self._agent_quirks = None
            log_notes(log, cx.notes, event="upstream_card_notes")
            log.info("upstream_card", interfaces=[f"{i.version.value} {i.binding.value} {i.url}"
                                                  for i in card.interfaces])
            return card
        raise last

    async def _check_signature(self, raw: JsonObj) -> None:
        """Check the card's signatures; the verdict is kept (readiness), logged when it changes and counted."""
        assert self.verify is not None
        verdict = await self.verify(raw)
        if self.metrics is not None:
            self.metrics.card_signature(verdict.result)
        if verdict != self.card_signature:
            (log.info if verdict.ok else log.warning)("upstream_card_signature", result=verdict.result,
                                                       detail=verdict.detail)
        self.card_signature = verdict

    async def _verify(self, card: UpstreamCard) -> UpstreamCard:
        """`card` with each interface's version as the agent showed it (gateway.core.verify)."""
        self.verified = [self._as_spoken(v) for v in await verify_card(Send(self.request, lambda: self.channels,
                                                                            self.on_probe), card)]
        self._relearned.clear()
        self._count_verified(self.verified)
        return UpstreamCard(card.card, tuple(v.interface for v in self.verified))

    def _count_verified(self, verified: list[Verified]) -> None:
        notes = [n for n in (v.note() for v in verified) if n is not None]
        log_notes(log, notes, event="upstream_version_notes")
        if self.metrics is not None:
            self.metrics.count_notes(notes)
            for v in verified:
                self.metrics.version_check(v.status)

    async def relearn(self, iface: Interface) -> Interface | None:
        """After a real call to `iface` answered "method not found": probe it again (once per interface
        and card) unless its version was proven; the corrected interface when it speaks the other version."""
        key = (iface.url, iface.binding)
        known = next((v for v in self.verified if (v.claimed.url, v.claimed.binding) == key), None)
        if self._card is None or known is None or known.status == "verified" or key in self._relearned:
            return None
        self._relearned.add(key)
        again = await verify_interface(Send(self.request, lambda: self.channels, self.on_probe), known.claimed)
        self.verified = [again if v is known else v for v in self.verified]
        self._count_verified([again])
        if again.version is iface.version:
            return None
        self._card = UpstreamCard(self._card.card, tuple(v.interface for v in self.verified))
        return Interface(again.version, iface.binding, iface.url, iface.tenant)

    def spoken(self, iface: Interface, version: Version) -> None:
        """A real call showed `iface` speaking `version`, whatever its card says and the version probe found
        (langgraph-api: a 1.0 card, v1.0 method names accepted, v0.3-shaped parts and events): it is spoken to
        so from now on, as a corrected card is (core.verify's note logged and counted once)."""
        key = (iface.url, iface.binding)
        known = next((v for v in self.verified if (v.claimed.url, v.claimed.binding) == key), None)
        if self._card is None or known is None or known.version is version:
            return
        self._spoken[(*key, known.claimed.version)] = version
        again = self._as_spoken(known)
        self.verified = [again if v is known else v for v in self.verified]
        self._count_verified([again])
        self._card = UpstreamCard(self._card.card, tuple(v.interface for v in self.verified))

    def shown(self, iface: Interface) -> Version | None:
        """The version real calls showed `iface` speaking (`spoken`), whichever its card claims; None if none did."""
        return next((version for (url, binding, _), version in self._spoken.items()
                     if (url, binding) == (iface.url, iface.binding)), None)

    def _as_spoken(self, verified: Verified) -> Verified:
        c = verified.claimed
        version = self._spoken.get((c.url, c.binding, c.version))
        return verified if version is None or version is verified.version else replace(verified, observed=version)

    async def refresh_forever(self) -> None:
        """Keep the card fresh: every card_refresh_seconds, every card_retry_seconds after a failure, at
        once after reconfigure(); idle while the version is fixed in configuration."""
        logged: str | None = None   # one line per change of the failure, not one per try
        while True:
            delay = self.settings.card_refresh_seconds
            if self.settings.version == "auto":
                try:
                    await self.card(refresh=True)
                    logged = None
                except GatewayError as err:
                    if err.message != logged and not isinstance(err, AgentUnavailable):
                        log.warning("card_fetch_failed", error=err.message)
                    logged = err.message
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

    async def _enter(self, pool: Pool | None, url: str, headers: MutableMapping[str, str]) -> Pool:
        """A call's way in: answered at once while the agent at `url` is known down, the trace context written
        into its headers, a slot of `pool` taken (the caller releases it)."""
        refusal = self.health.refusal(url)
        if refusal is not None:
            self._failed_at_once()
            raise refusal
        assert pool is not None, "Upstream.start() not awaited"
        if self.inject is not None:
            self.inject(headers)
        if not pool.take():
            await pool.acquire(self.metrics)
        return pool

    async def request(self, method: str, url: str, *, headers: MutableMapping[str, str],
                      body: bytes | None = None, query: Sequence[tuple[str, str]] = (),
                      read_only: bool = False) -> Reply:
        """One unary exchange with a bounded body, retried by its failure's class (gateway.shell.agent.link_failures;
        when `read_only`, on 502/503/504 too); its reply's head within first_byte, the whole within
        total_unary. An agent known down is answered at once (AgentUnavailable); any other failure becomes
        UpstreamUnavailable (UpstreamTimeout past a deadline) in plain words, a full pool GatewayOverloaded."""
        pool = await self._enter(self._unary, url, headers)
        t = self.deadlines
        # the deadlines, on the reply (Links): no timer of their own
        now = time.monotonic()
        whole = now + t.unary
        head = min(whole, now + t.first_byte)
        try:
            try:
                resp = await self._send(pool, method, url, headers, body, query, read_only, head, head)
            except TimeoutError:
                raise self._failure(timed_out("head_deadline" if head < whole else "total_deadline", url)) from None
            try:
                if head < whole:
                    resp.hold_to(whole)
                if resp.status >= 500:
                    self._error("http_5xx")
                data = await read_bounded(resp, self.max_body_bytes)
                return Reply(resp.status, resp.headers, data)
            except TimeoutError:
                raise self._failure(timed_out("total_deadline", url)) from None
            except aiohttp.ClientError as exc:
                raise self._failure(classify(exc, url)) from None
            finally:
                resp.release()
        finally:
            pool.release()

    async def open(self, method: str, url: str, *, headers: MutableMapping[str, str],
                   body: bytes | None, query: Sequence[tuple[str, str]] = (),
                   read_only: bool = False) -> StreamReply:
        """Start a streaming exchange on the streams' pool (retried as `request` is, until the reply's head,
        within first_byte); the caller must release the response (its connection's slot comes back with it)."""
        pool = await self._enter(self._streams, url, headers)
        t = self.deadlines
        try:
            async with asyncio.timeout(t.first_byte):  # until the reply's head; the relay watches the rest
                resp = await self._send(pool, method, url, headers, body, query, read_only,
                                        time.monotonic() + t.first_byte, None)
        except TimeoutError:
            pool.release()
            raise self._failure(timed_out("head_deadline", url)) from None
        except BaseException:
            pool.release()
            raise
        resp.add_done(pool.release)
        resp.idle = t.idle
        if resp.status >= 500:
            self._error("http_5xx")
        return resp

    def _failure(self, failure: Failure) -> UpstreamUnavailable:
        """The caller's error for a call that failed so, counted; the agent's health told."""
        self._count(failure)
        if failure.cls.kind == "timeout":
            return UpstreamTimeout(failure.message)
        return UpstreamUnavailable(failure.message)

    def _count(self, failure: Failure) -> None:
        """A failed call counted by its class, and the agent's health told."""
        self._error(failure.cls.kind)
        if self.metrics is not None:
            self.metrics.upstream_failure(failure.cls.name)
        self.health.failed(failure)

    def _failed_at_once(self) -> None:
        if self.metrics is not None:
            self.metrics.upstream_failure("agent_down")

    async def _check(self, url: str) -> Failure | None:
        """The background check of an agent's address known down: one request on a fresh connection within
        the connect deadline (and as long again for the reply's head); None when anything answered."""
        pool = self._unary
        if pool is None:
            return None
        target = url.rstrip("/") + _CHECK_PATH
        try:
            reply = await pool.send("GET", target, {"Accept": "application/json"}, None, (),
                                    time.monotonic() + 2 * self.deadlines.connect)
        except TimeoutError:
            return None   # it took the connection: it is there, if slow
        except (aiohttp.ClientError, TlsFailed) as exc:
            return classify(exc, target)
        reply.close()
        return None

    async def _send(self, pool: Pool, method: str, url: str, headers: MutableMapping[str, str],
                    body: bytes | None, query: Sequence[tuple[str, str]], read_only: bool,
                    deadline: float, due: float | None) -> StreamReply:
        """The request sent until its reply's head, retried on a fresh connection with backoff while its
        failure's class allows (gateway.shell.agent.link_failures: nothing of it reached the agent, or it only
        reads), within `deadline` (time.monotonic) and upstream.retry_attempts; the last reply stands when no
        retry is left, the last failure is raised as the caller's error. `due`: the deadline the links hold
        each attempt's reply to (None: the caller's own timeout does). Retries are counted, not logged: the
        agent's going down is logged once (gateway.shell.agent.health)."""
        attempt = 0
        watch: list[int] = []   # a read-only call is sent again on any lost connection: none kept
        token = _WATCH.set(None if read_only else watch)
        while True:
            try:
                resp = await pool.send(method, url, headers, body, query, due)
            except aiohttp.ClientError as exc:
                failure = classify(exc, url)
                retried = failure.retried(read_only)
                if not retried and isinstance(exc, aiohttp.ServerDisconnectedError) and await _reset_follows(watch):
                    failure, retried = Failure(CLASSES["reset"], url, "connection reset"), True
                # (a call already retrying goes on when another finds the agent down: the agent may be back
                # within its own budget)
                delay = self._backoff(attempt, time.monotonic(), deadline) if retried else None
                if delay is None:
                    _unwatch(watch, token)
                    raise self._failure(failure) from None
                reason = failure.cls.name
            except (TlsFailed, ReplyTooLarge) as exc:   # the link's own failures, in its words: never retried
                _unwatch(watch, token)
                self._count(classify(exc, url))
                raise
            except BaseException:
                _unwatch(watch, token)
                raise
            else:
                self.health.reached(url)
                delay = self._backoff(attempt, time.monotonic(), deadline) if read_only and resp.status in \
                    RETRY_STATUSES else None
                if delay is None:
                    _unwatch(watch, token)
                    return resp
                reason = f"http_{resp.status}"
                resp.release()
            for fd in watch:
                os.close(fd)
            watch.clear()
            attempt += 1
            if self.metrics is not None:
                self.metrics.upstream_retry(reason)
            log.debug("upstream_retry", reason=reason, attempt=attempt, delay_s=round(delay, 3), url=url)
            await asyncio.sleep(delay)

    def _backoff(self, attempt: int, now: float, deadline: float | None) -> float | None:
        """The wait before retry `attempt + 1` (exponential, capped, jittered), or None when none is left:
        upstream.retry_attempts used, or the wait would end past the call's deadline."""
        settings = self.settings
        if attempt >= settings.retry_attempts:
            return None
        delay = min(RETRY_MAX_DELAY_SECONDS, settings.retry_backoff_seconds * 2 ** attempt)
        delay *= 0.75 + random.random() / 4   # jitter: callers that failed together do not come back together
        return None if deadline is not None and now + delay >= deadline else delay


RETRY_STATUSES = frozenset({502, 503, 504})   # a read-only call is sent again on these
RETRY_MAX_DELAY_SECONDS = 1.0


def _unwatch(watch: list[int], token: contextvars.Token[list[int] | None]) -> None:
    for fd in watch:
        os.close(fd)
    _WATCH.reset(token)




def _agent_tls(settings: TlsSettings) -> AgentTls | None:
    """The agent's TLS as [upstream.tls] says, its files read now (None: unset, the system's defaults); an
    `insecure` one is warned of each time."""
    if not settings.configured:
        return None
    tls = agent_tls(settings)
    if tls.insecure:
        log.warning("upstream_tls_insecure", detail="upstream.tls.insecure: the agent's certificate is not "
                    "verified; anyone on the path can pose as the agent (development only)")
    return tls


def rest_bytes_of_server(server: str | None) -> RestBytes | None:
    """The v0.3 REST file-bytes convention an agent's Server header suggests: a2a-sdk for Python serves its
    ASGI apps from uvicorn or hypercorn (double base64); the JS SDK's Express sends no Server header."""
    name = (server or "").lower()
    return "double" if any(s in name for s in ("uvicorn", "hypercorn", "gunicorn", "daphne", "granian")) else None


async def read_bounded(resp: StreamReply, limit: int) -> bytes:
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


# the app key of the one instance an app holds
UPSTREAM = web.AppKey("upstream", Upstream)   # the agent an app (the root, or a route's) serves
