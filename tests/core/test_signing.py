"""The signing rules of gateway.core.signing: the signing input (canonical, without signatures and empty
values) and the reading of AgentCardSignature entries, each unreadable one with its reason."""

from __future__ import annotations

import json

import pytest

from gateway.core.signing import (
    SigningError,
    b64url,
    b64url_decode,
    compact,
    payload,
    protected_header,
    read_signatures,
    with_signatures,
)

CARD = {"name": "n", "version": "1", "skills": [{"id": "s", "tags": []}], "description": "",
        "capabilities": {}, "signatures": [{"protected": "x", "signature": "y"}]}


def test_payload_is_canonical_without_signatures_or_empty_values() -> None:
    assert payload(CARD) == b'{"name":"n","skills":[{"id":"s"}],"version":"1"}'
    reordered = dict(reversed(list(CARD.items())))
    assert payload(reordered) == payload(CARD)
    assert payload({"name": "é", "n": 1.0, "f": False, "z": 0}) == '{"f":false,"n":1,"name":"é","z":0}'.encode()


def test_payload_refuses_what_has_no_canonical_form() -> None:
    with pytest.raises(SigningError):
        payload({"n": 2**60})   # outside the IEEE 754 exact range RFC 8785 requires
    deep: dict[str, object] = {"a": 1}
    for _ in range(200):
        deep = {"a": deep}
    with pytest.raises(SigningError, match="deeper"):
        payload(deep)


def test_protected_header_and_compact() -> None:
    header = json.loads(b64url_decode(protected_header("ES256", "k1", "https://g/.well-known/jwks.json")))
    assert header == {"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": "https://g/.well-known/jwks.json"}
    assert "jku" not in json.loads(b64url_decode(protected_header("EdDSA", "k1")))
    assert compact("h", b"{}", "s") == "h." + b64url(b"{}") + ".s"


def test_read_signatures() -> None:
    good = {"protected": protected_header("ES256", "k1"), "signature": b64url(b"sig"), "header": {"kid": "other"}}
    unknown_alg = {"protected": b64url(b'{"alg":"HS256","kid":"k"}'), "signature": "c2ln"}
    found = read_signatures({"signatures": [good, {"protected": 1}, {"protected": "%%", "signature": "x"},
                                            unknown_alg, {"protected": b64url(b"[1]"), "signature": "eA"}]})
    first = found[0]
    assert not isinstance(first, str) and (first.alg, first.kid, first.jku) == ("ES256", "k1", None)
    assert [type(f) for f in found[1:]] == [str] * 4
    assert "HS256" in str(found[3]) and "not an object" in str(found[4])
    assert read_signatures({}) == [] and read_signatures({"signatures": {}}) == ["`signatures` is not a list"]


def test_with_signatures_replaces_them() -> None:
    assert with_signatures(CARD, [{"protected": "p", "signature": "s"}])["signatures"] == [
        {"protected": "p", "signature": "s"}]
    with pytest.raises(SigningError):
        b64url_decode("a+b")
