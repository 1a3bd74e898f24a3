"""CheckedStream: the agent's bytes relayed untouched, whole events only, whatever the chunking and line
ends; the first bad event, a cut, an oversized event or a broken upstream become one error event in the
client's shape with its id; nothing after the terminal event."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.core.errors import UpstreamTimeout
from gateway.core.notes import Cx
from gateway.core.passthrough import CheckedStream
from gateway.core.stream import SseFrames
from gateway.core.types import JSONRPC, REST, V03REST, V03RPC, V10, Binding, Dialect

RPC_ID = "req-7"


def checked(dialect: Dialect = V10, binding: Binding = JSONRPC, max_event_bytes: int = 1 << 20) -> CheckedStream:
    frames = SseFrames(dialect, binding, RPC_ID, Cx(), "py03")
    return CheckedStream(frames, dialect=dialect, binding=binding, max_event_bytes=max_event_bytes)


def rpc(result: Any) -> bytes:
    return b"data: " + json.dumps({"jsonrpc": "2.0", "id": RPC_ID, "result": result}).encode() + b"\n\n"


V10_WORKING = rpc({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}})
V10_DONE = rpc({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}})
V10_TASK = rpc({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}})
V03_WORKING = rpc({"kind": "status-update", "taskId": "t", "status": {"state": "working"}, "final": False})
V03_FINAL = rpc({"kind": "status-update", "taskId": "t", "status": {"state": "input-required"}, "final": True})
V03_DONE = rpc({"kind": "status-update", "taskId": "t", "status": {"state": "completed"}})


def run(relay: CheckedStream, chunks: list[bytes], *, close: bool = True) -> bytes:
    out = b"".join(relay.feed(c) for c in chunks)
    return out + (relay.close() if close else b"")


def error_of(out: bytes) -> dict[str, Any]:
    """The one error event at the end of `out`."""
    _, _, last = out.rstrip(b"\n").rpartition(b"event: error\n")
    assert last.startswith(b"data: "), out
    body: dict[str, Any] = json.loads(last[6:])
    return body


def chunked(whole: bytes, cuts: list[int]) -> list[bytes]:
    edges = sorted({0, len(whole), *(c % (len(whole) + 1) for c in cuts)})
    return [whole[a:b] for a, b in itertools.pairwise(edges)]


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """Valid v1.0 JSON-RPC streams in awkward framing: CRLF, CR or LF, comments, multi-line data, fields."""
    eol = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    events = []
    for _ in range(draw(st.integers(0, 6))):
        body = V10_WORKING[6:-2]
        parts = body.replace(b", ", b",\0").split(b"\0")  # one data line, or one per member
        lines = [b"data: " + body] if draw(st.booleans()) else [b"data:" + part for part in parts]
        extra = draw(st.lists(st.sampled_from([b": ping", b"id: 7", b"event: message", b"retry: 10"]), max_size=2))
        events.append(eol.join(extra + lines) + eol + eol)
    bom = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    return bom + b"".join(events) + V10_DONE.replace(b"\n", eol)


@given(streams(), st.lists(st.integers(0, 2000), max_size=12))
def test_valid_streams_pass_untouched_whatever_the_chunking(whole: bytes, cuts: list[int]) -> None:
    relay = checked()
    assert run(relay, chunked(whole, cuts)) == whole
    assert relay.done


def test_one_byte_chunks_and_no_trailing_blank_line_before_a_clean_end() -> None:
    whole = V10_TASK + V10_WORKING
    relay = checked()
    assert run(relay, [whole[i:i + 1] for i in range(len(whole))]) == whole
    relay = checked()
    assert run(relay, [whole + b"\n"]) == whole + b"\n"  # a lone line break after the last event is no event
    for end in (b"", b"\n", b"\r\n"):  # a clean end without the blank line: the last event completed
        relay = checked()
        assert run(relay, [V10_TASK + V10_WORKING.rstrip(b"\n") + end]) == V10_TASK + V10_WORKING[:-2] + end \
            + (b"\n" if end else b"\n\n")


def test_a_partial_event_is_held_until_its_end() -> None:
    relay = checked()
    assert relay.feed(V10_TASK[:20]) == b""
    assert relay.feed(V10_TASK[20:]) == V10_TASK


@pytest.mark.parametrize(("case", "stream"), [
    ("not JSON", b"data: <html>\n\n"),
    ("truncated JSON", b'data: {"jsonrpc": "2.0", "id": "req-7", "result": {\n\n'),
    ("NaN", b'data: {"jsonrpc": "2.0", "id": "req-7", "result": {"x": NaN}}\n\n'),
    ("lone surrogate", b'data: {"jsonrpc": "2.0", "id": "req-7", "result": {"x": "\\ud800"}}\n\n'),
    ("invalid UTF-8", b'data: {"jsonrpc": "2.0", "id": "req-7", "result": {"x": "\xff"}}\n\n'),
    ("no JSON-RPC envelope", b'data: {"statusUpdate": {}}\n\n'),
    ("a scalar result", rpc(3)),
])
def test_a_bad_event_is_not_relayed_and_ends_the_stream(case: str, stream: bytes) -> None:
    relay = checked()
    out = run(relay, [V10_TASK + stream + V10_WORKING])
    assert out.startswith(V10_TASK) and out.count(b"\n\n") == 2, case
    error = error_of(out)
    assert error["id"] == RPC_ID and error["error"]["code"] == -32006  # InvalidAgentResponse, the caller's id
    assert relay.done and relay.feed(V10_WORKING) == b""


def test_a_cut_mid_event_is_an_error_event() -> None:
    relay = checked()
    out = run(relay, [V10_TASK + V10_WORKING[:30]])
    assert out.startswith(V10_TASK)
    assert error_of(out)["id"] == RPC_ID


def test_an_oversized_event_is_an_error_event() -> None:
    relay = checked(max_event_bytes=1000)
    out = run(relay, [V10_TASK, b"data: " + b"x" * 600, b"y" * 600], close=False)
    assert out.startswith(V10_TASK) and error_of(out)["id"] == RPC_ID and relay.done


def test_a_broken_upstream_is_an_error_event_with_the_id() -> None:
    relay = checked(V03RPC)
    assert error_of(relay.feed(V03_WORKING) + relay.fail(UpstreamTimeout()))["id"] == RPC_ID


@pytest.mark.parametrize(("dialect", "binding", "stream", "kept"), [
    (V03RPC, JSONRPC, V03_WORKING + V03_FINAL + V03_WORKING, 2),   # final: true
    (V03RPC, JSONRPC, V03_WORKING + V03_DONE + V03_WORKING, 2),    # a terminal state without final
    (V03RPC, JSONRPC, rpc({"kind": "message", "messageId": "m"}) + V03_WORKING, 1),  # a Message first
    (V03RPC, JSONRPC, rpc({"kind": "task", "id": "t", "status": {"state": "failed"}}) + V03_WORKING, 1),
    (V10, JSONRPC, V10_TASK + V10_DONE + V10_WORKING, 2),
    (V10, JSONRPC, V10_TASK + rpc({"task": {"id": "t", "status": {"state": 4}}}) + V10_WORKING, 2),  # number
    (V10, JSONRPC, V10_TASK + b'data: {"jsonrpc": "2.0", "id": "req-7", "error": {"code": -32001, '
     b'"message": "no"}}\n\n' + V10_WORKING, 2),                    # an agent error ends it too
    (V10, REST, b'data: {"task": {"id": "t"}}\n\n' + b'data: {"statusUpdate": {"status": {"state": '
     b'"TASK_STATE_CANCELED"}}}\n\n' + b'data: {"task": {}}\n\n', 2),
    (V10, REST, b'event: error\ndata: {"error": {"code": 404}}\n\ndata: {"task": {}}\n\n', 1),
    (V03REST, REST, b'data: {"statusUpdate": {"status": {"state": "TASK_STATE_CANCELLED"}}}\n\n'
     b'data: {"task": {}}\n\n', 1),
    (V03REST, REST, b'data: {"statusUpdate": {"final": true}}\n\ndata: {"task": {}}\n\n', 1),
])
def test_nothing_is_relayed_after_the_terminal_event(dialect: Dialect, binding: Binding, stream: bytes,
                                                     kept: int) -> None:
    relay = checked(dialect, binding)
    out = run(relay, [stream])
    assert out.count(b"\n\n") == kept and stream.startswith(out) and relay.done
    assert relay.events_out == kept


def test_rest_errors_are_in_the_rest_shape() -> None:
    relay = checked(V10, REST)
    body = error_of(run(relay, [b"data: nope\n\n"]))
    assert body["error"]["status"] == "INTERNAL_ERROR" or "code" in body["error"]


def test_comments_alone_are_relayed() -> None:
    relay = checked()
    assert run(relay, [b": keep-alive\n\n" + V10_TASK], close=False) == b": keep-alive\n\n" + V10_TASK
    assert relay.events_out == 1


ARTIFACT = rpc({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": [{"text": "lorem " * 30}]}}})


@pytest.mark.parametrize("size", [1 << 20, 16384, 1000, 97])
@pytest.mark.parametrize(("case", "event", "kept"), [
    ("not JSON", b"data: this is not json\n\n", False),
    ("cut short", ARTIFACT[:80] + b"\n\n", False),
    ("an agent error", b'data: {"jsonrpc": "2.0", "id": "req-7", "error": {"code": -1, "message": "no"}}\n\n', True),
    ("NaN", ARTIFACT[:-4] + b', "x": NaN}}\n\n', False),
    ("terminal", V10_DONE, True),
    ("terminal after a field line", b"id: 5\n" + V10_DONE, True),
    ("terminal as a number", rpc({"statusUpdate": {"taskId": "t", "status": {"state": 3}}}), True),
])
@pytest.mark.parametrize("at", [1, 60, 250])
def test_one_event_among_many_plain_ones_is_found(size: int, case: str, event: bytes, kept: bool, at: int) -> None:
    """Past the first item, whole windows of plain events pass by byte counts: an event that fails or ends
    the stream is found wherever it is and however the stream is cut."""
    events = [V10_TASK, *[ARTIFACT] * 300]
    whole = b"".join(events[:at]) + event + b"".join(events[at:]) + V10_DONE
    relay = checked()
    out = run(relay, chunked(whole, list(range(size, len(whole), size))))
    before = b"".join(events[:at])
    assert relay.done, case
    if kept:
        assert out == before + event, case
        assert relay.events_out == at + 1
    else:
        assert out.startswith(before) and error_of(out)["id"] == RPC_ID, case
        assert out.count(b"\n\n") == at + 1 and relay.events_out == at + 1


def test_an_agent_whose_envelope_is_not_plain_is_read_event_by_event() -> None:
    """No lead is learned from an envelope the bytes do not show plainly: every event is parsed."""
    odd = b'data: {"result" : {"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}, ' \
          b'"jsonrpc": "2.0", "id": "req-7"}\n\n'
    relay = checked()
    whole = odd + ARTIFACT * 50 + b"data: nope\n\n" + ARTIFACT
    out = run(relay, [whole])
    assert out.startswith(odd + ARTIFACT * 50) and error_of(out)["id"] == RPC_ID


def _rest(item: Any) -> bytes:
    return b"data: " + json.dumps(item).encode() + b"\n\n"


V03_ARTIFACT = rpc({"kind": "artifact-update", "taskId": "t", "artifact": {"artifactId": "a", "parts": [
    {"kind": "text", "text": "lorem " * 30}]}})
REST_ARTIFACT = _rest({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a",
                                                                       "parts": [{"text": "x " * 90}]}}})


@pytest.mark.parametrize(("dialect", "binding", "first", "plain", "terminal"), [
    (V03RPC, JSONRPC, rpc({"kind": "task", "id": "t", "status": {"state": "submitted"}}), V03_ARTIFACT, V03_FINAL),
    (V03RPC, JSONRPC, rpc({"kind": "task", "id": "t", "status": {"state": "submitted"}}), V03_ARTIFACT, V03_DONE),
    (V10, REST, _rest({"task": {"id": "t"}}), REST_ARTIFACT,
     _rest({"statusUpdate": {"status": {"state": "TASK_STATE_CANCELED"}}})),
    (V03REST, REST, _rest({"task": {"id": "t"}}), REST_ARTIFACT, _rest({"statusUpdate": {"final": True}})),
])
@pytest.mark.parametrize("size", [1 << 20, 4096])
def test_the_terminal_event_among_plain_ones_ends_every_dialect(dialect: Dialect, binding: Binding, first: bytes,
                                                                 plain: bytes, terminal: bytes, size: int) -> None:
    before = first + plain * 120
    whole = before + terminal + plain * 5
    relay = checked(dialect, binding)
    assert run(relay, chunked(whole, list(range(size, len(whole), size)))) == before + terminal
    assert relay.done and relay.events_out == 122


def test_a_v10_stream_with_a_v03_item_teaches_that_its_agent_speaks_v03() -> None:
    """langgraph-api behind a 1.0 card: its events after the first are flat v0.3 ones, relayed as they came."""
    relay = checked()
    first = rpc({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
    assert relay.feed(first) == first and not relay.spoke_v03
    flat = rpc({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "completed"},
                "final": True})
    assert relay.feed(flat) == flat and relay.spoke_v03
    assert not checked(V03RPC).spoke_v03  # a v0.3 stream's items all name their kind
