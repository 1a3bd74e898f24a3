"""Streams and the drain: the pass-through knows where events end and cuts there when draining; a stream
handle counts its events, wakes its loop when stopped at an event boundary, and leaves when closed."""

from __future__ import annotations

import asyncio
from unittest import mock

import aiohttp
import pytest

from gateway.config import load
from gateway.shell.app import build_app
from gateway.shell.keys import LIFECYCLE
from gateway.shell.lifecycle import Lifecycle
from gateway.shell.lifecycle_streams import Drained
from gateway.shell.metrics import PREFIX
from gateway.shell.relay import PassThrough
from tests.shell.test_metrics import parse, value


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_pass_through_knows_where_events_end_and_cuts_there_when_draining(eol: bytes) -> None:
    events = [b"data: {\"n\": %d}" % i + eol + b"id: %d" % i + eol + eol for i in range(3)]
    whole = b"".join(events)
    for size in (1, 2, 3, 7, len(whole)):
        relay = PassThrough()
        assert relay.at_boundary
        out, boundaries = [], []
        for i in range(0, len(whole), size):
            out.append(relay.feed(whole[i:i + size]))
            boundaries.append(relay.at_boundary)
        assert b"".join(out) == whole  # untouched
        assert relay.events_out == 3 and relay.at_boundary
        ends = {len(events[0]), len(events[0]) + len(events[1]), len(whole)}
        if eol == b"\r\n":  # after "\r\n\r" the event has ended already: a CR alone ends a line
            ends |= {e - 1 for e in ends}
        assert [min(i + size, len(whole)) in ends for i in range(0, len(whole), size)] == boundaries

    relay = PassThrough()
    assert relay.feed(events[0][:5]) == events[0][:5]
    relay.stopping = True  # the drain: the rest of this event, nothing after it
    assert relay.feed(events[0][5:] + events[1]) == events[0][5:]
    assert relay.at_boundary and relay.feed(events[2]) == b""


def _metric(lc: Lifecycle, name: str, **labels: str) -> float:
    return value(parse(lc.metrics.render().decode()), PREFIX + name, **labels)


async def test_a_stream_handle_counts_events_and_stops_at_an_event_boundary() -> None:
    lc = build_app(load(None, {}, {"upstream.url": "http://127.0.0.1:9", "log.format": "console"}))[LIFECYCLE]
    loop = asyncio.get_running_loop()
    reader = aiohttp.StreamReader(mock.Mock(), 2**16, loop=loop)
    relay = PassThrough()
    handle = lc.stream(reader, relay, "passthrough")
    assert lc.open_streams == 1 and _metric(lc, "open_streams") == 1

    relay.feed(b"data: 1\n\ndata: 2\n\ndata: 3")  # two whole events and the start of a third
    handle.sync()
    handle.sync()  # counted once
    assert _metric(lc, "sse_events_relayed_total", mode="passthrough") == 2

    assert lc.stop_streams() == 1
    assert handle.stopping and relay.stopping
    assert reader.exception() is None  # in the middle of an event: the loop finishes it first
    relay.feed(b"\n\ndata: 4\n\n")
    handle.sync()
    assert _metric(lc, "sse_events_relayed_total", mode="passthrough") == 3  # the third, not the fourth

    late_reader = aiohttp.StreamReader(mock.Mock(), 2**16, loop=loop)
    late = lc.stream(late_reader, PassThrough(), "passthrough")  # opened during the drain: stopped at once
    assert late.stopping and isinstance(late_reader.exception(), Drained)

    handle.close()
    late.close()
    assert lc.open_streams == 0 and _metric(lc, "open_streams") == 0
