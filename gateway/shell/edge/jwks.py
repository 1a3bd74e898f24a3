"""A JWKS at a URL (the upstream card's signing keys, the keys of callers' JWTs): fetched with the gateway's
own aiohttp client, bounded, kept five minutes and fetched again, at most every 30 s, for an unknown kid."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import jwt
from jwt.api_jwk import PyJWK, PyJWKSet

from gateway.core import jsoncodec
from gateway.observability import get_logger

__all__ = ["RemoteJwks"]

log = get_logger("gateway.jwks")

TTL_SECONDS = 300.0      # a fetched JWKS is used this long…
RETRY_SECONDS = 30.0     # …and fetched again for an unknown kid at most this often
MAX_BYTES = 1024 * 1024


class RemoteJwks:
    """The keys of the JWKS at `url`; a failed fetch keeps the keys it had (and is logged as `what`)."""

    def __init__(self, url: str, what: str) -> None:
        self.url, self.what = url, what
        self._keys: list[PyJWK] = []
        self._at = -1e9
        self._lock = asyncio.Lock()
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def keys(self, kid: str | None) -> list[PyJWK]:
        """The keys `kid` may name (all of them for no kid; keys without a kid match any)."""
        found = self._matching(kid)
        age = time.monotonic() - self._at
        if age > TTL_SECONDS or (not found and age > RETRY_SECONDS):
            await self._fetch()
            found = self._matching(kid)
        return found

    def _matching(self, kid: str | None) -> list[PyJWK]:
        return [k for k in self._keys if kid is None or k.key_id in (None, kid)]

    async def _fetch(self) -> None:
        async with self._lock:
            if time.monotonic() - self._at < 1.0:   # another request has just fetched it
                return
            self._at = time.monotonic()
            if self._session is None:
                self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
            try:
                async with self._session.get(self.url, allow_redirects=False) as resp:
                    body = await resp.content.read(MAX_BYTES + 1)
                    if resp.status != 200 or len(body) > MAX_BYTES:
                        raise ValueError(f"HTTP {resp.status}, {len(body)} bytes")
                self._keys = list(PyJWKSet.from_dict(jsoncodec.loads(body)).keys)
            except (aiohttp.ClientError, TimeoutError, ValueError, jwt.PyJWTError) as exc:
                log.warning("jwks_fetch_failed", of=self.what, url=self.url, error=str(exc))
