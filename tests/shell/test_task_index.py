"""shell.carrier.task_index: the embedded store (bounded, per agent) and the Redis store against a real redis-server
(shared by two stores as by two replicas, keys that expire, each scope bounded), and the config choosing one."""

from __future__ import annotations

from dataclasses import replace

import pytest
import redis.asyncio as aioredis

from gateway.config import load
from gateway.core.compose import TaskRecord
from gateway.shell.carrier.task_index import MemoryStore, RedisStore, TaskStore, agent_key, store_for
from tests.redis_server import needs_redis


def rec(task_id: str, scope: str = "s", ts: float = 1.0, state: str = "TASK_STATE_WORKING") -> TaskRecord:
    return TaskRecord(task_id, "c", state, ts, scope)


async def _round_trip(store: TaskStore, agent: str) -> None:
    await store.put(agent, [rec("t1"), rec("t2", scope="other")])
    await store.put(agent, [rec("t1", ts=5.0, state="TASK_STATE_COMPLETED")])   # seen again: updated
    assert await store.scoped(agent, "s") == [rec("t1", ts=5.0, state="TASK_STATE_COMPLETED")]
    assert await store.scoped(agent, "other") == [rec("t2", scope="other")]
    assert await store.scoped("another-agent", "s") == []
    await store.forget(agent, "t1")
    assert await store.scoped(agent, "s") == []
    seen = TaskRecord("t3", "c", "TASK_STATE_WORKING", 7.0, "s", observed=True)   # no timestamp from the agent
    await store.put(agent, [seen])
    await store.put(agent, [replace(seen, timestamp=9.0)])   # the same state seen again: when it was first seen
    assert await store.scoped(agent, "s") == [seen]
    await store.put(agent, [replace(seen, timestamp=11.0, state="TASK_STATE_COMPLETED")])   # a new state: now
    assert [(r.state, r.timestamp) for r in await store.scoped(agent, "s")] == [("TASK_STATE_COMPLETED", 11.0)]
    await store.forget(agent, "t3")


async def test_memory_store() -> None:
    store = MemoryStore(ttl=60, max_tasks=3)
    await _round_trip(store, "a")
    await store.put("a", [rec(f"t{i}") for i in range(5)])
    assert {r.id for r in await store.scoped("a", "s")} == {"t2", "t3", "t4"}   # the least recently seen went


@needs_redis
async def test_redis_store(redis_url: str) -> None:
    store = RedisStore(redis_url, "test1:", ttl=60, max_tasks=3)
    try:
        await _round_trip(store, "a")
        await store.put("a", [rec(f"t{i}", ts=float(i)) for i in range(5)])
        assert {r.id for r in await store.scoped("a", "s")} == {"t2", "t3", "t4"}   # the scope keeps its newest
        raw = aioredis.from_url(redis_url)   # the key layout, as the store's docstring gives it
        assert 0 < await raw.ttl("test1:a:task:t4") <= 60
        assert 0 < await raw.ttl("test1:a:scope:s") <= 60
        await raw.aclose()
    finally:
        await store.close()


@needs_redis
async def test_two_redis_stores_share_records(redis_url: str) -> None:
    one, two = (RedisStore(redis_url, "test2:", ttl=60, max_tasks=10) for _ in range(2))
    try:
        await one.put("a", [rec("t1")])
        assert await two.scoped("a", "s") == [rec("t1")]
        raw = aioredis.from_url(redis_url)
        await raw.set("test2:a:task:t1", b"not a record")   # written by something else
        await raw.aclose()
        assert await one.scoped("a", "s") == []
    finally:
        await one.close()
        await two.close()


@needs_redis
async def test_unreachable_redis_is_upstream_unavailable() -> None:
    from gateway.core.errors import UpstreamUnavailable

    store = RedisStore("redis://127.0.0.1:1/0", "x:", ttl=60, max_tasks=10)
    try:
        with pytest.raises(UpstreamUnavailable):
            await store.scoped("a", "s")
    finally:
        await store.close()


def test_store_for_follows_the_config() -> None:
    settings = load(None, {}, {"upstream.url": "http://agent"})
    assert isinstance(store_for(settings.task_index), MemoryStore)
    settings = load(None, {}, {"upstream.url": "http://agent", "task_index.store": "redis"})
    assert isinstance(store_for(settings.task_index), RedisStore)
    assert agent_key("http://a") != agent_key("http://b") and len(agent_key("http://a")) == 16
