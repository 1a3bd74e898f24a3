"""Typed application state: the `web.AppKey` constants of the gateway app, and nothing else."""

from __future__ import annotations

from aiohttp import web

from gateway.config import Settings
from gateway.shell.upstream import Upstream

SETTINGS = web.AppKey("settings", Settings)
UPSTREAM = web.AppKey("upstream", Upstream)
