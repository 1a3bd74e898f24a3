"""core.timestamps: the canonical form, the repair of what agents write instead (fasta2a's
`datetime.now().isoformat()`, …), the byte test of an agent's habit, and a same-version stream repaired."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core import jsoncodec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.passthrough import CheckedStream
from gateway.core.stream import SseFrames
from gateway.core.timestamps import RepairingStream, canonical, habit_of, repair, repair_body, repair_statuses
from gateway.core.types import Binding, Dialect


def _notes(cx: Cx) -> list[tuple[str, str, str]]:
    return [(n.code, n.path, n.detail) for n in cx.notes]


@pytest.mark.parametrize(("value", "expected", "details"), [
    ("2025-04-02T16:59:25Z", "2025-04-02T16:59:25Z", []),
    ("2025-04-02T16:59:25.123456789Z", "2025-04-02T16:59:25.123456789Z", []),
    ("2025-04-02T16:59:25.331844", "2025-04-02T16:59:25.331844Z", ["naive, taken as UTC"]),  # fasta2a's
    ("2025-04-02 16:59:25.5", "2025-04-02T16:59:25.5Z", ["naive, taken as UTC"]),
    ("2025-04-02 16:59:25Z", "2025-04-02T16:59:25Z", ["spelling"]),
    ("2025-04-02t16:59:25z", "2025-04-02T16:59:25Z", ["spelling"]),
    ("2025-04-02T16:59:25,25Z", "2025-04-02T16:59:25.25Z", ["spelling"]),
    ("2025-04-02T16:59:25.1234567891234Z", "2025-04-02T16:59:25.123456789Z", ["fraction cut to nanoseconds"]),
    ("2025-04-02T16:59:25.1234567891", "2025-04-02T16:59:25.123456789Z",
     ["fraction cut to nanoseconds", "naive, taken as UTC"]),
    ("2025-04-02T18:59:25.5+02:00", "2025-04-02T16:59:25.5Z", ["offset converted to UTC"]),
    ("2025-04-02T00:30:00-0130", "2025-04-02T02:00:00Z", ["offset converted to UTC"]),
    ("2025-01-01T01:00:00+02", "2024-12-31T23:00:00Z", ["offset converted to UTC"]),
])
def test_canonical(value: str, expected: str, details: list[str]) -> None:
    cx = Cx()
    assert canonical(value, cx, "$.t") == expected
    assert _notes(cx) == [("timestamp_normalized", "$.t", d) for d in details]


@pytest.mark.parametrize("value", ["yesterday", "2025-13-02T16:59:25", "2025-04-02T25:00:00", "2025-04-02",
                                   "2025-04-02T16:59:25+24:00", "2025-04-02T16:59:25Zjunk"])
def test_canonical_refuses_what_is_no_date_time(value: str) -> None:
    with pytest.raises(TranslationError):
        canonical(value, Cx(), "$")


def test_repair_keeps_what_readers_accept() -> None:
    cx = Cx()
    for value in ("2025-04-02T18:59:25.5+02:00", "2025-04-02T16:59:25Z", "not a date"):
        assert repair(value, cx, "$") is value
    assert cx.notes == []
    assert repair("2025-04-02T16:59:25", cx, "$") == "2025-04-02T16:59:25Z"


NAIVE, FIXED = "2025-04-02T16:59:25.331844", "2025-04-02T16:59:25.331844Z"


@pytest.mark.parametrize(("value", "path"), [
    ({"id": "t", "status": {"state": "TASK_STATE_WORKING", "timestamp": NAIVE}}, "$.status.timestamp"),
    ({"task": {"id": "t", "status": {"timestamp": NAIVE}}}, "$.task.status.timestamp"),
    ({"statusUpdate": {"taskId": "t", "status": {"timestamp": NAIVE}}}, "$.statusUpdate.status.timestamp"),
    ({"kind": "status-update", "status": {"state": "working", "timestamp": NAIVE}}, "$.status.timestamp"),
    ({"tasks": [{"id": "a"}, {"id": "t", "status": {"timestamp": NAIVE}}]}, "$.tasks[1].status.timestamp"),
])
def test_repair_statuses_finds_every_status(value: dict[str, Any], path: str) -> None:
    cx = Cx()
    assert repair_statuses(value, cx)
    assert jsoncodec.dumps(value).count(FIXED) == 1 and NAIVE + '"' not in jsoncodec.dumps(value)
    assert _notes(cx) == [("timestamp_normalized", path, "naive, taken as UTC")]


def test_repair_statuses_leaves_user_data_and_good_values() -> None:
    value = {"task": {"status": {"timestamp": FIXED}, "metadata": {"status": {"timestamp": NAIVE}}}}
    before = jsoncodec.dumps(value)
    assert not repair_statuses(value, Cx())
    assert jsoncodec.dumps(value) == before
    assert not repair_statuses([1], Cx()) and not repair_statuses("x", Cx())


def test_habit_of() -> None:
    assert habit_of(b'{"result":{"message":{}}}') is None
    assert habit_of(b'{"metadata":{"timestamp":3}}') is None
    assert habit_of(b'{"status":{"timestamp":"2025-04-02T16:59:25Z"}}') is False
    assert habit_of(b'{"status":{"timestamp": "2025-04-02T16:59:25+02:00"}}') is False
    assert habit_of(b'{"a":{"timestamp":"2025-04-02T16:59:25Z"},"b":{"timestamp":"2025-04-02T16:59:25"}}') is True


def test_repair_body() -> None:
    cx = Cx()
    honest = b'{"jsonrpc":"2.0","id":1,"result":{"task":{"status":{"timestamp":"2025-04-02T16:59:25Z"}}}}'
    assert repair_body(honest, True, cx) is honest
    body = b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"timestamp":"%s"}}}}' % NAIVE.encode()
    assert jsoncodec.loads(repair_body(body, True, cx)) == {
        "jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t", "status": {"timestamp": FIXED}}}}
    assert _notes(cx) == [("timestamp_normalized", "$.result.task.status.timestamp", "naive, taken as UTC")]
    rest = b'{"id":"t","status":{"timestamp":"%s"}}' % NAIVE.encode()
    assert jsoncodec.loads(repair_body(rest, False, Cx())) == {"id": "t", "status": {"timestamp": FIXED}}
    assert repair_body(b"{not json", True, Cx()) == b"{not json"


def _stream(habit: bool | None) -> RepairingStream:
    cx = Cx()
    frames = SseFrames(Dialect.V10, Binding.JSONRPC, 1, cx, "v10")
    return RepairingStream(CheckedStream(frames, dialect=Dialect.V10, binding=Binding.JSONRPC), jsonrpc=True,
                           cx=cx, habit=habit)


def _event(item: dict[str, Any], crlf: bool = False) -> bytes:
    line = b"data: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": item})
    return line + (b"\r\n\r\n" if crlf else b"\n\n")


def _status(state: str, stamp: str) -> dict[str, Any]:
    return {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": state, "timestamp": stamp}}}


def test_a_stream_of_an_agent_with_the_habit_is_repaired_event_by_event() -> None:
    relay = _stream(None)
    first = _event({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED",
                                                                       "timestamp": NAIVE}}})
    out = relay.feed(first + b": ping\n\n" + _event({"artifactUpdate": {"taskId": "t"}}))
    assert relay.habit is True
    assert NAIVE.encode() + b'"' not in out and FIXED.encode() in out and b": ping\n\n" in out
    out += relay.feed(_event(_status("TASK_STATE_COMPLETED", "2025-04-02 17:00:00"), crlf=True))
    assert out.endswith(b'"2025-04-02T17:00:00Z"}}}}\r\n\r\n') and relay.done
    assert relay.events_out == 3
    assert [n.detail for n in relay.cx.notes] == ["naive, taken as UTC", "naive, taken as UTC"]


def test_an_honest_stream_passes_as_it_is() -> None:
    relay = _stream(None)
    events = _event(_status("TASK_STATE_WORKING", FIXED)) + _event(_status("TASK_STATE_COMPLETED", FIXED))
    assert relay.feed(events) == events
    assert relay.habit is False and relay.cx.notes == []
    # a stream whose habit is known honest is not looked at (nor repaired) again
    relay = _stream(False)
    bad = _event(_status("TASK_STATE_COMPLETED", NAIVE))
    assert relay.feed(bad) == bad and relay.habit is False
