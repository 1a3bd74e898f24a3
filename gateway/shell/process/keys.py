"""Typed application state: the `web.AppKey` constants of the gateway app whose values have no owner class in
the shell (each shell class that lives in the app keeps its own key beside it: UPSTREAM, GUARD, LIFECYCLE, …)."""

from __future__ import annotations

from aiohttp import web

from gateway.core.push import PushSealer
from gateway.core.types import Binding

SERVED_BINDINGS = web.AppKey("served_bindings", tuple[Binding, ...])
SEALER = web.AppKey("push_sealer", PushSealer)   # when the push relay is on
ROUTE_HOST = web.AppKey("route_host", str)  # a Host-matched [[routes]] sub-app's host
ROUTE_NAME = web.AppKey("route_name", str)  # a [[routes]] sub-app's name (metrics, logs)
ROUTE_PREFIX = web.AppKey("route_prefix", str)  # a [[routes]] sub-app's path prefix ("/agents/x")
