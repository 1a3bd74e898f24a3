"""Tests for gateway/observability_context.py: fields bound per context (None skipped, enums by value),
merged under a line's own fields, kept apart between tasks, and shared with gateway.observability."""

from __future__ import annotations

import contextvars
import io
import json
from collections.abc import Iterator

import pytest

from gateway import observability, observability_context
from gateway.config import LogSettings
from gateway.core.types import Binding, Version
from gateway.observability_context import bind, bind_exchange, bound, clear, merge_exchange, plain


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    clear()
    yield
    clear()


def test_bind_exchange_skips_none_and_logs_enums_by_value() -> None:
    bind_exchange(request_id="r-1", client_version=Version.V03, upstream_version=None, method="m",
                  binding=Binding.JSONRPC, route=None, kind=Binding.REST)
    assert bound() == {"request_id": "r-1", "client_version": "0.3", "method": "m", "binding": "JSONRPC",
                       "kind": "HTTP+JSON"}


def test_bind_adds_and_overrides_clear_forgets() -> None:
    bind_exchange(request_id="r-1", method="a")
    bind(method="b", task_state=None, state=Version.V10)
    assert bound() == {"request_id": "r-1", "method": "b", "state": "1.0"}
    snapshot = bound()
    snapshot["request_id"] = "changed"
    assert bound()["request_id"] == "r-1"  # a copy
    clear()
    assert bound() == {}


def test_plain() -> None:
    assert plain(Version.V03) == "0.3"
    assert plain(7) == 7


def test_merge_exchange_puts_bound_fields_under_the_line_fields() -> None:
    bind(request_id="r-1", method="m")
    line = merge_exchange(None, "info", {"event": "x", "method": "own"})
    assert line == {"event": "x", "method": "own", "request_id": "r-1"}


def test_a_task_sees_the_fields_so_far_and_keeps_its_own() -> None:
    bind(request_id="r-1")

    def task() -> dict[str, object]:
        bind(inner=1)
        return bound()

    assert contextvars.copy_context().run(task) == {"request_id": "r-1", "inner": 1}
    assert bound() == {"request_id": "r-1"}


def test_one_context_shared_with_gateway_observability() -> None:
    assert observability.bind is observability_context.bind and observability.bound is bound
    buf = io.StringIO()
    observability.configure(LogSettings(format="json", level="info"), stream=buf)
    try:
        bind_exchange(request_id="r-2")
        observability.log_exchange(status=200)
    finally:
        observability.reset()
    assert json.loads(buf.getvalue())["request_id"] == "r-2"
