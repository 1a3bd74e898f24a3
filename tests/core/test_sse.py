"""Tests for gateway/core/sse.py: every sample fed whole, byte by byte and in hypothesis chunks;
WHATWG edge cases, limits, errors, the encode/parse round trip and the fuzz invariant."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core.errors import LimitExceeded, StreamError
from gateway.core.sse import (
    DEFAULT_MAX_EVENT_BYTES,
    SseComment,
    SseEvent,
    SseItem,
    SseParser,
    encode,
    encode_data,
    map_data_lines,
)
from tests.chunks import Split, bytewise, chunkings, whole
from tests.profiles import examples

BOM = b"\xef\xbb\xbf"


# --- helpers -------------------------------------------------------------------------------------


def parse(chunks: list[bytes], max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> list[SseItem]:
    parser = SseParser(max_event_bytes)
    items: list[SseItem] = []
    for chunk in chunks:
        items += parser.feed(chunk)
    items += parser.close()
    return items


def outcome(chunks: list[bytes], max_event_bytes: int) -> list[SseItem] | type[Exception]:
    try:
        return parse(chunks, max_event_bytes)
    except (LimitExceeded, StreamError) as exc:  # our errors only; anything else fails the test
        return type(exc)


# --- samples: (input, expected items), each fed whole, byte by byte and in random chunks ------------

STARLETTE = (
    b": ping - 2025-01-01 00:00:00.000000+00:00\r\n\r\n"
    b'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1"}}\r\n\r\n'
    b": ping - 2025-01-01 00:00:15.000000+00:00\r\n\r\n"
    b'id: 7\r\nevent: error\r\ndata: {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}\r\n'
    b"retry: 1500\r\n\r\n"
    b"event: error\r\n"
    b'data: {"error":{"code":500,"status":"INTERNAL","message":"x\r\n'
    b'data: y"}}\r\n\r\n'
)

SAMPLES: dict[str, tuple[bytes, list[SseItem]]] = {
    "lf": (b"data: a\n\ndata: b\n\n", [SseEvent("a"), SseEvent("b")]),
    "crlf": (b"data: a\r\n\r\ndata: b\r\n\r\n", [SseEvent("a"), SseEvent("b")]),
    "cr": (b"data: a\r\rdata: b\r\r", [SseEvent("a"), SseEvent("b")]),
    "mixed": (b"data: a\rdata: b\r\ndata: c\n\r\n", [SseEvent("a\nb\nc")]),
    "cr_then_crlf": (b"data: a\r\r\n", [SseEvent("a")]),
    "lf_cr_is_two_ends": (b"data: a\n\r", [SseEvent("a")]),
    "multi_line_data": (b"data: a\ndata:\ndata: c\n\n", [SseEvent("a\n\nc")]),
    "fields": (
        b"event: update\nid: 42\nretry: 3000\ndata: x\n\n",
        [SseEvent("x", event="update", id="42", retry=3000)],
    ),
    "last_field_wins": (b"event: a\nevent: b\nid: 1\nid: 2\ndata: x\n\n", [SseEvent("x", "b", "2")]),
    "fields_reset_per_event": (
        b"event: e\nid: 1\nretry: 5\ndata: x\n\ndata: y\n\n",
        [SseEvent("x", "e", "1", 5), SseEvent("y")],
    ),
    "no_data_not_dispatched": (b"event: e\nid: 1\nretry: 9\n\ndata: x\n\n", [SseEvent("x")]),
    "blank_lines_alone": (b"\n\n\r\n\r\r", []),
    "empty_data_line_dispatches": (b"data:\n\n", [SseEvent("")]),
    "field_without_colon": (b"data\ndata\n\n", [SseEvent("\n")]),
    "event_without_colon_is_default": (b"event: x\nevent\ndata: y\n\n", [SseEvent("y")]),
    "id_without_colon_is_empty": (b"id\ndata: y\n\n", [SseEvent("y", id="")]),
    "one_space_stripped": (
        b"data:a\n\ndata:  b\n\ndata: c \n\n",
        [SseEvent("a"), SseEvent(" b"), SseEvent("c ")],
    ),
    "colon_in_value": (b"data: a: b:c\n\n", [SseEvent("a: b:c")]),
    "unknown_and_case_sensitive_fields": (b"Data: no\nfoo: bar\ndata : no\ndata: yes\n\n", [SseEvent("yes")]),
    "id_with_nul_ignored": (b"id: 1\nid: a\x00b\ndata: x\n\n", [SseEvent("x", id="1")]),
    "retry_digits_only": (
        b"retry: 10\nretry: 1a\nretry: -1\nretry: \xd9\xa1\nretry:\nretry: 1.5\ndata: x\n\n",
        [SseEvent("x", retry=10)],
    ),
    "retry_leading_zeros": (b"retry: 0012\ndata: x\n\n", [SseEvent("x", retry=12)]),
    "comments": (
        b": ping\n:\n:no space\n\n",
        [SseComment(" ping"), SseComment(""), SseComment("no space")],
    ),
    "comment_inside_event_comes_first": (
        b"data: a\n: keep-alive\ndata: b\n\n",
        [SseComment(" keep-alive"), SseEvent("a\nb")],
    ),
    "bom": (BOM + b"data: x\n\n", [SseEvent("x")]),
    "bom_only_once": (BOM + BOM + b"data: x\n\ndata: y\n\n", [SseEvent("y")]),
    "bom_later_is_data": (
        b"data: x\n\n" + BOM + b"data: y\n\ndata: " + BOM + b"\n\n",
        [SseEvent("x"), SseEvent("\ufeff")],
    ),
    "bom_alone": (BOM, []),
    "multibyte": ("data: é€😀\n\n".encode(), [SseEvent("é€😀")]),
    "trailing_event_dropped": (b"data: a\n\ndata: b\n", [SseEvent("a")]),
    "trailing_line_dropped": (b"data: a\n\ndata: b", [SseEvent("a")]),
    "trailing_comment_dropped": (b": unterminated", []),
    "sse_starlette": (
        STARLETTE,
        [
            SseComment(" ping - 2025-01-01 00:00:00.000000+00:00"),
            SseEvent('{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1"}}'),
            SseComment(" ping - 2025-01-01 00:00:15.000000+00:00"),
            SseEvent(
                '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}',
                event="error",
                id="7",
                retry=1500,
            ),
            SseEvent('{"error":{"code":500,"status":"INTERNAL","message":"x\ny"}}', event="error"),
        ],
    ),
}


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("split", [whole, bytewise], ids=["whole", "bytewise"])
def test_sample(name: str, split: Split) -> None:
    data, expected = SAMPLES[name]
    assert parse(split(data)) == expected


@settings(max_examples=examples(200))
@given(st.data())
def test_sample_any_chunking(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(SAMPLES)))
    raw, expected = SAMPLES[name]
    assert parse(data.draw(chunkings(raw))) == expected


def test_real_sse_starlette_frames() -> None:
    """The same frames as the "sse_starlette" sample, produced by the library itself."""
    event_mod = pytest.importorskip("sse_starlette.event")
    sse = event_mod.ServerSentEvent
    wire = b"".join(
        [
            sse(comment="ping - 2025-01-01 00:00:00.000000+00:00").encode(),
            sse(data='{"a":1}\n{"b":2}', event="error", id="7", retry=1500).encode(),
            sse(data="").encode(),
        ]
    )
    assert wire.count(b"\r\n") == 10  # sse-starlette frames with CRLF
    assert parse(bytewise(wire)) == [
        SseComment(" ping - 2025-01-01 00:00:00.000000+00:00"),
        SseEvent('{"a":1}\n{"b":2}', event="error", id="7", retry=1500),
        SseEvent(""),
    ]


# --- chunk boundaries and state ---------------------------------------------------------------------


def test_items_are_returned_as_soon_as_complete() -> None:
    parser = SseParser()
    assert parser.feed(b"data: a\n") == []
    assert parser.feed(b"\n: c\n") == [SseEvent("a"), SseComment(" c")]
    assert parser.feed(b"data: b") == []
    assert parser.feed(b"\r\n\r") == [SseEvent("b")]
    assert parser.close() == []


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data: a\r", b"\n", b"\r\n"],
        [b"data: a\r", b"\n\r", b"\n"],
        [b"data: a\r", b"", b"\n\r\n"],
        [b"data: a\r", b"\n\r\ndata", b": b\r", b"\r"],
    ],
)
def test_cr_at_chunk_end_is_not_an_extra_line(chunks: list[bytes]) -> None:
    items = parse(chunks)
    assert items[0] == SseEvent("a")
    assert items[1:] in ([], [SseEvent("b")])


def test_crlf_split_keeps_events_apart() -> None:
    # "data: a" CR | LF "data: b" ... : the LF must not end a second (blank) line dispatching "a" alone
    assert parse([b"data: a\r", b"\ndata: b\r\n\r\n"]) == [SseEvent("a\nb")]


def test_bom_split_across_chunks() -> None:
    assert parse([b"\xef", b"\xbb", b"\xbfdata: x\n\n"]) == [SseEvent("x")]
    assert parse([b"", b"\xef\xbb", b"\xbf", b"", b"data: x\n\n"]) == [SseEvent("x")]


def test_partial_bom_then_eof_is_dropped() -> None:
    assert parse([b"\xef\xbb"]) == []


def test_partial_bom_then_other_bytes_is_invalid_utf8() -> None:
    with pytest.raises(StreamError):
        parse([b"\xef\xbb", b"data: x\n\n"])


def test_close_drops_unterminated_event_and_resets() -> None:
    parser = SseParser()
    assert parser.feed(BOM + b"event: e\ndata: partial\n") == []
    assert parser.buffered_bytes > 0
    assert parser.close() == []
    assert parser.buffered_bytes == 0
    # back at the initial state: a fresh leading BOM is skipped again, no leftover fields
    assert parser.feed(BOM + b"data: new\n\n") == [SseEvent("new")]


def test_feed_empty_chunk() -> None:
    parser = SseParser()
    assert parser.feed(b"") == []
    assert parser.feed(b"data: x\n\n") == [SseEvent("x")]
    assert parser.feed(b"") == []


# --- limits -----------------------------------------------------------------------------------------


def test_limit_validation() -> None:
    with pytest.raises(ValueError):
        SseParser(0)


def test_event_at_limit_passes() -> None:
    line = b"data: " + b"x" * 94  # 100 raw bytes
    assert parse([line + b"\n\n"], max_event_bytes=100) == [SseEvent("x" * 94)]


@pytest.mark.parametrize("split", [whole, bytewise], ids=["whole", "bytewise"])
def test_one_line_over_limit(split: Split) -> None:
    line = b"data: " + b"x" * 95  # 101 raw bytes
    with pytest.raises(LimitExceeded):
        parse(split(line + b"\n\n"), max_event_bytes=100)


def test_huge_event_over_many_chunks_is_rejected_early_and_memory_stays_bounded() -> None:
    limit = 64 * 1024
    parser = SseParser(limit)
    assert parser.feed(b"data: ") == []
    fed = 6
    with pytest.raises(LimitExceeded):
        for _ in range(1000):
            fed += 1000
            parser.feed(b"y" * 1000)
            assert parser.buffered_bytes <= limit
    assert parser.buffered_bytes <= limit  # the chunk that crossed the limit was not kept
    assert limit < fed <= limit + 1000  # raised on the first chunk that crossed the limit


def test_many_data_lines_over_limit() -> None:
    lines = b"data: 0123456789\n" * 7  # 7 * 16 raw bytes = 112
    with pytest.raises(LimitExceeded):
        parse([lines + b"\n"], max_event_bytes=100)
    with pytest.raises(LimitExceeded):
        parse(bytewise(lines), max_event_bytes=100)  # raised before the blank line arrives


def test_pending_line_counts_with_data_so_far() -> None:
    parser = SseParser(30)
    assert parser.feed(b"data: 0123456789\n") == []  # 16 bytes of data
    assert parser.feed(b"data: 01234567") == []  # 14 pending + 16 = 30: at the limit
    assert parser.buffered_bytes == 30
    with pytest.raises(LimitExceeded):
        parser.feed(b"8")


def test_limit_is_per_event_not_per_stream() -> None:
    event = b"data: " + b"z" * 50 + b"\n\n"
    assert parse([event * 100], max_event_bytes=64) == [SseEvent("z" * 50)] * 100


def test_long_comment_line_is_bounded_too() -> None:
    with pytest.raises(LimitExceeded):
        parse([b":" + b"p" * 100 + b"\n"], max_event_bytes=100)


# --- invalid UTF-8 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"data: \xff\n\n",
        b"data: \xc3\n\n",  # truncated sequence at the line end
        b": \xfe comment\n",
        b"ev\x80ent: x\ndata: y\n\n",
        b"data: \xed\xa0\x80\n\n",  # a UTF-16 surrogate encoded as UTF-8
    ],
)
@pytest.mark.parametrize("split", [whole, bytewise], ids=["whole", "bytewise"])
def test_invalid_utf8_is_a_stream_error(data: bytes, split: Split) -> None:
    with pytest.raises(StreamError):
        parse(split(data))


def test_invalid_utf8_in_dropped_tail_is_not_checked() -> None:
    assert parse([b"data: ok\n\ndata: \xff"]) == [SseEvent("ok")]


# --- encode ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "wire"),
    [
        (SseEvent("x"), b"data: x\n\n"),
        (SseEvent(""), b"data: \n\n"),
        (SseEvent("a\nb\r\nc\rd"), b"data: a\ndata: b\ndata: c\ndata: d\n\n"),
        (SseEvent("x", event="error", id="7", retry=1500), b"event: error\nid: 7\nretry: 1500\ndata: x\n\n"),
        (SseEvent("x", event="", id=""), b"id: \ndata: x\n\n"),
        (SseComment(" ping"), b": ping\n\n"),
        (SseComment(""), b":\n\n"),
    ],
)
def test_encode(item: SseItem, wire: bytes) -> None:
    assert encode(item) == wire


@pytest.mark.parametrize("event", [None, "", "error"])
@pytest.mark.parametrize("data", ["", "x", '{"a":1}', "a\nb", "a\r\nb\r", "é😀"])
def test_encode_data_matches_encode(data: str, event: str | None) -> None:
    assert encode_data(data, event) == encode(SseEvent(data, event))


@pytest.mark.parametrize(
    "item",
    [
        SseEvent("x", event="a\nb"),
        SseEvent("x", id="a\rb"),
        SseEvent("x", id="a\x00b"),
        SseEvent("x", retry=-1),
        SseComment("a\nb"),
    ],
)
def test_encode_rejects_unframeable_values(item: SseItem) -> None:
    with pytest.raises(ValueError):
        encode(item)


def test_encode_data_rejects_line_break_in_event() -> None:
    with pytest.raises(ValueError):
        encode_data("x", "a\r\nb")


# --- properties -------------------------------------------------------------------------------------

_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
_line = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=20)

events = st.builds(
    SseEvent,
    data=_text.map(lambda s: s.replace("\r", "")),  # the parser never yields CR in data
    event=st.none() | _line.filter(bool),  # "" reads back as None (the default type)
    id=st.none() | _line.filter(lambda s: "\0" not in s),
    retry=st.none() | st.integers(0, 2**40),
)
comments = st.builds(SseComment, _line)


@settings(max_examples=examples(200))
@given(st.lists(events | comments, max_size=8), st.booleans(), st.data())
def test_round_trip_any_chunking(items: list[SseItem], bom: bool, data: st.DataObject) -> None:
    wire = (BOM if bom else b"") + b"".join(encode(item) for item in items)
    assert parse(data.draw(chunkings(wire))) == items


@settings(max_examples=examples(200))
@given(st.lists(events | comments, max_size=8), st.data())
def test_foreign_line_ends_parse_the_same(items: list[SseItem], data: st.DataObject) -> None:
    wire = b"".join(encode(item) for item in items)
    eol = data.draw(st.sampled_from([b"\r\n", b"\r"]))
    assert parse(data.draw(chunkings(wire.replace(b"\n", eol)))) == items


_sse_bytes = st.lists(
    st.sampled_from([b"data", b"data:", b"event:", b"id:", b"retry:", b":", b" ", b"1", b"x", b"\xc3\xa9"])
    | st.sampled_from([b"\n", b"\r", b"\r\n", b"\x00", BOM, b"\xff", b"\xc3"])
    | st.binary(max_size=8),
    max_size=40,
).map(b"".join)


@settings(max_examples=examples(200))
@given(_sse_bytes, st.integers(1, 64), st.data())
def test_fuzz_parses_or_raises_our_error_independent_of_chunking(
    raw: bytes, limit: int, data: st.DataObject
) -> None:
    expected = outcome([raw], limit)
    assert outcome(data.draw(chunkings(raw)), limit) == expected
    assert outcome(bytewise(raw), limit) == expected


def test_parsed_events_are_the_frozen_value_objects_sse_event_builds() -> None:
    [parsed] = SseParser().feed(b"event: e\nid: 7\nretry: 10\ndata: a\ndata: b\n\n")
    built = SseEvent("a\nb", "e", "7", 10)
    assert type(parsed) is SseEvent and parsed == built and hash(parsed) == hash(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.data = "c"  # type: ignore[misc]


def test_a_data_line_that_is_not_utf8_or_too_large_is_still_refused() -> None:
    with pytest.raises(StreamError, match="at byte 7 of a line"):
        SseParser().feed(b"data: x\xff\n\n")
    with pytest.raises(LimitExceeded):
        SseParser(max_event_bytes=8).feed(b"data: 123456\n\n")


def test_map_data_lines_rewrites_each_data_value_and_keeps_the_rest() -> None:
    frames = b": ping\n\nevent: x\ndata: {\"a\":1}\n\ndata:{\"b\":2}\r\n\r\ndata: keep\n\n"
    out = map_data_lines(frames, lambda v: v.upper() if v.startswith(b"{") else v)
    assert out == b": ping\n\nevent: x\ndata: {\"A\":1}\n\ndata: {\"B\":2}\r\n\r\ndata: keep\n\n"
    assert map_data_lines(frames, lambda v: v) is frames
