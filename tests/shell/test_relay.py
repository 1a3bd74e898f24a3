"""The pass-through relay's event count (metrics, the drain's boundaries): the same however the stream is
chunked, with LF, CRLF or CR line ends mixed, and for LF-only streams (counted in C) the number of events."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from gateway.shell.relay import PassThrough


@st.composite
def streams(draw: st.DrawFn, eols: tuple[bytes, ...] = (b"\n", b"\r\n", b"\r")) -> tuple[bytes, int]:
    """Well-formed event streams (each event: some non-empty lines, then a blank line) and their event count."""
    events = draw(st.lists(st.tuples(st.lists(st.sampled_from([b"data: x", b": ping", b"id: 7", b"data: {}"]),
                                              min_size=1, max_size=3), st.sampled_from(eols)), max_size=12))
    return b"".join(b"".join(line + eol for line in lines) + eol for lines, eol in events), len(events)


def _count(whole: bytes, cuts: list[int]) -> tuple[int, bytes]:
    relay = PassThrough()
    out = []
    edges = sorted({0, len(whole), *(c % (len(whole) + 1) for c in cuts)})
    for start, end in itertools.pairwise(edges):
        out.append(relay.feed(whole[start:end]))
    return relay.events_out, b"".join(out)


@given(stream=streams(), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_the_count_does_not_depend_on_chunking(stream: tuple[bytes, int], cuts: list[int]) -> None:
    whole, events = stream
    assert _count(whole, cuts) == (events, whole)   # every event counted once; the bytes untouched


@given(stream=streams((b"\n",)), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_an_lf_only_stream_is_counted_in_c(stream: tuple[bytes, int], cuts: list[int]) -> None:
    whole, events = stream
    assert _count(whole, cuts)[0] == events == whole.count(b"\n\n")
