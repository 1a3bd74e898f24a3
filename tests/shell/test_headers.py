"""Tests for gateway/shell/agent/headers.py: the headers sent to the agent, from the client's decoded headers and
from the raw pairs its parser read (one pass, RequestHeaders) alike; the RequestHeaders mapping; and the
headers relayed to the client. (How the link writes RequestHeaders: test_stream_link.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy

from gateway.core.types import Version
from gateway.shell.agent.headers import (
    RequestHeaders,
    client_response_headers,
    upstream_request_headers,
)

NAMES = ["Accept", "accept", "User-Agent", "Authorization", "X-Custom", "x-custom", "Connection", "Keep-Alive",
         "TE", "Host", "Content-Length", "Content-Type", "Accept-Encoding", "A2A-Version", "A2A-Extensions",
         "X-A2A-Extensions", "X-Forwarded-For", "x-forwarded-for", "Traceparent", "Upgrade"]
VALUES = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), min_size=1, max_size=12)


def _wire(headers: RequestHeaders) -> list[tuple[str, str]]:
    """The headers to be written, by name (case folded; one name's values in their order)."""
    pairs = headers.pairs()
    return sorted(((name.lower(), value) for name, value in pairs), key=lambda pair: pair[0])


def _both(pairs: list[tuple[str, str]], **kwargs: object) -> tuple[RequestHeaders, RequestHeaders]:
    decoded = CIMultiDictProxy(CIMultiDict(pairs))
    raw = tuple((name.encode(), value.encode()) for name, value in pairs)
    args: dict[str, Any] = {"upstream": Version.V10, "peer": "10.0.0.9", "extra": {},
                            "content_type": "application/json", **kwargs}
    return upstream_request_headers(decoded, **args), upstream_request_headers(raw, **args)


@given(st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=10),
       st.sampled_from([None, "10.0.0.9"]), st.sampled_from([Version.V03, Version.V10]),
       st.sampled_from([{}, {"X-Custom": "configured", "Host": "agent.internal"}]))
def test_the_raw_pass_writes_what_the_decoded_rule_writes(pairs: list[tuple[str, str]], peer: str | None,
                                                          upstream: Version, extra: dict[str, str]) -> None:
    decoded, raw = _both(pairs, peer=peer, upstream=upstream, extra=extra)
    assert _wire(raw) == _wire(decoded)
    if not any(name.lower() == "connection" for name, _ in pairs):
        assert isinstance(raw, RequestHeaders)   # (a Connection header takes the decoded rule)


def test_the_raw_pass_keeps_the_clients_lines_and_writes_the_gateways_own() -> None:
    pairs = [("Accept", "*/*"), ("Keep-Alive", "5"), ("X-A2A-Extensions", "urn:a"), ("A2A-Extensions", "urn:b, urn:a"),
             ("X-Forwarded-For", "1.2.3.4"), ("Content-Type", "text/plain"), ("x-custom", "one"), ("X-Custom", "two")]
    _, raw = _both(pairs)
    assert isinstance(raw, RequestHeaders)
    assert raw.lines == [b"Accept: */*\r\n", b"x-custom: one\r\n", b"X-Custom: two\r\n"]
    assert b"".join(raw.block) == (b"Content-Type: application/json\r\nAccept-Encoding: identity\r\n"
                                   b"A2A-Version: 1.0\r\nA2A-Extensions: urn:a,urn:b\r\n"
                                   b"X-Forwarded-For: 1.2.3.4, 10.0.0.9\r\n")
    _, unseen = _both([("X-Forwarded-For", "1.2.3.4")], peer=None)
    assert isinstance(unseen, RequestHeaders) and unseen.lines == [b"X-Forwarded-For: 1.2.3.4\r\n"]


def test_request_headers_read_and_change_as_a_case_insensitive_mapping() -> None:
    headers = RequestHeaders([b"Accept: */*\r\n", b"X-Custom: one\r\n", b"x-custom: two\r\n"],
                             [b"Content-Type: application/json\r\n", b"A2A-Version: 1.0\r\n"])
    assert headers["x-custom"] == "one" and headers["content-type"] == "application/json"
    assert "ACCEPT" in headers and "Missing" not in headers
    assert list(headers) == ["Accept", "X-Custom", "Content-Type", "A2A-Version"] and len(headers) == 4
    headers["Accept"] = "text/event-stream"      # a client's header set by the gateway: the client's line goes
    headers["content-type"] = "text/plain"       # one of the gateway's block: its line goes
    headers["traceparent"] = "00-1-2-01"
    del headers["X-CUSTOM"]                       # every line of the name
    assert headers.lines == [] and headers.block == [b"A2A-Version: 1.0\r\n"]
    assert headers.pairs() == [("A2A-Version", "1.0"), ("Accept", "text/event-stream"),
                               ("content-type", "text/plain"), ("traceparent", "00-1-2-01")]
    with pytest.raises(KeyError):
        del headers["X-Custom"]
    with pytest.raises(KeyError):
        headers["X-Custom"]


def test_configured_headers_replace_the_clients_of_the_same_name() -> None:
    decoded, raw = _both([("Authorization", "Bearer client"), ("X-Api-Key", "client")],
                         extra={"x-api-key": "configured"})
    assert isinstance(raw, RequestHeaders)
    assert raw["X-Api-Key"] == decoded["X-Api-Key"] == "configured"
    assert raw["Authorization"] == "Bearer client"


def test_the_client_is_relayed_the_agents_end_to_end_headers_with_its_own_extensions_spelling() -> None:
    agent = CIMultiDict([("Content-Type", "application/json"), ("Content-Length", "9"), ("Connection", "x-hop"),
                         ("X-Hop", "1"), ("X-Trace", "t"), ("A2A-Extensions", "urn:a")])
    assert list(client_response_headers(agent, Version.V03).items()) == [("X-Trace", "t"),
                                                                         ("X-A2A-Extensions", "urn:a")]


@given(st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=10), st.sampled_from([Version.V03, Version.V10]))
def test_the_one_pass_over_the_agents_headers_keeps_what_the_general_rule_keeps(pairs: list[tuple[str, str]],
                                                                                client: Version) -> None:
    agent = CIMultiDict(pairs)
    connection = agent.getall("Connection", [])
    dropped = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
               "trailer", "trailers", "transfer-encoding", "upgrade", "host", "content-length", "content-type",
               "content-encoding", "accept-encoding", "a2a-version", "a2a-extensions", "x-a2a-extensions",
               *(token.strip().lower() for value in connection for token in value.split(","))}
    expected = [(name, value) for name, value in pairs if name.lower() not in dropped]
    out = list(client_response_headers(agent, client).items())
    extensions = [pair for pair in out if pair[0] in ("A2A-Extensions", "X-A2A-Extensions")]
    assert [pair for pair in out if pair not in extensions] == expected
    assert len(extensions) <= 1


@pytest.mark.parametrize("raw", [False, True])
def test_configured_headers_give_way_to_the_ones_the_gateway_writes(raw: bool) -> None:
    decoded, from_raw = _both([("X-Forwarded-For", "1.2.3.4")], peer="10.0.0.9",
                              extra={"content-type": "text/x", "A2A-Version": "9", "X-Forwarded-For": "5.6.7.8"})
    headers = from_raw if raw else decoded
    assert isinstance(headers, RequestHeaders)
    assert (headers["Content-Type"], headers["A2A-Version"], headers["X-Forwarded-For"]) == (
        "application/json", "1.0", "1.2.3.4, 10.0.0.9")
    v03, _ = _both([], upstream=Version.V03, extra={"A2A-Version": "0.3"})
    assert v03["A2A-Version"] == "0.3"   # (the gateway writes none toward a v0.3 agent)
