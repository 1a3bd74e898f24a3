"""Several agents behind one gateway ([[routes]]): one aiohttp sub-application per route, selected by Host
(port ignored) and/or path prefix, each with its own settings, Upstream, card cache, push and AG-UI."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial

from aiohttp import web
from aiohttp.web_urldispatcher import AbstractRuleMatching, MatchedSubAppResource

from gateway.config import RouteSettings, Settings
from gateway.core.errors import GatewayError, UnknownOperation
from gateway.core.exchange import Reply
from gateway.core.types import Binding, Version
from gateway.shell.agent.upstream import UPSTREAM, Upstream
from gateway.shell.carrier.migration import MIGRATION
from gateway.shell.carrier.pipeline import A2ACaller, Context, serve
from gateway.shell.doors.rest import caller_version
from gateway.shell.process.keys import ROUTE_HOST, ROUTE_NAME, ROUTE_PREFIX
from gateway.shell.process.lifecycle import LIFECYCLE, Lifecycle, Track
from gateway.shell.process.metrics import METRICS

__all__ = ["RouteRule", "install", "request_host"]

Serve = Callable[[web.Application, Settings], None]


def request_host(request: web.Request) -> str:
    """The Host header's host, lower-cased, without the port or a trailing dot."""
    host = request.headers.get("Host", "").strip().lower()
    if host.startswith("["):
        host = host[: host.find("]") + 1]
    elif ":" in host:
        host = host.rpartition(":")[0]
    return host.rstrip(".")


class RouteRule(AbstractRuleMatching):
    """A route's selector: its host (if set) and its path prefix (a whole-segment match)."""

    def __init__(self, host: str, prefix: str) -> None:
        self.host = host
        self.prefix = prefix

    async def match(self, request: web.Request) -> bool:
        if self.host and request_host(request) != self.host:
            return False
        path = request.rel_url.path_safe
        return not self.prefix or path == self.prefix or path.startswith(self.prefix + "/")

    def get_info(self) -> dict[str, str]:  # type: ignore[override]
        return {"host": self.host, "prefix": self.prefix}

    @property
    def canonical(self) -> str:
        return f"{self.host}{self.prefix}"


class _RouteResource(MatchedSubAppResource):
    """A sub-app under a rule, its own routes moved under the prefix as `add_subapp` does."""

    def __init__(self, route: RouteSettings, app: web.Application) -> None:
        super().__init__(RouteRule(route.host, route.path_prefix), app)
        if route.path_prefix:
            router = app.router
            for resource in router.resources():
                router.unindex_resource(resource)
                resource.add_prefix(route.path_prefix)
                router.index_resource(resource)


def _order(route: RouteSettings) -> tuple[bool, int]:
    """Most specific first: routes with a host, then longer prefixes (aiohttp tries rules in order)."""
    return (not route.host, -len(route.path_prefix))


def install(app: web.Application, settings: Settings, serve: Serve, track: Track) -> None:
    """Mount one sub-app per route on the root `app` (whose lifecycle learns each route's) and the
    404 for paths no route matches (its handler as `track` runs it). `serve(sub, route_settings)` adds the
    agent's handlers."""
    root = app[LIFECYCLE]
    for route in sorted(settings.routes, key=_order):
        own = dataclasses.replace(settings, upstream=route.upstream, quirks=route.quirks, migration=route.migration,
                                  auth=route.auth, callers=route.callers, routes=())
        sub = web.Application(client_max_size=settings.limits.max_body_bytes + 1)
        sub[METRICS] = app[METRICS]
        sub[MIGRATION] = app[MIGRATION]
        sub[ROUTE_NAME] = route.name
        sub[ROUTE_PREFIX] = route.path_prefix
        sub[ROUTE_HOST] = route.host
        upstream = sub[UPSTREAM] = Upstream(own.upstream, own.limits, metrics=app[METRICS])
        root.routes[route.name] = sub[LIFECYCLE] = Lifecycle(own, upstream, app[METRICS])
        serve(sub, own)
        app._add_subapp(partial(_RouteResource, route, sub), sub)  # add_domain's way, with our rule
    app.router.add_route("*", "/{path:.*}", track(_no_route))


async def _no_route(request: web.Request) -> web.StreamResponse:
    """No route matches: 404 in the A2A HTTP+JSON error shape of the caller's version."""
    try:
        version = caller_version(request)
    except GatewayError:  # an unsupported A2A-Version still gets the 404
        version = Version.V03 if request.path.startswith("/v1/") else Version.V10
    return await serve(request, _no_route_door, A2ACaller(version, Binding.REST))


async def _no_route_door(ctx: Context) -> Reply:
    raise UnknownOperation(f"no route serves {ctx.request.path[:200]!r}")
