"""Per-caller limits shared by every replica in Redis (shell.edge.callers.LimitStore): each caller's token bucket and
its open streams as leases that expire unless their replica renews them, atomic in Lua on Redis's clock."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import time
from typing import Any

from gateway.config import CallersSettings
from gateway.observability import get_logger
from gateway.shell.process.metrics import Metrics

__all__ = ["RedisLimits"]

log = get_logger("gateway.callers")

# KEYS[1] the bucket (hash t, at); ARGV rate, burst. Returns the seconds to wait (0: a token was taken).
_TAKE = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local held = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens, at = tonumber(held[1]), tonumber(held[2])
if tokens == nil or at == nil then tokens, at = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""
# KEYS[1] the caller's leases (sorted set, score: expiry in ms); ARGV most, lease ms, lease id. 1: opened.
_OPEN = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""
# KEYS[1] the caller's leases; ARGV lease ms, lease id: a lease still held is extended.
_RENEW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return 1
"""
BACK_OFF_SECONDS = 1.0   # after a failure, callers are admitted without asking Redis for this long
TIMEOUT_SECONDS = 0.5    # one Redis round trip at most, connecting included


class RedisLimits:
    """The limits of one agent's app (`route`) in Redis: keys `<prefix>callers:<route>:rate:<caller>` and
    `…:streams:<caller>` (the caller hashed), expiring on their own. Redis unreachable: fail open (the call is
    admitted, `callers_store_unavailable` logged once, a2a_gateway_callers_store_errors_total counted)."""

    def __init__(self, settings: CallersSettings, route: str, metrics: Metrics) -> None:
        import redis.asyncio as aioredis  # only this store needs the package
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self._redis: Any = aioredis.from_url(settings.redis_url, socket_timeout=TIMEOUT_SECONDS,
                                             socket_connect_timeout=TIMEOUT_SECONDS, retry=Retry(NoBackoff(), 0))
        self._errors = (aioredis.RedisError, OSError)
        self._take, self._open, self._renew = (self._redis.register_script(s) for s in (_TAKE, _OPEN, _RENEW))
        self.prefix = f"{settings.key_prefix}callers:{route}:"
        self.lease_ms = max(1000, round(settings.stream_lease_seconds * 1000))
        self.metrics = metrics
        self._leases: dict[str, str] = {}   # lease id -> its key: the streams this replica holds
        self._down_until = 0.0
        self._renewing: asyncio.Task[None] | None = None

    def _key(self, kind: str, caller: str) -> str:
        return f"{self.prefix}{kind}:{hashlib.sha256(caller.encode()).hexdigest()[:32]}"

    async def take(self, caller: str, rate: float, burst: int) -> float:
        wait = await self._ask("take", self._take, [self._key("rate", caller)], [repr(rate), burst])
        return float(wait) if wait is not None else 0.0

    async def open(self, caller: str, most: int) -> str | None:
        lease, key = os.urandom(12).hex(), self._key("streams", caller)
        opened = await self._ask("open", self._open, [key], [most, self.lease_ms, lease])
        if opened is None:   # fail open: a slot not counted anywhere
            return ""
        if not opened:
            return None
        self._leases[lease] = key
        return lease

    async def close(self, caller: str, lease: str) -> None:
        key = self._leases.pop(lease, None)
        if key is not None:   # a lease that fails to go expires on its own
            await self._ask("close", self._redis.zrem, [key, lease])

    def start(self) -> None:
        """Renew this replica's leases every third of their lifetime, until aclose."""
        self._renewing = asyncio.get_running_loop().create_task(self._renew_forever(), name="callers-lease-renew")

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            for lease, key in list(self._leases.items()):
                await self._ask("renew", self._renew, [key], [self.lease_ms, lease])

    async def aclose(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing
        await self._redis.aclose()

    async def _ask(self, op: str, command: Any, keys: list[Any], args: list[Any] | None = None) -> Any:
        """One Redis command or script; None when Redis is unreachable (or was, within BACK_OFF_SECONDS)."""
        if time.monotonic() < self._down_until:
            self.metrics.callers_store_error(op)
            return None
        try:
            result = await (command(*keys) if args is None else command(keys=keys, args=args))
        except self._errors as exc:
            if not self._down_until:
                log.warning("callers_store_unavailable", error=f"{type(exc).__name__}: {exc}",
                            detail="callers are admitted without their limits until Redis answers again")
            self._down_until = time.monotonic() + BACK_OFF_SECONDS
            self.metrics.callers_store_error(op)
            return None
        if self._down_until:
            log.info("callers_store_recovered")
            self._down_until = 0.0
        return result
