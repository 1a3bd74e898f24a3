"""Owns the sealing half of the push relay: client routes sealed (AEAD) into webhook URLs, opened again
and read back out of upstream configs. Keys and nonces are injected; it must not plan deliveries."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

import gateway.core.jsoncodec as jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.types import JsonObj, Version

KEY_BYTES = 32
NONCE_BYTES = 12  # ChaCha20-Poly1305
MAX_URL_CHARS = 2048  # the sealed webhook URL registered upstream; agents and proxies cap URLs near 2 KiB
DEFAULT_WEBHOOK_PATH = "/a2a-push"
_FORMAT = 1  # first element of the sealed JSON array; bump it (and the AAD) to change the layout
_AAD = b"a2a-gateway push route v1"
_TOKEN_BYTES = 24  # 32 base64url characters
_MAX_SEALED_CHARS = MAX_URL_CHARS  # nothing longer was ever minted: refuse before decoding
_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class PushUrlRejected(GatewayError):
    """A client's push config cannot be relayed (URL refused, or too large to seal): invalid params."""

    jsonrpc_code = -32602
    http_status = 400
    reason = "INVALID_PARAMS"
    default_message = "push notification URL not allowed"


class BadSeal(GatewayError):
    """A webhook call whose seal no configured key made: answered 404 with no detail."""

    jsonrpc_code = -32602
    http_status = 404
    reason = "NOT_FOUND"
    default_message = "Not Found"


class TamperedSeal(BadSeal):
    """A seal naming one of our keys that fails authentication: answered 403 with no detail."""

    http_status = 403
    default_message = "Forbidden"


@dataclass(frozen=True, slots=True)
class ClientRoute:
    """What travels sealed inside the webhook URL: where and how to reach the client, in which version."""

    url: str
    token: str | None
    auth_scheme: str | None
    credentials: str | None
    version: Version  # the client's protocol version: decides the body shape it gets
    task_id: str  # "" when registered inline before the task existed
    config_id: str | None


@dataclass(frozen=True, slots=True)
class _Key:
    kid: int
    aead: ChaCha20Poly1305
    mac: bytes


def _derive(master: bytes, label: bytes) -> bytes:
    return hmac.new(master, label, hashlib.sha256).digest()


def _key(master: bytes) -> _Key:
    if type(master) is not bytes or len(master) != KEY_BYTES:
        raise ValueError(f"push keys must be {KEY_BYTES} bytes")
    kid = hashlib.sha256(b"a2a-gateway push key id\0" + master).digest()[0]
    return _Key(kid, ChaCha20Poly1305(_derive(master, b"a2a-gateway push seal v1")),
                _derive(master, b"a2a-gateway push token v1"))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text or len(text) > _MAX_SEALED_CHARS or not set(text) <= _B64_ALPHABET:
        raise BadSeal()
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BadSeal() from None


def _header_safe(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if type(value) is not str:
        raise PushUrlRejected(f"push notification config: {what} must be a string")
    if any(c in value for c in "\r\n\0"):
        raise PushUrlRejected(f"push notification config: {what} may not contain line breaks or NUL")
    return value


class PushSealer:
    """Seals client routes into webhook URLs and opens them again. keys[0] seals; every key opens, so
    keys rotate by prepending the new one and dropping the old one once its registrations expired."""

    def __init__(self, keys: Sequence[bytes], *, webhook_base: str, nonce: Callable[[], bytes],
                 webhook_path: str = DEFAULT_WEBHOOK_PATH) -> None:
        if not keys:
            raise ValueError("PushSealer needs at least one key")
        self._keys = tuple(_key(k) for k in keys)
        self._nonce = nonce
        self.webhook_base = webhook_base.rstrip("/")
        self.webhook_path = "/" + webhook_path.strip("/")

    # ---- registration ---------------------------------------------------------------------------

    def seal(self, client_cfg: JsonObj, *, client: Version, task_id: str, base: str = "") -> JsonObj:
        """The client's v1.0-hub config → the config to register upstream (same id, taskId and tenant;
        our webhook URL; an upstream token derived from the seal; no authentication). `base` replaces
        the configured webhook base (e.g. the request's public base when none is configured)."""
        url = _header_safe(client_cfg.get("url"), "url")
        if url is None:
            raise PushUrlRejected("push notification config: url is required")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise PushUrlRejected("push notification URL not allowed: it must be an absolute http(s) URL")
        auth = client_cfg.get("authentication")
        if auth is not None and type(auth) is not dict:
            raise PushUrlRejected("push notification config: authentication must be an object")
        auth = auth or {}
        config_id = client_cfg.get("id")
        route = ClientRoute(
            url=url,
            token=_header_safe(client_cfg.get("token"), "token"),
            auth_scheme=_header_safe(auth.get("scheme"), "authentication.scheme") if auth else None,
            credentials=_header_safe(auth.get("credentials"), "authentication.credentials"),
            version=client,
            task_id=task_id,
            config_id=config_id if type(config_id) is str else None,
        )
        sealed = self._seal(route)
        webhook = f"{(base.rstrip('/') or self.webhook_base)}{self.webhook_path}/{sealed}"
        if not webhook.startswith(("http://", "https://")):
            raise GatewayError("push relay has no public URL: set push.webhook_base_url or server.public_url")
        if len(webhook) > MAX_URL_CHARS:
            raise PushUrlRejected(
                f"push notification config too large to relay: the sealed webhook URL would be "
                f"{len(webhook)} characters (limit {MAX_URL_CHARS}); shorten url, token or credentials")
        out: JsonObj = {k: v for k, v in client_cfg.items() if k not in ("url", "token", "authentication")}
        out["url"] = webhook
        out["token"] = self._token(self._keys[0], sealed)
        return out

    def _seal(self, route: ClientRoute) -> str:
        nonce = self._nonce()
        if len(nonce) != NONCE_BYTES:
            raise ValueError(f"push nonces must be {NONCE_BYTES} bytes")
        plain = jsoncodec.dumpb([_FORMAT, route.version.value, route.url, route.token, route.auth_scheme,
                                 route.credentials, route.task_id, route.config_id])
        key = self._keys[0]
        return _b64(bytes((key.kid,)) + nonce + key.aead.encrypt(nonce, plain, _AAD))

    # ---- webhook calls --------------------------------------------------------------------------

    def open(self, sealed: str) -> ClientRoute:
        """The route inside a seal; BadSeal (foreign or garbled) or TamperedSeal (ours, but altered)."""
        return self._open(sealed)[0]

    def upstream_token(self, sealed: str) -> str:
        """The token the upstream was given for this seal (derived, so no state is needed to check it)."""
        return self._token(self._open(sealed)[1], sealed)

    def _open(self, sealed: str) -> tuple[ClientRoute, _Key]:
        raw = _unb64(sealed)
        if len(raw) < 1 + NONCE_BYTES + 16:
            raise BadSeal()
        kid, nonce, box = raw[0], raw[1:1 + NONCE_BYTES], raw[1 + NONCE_BYTES:]
        candidates = [k for k in self._keys if k.kid == kid]
        if not candidates:
            raise BadSeal()
        for key in candidates:  # key ids are one byte: two keys may share one
            try:
                plain = key.aead.decrypt(nonce, box, _AAD)
            except InvalidTag:
                continue
            return _route(plain), key
        raise TamperedSeal()

    @staticmethod
    def _token(key: _Key, sealed: str) -> str:
        return _b64(hmac.new(key.mac, sealed.encode("ascii"), hashlib.sha256).digest()[:_TOKEN_BYTES])

    # ---- reading configs back -------------------------------------------------------------------

    def sealed_of(self, url: Any) -> str | None:
        """The seal in a URL that points at a webhook of this relay (any host: replicas differ), else None."""
        if type(url) is not str:
            return None
        try:
            path = urlsplit(url).path
        except ValueError:
            return None
        prefix, _, sealed = path.rpartition("/")
        if prefix.endswith(self.webhook_path) and sealed and set(sealed) <= _B64_ALPHABET:
            return sealed
        return None

    def unseal(self, upstream_cfg: JsonObj) -> JsonObj:
        """A config the upstream returned → the client's own url/token/authentication restored. Configs
        not pointing at our webhook come back unchanged; ones we can no longer open lose their token."""
        sealed = self.sealed_of(upstream_cfg.get("url"))
        if sealed is None:
            return upstream_cfg
        try:
            route = self.open(sealed)
        except BadSeal:
            return {k: v for k, v in upstream_cfg.items() if k != "token"}
        out: JsonObj = {}
        for key, value in upstream_cfg.items():
            if key == "url":
                out["url"] = route.url
                if route.token is not None:
                    out["token"] = route.token
                if route.auth_scheme is not None:
                    auth: JsonObj = {"scheme": route.auth_scheme}
                    if route.credentials is not None:
                        auth["credentials"] = route.credentials
                    out["authentication"] = auth
            elif key not in ("token", "authentication"):
                out[key] = value
        return out


def _route(plain: bytes) -> ClientRoute:
    try:
        fmt, version, url, token, scheme, credentials, task_id, config_id = jsoncodec.loads(plain)
        if fmt != _FORMAT:
            raise ValueError(fmt)
        return ClientRoute(url, token, scheme, credentials, Version(version), task_id, config_id)
    except (GatewayError, ValueError, TypeError):  # authentic but unreadable: a newer format
        raise BadSeal() from None
