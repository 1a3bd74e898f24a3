"""The migration view of one process: its counts (gateway.core.migration.Stats) fed by every A2A exchange,
what it knows of its agents (claimed and observed versions), and, in a worker, the snapshot file its parent
sums with its siblings'. Also the deprecation policy in force for a route's settings."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web

from gateway.config import MigrationSettings
from gateway.core.errors import UnsupportedVersion
from gateway.core.migration import Deprecation, Stats, caller_id, merge
from gateway.core.notes import Note
from gateway.core.types import Version
from gateway.observability import get_logger
from gateway.shell.agent.upstream import Upstream

__all__ = ["FILE_PREFIX", "Migration", "agent_status", "check_cutoff", "deprecation", "flush_forever", "read_snapshots"]

log = get_logger("gateway.migration")

FILE_PREFIX = "migration-"   # + <pid>.json in the workers' shared directory (the metrics' one)
FLUSH_SECONDS = 1.0          # a worker rewrites its snapshot at most this often (and when it stops)
AGENTS_SECONDS = 10.0        # …and at least this often

_POLICIES: dict[MigrationSettings, Deprecation] = {}


def deprecation(settings: MigrationSettings) -> Deprecation:
    """The deprecation policy of `settings` (built once per settings object's values)."""
    policy = _POLICIES.get(settings)
    if policy is None:
        if len(_POLICIES) > 64:   # reloads: forget old settings
            _POLICIES.clear()
        policy = _POLICIES[settings] = Deprecation.of(settings.deprecation, settings.sunset, settings.link,
                                                      settings.cutoff)
    return policy


def check_cutoff(settings: MigrationSettings, version: Version) -> None:
    """Past `migration.cutoff`, a v0.3 caller gets the version error (in its own shape) instead of a
    translation: UnsupportedVersion naming what to send instead."""
    if version is Version.V03 and deprecation(settings).cut_off(time.time()):
        raise UnsupportedVersion("A2A protocol version 0.3 is no longer served here (migration.cutoff); "
                                 "supported versions: 1.0 (send the header A2A-Version: 1.0)")


def agent_status(upstream: Upstream) -> dict[str, Any]:
    """What the process knows of one agent: its URL, the configured version and binding, and each interface's
    claimed and observed version (with `upstream.version` pinned: the pinned one, never probed)."""
    s = upstream.settings
    interfaces: list[dict[str, object]]
    if s.version != "auto":
        interfaces = [{"url": s.url, "binding": s.binding, "claimed": None, "observed": s.version,
                       "status": "pinned", "probes": []}]
    else:
        interfaces = [v.as_json() for v in upstream.verified]
    return {"url": s.url, "version": s.version, "binding": s.binding, "card_known": upstream.card_known,
            "interfaces": interfaces}


class Migration:
    """The counts of this process and where a worker writes them."""

    def __init__(self, settings: MigrationSettings, agents: Callable[[], Mapping[str, Upstream]]) -> None:
        self.header = settings.caller_header
        self.policy = {"caller_header": settings.caller_header, **deprecation(settings).as_json()}
        self.stats = Stats(settings.max_callers)
        self._agents = agents
        self.directory: Path | None = None   # set in a worker: the parent reads the snapshot from there
        self.dirty = False   # counts not yet in the worker's file

    def record(self, *, route: str, headers: Mapping[str, str], version: str, binding: str,
               notes: list[Note]) -> None:
        now = time.time()
        self.stats.record(route=route, caller=caller_id(self.header, headers.get(self.header)), version=version,
                          binding=binding, now=now, notes=notes)
        self.dirty = True

    def agents(self) -> dict[str, Any]:
        return {name: agent_status(upstream) for name, upstream in self._agents().items()}

    def snapshot(self) -> dict[str, Any]:
        return self.stats.snapshot(self.agents(), self.policy)

    def flush(self) -> None:
        """Write this worker's snapshot (atomically: the parent may read it at any moment)."""
        if self.directory is None:
            return
        self.dirty = False
        path = self.directory / f"{FILE_PREFIX}{os.getpid()}.json"
        tmp = path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self.snapshot()), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            log.warning("migration_snapshot_failed", path=str(path), error=str(exc))


async def flush_forever(migration: Migration) -> None:
    """In a worker: its file rewritten every FLUSH_SECONDS when it counted something, and every
    AGENTS_SECONDS anyway (what it knows of its agents changes with each card)."""
    idle = 0.0
    while True:
        await asyncio.sleep(FLUSH_SECONDS)
        idle += FLUSH_SECONDS
        if migration.dirty or idle >= AGENTS_SECONDS:
            migration.flush()
            idle = 0.0


def read_snapshots(directory: Path) -> dict[str, Any]:
    """The sum of the workers' snapshot files in `directory` (the parent's /migration)."""
    docs = []
    for path in sorted(directory.glob(f"{FILE_PREFIX}*.json")):
        try:
            docs.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue   # a worker's file being replaced, or gone
    return merge(docs)


# the app key of the one instance an app holds
MIGRATION = web.AppKey("migration", Migration)  # the process's migration view (root and routes share it)
