"""gRPC metadata: the transport's keys never travel, the version is stated per hop (never copied), the
extensions move between the two versions' keys, authentication and the rest pass untouched."""

from __future__ import annotations

import pytest

from gateway.core.bindings.grpc import metadata
from gateway.core.errors import UnsupportedVersion
from gateway.core.types import Version

V03, V10 = Version.V03, Version.V10

# what a2a-sdk 1.x's v1.0 gRPC client sends, plus what a deployment adds
CALLER = [("user-agent", "grpc-python-asyncio/1.85.1"), ("a2a-version", "1.0"), ("authorization", "Bearer t"),
          ("a2a-extensions", "https://e.example/a, https://e.example/b"), ("grpc-timeout", "5S"),
          ("traceparent", "00-abc-def-01"), ("x-trace-bin", b"\x00\x01")]


def test_toward_a_v03_agent() -> None:
    assert metadata.toward_agent(CALLER, V03) == [
        ("authorization", "Bearer t"), ("traceparent", "00-abc-def-01"), ("x-trace-bin", b"\x00\x01"),
        ("a2a-version", "0.3"), ("x-a2a-extensions", "https://e.example/a,https://e.example/b")]


def test_toward_a_v10_agent_from_a_v03_caller() -> None:
    """a2a-sdk 0.3's client sends `x-a2a-extensions` and no version (its user agent only)."""
    caller = [("user-agent", "grpc-python-asyncio/1.85.1"), ("x-a2a-extensions", "https://e.example/a"),
              ("X-Api-Key", "k")]
    assert metadata.toward_agent(caller, V10) == [
        ("x-api-key", "k"), ("a2a-version", "1.0"), ("a2a-extensions", "https://e.example/a")]


def test_toward_the_caller() -> None:
    """a2a-sdk 0.3's server answers the activated extensions as `x-a2a-extensions` trailers."""
    trailing = [("x-a2a-extensions", "https://e.example/a"), ("x-a2a-extensions", "https://e.example/b"),
                ("grpc-status-details-bin", b"..."), ("content-type", "application/grpc"), ("x-request-id", "r1")]
    assert metadata.toward_caller(trailing, V10) == [
        ("x-request-id", "r1"), ("a2a-extensions", "https://e.example/a,https://e.example/b")]
    assert metadata.toward_caller([("a2a-extensions", "u")], V03) == [("x-a2a-extensions", "u")]


@pytest.mark.parametrize("key", ["te", "Content-Type", "grpc-encoding", "grpc-accept-encoding", "grpc-timeout",
                                 ":authority", "connection", "host", "user-agent"])
def test_hop_by_hop(key: str) -> None:
    assert metadata.is_hop_by_hop(key)


@pytest.mark.parametrize("key", ["authorization", "x-api-key", "traceparent", "a2a-version", "cookie"])
def test_end_to_end(key: str) -> None:
    assert not metadata.is_hop_by_hop(key)


def test_version_checks() -> None:
    assert metadata.declared_version([]) is None
    assert metadata.declared_version([("A2A-Version", "1.0.2")]) is V10
    assert metadata.check_version(V03, [("a2a-version", "1.0")], strict=False) is V03
    with pytest.raises(UnsupportedVersion):
        metadata.check_version(V03, [("a2a-version", "1.0")], strict=True)
    with pytest.raises(UnsupportedVersion):
        metadata.declared_version([("a2a-version", "2.0")])


def test_http_headers_both_ways() -> None:
    headers = metadata.to_headers(CALLER)
    assert ("x-trace-bin", "AAE") in headers and all(k != "grpc-timeout" for k, _ in headers)
    back = metadata.from_headers([*headers, ("Date", "x"), ("Content-Length", "3"), ("x-bad-bin", "!!")])
    assert ("x-trace-bin", b"\x00\x01") in back and ("authorization", "Bearer t") in back
    assert {k for k, _ in back} == {"a2a-version", "authorization", "a2a-extensions", "traceparent", "x-trace-bin"}
