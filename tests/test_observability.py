"""Tests for gateway/observability.py: one JSON line per exchange with the bound context, level
filtering, the console renderer, stdlib logging routed through, notes logged and counted; fields bound
per context (None skipped, enums by value, kept apart between tasks); counts by key across threads."""

from __future__ import annotations

import contextvars
import io
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from structlog.testing import capture_logs

from gateway import observability as obs
from gateway.config import LogSettings
from gateway.core.notes import Note
from gateway.core.types import Binding, Version

JSON_INFO = LogSettings(format="json", level="info")


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    obs.clear()
    obs.NOTE_COUNTER.reset()
    yield
    obs.clear()
    obs.reset()
    obs.NOTE_COUNTER.reset()


def lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_exchange_line_is_one_json_object_with_context(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    obs.bind_exchange(
        request_id="r-1",
        client_version=Version.V03,
        upstream_version=Version.V10,
        method="message/send",
        binding=Binding.JSONRPC,
    )
    obs.log_exchange(status=200, duration_ms=12.5)
    [line] = lines(capsys)
    assert line["event"] == "exchange"
    assert line["level"] == "info"
    assert line["logger"] == "gateway.exchange"
    assert line["request_id"] == "r-1"
    assert line["client_version"] == "0.3"
    assert line["upstream_version"] == "1.0"
    assert line["method"] == "message/send"
    assert line["binding"] == "JSONRPC"
    assert line["status"] == 200
    assert line["duration_ms"] == 12.5
    assert "notes" not in line
    assert line["timestamp"].endswith("Z") and "T" in line["timestamp"]


def test_none_values_are_not_bound_and_clear_forgets(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    obs.bind_exchange(request_id="r-2", method=None)
    obs.bind(task_state="TASK_STATE_COMPLETED")
    obs.get_logger("t").info("one")
    obs.clear()
    obs.get_logger("t").info("two")
    first, second = lines(capsys)
    assert first["request_id"] == "r-2" and "method" not in first
    assert first["task_state"] == "TASK_STATE_COMPLETED"
    assert "request_id" not in second and "task_state" not in second


def test_notes_go_into_the_exchange_line_and_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    notes = [
        Note("unknown_field", "$.message.extra"),
        Note("dropped", "$.parts[0].metadata", "no v0.3 equivalent"),
        Note("unknown_field", "$.task.x"),
    ]
    obs.log_exchange(status=200, notes=notes)
    [line] = lines(capsys)
    assert line["notes"] == [
        {"code": "unknown_field", "path": "$.message.extra"},
        {"code": "dropped", "path": "$.parts[0].metadata", "detail": "no v0.3 equivalent"},
        {"code": "unknown_field", "path": "$.task.x"},
    ]
    assert obs.NOTE_COUNTER.snapshot() == {"unknown_field": 2, "dropped": 1}


def test_log_notes(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    log = obs.get_logger("gateway.push")
    obs.log_notes(log, [Note("defaulted", "$.status.timestamp")], route="abc")
    obs.log_notes(log, [])  # nothing to say: no line
    [line] = lines(capsys)
    assert line["event"] == "translation_notes"
    assert line["logger"] == "gateway.push"
    assert line["route"] == "abc"
    assert line["notes"] == [{"code": "defaulted", "path": "$.status.timestamp"}]
    assert obs.NOTE_COUNTER.snapshot() == {"defaulted": 1}


def test_level_filtering(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(LogSettings(format="json", level="warning"))
    log = obs.get_logger("t")
    log.info("hidden")
    log.warning("shown")
    obs.log_exchange(status=200)  # info: filtered
    obs.log_exchange(status=502, level="error")
    assert [(line["event"], line["level"]) for line in lines(capsys)] == [
        ("shown", "warning"),
        ("exchange", "error"),
    ]


def test_exceptions_are_rendered_into_the_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    try:
        raise ValueError("boom")
    except ValueError:
        obs.get_logger("t").exception("failed")
    [line] = lines(capsys)
    assert line["level"] == "error"
    assert "ValueError: boom" in line["exception"]


def test_stdlib_logging_is_rendered_the_same_way(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(JSON_INFO)
    obs.bind_exchange(request_id="r-3")
    logging.getLogger("aiohttp.server").warning("bad %s", "request")
    logging.getLogger("aiohttp.server").debug("filtered")
    [line] = lines(capsys)
    assert line["event"] == "bad request"
    assert line["logger"] == "aiohttp.server"
    assert line["level"] == "warning"
    assert line["request_id"] == "r-3"


def test_console_format(capsys: pytest.CaptureFixture[str]) -> None:
    obs.configure(LogSettings(format="console", level="debug"))
    obs.bind_exchange(request_id="r-4")
    obs.get_logger("t").debug("hello", n=1)
    out = capsys.readouterr().out
    assert "hello" in out and "request_id=r-4" in out and "n=1" in out
    assert "\x1b[" not in out  # no colors when not a terminal
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


def test_reconfigure_replaces_the_stdlib_handler() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    obs.configure(JSON_INFO)
    obs.configure(LogSettings(format="console", level="info"))
    assert len(root.handlers) == len(before) + 1
    obs.reset()
    assert root.handlers == before


def test_explicit_stream() -> None:
    buf = io.StringIO()
    obs.configure(JSON_INFO, stream=buf)
    obs.log_exchange(status=204)
    assert json.loads(buf.getvalue())["status"] == 204


# --- the per-exchange context ---------------------------------------------------------------------


def test_bind_exchange_skips_none_and_logs_enums_by_value() -> None:
    obs.bind_exchange(request_id="r-1", client_version=Version.V03, upstream_version=None, method="m",
                      binding=Binding.JSONRPC, route=None, kind=Binding.REST)
    assert obs.bound() == {"request_id": "r-1", "client_version": "0.3", "method": "m", "binding": "JSONRPC",
                           "kind": "HTTP+JSON"}


def test_bind_adds_and_overrides_clear_forgets() -> None:
    obs.bind_exchange(request_id="r-1", method="a")
    obs.bind(method="b", task_state=None, state=Version.V10)
    assert obs.bound() == {"request_id": "r-1", "method": "b", "state": "1.0"}
    snapshot = obs.bound()
    snapshot["request_id"] = "changed"
    assert obs.bound()["request_id"] == "r-1"  # a copy
    obs.clear()
    assert obs.bound() == {}


def test_plain() -> None:
    assert obs.plain(Version.V03) == "0.3"
    assert obs.plain(7) == 7


def test_merge_exchange_puts_bound_fields_under_the_line_fields() -> None:
    obs.bind(request_id="r-1", method="m")
    line = obs.merge_exchange(None, "info", {"event": "x", "method": "own"})
    assert line == {"event": "x", "method": "own", "request_id": "r-1"}


def test_a_task_sees_the_fields_so_far_and_keeps_its_own() -> None:
    obs.bind(request_id="r-1")

    def task() -> dict[str, object]:
        obs.bind(inner=1)
        return obs.bound()

    assert contextvars.copy_context().run(task) == {"request_id": "r-1", "inner": 1}
    assert obs.bound() == {"request_id": "r-1"}


def test_bound_fields_reach_a_line_written_to_any_stream() -> None:
    buf = io.StringIO()
    obs.configure(LogSettings(format="json", level="info"), stream=buf)
    obs.bind_exchange(request_id="r-2")
    obs.log_exchange(status=200)
    assert json.loads(buf.getvalue())["request_id"] == "r-2"


# --- counters -------------------------------------------------------------------------------------


def test_key_counter_counts_across_threads() -> None:
    counter = obs.KeyCounter()

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
    counter = obs.NoteCounter()
    counter.add([Note("a", "$"), Note("b", "$"), Note("a", "$.x")])
    counter.add([])
    assert counter.snapshot() == {"a": 2, "b": 1}
    snap = counter.snapshot()
    snap["a"] = 99
    assert counter.snapshot()["a"] == 2  # a copy
    counter.reset()
    assert counter.snapshot() == {}


def test_notes_as_json_has_detail_only_when_present() -> None:
    assert obs.notes_as_json([Note("a", "$.x"), Note("b", "$.y", "why")]) == [
        {"code": "a", "path": "$.x"},
        {"code": "b", "path": "$.y", "detail": "why"},
    ]
    assert obs.notes_as_json([]) == []


def test_log_notes_feeds_the_one_note_counter() -> None:
    obs.log_notes(obs.get_logger("t"), [Note("x", "$")])
    assert obs.NOTE_COUNTER.snapshot() == {"x": 1}


def test_the_direct_exchange_line_is_the_one_structlog_writes() -> None:
    buf = io.StringIO()
    obs.configure(JSON_INFO, stream=buf)
    obs.bind_exchange(request_id="r-5", client_version=Version.V10, binding=Binding.JSONRPC, method="SendMessage")
    fields: dict[str, Any] = {"status": 200, "duration_ms": 1.25, "outcome": "ok", "method": "own",
                              "upstream_binding": Binding.REST, "passthrough": True}
    obs.log_exchange(notes=[Note("dropped", "$.x")], **fields)  # the direct line
    obs.log_exchange(notes=[Note("dropped", "$.x")], logger=obs.get_logger("gateway.exchange"), **fields)
    obs.log_exchange(status=200, level="debug")  # below the level: no line either way
    direct, generic = (json.loads(line) for line in buf.getvalue().splitlines())
    assert list(direct) == list(generic)  # the same members in the same order
    assert {**direct, "timestamp": ""} == {**generic, "timestamp": ""}
    assert direct["method"] == "own" and direct["upstream_binding"] == "HTTP+JSON"


def test_the_direct_line_gives_way_to_a_changed_configuration() -> None:
    obs.configure(JSON_INFO, stream=io.StringIO())
    with capture_logs() as captured:
        obs.log_exchange(status=201)
    assert captured == [{"status": 201, "event": "exchange", "log_level": "info"}]
