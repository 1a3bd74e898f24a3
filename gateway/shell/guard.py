"""The edge's guard on one agent's app: a request admitted (who it is, its credentials kept or stripped, its
rate) or refused before its door runs, and the stream slot and budgets of a caller's stream."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from aiohttp import web

from gateway.config import Settings
from gateway.shell.auth import Authenticator
from gateway.shell.callers import CallerLimits, StreamBudget

__all__ = ["Admission", "Guard"]


@dataclass(frozen=True, slots=True)
class Admission:
    """A request let in: the request to serve (its credentials stripped when they must not go on), the
    authenticated subject (None: no [auth]) and the caller as its limits know it (None: no [callers])."""

    request: web.Request
    subject: str | None
    who: str | None


class Guard:
    """[auth] and [callers] for one agent's app (the sidecar's, or a route's with its own settings)."""

    def __init__(self, settings: Settings) -> None:
        self.auth = Authenticator(settings.auth) if settings.auth.enabled else None
        self.limits = CallerLimits(settings.callers) if settings.callers.enabled else None

    @classmethod
    def of(cls, settings: Settings) -> Guard | None:
        guard = cls(settings)
        return guard if guard.auth is not None or guard.limits is not None else None

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        yield
        if self.auth is not None:
            await self.auth.close()

    async def admit(self, request: web.Request) -> Admission:
        """Let the request in, or raise the refusal (Unauthenticated, PermissionDenied, RateLimited) the
        pipeline answers in the caller's shape."""
        subject = None
        if self.auth is not None:
            subject = (await self.auth.identify(request.headers)).subject
            stripped = self.auth.strip(request.headers)
            if stripped is not None:
                request = request.clone(headers=stripped)
        if self.limits is None:
            return Admission(request, subject, None)
        who = self.limits.caller(request, subject)
        self.limits.admit(who)
        return Admission(request, subject, who)

    @contextlib.contextmanager
    def stream(self, caller: str | None) -> Iterator[StreamBudget | None]:
        """One of the caller's stream slots for the block (RateLimited when none is free), and its budgets."""
        if self.limits is None or caller is None:
            yield None
            return
        with self.limits.stream(caller):
            yield self.limits.budget
