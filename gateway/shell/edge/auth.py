"""Caller authentication at the edge: JWT bearer tokens checked against a JWKS (fetched with aiohttp, cached),
API keys from the configuration or a file; the subject each admits, or the 401/403 refusal with its challenge."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

import jwt
from jwt.api_jwk import PyJWK
from jwt.types import Options
from multidict import MultiMapping

from gateway.config import AuthSettings, ConfigError, Problem
from gateway.core.errors import PermissionDenied, Unauthenticated
from gateway.shell.edge.jwks import RemoteJwks

__all__ = ["Authenticator", "Identity"]


_REALM = 'realm="a2a-gateway"'


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a request comes from: `subject` (a JWT's `sub`, an API key's name) and how it was shown."""

    subject: str
    method: str   # "jwt" or "api_key"


def _api_keys(settings: AuthSettings) -> dict[str, str]:
    """key -> subject, from auth.api_keys and auth.api_keys_file (`name:key` or a bare key)."""
    lines = list(settings.api_keys)
    if settings.api_keys_file:
        try:
            text = Path(settings.api_keys_file).read_text()
        except OSError as exc:
            raise ConfigError([Problem("auth.api_keys_file", f"cannot read {settings.api_keys_file}: {exc}")]) \
                from None
        lines += [line.split("#", 1)[0].strip() for line in text.splitlines()]
    keys: dict[str, str] = {}
    for i, line in enumerate(filter(None, lines)):
        name, sep, key = line.partition(":")
        keys[key if sep else name] = name if sep else f"api-key-{i + 1}"
    return keys


class Authenticator:
    """The [auth] settings in force for one agent's app: who a request is, or why it is refused."""

    def __init__(self, settings: AuthSettings) -> None:
        self.settings = settings
        self._keys = _api_keys(settings)
        self.remote = RemoteJwks(settings.jwks_url, "auth.jwks_url") if settings.jwks_url else None
        schemes = (["Bearer " + _REALM] if settings.jwks_url else []) + \
            ([f'ApiKey {_REALM}, header="{settings.api_key_header}"'] if self._keys else [])
        self.challenge = ", ".join(schemes)
        # the (lower-case) names whose values must not reach the agent: none when they are forwarded
        self.credentials: frozenset[str] = frozenset() if settings.forward_credentials else \
            frozenset({"authorization", settings.api_key_header.lower()})

    async def close(self) -> None:
        if self.remote is not None:
            await self.remote.close()

    async def identify(self, headers: MultiMapping[str]) -> Identity:
        """The caller's identity; Unauthenticated (401) or PermissionDenied (403) with the challenge."""
        key = headers.get(self.settings.api_key_header)
        if key is not None and self._keys:
            for known, subject in self._keys.items():   # each compared in constant time
                if hmac.compare_digest(known.encode(), key.encode()):
                    return Identity(subject, "api_key")
            raise self._refuse(Unauthenticated, "the API key is not known", "invalid_token")
        scheme, _, token = (headers.get("Authorization") or "").partition(" ")
        if scheme.lower() == "bearer" and token.strip() and self.remote is not None:
            return Identity(await self._check_jwt(token.strip()), "jwt")
        raise self._refuse(Unauthenticated, "this gateway needs credentials: " + self._wanted())

    def _wanted(self) -> str:
        ways = (["a bearer token"] if self.settings.jwks_url else []) + \
            ([f"an API key in {self.settings.api_key_header}"] if self._keys else [])
        return " or ".join(ways)

    def _refuse(self, error: type[Unauthenticated | PermissionDenied], message: str,
                code: str = "") -> Unauthenticated | PermissionDenied:
        challenge = self.challenge
        if code:   # RFC 6750 §3: the bearer challenge says what was wrong
            challenge = challenge.replace("Bearer " + _REALM, f'Bearer {_REALM}, error="{code}"', 1)
        return error(message, headers={"WWW-Authenticate": challenge})

    async def _check_jwt(self, token: str) -> str:
        settings = self.settings
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise self._refuse(Unauthenticated, "the bearer token is not a JWT", "invalid_token") from None
        kid = header.get("kid")
        key = await self._key(kid if isinstance(kid, str) else None)
        if key is None:
            raise self._refuse(Unauthenticated, f"no key for the token's kid {kid!r}", "invalid_token")
        options: Options = {"require": ["exp"], "verify_aud": bool(settings.audience)}
        try:
            claims = jwt.decode(token, key, algorithms=list(settings.algorithms), options=options,
                                audience=settings.audience or None, issuer=settings.issuer or None,
                                leeway=settings.leeway_seconds)
        except (jwt.InvalidAudienceError, jwt.InvalidIssuerError) as exc:
            raise self._refuse(PermissionDenied, f"the token is not for this gateway: {exc}",
                               "insufficient_scope") from None
        except jwt.PyJWTError as exc:
            raise self._refuse(Unauthenticated, f"the bearer token does not hold: {exc}", "invalid_token") from None
        if not settings.audience and "aud" in claims:
            raise self._refuse(PermissionDenied, "the token names an audience and auth.audience is not set",
                               "insufficient_scope")
        return str(claims.get("sub") or claims.get("client_id") or "jwt")

    async def _key(self, kid: str | None) -> PyJWK | None:
        keys = await self.remote.keys(kid) if self.remote is not None else []
        return keys[0] if len(keys) == 1 or (keys and kid is not None) else None
