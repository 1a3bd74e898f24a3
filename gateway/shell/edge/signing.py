"""Card signatures in the shell: the gateway's own key (loaded from PEM, published as a JWKS) signing the
cards it serves, and the upstream card's signatures checked against configured key files or a JWKS URL."""

# PyJWT's algorithm objects do the JWS arithmetic (DER ⇄ raw r||s for ECDSA, the RSA and EdDSA
# primitives) and read JWKs; cryptography loads the PEM files. The signing input itself is the core's
# (gateway.core.signing), so signing and checking read the card exactly the same way.

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import Algorithm, get_default_algorithms
from jwt.api_jwk import PyJWK, PyJWKSet
from jwt.exceptions import PyJWKError, PyJWKSetError

from gateway.config import CardSettings, ConfigError, Problem
from gateway.core import jsoncodec
from gateway.core.errors import UpstreamUnavailable
from gateway.core.signing import (
    CardSignature,
    SigningError,
    b64url,
    b64url_decode,
    payload,
    protected_header,
    read_signatures,
    signing_inputs,
    with_signatures,
)
from gateway.core.types import JsonObj
from gateway.shell.edge.jwks import RemoteJwks

__all__ = ["JWKS_PATH", "CardSigner", "CardVerifier", "Verdict", "vouch"]

JWKS_PATH = "/.well-known/jwks.json"
_ALGS: dict[str, Algorithm] = get_default_algorithms()
_SIGNED_KEPT = 64   # signed card variants kept (client version × public base URL)
_EC_ALGS = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What checking the upstream card's signatures found: `valid` (one verified, by `kid`), `unsigned`
    (none to check) or `invalid` (none verified; `detail` says why)."""

    result: Literal["valid", "invalid", "unsigned"]
    detail: str
    kid: str | None = None

    @property
    def ok(self) -> bool:
        return self.result == "valid"


def vouch(signer: CardSigner | None, verdict: Verdict | None, *, checked: bool, required: bool) -> CardSigner | None:
    """The signer that may sign the agent's card as the gateway serves it: `signer` when the upstream card's
    signatures are not checked at all (`checked`: verify keys configured) or one of them verified (`verdict`,
    None while the card was not fetched), else None: the gateway does not vouch for a card it found not to be
    the agent's. With `card.require_verified` (`required`) such a card is not served: UpstreamUnavailable."""
    if not checked or (verdict is not None and verdict.ok):
        return signer
    if required:
        why = "the agent card was not fetched yet" if verdict is None else verdict.detail
        raise UpstreamUnavailable(f"the agent's card is not served: its signature is not verified "
                                  f"(card.require_verified): {why}")
    return None


def _alg_of(key: Any) -> str:
    """The JWS algorithm a key's type implies."""
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey):
        if key.curve.name not in _EC_ALGS:
            raise ValueError(f"EC curve {key.curve.name} has no JWS algorithm (use P-256, P-384 or P-521)")
        return _EC_ALGS[key.curve.name]
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return "RS256"
    if isinstance(key, ed25519.Ed25519PrivateKey | ed25519.Ed25519PublicKey):
        return "EdDSA"
    raise ValueError(f"a {type(key).__name__} cannot sign cards (use an EC, RSA or Ed25519 key)")


def thumbprint(jwk: JsonObj) -> str:
    """The RFC 7638 thumbprint of a public JWK: SHA-256 of its required members, canonical."""
    required = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}
    members = {k: jwk[k] for k in required[jwk["kty"]]}
    return b64url(hashlib.sha256(jsoncodec.dumpb(dict(sorted(members.items())))).digest())


class CardSigner:
    """The gateway's signing key: signs the cards it serves and publishes its public half."""

    def __init__(self, private_key: Any, kid: str = "") -> None:
        self.alg = _alg_of(private_key)
        self._algorithm = _ALGS[self.alg]
        self._key = private_key
        jwk: JsonObj = self._algorithm.to_jwk(private_key.public_key(), as_dict=True)
        self.kid = kid or thumbprint(jwk)
        self.jwks: JsonObj = {"keys": [{**jwk, "kid": self.kid, "alg": self.alg, "use": "sig"}]}
        self._signed: dict[Hashable, tuple[object, JsonObj]] = {}

    @classmethod
    def from_settings(cls, card: CardSettings) -> CardSigner | None:
        """The signer `card.signing_key_file` names; None when it is empty. A bad file is a ConfigError."""
        if not card.signing_key_file:
            return None
        try:
            key = serialization.load_pem_private_key(Path(card.signing_key_file).read_bytes(), password=None)
            return cls(key, card.signing_kid)
        except (OSError, ValueError, TypeError) as exc:
            raise ConfigError([Problem("card.signing_key_file", f"cannot use {card.signing_key_file}: {exc}")]) \
                from None

    def sign(self, card: JsonObj, jku: str | None = None, *, read_as: JsonObj | None = None) -> JsonObj:
        """`card` with the gateway's signatures as its only ones (`jku`: where the JWKS is served). A v0.3
        card (`read_as`: the v1.0 card a v1.0 reader takes out of it) gets more, one over each reading its
        readers verify (gateway.core.signing.signing_inputs): a verifier needs one to hold."""
        protected = protected_header(self.alg, self.kid, jku)
        return with_signatures(card, [{"protected": protected, "signature": self._signature(protected, signed)}
                                      for signed in signing_inputs(card, read_as)])

    def signing_for(self, base: str) -> Callable[[JsonObj, JsonObj | None], JsonObj]:
        """`sign` for the cards served under the public base URL `base` (its JWKS beside them), as the
        exchange signs an extended card: (card, its v1.0 reading or None) -> the signed card."""
        jku = base.rstrip("/") + JWKS_PATH
        return lambda card, read_as: self.sign(card, jku, read_as=read_as)

    def sign_once(self, variant: Hashable, source: object, card: JsonObj, jku: str | None = None, *,
                  read_as: JsonObj | None = None) -> JsonObj:
        """`sign`, done once per variant (client version, base URL) of the same `source` (the upstream card it
        was made from): an ECDSA signature differs on every signing, and the card's ETag must not."""
        hit = self._signed.get(variant)
        if hit is not None and hit[0] is source:
            return hit[1]
        signed = self.sign(card, jku, read_as=read_as)
        if len(self._signed) >= _SIGNED_KEPT:
            self._signed.pop(next(iter(self._signed)))
        self._signed[variant] = (source, signed)
        return signed

    def _signature(self, protected: str, signed: bytes) -> str:
        return b64url(self._algorithm.sign(f"{protected}.{b64url(signed)}".encode("ascii"), self._key))


@dataclass(frozen=True, slots=True)
class _Key:
    kid: str | None
    alg: str | None   # None: any algorithm its type allows
    key: Any


def _keys_of_jwks(data: Any, where: str) -> list[_Key]:
    try:
        found = PyJWKSet.from_dict(data).keys if isinstance(data, dict) and "keys" in data else \
            [PyJWK.from_dict(data)]
    except (PyJWKError, PyJWKSetError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{where}: not a usable JWK or JWKS ({exc})") from None
    return [_of_jwk(k) for k in found]


def _of_jwk(jwk: PyJWK) -> _Key:
    return _Key(jwk.key_id, jwk.algorithm_name if jwk.Algorithm is not None else None, jwk.key)


def load_key_file(path: str) -> list[_Key]:
    """The public keys of one file: a PEM public key or certificate, or a JWK/JWKS JSON file."""
    data = Path(path).read_bytes()
    if data.lstrip().startswith(b"{"):
        return _keys_of_jwks(jsoncodec.loads(data), path)
    if b"BEGIN CERTIFICATE" in data:
        return [_Key(None, None, x509.load_pem_x509_certificate(data).public_key())]
    return [_Key(None, None, serialization.load_pem_public_key(data))]


class CardVerifier:
    """Checks an upstream card's signatures: against the configured key files, then the JWKS URL's keys."""

    def __init__(self, keys: Sequence[_Key], jwks_url: str = "") -> None:
        self._static = list(keys)
        self.remote = RemoteJwks(jwks_url, "card.verify_jwks_url") if jwks_url else None

    @classmethod
    def from_settings(cls, card: CardSettings) -> CardVerifier | None:
        """The verifier the [card] keys describe; None when they name no key. A bad file is a ConfigError."""
        if not card.verify_key_files and not card.verify_jwks_url:
            return None
        keys, problems = [], []
        for path in card.verify_key_files:
            try:
                keys.extend(load_key_file(path))
            except (OSError, ValueError, TypeError) as exc:
                problems.append(Problem("card.verify_key_files", f"cannot use {path}: {exc}"))
        if problems:
            raise ConfigError(problems)
        return cls(keys, card.verify_jwks_url)

    async def close(self) -> None:
        if self.remote is not None:
            await self.remote.close()

    async def check(self, card: JsonObj) -> Verdict:
        """The verdict on `card` as the agent served it (its own dialect, signatures included)."""
        signatures = read_signatures(card)
        if not signatures:
            return Verdict("unsigned", "the upstream card carries no signature")
        try:
            signed = b64url(payload(card))
        except SigningError as exc:
            return Verdict("invalid", str(exc))
        reasons: list[str] = []
        for sig in signatures:
            if isinstance(sig, str):
                reasons.append(sig)
                continue
            reason = await self._check_one(sig, signed)
            if reason is None:
                return Verdict("valid", f"signature by {sig.kid or 'a configured key'} ({sig.alg}) verified",
                               sig.kid)
            reasons.append(reason)
        return Verdict("invalid", "; ".join(reasons))

    async def _check_one(self, sig: CardSignature, signed: str) -> str | None:
        """None when `sig` verifies against a known key, else why not."""
        message = f"{sig.protected}.{signed}".encode("ascii")
        raw = b64url_decode(sig.signature)
        keys = await self._keys_for(sig.kid)
        if not keys:
            return f"no key with kid {sig.kid!r}"
        algorithm = _ALGS[sig.alg]
        for key in keys:
            if key.alg not in (None, sig.alg):
                continue
            try:
                if algorithm.verify(message, algorithm.prepare_key(key.key), raw):
                    return None
            except Exception:  # a key of another type: not this one
                continue
        return f"the signature by kid {sig.kid!r} ({sig.alg}) does not verify"

    async def _keys_for(self, kid: str | None) -> list[_Key]:
        found = [k for k in self._static if kid is None or k.kid in (None, kid)]
        if self.remote is not None:
            found += [_of_jwk(k) for k in await self.remote.keys(kid)]
        return found


# the app key of the one instance an app holds
CARD_SIGNER = web.AppKey("card_signer", CardSigner)  # [card] signing_key_file set: signs the served cards
