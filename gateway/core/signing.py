"""Agent-card signatures as data: the signing input of a card (RFC 8785 canonical form without `signatures`,
empty values left out) and the JWS parts of an AgentCardSignature. Pure: the keys and the crypto are the shell's."""

# An AgentCardSignature is a JWS in the JSON serialization with a detached payload: `protected` is the
# base64url protected header ({"alg", "kid", optional "jku", "typ"}), `signature` the base64url signature
# over ASCII(protected) "." base64url(payload), `header` optional unprotected members. The payload is the
# card's canonical JSON (RFC 8785, JCS) with `signatures` removed. Empty strings, lists and objects are left
# out before canonicalizing, as a2a-sdk 1.x does: a card that went through its protobuf types has lost them,
# so only the form without them is the same on both sides.

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

import rfc8785

import gateway.core.jsoncodec as jsoncodec
from gateway.core.types import JsonObj

__all__ = ["ALGORITHMS", "SIGNATURES", "CardSignature", "SigningError", "b64url", "b64url_decode", "compact",
           "payload", "protected_header", "read_signatures", "with_signatures"]

SIGNATURES = "signatures"
# the JWS algorithms a card may be signed with: asymmetric only (a shared secret cannot be published)
ALGORITHMS = ("ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA")
_MAX_DEPTH = 128   # deeper nesting (extension params are free-form) is refused, not recursed into


class SigningError(ValueError):
    """A card or signature that cannot be read as the signing rules need it."""


@dataclass(frozen=True, slots=True)
class CardSignature:
    """One AgentCardSignature as read: its two base64url parts and the header members that choose a key."""

    protected: str
    signature: str
    alg: str
    kid: str | None
    jku: str | None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    if not all(c.isalnum() or c in "-_" for c in text):
        raise SigningError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise SigningError("not base64url") from None


def _without_empty(value: Any, depth: int = 1) -> Any:
    """`value` with empty strings, lists and objects left out, recursively (None: `value` itself is empty)."""
    if isinstance(value, dict | list) and depth > _MAX_DEPTH:
        raise SigningError(f"the card nests deeper than {_MAX_DEPTH} levels")
    if isinstance(value, dict):
        kept = {k: c for k, v in value.items() if (c := _without_empty(v, depth + 1)) is not None}
        return kept or None
    if isinstance(value, list):
        items = [c for v in value if (c := _without_empty(v, depth + 1)) is not None]
        return items or None
    if value == "" or value is None:
        return None
    return value


def payload(card: JsonObj) -> bytes:
    """The bytes a card's signatures sign: its canonical form (RFC 8785) without `signatures`."""
    body = _without_empty({k: v for k, v in card.items() if k != SIGNATURES}) or {}
    try:
        return rfc8785.dumps(body)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise SigningError(f"the card has no canonical form: {exc}") from None


def protected_header(alg: str, kid: str, jku: str | None = None) -> str:
    """The base64url protected header of a new signature."""
    header: JsonObj = {"alg": alg, "kid": kid, "typ": "JOSE"}
    if jku:
        header["jku"] = jku
    return b64url(rfc8785.dumps(header))


def compact(protected: str, signed: bytes, signature: str) -> str:
    """The JWS compact serialization of a detached signature over `signed` (what JWS libraries verify)."""
    return f"{protected}.{b64url(signed)}.{signature}"


def read_signatures(card: JsonObj) -> list[CardSignature | str]:
    """The card's signatures in order, each read or, when unreadable, the reason why."""
    raw = card.get(SIGNATURES)
    if not isinstance(raw, list):
        return [] if raw is None else ["`signatures` is not a list"]
    return [_read_one(item, i) for i, item in enumerate(raw)]


def _read_one(item: Any, i: int) -> CardSignature | str:
    at = f"signatures[{i}]"
    if not isinstance(item, dict) or type(item.get("protected")) is not str or type(item.get("signature")) is not str:
        return f"{at}: needs the strings `protected` and `signature`"
    try:
        header = jsoncodec.loads(b64url_decode(item["protected"]))
        b64url_decode(item["signature"])
    except (SigningError, ValueError):
        return f"{at}: `protected` or `signature` is not base64url JSON"
    if not isinstance(header, dict):
        return f"{at}: the protected header is not an object"
    unprotected = item["header"] if isinstance(item.get("header"), dict) else {}
    merged = {**unprotected, **header}   # the protected members win
    alg, kid, jku = merged.get("alg"), merged.get("kid"), merged.get("jku")
    if alg not in ALGORITHMS:
        return f"{at}: algorithm {alg!r} is not one a card may be signed with"
    return CardSignature(item["protected"], item["signature"], alg, kid if type(kid) is str else None,
                         jku if type(jku) is str else None)


def with_signatures(card: JsonObj, signatures: list[JsonObj]) -> JsonObj:
    """`card` carrying exactly `signatures` (an upstream card's own are never valid for the served card)."""
    out = {k: v for k, v in card.items() if k != SIGNATURES}
    out[SIGNATURES] = signatures
    return out
