"""OpenTelemetry (the `otel` extra): one server span per request that continues the caller's trace,
with the A2A attributes, and the trace context passed to the upstream agent in `traceparent`."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from gateway.core import jsoncodec
from gateway.shell.process.tracing import TRACING

V03_SEND = {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
TASK = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


async def test_a_server_span_per_exchange_and_the_context_passed_upstream(fake_agent_factory,
                                                                          gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", TASK)
    gateway = await gateway_factory(fake.url, upstream__version="1.0", tracing__enabled=True,
                                    tracing__exporter="none")
    spans = InMemorySpanExporter()
    gateway.app[TRACING].add_exporter(spans)
    resp = await gateway.post("/", data=jsoncodec.dumpb(V03_SEND),
                              headers={"Content-Type": "application/json", "traceparent": CALLER})
    assert resp.status == 200
    (span,) = spans.get_finished_spans()
    assert span.kind is SpanKind.SERVER
    assert span.name == "A2A send_message"
    assert format(span.context.trace_id, "032x") == CALLER_TRACE  # the caller's trace goes on
    assert span.attributes is not None
    assert span.attributes["a2a.client_version"] == "0.3"
    assert span.attributes["a2a.upstream_version"] == "1.0"
    assert span.attributes["a2a.method"] == "message/send"
    assert span.attributes["http.response.status_code"] == 200
    sent = fake.calls("SendMessage")[0].headers["traceparent"]
    assert sent == f"00-{CALLER_TRACE}-{format(span.context.span_id, '016x')}-01"  # child of our span


async def test_tracing_off_leaves_the_callers_traceparent_untouched(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", TASK)
    gateway = await gateway_factory(fake.url, upstream__version="1.0")
    assert TRACING not in gateway.app
    await gateway.post("/", data=jsoncodec.dumpb(V03_SEND),
                       headers={"Content-Type": "application/json", "traceparent": CALLER})
    assert fake.calls("SendMessage")[0].headers["traceparent"] == CALLER
