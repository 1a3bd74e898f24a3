"""Tests for gateway/observability_counters.py: counts by key (copies out, reset, safe across threads),
notes counted by code, notes in their log form, and the one NOTE_COUNTER gateway.observability shares."""

from __future__ import annotations

import threading

from gateway import observability, observability_counters
from gateway.core.notes import Note
from gateway.observability_counters import NOTE_COUNTER, KeyCounter, NoteCounter, notes_as_json


def test_key_counter_counts_across_threads() -> None:
    counter = KeyCounter()

    def work() -> None:
        for _ in range(1000):
            counter.count(["a", "b"])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter.snapshot() == {"a": 8000, "b": 8000}


def test_note_counter() -> None:
    counter = NoteCounter()
    counter.add([Note("a", "$"), Note("b", "$"), Note("a", "$.x")])
    counter.add([])
    assert counter.snapshot() == {"a": 2, "b": 1}
    snap = counter.snapshot()
    snap["a"] = 99
    assert counter.snapshot()["a"] == 2  # a copy
    counter.reset()
    assert counter.snapshot() == {}


def test_notes_as_json_has_detail_only_when_present() -> None:
    assert notes_as_json([Note("a", "$.x"), Note("b", "$.y", "why")]) == [
        {"code": "a", "path": "$.x"},
        {"code": "b", "path": "$.y", "detail": "why"},
    ]
    assert notes_as_json([]) == []


def test_one_note_counter_shared_with_gateway_observability() -> None:
    assert observability.NOTE_COUNTER is NOTE_COUNTER is observability_counters.NOTE_COUNTER
    assert observability.KeyCounter is KeyCounter and observability.notes_as_json is notes_as_json
    NOTE_COUNTER.reset()
    try:
        observability.log_notes(observability.get_logger("t"), [Note("x", "$")])
        assert NOTE_COUNTER.snapshot() == {"x": 1}
    finally:
        NOTE_COUNTER.reset()
