"""Metrics scraped from the admin endpoint after real exchanges through a gateway in front of a fake
agent: requests, latency, streams and events, notes, upstream errors, push outcomes, card refreshes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from gateway.core import jsoncodec
from gateway.shell.carrier.migration import MIGRATION
from gateway.shell.process.admin import ProcessStatus, build_admin_app
from gateway.shell.process.lifecycle import LIFECYCLE
from gateway.shell.process.metrics import (
    DURATION_LABELS,
    LATENCY_BUCKETS,
    METRICS,
    REQUEST_LABELS,
    Metrics,
    outcome_label,
    reference_markdown,
)
from gateway.shell.push.sender import PUSH_SENDER, MetricsPushCounter

V03_SEND = {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
V03_STREAM = {**V03_SEND, "method": "message/stream"}
V10_SEND = {"jsonrpc": "2.0", "id": "a", "method": "SendMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
# a non-object DataPart: translating it for a v0.3 client leaves a note
V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a1", "parts": [{"data": [1, 2]}]}]}
WORKING = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
DONE = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of `name` whose labels include `labels`."""
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


async def scrape(aiohttp_client: Any, gateway: Any) -> Samples:
    app = gateway.app
    lc = app[LIFECYCLE]
    admin = await aiohttp_client(build_admin_app(ProcessStatus(lc.readiness, app[METRICS].render,
                                                               lambda: lc.handled, app[MIGRATION].snapshot)))
    resp = await admin.get("/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=")
    return parse(await resp.text())


async def _post(client: Any, payload: Any, **headers: str) -> aiohttp.ClientResponse:
    resp: aiohttp.ClientResponse = await client.post(
        "/", data=jsoncodec.dumpb(payload), headers={"Content-Type": "application/json", **headers})
    await resp.read()
    return resp


async def test_exchanges_are_counted_by_operation_version_binding_and_outcome(
        fake_agent_factory, gateway_factory, aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    fake.reply_sse("SendStreamingMessage", [WORKING, DONE])
    gateway = await gateway_factory(fake.url)
    for _ in range(3):
        assert (await _post(gateway, V03_SEND)).status == 200        # translated, with a note each
    assert (await _post(gateway, V10_SEND, **{"A2A-Version": "1.0"})).status == 200  # pass-through
    assert (await _post(gateway, {**V03_SEND, "method": "tasks/explode"})).status == 200  # unknown method
    stream = await _post(gateway, V03_STREAM)
    assert stream.headers["Content-Type"].startswith("text/event-stream")

    m = await scrape(aiohttp_client, gateway)
    req = "a2a_gateway_requests_total"
    assert value(m, req, route="default", operation="send_message", client_version="0.3", upstream_version="1.0",
                 binding="JSONRPC", outcome="ok") == 3
    assert value(m, req, route="default", operation="send_message", client_version="1.0", upstream_version="1.0",
                 binding="JSONRPC", outcome="ok") == 1
    assert value(m, req, route="default", operation="send_streaming_message", client_version="0.3",
                 upstream_version="1.0", binding="JSONRPC", outcome="stream") == 1
    assert total(m, req, operation="unknown", outcome="error") == 1
    assert total(m, req) == 6
    hist = "a2a_gateway_request_duration_seconds"
    assert value(m, hist + "_count", route="default", operation="send_message", client_version="0.3",
                 upstream_version="1.0") == 3
    assert value(m, hist + "_bucket", route="default", operation="send_message", client_version="0.3",
                 upstream_version="1.0", le="+Inf") == 3
    assert {float(ls[1][1]) for (n, ls), _ in m.items() if n == hist + "_bucket" and ls[1][1] != "+Inf"} == set(
        LATENCY_BUCKETS)
    assert total(m, "a2a_gateway_translation_notes_total") >= 3
    assert value(m, "a2a_gateway_sse_events_relayed_total", mode="translated") == 2
    assert value(m, "a2a_gateway_open_streams") == 0
    assert value(m, "a2a_gateway_in_flight_requests") == 0
    assert value(m, "a2a_gateway_worker_requests") == 6
    assert value(m, "a2a_gateway_card_refreshes_total", outcome="ok") >= 1  # upstream.version "auto"
    assert total(m, "a2a_gateway_build_info") == 1


async def test_pass_through_streams_count_blocks_and_the_open_streams_gauge(
        fake_agent_factory, gateway_factory, aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [WORKING, WORKING, DONE], delay=0.3)
    gateway = await gateway_factory(fake.url, upstream__version="1.0")
    resp = await gateway.post("/", data=jsoncodec.dumpb({**V10_SEND, "method": "SendStreamingMessage"}),
                              headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
    await resp.content.readuntil(b"\n\n")
    lc = gateway.app[LIFECYCLE]
    assert lc.open_streams == 1
    m = await scrape(aiohttp_client, gateway)
    assert value(m, "a2a_gateway_open_streams") == 1
    assert value(m, "a2a_gateway_in_flight_requests") == 1
    await resp.read()
    m = await scrape(aiohttp_client, gateway)
    assert value(m, "a2a_gateway_open_streams") == 0
    assert value(m, "a2a_gateway_sse_events_relayed_total", mode="passthrough") == 3


async def test_upstream_errors_by_kind(fake_agent_factory, gateway_factory, aiohttp_client, unused_tcp_port) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", status=503, raw=b"<html>ingress says no</html>",
                    headers={"Content-Type": "text/html"})
    fake.reply_disconnect("SendMessage", mid_body=True)
    gateway = await gateway_factory(fake.url, upstream__version="1.0")
    resp = await _post(gateway, V03_SEND)
    assert resp.status == 200  # a JSON-RPC error in the caller's version
    await _post(gateway, V03_SEND)
    fake.reply_delay("SendMessage", 5)
    slow = await gateway_factory(fake.url, upstream__version="1.0", upstream__timeout__total_unary=0.2)
    await _post(slow, V03_SEND)
    down = await gateway_factory(f"http://127.0.0.1:{unused_tcp_port}", upstream__version="1.0",
                                 upstream__retry_backoff_seconds=0.001)
    await _post(down, V03_SEND)

    m = await scrape(aiohttp_client, gateway)
    kind = "a2a_gateway_upstream_errors_total"
    assert value(m, kind, kind="http_5xx") == 1
    assert value(m, kind, kind="bad_reply") == 1
    assert value(m, kind, kind="connect") == 0  # every kind is present from the start
    assert value((await scrape(aiohttp_client, slow)), kind, kind="timeout") == 1
    assert value((await scrape(aiohttp_client, down)), kind, kind="connect") == 1


async def test_push_outcomes_are_counted(fake_agent_factory, gateway_factory, aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    gateway = await gateway_factory(fake.url)
    counter = gateway.app[PUSH_SENDER].counter
    assert isinstance(counter, MetricsPushCounter)
    counter.add("delivered")
    counter.add("retry", 2)
    gateway.app[METRICS].push_delivery("failed")
    m = await scrape(aiohttp_client, gateway)
    push = "a2a_gateway_push_deliveries_total"
    assert (value(m, push, outcome="delivered"), value(m, push, outcome="retry"),
            value(m, push, outcome="failed")) == (1, 2, 1)
    assert counter.snapshot() == {"delivered": 1, "retry": 2}


async def test_a_cancelled_exchange_is_counted(fake_agent_factory, gateway_factory, aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_delay("SendMessage", 5)
    gateway = await gateway_factory(fake.url, upstream__version="1.0")
    task = asyncio.get_running_loop().create_task(_post(gateway, V03_SEND))
    await asyncio.wait_for(_until(lambda: len(fake.calls("SendMessage")) == 1), 5)
    task.cancel()  # the client leaves: the handler is cancelled
    await asyncio.wait_for(fake.on_disconnect.wait(), 5)
    await asyncio.wait_for(_until(lambda: gateway.app[LIFECYCLE].in_flight == 0), 5)
    m = await scrape(aiohttp_client, gateway)
    assert value(m, "a2a_gateway_requests_total", route="default", operation="send_message", client_version="0.3",
                 upstream_version="1.0", binding="JSONRPC", outcome="cancelled") == 1, m


def test_outcome_labels_are_a_small_set() -> None:
    assert [outcome_label(o, s) for o, s in [
        ("ok", 200), ("error -32001", 200), ("http 404", 404), ("http 200", 200), ("stream", 200),
        ("rejected", 400), (None, 500), (None, 200)]] == ["ok", "error", "error", "ok", "stream", "rejected",
                                                          "error", "ok"]


def test_registries_are_per_app() -> None:
    a, b = Metrics(), Metrics()
    a.upstream_error("timeout")
    assert b"a2a_gateway_upstream_errors_total{kind=\"timeout\"} 0.0" in b.render()
    assert b"a2a_gateway_upstream_errors_total{kind=\"timeout\"} 1.0" in a.render()


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


def test_the_operating_page_lists_every_metric() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "operating.md").read_text(encoding="utf-8")
    start, end = "<!-- metrics:start -->\n", "<!-- metrics:end -->"
    assert page[page.index(start) + len(start):page.index(end)] == reference_markdown(), (
        "docs/operating.md's metrics table is out of date; regenerate it from "
        "gateway.shell.process.metrics.reference_markdown()")


_LABELS = st.tuples(st.sampled_from(["default", "billing"]), st.sampled_from(["send_message", "get_task"]),
                    st.sampled_from(["0.3", "1.0"]), st.sampled_from(["0.3", "1.0"]),
                    st.sampled_from(["JSONRPC", "HTTP+JSON"]), st.sampled_from(["ok", "error", "cancelled"]))
_DURATIONS = st.one_of(st.sampled_from(LATENCY_BUCKETS), st.floats(0, 100, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_LABELS, _DURATIONS), max_size=30))
def test_one_process_writes_the_exchange_families_as_prometheus_client_writes_its_own(
        exchanges: list[tuple[tuple[str, ...], float]]) -> None:
    """The requests counter and the duration histogram of one process are counted without prometheus-client's
    children, yet read exactly as its own Counter and Histogram would (a duration on a bucket's bound counted
    in that bucket; a cancelled exchange counted, with no duration)."""
    metrics = Metrics(CollectorRegistry())
    reference = CollectorRegistry()
    requests = Counter("a2a_gateway_requests", next(iter(metrics.requests.describe())).documentation,
                       REQUEST_LABELS, registry=reference)
    duration = Histogram("a2a_gateway_request_duration_seconds", next(iter(metrics.duration.describe())).documentation,
                         DURATION_LABELS, buckets=LATENCY_BUCKETS, registry=reference)
    for (route, operation, client, upstream, binding, outcome), seconds in exchanges:
        requests.labels(route, operation, client, upstream, binding, outcome).inc()
        if outcome == "cancelled":
            metrics.cancelled(route=route, operation=operation, client_version=client, upstream_version=upstream,
                              binding=binding)
            continue
        duration.labels(route, operation, client, upstream).observe(seconds)
        metrics.exchange(route=route, operation=operation, client_version=client, upstream_version=upstream,
                         binding=binding, outcome=outcome, duration_s=seconds)
    ours = [line for line in metrics.render().decode().splitlines()
            if line.split("{")[0].split(" ")[-1].startswith(("a2a_gateway_requests", "a2a_gateway_request_duration"))
            or line.startswith(("# HELP a2a_gateway_request", "# TYPE a2a_gateway_request"))]
    assert ours == generate_latest(reference).decode().splitlines()
