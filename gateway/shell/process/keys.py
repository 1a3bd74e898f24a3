"""Typed application state: the `web.AppKey` constants of the gateway app, and nothing else."""

from __future__ import annotations

from aiohttp import web

from gateway.core.push import PushSealer
from gateway.core.types import Binding
from gateway.shell.agent.upstream import Upstream
from gateway.shell.carrier.migration import Migration
from gateway.shell.edge.guard import Guard
from gateway.shell.edge.signing import CardSigner
from gateway.shell.process.lifecycle import Lifecycle
from gateway.shell.process.metrics import Metrics
from gateway.shell.push.sender import PushSender

UPSTREAM = web.AppKey("upstream", Upstream)
SERVED_BINDINGS = web.AppKey("served_bindings", tuple[Binding, ...])
SEALER = web.AppKey("push_sealer", PushSealer)   # when the push relay is on
PUSH_SENDER = web.AppKey("push_sender", PushSender)
METRICS = web.AppKey("metrics", Metrics)
MIGRATION = web.AppKey("migration", Migration)  # the process's migration view (root and routes share it)
LIFECYCLE = web.AppKey("lifecycle", Lifecycle)  # its `settings` are the ones in force (SIGHUP)
ROUTE_HOST = web.AppKey("route_host", str)  # a Host-matched [[routes]] sub-app's host
ROUTE_NAME = web.AppKey("route_name", str)  # a [[routes]] sub-app's name (metrics, logs)
ROUTE_PREFIX = web.AppKey("route_prefix", str)  # a [[routes]] sub-app's path prefix ("/agents/x")
CARD_SIGNER = web.AppKey("card_signer", CardSigner)  # [card] signing_key_file set: signs the served cards
GUARD = web.AppKey("guard", Guard)  # [auth]/[callers] on an agent's app: requests admitted before their door
