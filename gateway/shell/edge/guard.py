"""The edge's guard on one agent's app: a call on any door admitted (who it is, which credentials go on, its
rate) or refused before the door runs, and the stream slot and budgets of a caller's stream."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import TypeVar

from aiohttp import web
from multidict import MultiMapping

from gateway.config import Settings
from gateway.shell.edge.auth import Authenticator
from gateway.shell.edge.callers import CallerLimits, LimitStore, MemoryLimits, StreamBudget
from gateway.shell.edge.shared_limits import RedisLimits
from gateway.shell.process.metrics import Metrics

__all__ = ["Guard", "Verdict"]

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Verdict:
    """A call let in, on any door: the authenticated subject (None: no [auth]), the caller as its limits
    know it (None: no [callers]) and the lower-case names of the credentials that must not reach the agent
    (dropped where the door builds the agent's request, so the gateway's own reading of the caller, its
    task-index scope, keeps them)."""

    subject: str | None
    who: str | None
    strip: frozenset[str]

    def kept(self, pairs: Iterable[tuple[str, V]]) -> list[tuple[str, V]]:
        """The headers (or gRPC metadata) that go on toward the agent."""
        return [(k, v) for k, v in pairs if k.lower() not in self.strip]


class Guard:
    """[auth] and [callers] for one agent's app (the sidecar's, or a route's with its own settings)."""

    def __init__(self, settings: Settings, metrics: Metrics, route: str = "default") -> None:
        self.auth = Authenticator(settings.auth) if settings.auth.enabled else None
        self.limits = None
        if settings.callers.enabled:
            store: LimitStore = RedisLimits(settings.callers, route, metrics) if settings.callers.store == "redis" \
                else MemoryLimits()
            self.limits = CallerLimits(settings.callers, store)

    @classmethod
    def of(cls, settings: Settings, metrics: Metrics, route: str = "default") -> Guard | None:
        """The guard of an agent's app (`route`: its name, for the shared limits' keys); None: nothing to guard."""
        if not settings.auth.enabled and not settings.callers.enabled:
            return None
        return cls(settings, metrics, route)

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        if self.limits is not None:
            self.limits.store.start()
        yield
        if self.auth is not None:
            await self.auth.close()
        if self.limits is not None:
            await self.limits.store.aclose()

    async def admit_headers(self, headers: MultiMapping[str], peer: str | None) -> Verdict:
        """The one admission rule of every door: let the call with these headers from `peer` (its address)
        in, or raise the refusal (Unauthenticated, PermissionDenied, RateLimited) the door answers in the
        caller's shape."""
        subject, strip = None, frozenset[str]()
        if self.auth is not None:
            subject, strip = (await self.auth.identify(headers)).subject, self.auth.credentials
        who = None
        if self.limits is not None:
            who = self.limits.caller(headers, peer, subject)
            await self.limits.admit(who)
        return Verdict(subject, who, strip)

    async def admit(self, request: web.Request) -> Verdict:
        """admit_headers for an HTTP request."""
        return await self.admit_headers(request.headers, request.remote)

    @contextlib.asynccontextmanager
    async def stream(self, caller: str | None) -> AsyncIterator[StreamBudget | None]:
        """One of the caller's stream slots for the block (RateLimited when none is free), and its budgets."""
        if self.limits is None or caller is None:
            yield None
            return
        async with self.limits.stream(caller):
            yield self.limits.budget


# the app key of the one instance an app holds
GUARD = web.AppKey("guard", Guard)  # [auth]/[callers] on an agent's app: requests admitted before their door
