"""Agent-card signatures as data: the signing inputs of a card (RFC 8785 canonical form without `signatures`,
empty values left out; a2a-sdk 0.3's own reading too) and the JWS parts of an AgentCardSignature. Pure: the keys
and the crypto are the shell's."""

# An AgentCardSignature is a JWS in the JSON serialization with a detached payload: `protected` is the
# base64url protected header ({"alg", "kid", optional "jku", "typ"}), `signature` the base64url signature
# over ASCII(protected) "." base64url(payload), `header` optional unprotected members. The payload is the
# card's canonical JSON (RFC 8785, JCS) with `signatures` removed. Empty strings, lists and objects are left
# out before canonicalizing, as a2a-sdk 1.x does: a card that went through its protobuf types has lost them,
# so only the form without them is the same on both sides.
#
# a2a-sdk 0.3 (to 0.3.26 at least) signs and verifies another form: it reads the card into its pydantic
# AgentCard, dumps it without the members it does not know (`supportedInterfaces`), without those holding
# their default (`protocolVersion` "0.3.0", `preferredTransport` "JSONRPC", a security scheme's `type`) or
# null, leaves out empty values, then writes sorted keys with Python's json (non-ASCII escaped as \uXXXX),
# not RFC 8785. A v0.3 card served by the gateway carries a signature over that form too (`sdk03_payload`),
# so the clients of that SDK can verify it; an upstream card is never checked against it, since it vouches
# for nothing the SDK does not know (an added `supportedInterfaces` would still verify).

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from dataclasses import dataclass
from typing import Any, Literal

import rfc8785

import gateway.core.jsoncodec as jsoncodec
from gateway.core.types import JsonObj

__all__ = ["ALGORITHMS", "SIGNATURES", "CardSignature", "SigningError", "b64url", "b64url_decode", "compact",
           "payload", "protected_header", "read_signatures", "sdk03_payload", "signing_inputs", "with_signatures"]

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


@dataclass(frozen=True, slots=True)
class _Member:
    """One member of an a2a-sdk 0.3 model: the model its value is (None: a plain value kept whole), one of
    them, a list or a map of them, and the default the SDK leaves out."""

    model: str | None = None
    shape: Literal["one", "list", "map"] = "one"
    default: Any = None


_PLAIN = _Member()
_FLOW = {"refreshUrl": _PLAIN, "scopes": _PLAIN}


def _scheme(kind: str, *names: str, **models: _Member) -> dict[str, _Member]:
    return {"description": _PLAIN, "type": _Member(default=kind), **dict.fromkeys(names, _PLAIN), **models}


# a2a-sdk 0.3.26's a2a.types, as far as an AgentCard reaches
_SDK03_MODELS: dict[str, dict[str, _Member]] = {
    "AgentCard": {
        "additionalInterfaces": _Member("AgentInterface", "list"), "capabilities": _Member("AgentCapabilities"),
        "defaultInputModes": _PLAIN, "defaultOutputModes": _PLAIN, "description": _PLAIN,
        "documentationUrl": _PLAIN, "iconUrl": _PLAIN, "name": _PLAIN,
        "preferredTransport": _Member(default="JSONRPC"), "protocolVersion": _Member(default="0.3.0"),
        "provider": _Member("AgentProvider"), "security": _PLAIN, "securitySchemes": _Member("SecurityScheme", "map"),
        "skills": _Member("AgentSkill", "list"), "supportsAuthenticatedExtendedCard": _PLAIN, "url": _PLAIN,
        "version": _PLAIN},
    "AgentInterface": {"transport": _PLAIN, "url": _PLAIN},
    "AgentCapabilities": {"extensions": _Member("AgentExtension", "list"), "pushNotifications": _PLAIN,
                          "stateTransitionHistory": _PLAIN, "streaming": _PLAIN},
    "AgentExtension": {"description": _PLAIN, "params": _PLAIN, "required": _PLAIN, "uri": _PLAIN},
    "AgentProvider": {"organization": _PLAIN, "url": _PLAIN},
    "AgentSkill": dict.fromkeys(("description", "examples", "id", "inputModes", "name", "outputModes", "security",
                                 "tags"), _PLAIN),
    "OAuthFlows": {"authorizationCode": _Member("AuthorizationCodeOAuthFlow"),
                   "clientCredentials": _Member("ClientCredentialsOAuthFlow"),
                   "implicit": _Member("ImplicitOAuthFlow"), "password": _Member("PasswordOAuthFlow")},
    "AuthorizationCodeOAuthFlow": {**_FLOW, "authorizationUrl": _PLAIN, "tokenUrl": _PLAIN},
    "ClientCredentialsOAuthFlow": {**_FLOW, "tokenUrl": _PLAIN},
    "ImplicitOAuthFlow": {**_FLOW, "authorizationUrl": _PLAIN},
    "PasswordOAuthFlow": {**_FLOW, "tokenUrl": _PLAIN},
}
_SDK03_SCHEMES: dict[str, dict[str, _Member]] = {   # a SecurityScheme: the model its `type` names
    "apiKey": _scheme("apiKey", "in", "name"),
    "http": _scheme("http", "bearerFormat", "scheme"),
    "oauth2": _scheme("oauth2", "oauth2MetadataUrl", flows=_Member("OAuthFlows")),
    "openIdConnect": _scheme("openIdConnect", "openIdConnectUrl"),
    "mutualTLS": _scheme("mutualTLS"),
}


def _as_sdk03(value: Any, model: str, at: str) -> JsonObj:
    """`value` as a2a-sdk 0.3 dumps the `model` it reads it into: known members only, neither null nor
    holding their default."""
    if not isinstance(value, dict):
        raise SigningError(f"{at}: a2a-sdk 0.3 cannot read this as its {model}")
    members = _SDK03_SCHEMES.get(str(value.get("type"))) if model == "SecurityScheme" else _SDK03_MODELS[model]
    if members is None:
        raise SigningError(f"{at}: a security scheme of a type a2a-sdk 0.3 does not know")
    out: JsonObj = {}
    for name, member in members.items():
        item = value.get(name)
        if item is None or item == member.default:
            continue
        where = f"{at}.{name}"
        if member.model is None:
            out[name] = item
        elif member.shape == "one":
            out[name] = _as_sdk03(item, member.model, where)
        elif member.shape == "list" and isinstance(item, list):
            out[name] = [_as_sdk03(v, member.model, f"{where}[{i}]") for i, v in enumerate(item)]
        elif member.shape == "map" and isinstance(item, dict):
            out[name] = {k: _as_sdk03(v, member.model, f"{where}.{k}") for k, v in item.items()}
        else:
            raise SigningError(f"{where}: a2a-sdk 0.3 cannot read this as a {member.shape} of {member.model}")
    return out


def sdk03_payload(card: JsonObj) -> bytes:
    """The bytes a2a-sdk 0.3 signs and verifies for `card` (a v0.3 card): its own reading, not RFC 8785."""
    body = _without_empty(_as_sdk03(card, "AgentCard", "$"))
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode("ascii")


def signing_inputs(card: JsonObj, read_as: JsonObj | None = None) -> list[bytes]:
    """What a served card is signed over, each once: its canonical form; for a v0.3 card (`read_as`: the
    v1.0 card a v1.0 reader makes of it) that reading's and the form a2a-sdk 0.3 verifies, when it has one."""
    found = [payload(card)]
    if read_as is not None:
        found.append(payload(read_as))
        with contextlib.suppress(SigningError, TypeError, ValueError):   # a card that SDK cannot read: none
            found.append(sdk03_payload(card))
    return list(dict.fromkeys(found))


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
