"""The signing rules of gateway.core.signing: the signing input (canonical, without signatures and empty
values), a2a-sdk 0.3's own reading of a v0.3 card, and the reading of AgentCardSignature entries, each unreadable
one with its reason; a card served by the gateway (gateway.core.card) keeps none of the agent's signatures."""

from __future__ import annotations

import json

import pytest

from gateway.core.card import read_upstream_card, served_card
from gateway.core.notes import Cx
from gateway.core.signing import (
    SigningError,
    b64url,
    b64url_decode,
    compact,
    payload,
    protected_header,
    read_signatures,
    sdk03_payload,
    signing_inputs,
    with_signatures,
)
from gateway.core.types import Binding, Version

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


# a v0.3 card as the gateway serves it, with what a2a-sdk 0.3 leaves out of its reading: members holding their
# default, members it does not know, nulls, empty values and a security scheme's `type`
V03_CARD = {"protocolVersion": "0.3.0", "name": "Agént", "description": "d", "url": "http://g/",
            "preferredTransport": "JSONRPC", "additionalInterfaces": [{"url": "http://g", "transport": "HTTP+JSON"}],
            "version": "1", "documentationUrl": None, "iconUrl": "",
            "capabilities": {"streaming": True, "extensions": [{"uri": "u", "params": {"f": 1.0, "e": []}}]},
            "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X", "x-other": 1},
                                "o": {"type": "oauth2", "flows": {"password": {"tokenUrl": "t", "scopes": {}}}}},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "sd", "tags": ["t"], "examples": []}],
            "supportedInterfaces": [{"url": "http://g/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "signatures": [{"protected": "x", "signature": "y"}]}


def test_sdk03_payload_is_that_sdks_reading() -> None:
    assert sdk03_payload(V03_CARD) == (
        b'{"additionalInterfaces":[{"transport":"HTTP+JSON","url":"http://g"}],"capabilities":{"extensions":'
        b'[{"params":{"f":1.0},"uri":"u"}],"streaming":true},"defaultInputModes":["text/plain"],'
        b'"defaultOutputModes":["text/plain"],"description":"d","name":"Ag\\u00e9nt","securitySchemes":'
        b'{"k":{"in":"header","name":"X"},"o":{"flows":{"password":{"tokenUrl":"t"}}}},"skills":[{"description":'
        b'"sd","id":"s","name":"S","tags":["t"]}],"url":"http://g/","version":"1"}')
    # a value other than the default is kept
    assert b'"preferredTransport":"GRPC"' in sdk03_payload({**V03_CARD, "preferredTransport": "GRPC"})


@pytest.mark.parametrize("bad", [{"securitySchemes": {"k": {"type": "nonsense"}}}, {"skills": {"id": "s"}},
                                 {"capabilities": []}])
def test_sdk03_payload_refuses_what_that_sdk_cannot_read(bad: dict[str, object]) -> None:
    with pytest.raises(SigningError, match=r"a2a-sdk 0\.3"):
        sdk03_payload({**V03_CARD, **bad})


def test_signing_inputs() -> None:
    v10 = {"name": "n", "supportedInterfaces": [{"url": "http://g/"}]}
    assert signing_inputs(v10) == [payload(v10)]
    assert signing_inputs(V03_CARD, v10) == [payload(V03_CARD), payload(v10), sdk03_payload(V03_CARD)]
    # the same bytes are signed once; a card that SDK cannot read gets no signature of its reading
    assert signing_inputs({"name": "n"}, {"name": "n"}) == [payload({"name": "n"})]
    unreadable = {**V03_CARD, "skills": "s"}
    assert signing_inputs(unreadable, v10) == [payload(unreadable), payload(v10)]


@pytest.mark.parametrize("client", list(Version))
def test_a_served_card_keeps_none_of_the_agents_signatures(client: Version) -> None:
    agent = {"name": "a", "description": "d", "version": "1", "capabilities": {}, "skills": [],
             "defaultInputModes": [], "defaultOutputModes": [],
             "supportedInterfaces": [{"url": "http://agent/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
             "signatures": [{"protected": protected_header("ES256", "agent-1"), "signature": b64url(b"sig")}]}
    upstream = read_upstream_card(agent, Cx())
    cx = Cx()
    served = served_card(upstream, client=client, base_url="http://gw", bindings=(Binding.JSONRPC,), cx=cx)
    assert "signatures" not in served and served["name"] == "a"
    assert [(n.code, n.path) for n in cx.notes] == [("card_signature_dropped", "$.signatures")]
