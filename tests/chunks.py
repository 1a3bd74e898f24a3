"""How the byte-stream tests cut their input: whole, byte by byte, or at hypothesis-chosen points
(core/sse.py's parser and core/stream.py's relay must not depend on the chunking)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hypothesis import strategies as st

Split = Callable[[bytes], list[bytes]]


def whole(data: bytes) -> list[bytes]:
    return [data]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


@st.composite
def chunkings(draw: st.DrawFn, data: bytes) -> list[bytes]:
    """`data` split at arbitrary points (empty chunks included), like mitmproxy's `chunks`."""
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=min(len(data) + 2, 40))))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]
