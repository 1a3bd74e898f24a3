"""The task index's stores: the records (core.compose.TaskRecord) of the tasks the gateway saw pass to a v0.3
agent, in a bounded in-process store or in Redis shared by replicas, and `remember()`, which records what
one translated exchange showed. Filtering, ordering and paging are core.compose's; this module only stores."""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from typing import Any, Protocol

from aiohttp import web

from gateway.config import TaskIndexSettings
from gateway.core import jsoncodec
from gateway.core.compose import TaskRecord, records_in
from gateway.core.errors import GatewayError, UpstreamUnavailable
from gateway.core.exchange import Exchange
from gateway.core.types import Dialect, Version
from gateway.observability import get_logger

__all__ = ["TASK_INDEX", "MemoryStore", "RedisStore", "TaskStore", "agent_key", "cleanup_ctx", "remember",
           "store_for"]

log = get_logger("gateway.task_index")


class TaskStore(Protocol):
    """Where the records of one gateway (all its agents) live."""

    async def put(self, agent: str, records: Iterable[TaskRecord]) -> None: ...
    async def scoped(self, agent: str, scope: str) -> list[TaskRecord]: ...
    async def forget(self, agent: str, task_id: str) -> None: ...
    async def close(self) -> None: ...


TASK_INDEX = web.AppKey("task_index", TaskStore)   # on the root app (routes' sub-apps read it through)


def agent_key(url: str) -> str:
    """A short stable name of an agent (its interface URL) for the store's keys."""
    return hashlib.sha256(url.encode()).hexdigest()[:16]


class MemoryStore:
    """The embedded default: at most `max_tasks` records per agent, the least recently seen dropped first,
    each kept `ttl` seconds after it was last seen. One process's view (one worker)."""

    def __init__(self, ttl: float, max_tasks: int) -> None:
        self.ttl, self.max_tasks = ttl, max_tasks
        self._agents: dict[str, OrderedDict[str, tuple[TaskRecord, float]]] = {}

    async def put(self, agent: str, records: Iterable[TaskRecord]) -> None:
        tasks = self._agents.setdefault(agent, OrderedDict())
        expires = time.monotonic() + self.ttl
        for record in records:
            old = tasks.pop(record.id, None)
            tasks[record.id] = (record.after(old[0] if old is not None else None), expires)
        while len(tasks) > self.max_tasks:
            tasks.popitem(last=False)

    async def scoped(self, agent: str, scope: str) -> list[TaskRecord]:
        tasks = self._agents.get(agent)
        if not tasks:
            return []
        now = time.monotonic()
        while tasks and next(iter(tasks.values()))[1] <= now:   # least recently seen first: expired first
            tasks.popitem(last=False)
        return [record for record, _ in tasks.values() if record.scope == scope]

    async def forget(self, agent: str, task_id: str) -> None:
        self._agents.get(agent, OrderedDict()).pop(task_id, None)

    async def close(self) -> None:
        self._agents.clear()


class RedisStore:
    """Records shared by replicas in Redis (the `redis` package's asyncio client): one key per task
    (`<prefix><agent>:task:<id>`, its JSON record) and one sorted set per caller scope
    (`<prefix><agent>:scope:<scope>`, task ids by timestamp), both expiring `ttl` after the last write;
    each scope keeps its `max_tasks` newest."""

    def __init__(self, url: str, prefix: str, ttl: float, max_tasks: int) -> None:
        import redis.asyncio as aioredis  # only this store needs the package

        self._redis: Any = aioredis.from_url(url)
        self._errors = (aioredis.RedisError, OSError)
        self.prefix, self.ttl, self.max_tasks = prefix, max(1, round(ttl)), max_tasks

    def _task(self, agent: str, task_id: str) -> str:
        return f"{self.prefix}{agent}:task:{task_id}"

    def _scope(self, agent: str, scope: str) -> str:
        return f"{self.prefix}{agent}:scope:{scope}"

    async def put(self, agent: str, records: Iterable[TaskRecord]) -> None:
        records = list(records)
        try:
            observed = [r.id for r in records if r.observed]   # their stored records decide their timestamps
            if observed:
                stored = await self._redis.mget([self._task(agent, i) for i in observed])
                kept = {i: _record(raw) for i, raw in zip(observed, stored, strict=True)}
                records = [r.after(kept.get(r.id)) for r in records]
            async with self._redis.pipeline(transaction=False) as pipe:
                for r in records:
                    scope = self._scope(agent, r.scope)
                    pipe.set(self._task(agent, r.id), jsoncodec.dumpb(r.to_json()), ex=self.ttl)
                    pipe.zadd(scope, {r.id: r.timestamp})
                    pipe.zremrangebyrank(scope, 0, -self.max_tasks - 1)
                    pipe.expire(scope, self.ttl)
                await pipe.execute()
        except self._errors as exc:
            raise UpstreamUnavailable(f"task index: redis: {exc}") from None

    async def scoped(self, agent: str, scope: str) -> list[TaskRecord]:
        key = self._scope(agent, scope)
        try:
            ids = [i.decode() for i in await self._redis.zrange(key, 0, -1)]
            values = await self._redis.mget([self._task(agent, i) for i in ids]) if ids else []
            records, gone = [], []
            for task_id, raw in zip(ids, values, strict=True):
                record = _record(raw)
                if record is None:
                    gone.append(task_id)
                elif record.scope == scope:
                    records.append(record)
            if gone:
                await self._redis.zrem(key, *gone)
            return records
        except self._errors as exc:
            raise UpstreamUnavailable(f"task index: redis: {exc}") from None

    async def forget(self, agent: str, task_id: str) -> None:
        try:
            await self._redis.delete(self._task(agent, task_id))
        except self._errors as exc:
            raise UpstreamUnavailable(f"task index: redis: {exc}") from None

    async def close(self) -> None:
        await self._redis.aclose()


def _record(raw: bytes | None) -> TaskRecord | None:
    """A stored record, or None for a key gone or written by something else."""
    try:
        return TaskRecord.from_json(jsoncodec.loads(raw)) if raw else None
    except GatewayError:
        return None


def store_for(settings: TaskIndexSettings) -> TaskStore:
    if settings.store == "redis":
        return RedisStore(settings.redis_url, settings.key_prefix, settings.ttl_seconds, settings.max_tasks)
    return MemoryStore(settings.ttl_seconds, settings.max_tasks)


async def cleanup_ctx(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[TASK_INDEX].close()


def tracked(exchange: Exchange) -> bool:
    """Whether the index records this exchange: a v1.0 caller of a v0.3 agent (a v1.0 agent lists its own)."""
    return exchange.src is Dialect.V10 and exchange.upstream.version is Version.V03


async def remember(store: TaskStore, scope: str, exchange: Exchange) -> None:
    """Record in `store` the tasks a translated exchange showed (its result, or its stream's last word per
    task), in the caller's `scope` (core.compose.caller_scope). A store that fails is logged, never the
    caller's failure: the call itself went through."""
    if not tracked(exchange):
        return
    seen = [*exchange.seen, *(exchange.relay.tracked.values() if exchange.relay is not None else ())]
    if not seen:
        return
    now = time.time()
    records = [r for value in seen for r in records_in(value, scope=scope, seen_at=now)]
    if not records:
        return
    try:
        await store.put(agent_key(exchange.upstream.url), records)
    except UpstreamUnavailable as err:
        log.warning("task_index_unavailable", error=err.message)
