"""Version detection and extension headers (wire-mapping.md §2, §9 cases 1-6 and 8-9)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.core.errors import UnsupportedVersion
from gateway.core.types import Binding, Version
from gateway.core.versions import (
    EXTENSIONS_HEADER,
    EXTENSIONS_HEADER_FOR,
    LEGACY_EXTENSIONS_HEADER,
    VERSION_HEADER,
    check_method_version,
    client_version,
    is_passthrough,
    merge_extensions,
    method_version,
    parse_version,
    upstream_version_headers,
    version_declared,
)

V03, V10 = Version.V03, Version.V10


@pytest.mark.parametrize(("raw", "expected"), [
    (None, V03), ("", V03), ("   ", V03),            # case 1: v0.3 clients send nothing
    ("0.3", V03), (" 0.3 ", V03), ("0.3.0", V03),    # case 4
    ("1.0", V10), ("1.0.3", V10), (" 1.0 ", V10), ("1", V10),
    ("0.2", V03), ("0.9", V03), ("1.7", V10),        # major-only, like a2a-python
    ("00.3", V03), ("01.0", V10),
])
def test_parse_version(raw: str | None, expected: Version) -> None:
    assert parse_version(raw) is expected


@pytest.mark.parametrize("raw", ["2.0", "abc", "1.0-beta", "v1.0", "1.0.0.0", "10.0", "-1", "1,0", "0.3 1.0",
                                 "١.٠", "100000000000.0"])
def test_unsupported_version(raw: str) -> None:
    """Case 3: `2.0` → -32009, with the supported versions in the message."""
    with pytest.raises(UnsupportedVersion) as exc:
        parse_version(raw)
    assert exc.value.jsonrpc_code == -32009
    assert exc.value.reason == "VERSION_NOT_SUPPORTED"
    assert "0.3, 1.0" in exc.value.message


@given(st.text(max_size=30))
def test_parse_version_total(raw: str) -> None:
    with contextlib.suppress(UnsupportedVersion):
        assert parse_version(raw) in (V03, V10)


@pytest.mark.parametrize(("header", "query", "expected"), [
    (None, None, V03),
    ("1.0", None, V10),
    (None, "1.0", V10),      # case 5: query parameter honoured without header
    ("0.3", "1.0", V03),     # header wins
    ("", "1.0", V10),        # a blank header is no header
    ("  ", None, V03),
])
def test_client_version(header: str | None, query: str | None, expected: Version) -> None:
    assert client_version(header, query) is expected


def test_version_declared() -> None:
    assert not version_declared(None, None)
    assert not version_declared(" ", "")
    assert version_declared("0.3", None)
    assert version_declared(None, "1.0")


@pytest.mark.parametrize(("method", "expected"), [
    ("message/send", V03), ("SendMessage", V10), ("ListTasks", V10),
    ("agent/authenticatedExtendedCard", V03),
    ("tasks/list", V03), ("FooBar", V10), ("foo", V03), ("", V03), ("Foo/Bar", V03),
])
def test_method_version(method: str, expected: Version) -> None:
    assert method_version(method) is expected


def test_lenient_follows_the_method() -> None:
    """Case 6 lenient: v1.0 method without a header is served as v1.0; and v0.3 method with 1.0."""
    assert check_method_version(V10, V03, False, "lenient") is V10
    assert check_method_version(V03, V10, True, "lenient") is V03
    assert check_method_version(V10, V10, True, "strict") is V10
    assert check_method_version(V03, V03, False, "strict") is V03   # case 1 under strict mode


@pytest.mark.parametrize(("method", "declared", "explicit"), [(V10, V03, False), (V10, V03, True),
                                                              (V03, V10, True)])
def test_strict_rejects_mismatch(method: Version, declared: Version, explicit: bool) -> None:
    """Case 6 strict: mismatch → -32009."""
    with pytest.raises(UnsupportedVersion) as exc:
        check_method_version(method, declared, explicit, "strict")
    assert exc.value.jsonrpc_code == -32009
    assert ("no A2A-Version" in exc.value.message) is not explicit


def test_passthrough() -> None:
    J, R = Binding.JSONRPC, Binding.REST
    assert is_passthrough(V03, V03, J, J)
    assert is_passthrough(V10, V10, R, R)
    assert not is_passthrough(V03, V10, J, J)
    assert not is_passthrough(V10, V10, J, R)


def test_upstream_always_states_its_version() -> None:
    """Cases 1-2 / §2.4 rule 5."""
    assert upstream_version_headers(V10) == {VERSION_HEADER: "1.0"}
    assert upstream_version_headers(V03) == {}  # absent means 0.3: what every v0.3 client sends


def test_extension_header_names() -> None:
    """Case 8: v0.3 speaks X-A2A-Extensions, v1.0 A2A-Extensions."""
    assert EXTENSIONS_HEADER_FOR[V03] == LEGACY_EXTENSIONS_HEADER == "X-A2A-Extensions"
    assert EXTENSIONS_HEADER_FOR[V10] == EXTENSIONS_HEADER == "A2A-Extensions"


@pytest.mark.parametrize(("values", "expected"), [
    (("a, b",), "a,b"),                       # case 8
    (("a, b", "b,c"), "a,b,c"),               # case 9: merged, deduplicated, order kept
    (("c", " a ,c,, b "), "c,a,b"),
    ((None, None), None),
    (("", " , "), None),
    ((None, "x"), "x"),
    ((), None),
])
def test_merge_extensions(values: tuple[str | None, ...], expected: str | None) -> None:
    assert merge_extensions(*values) == expected


@given(st.lists(st.one_of(st.none(), st.text(alphabet="ab, ", max_size=12)), max_size=4))
def test_merge_extensions_properties(values: list[str | None]) -> None:
    merged = merge_extensions(*values)
    items = [i.strip() for v in values for i in (v or "").split(",") if i.strip()]
    if merged is None:
        assert items == []
    else:
        out = merged.split(",")
        assert out == list(dict.fromkeys(items))
        assert merge_extensions(merged) == merged
