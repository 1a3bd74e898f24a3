"""Owns the Prometheus metrics of one gateway process: a per-app registry (tests build many apps), the
names, types and labels of every series, and the text exposition; it decides nothing about requests."""

# Several workers (`server.workers` > 1) share nothing in memory, and SO_REUSEPORT hides them behind one
# port, so a scrape cannot pick a worker: they run in prometheus-client's multiprocess mode instead
# (PROMETHEUS_MULTIPROC_DIR, set by the parent before any worker starts), and the parent's admin
# listener serves the sum over the workers' files (`multiprocess_registry`). Gauges say how they
# combine: `livesum` for counts of open things, `liveall` (one series per pid) for per-worker state.

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator

from aiohttp import web
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from gateway import __version__
from gateway.core.notes import Note
from gateway.shell.agent.link_failures import CLASSES

__all__ = ["CONTENT_TYPE", "DURATION_LABELS", "LATENCY_BUCKETS", "MULTIPROC_ENV", "REQUEST_LABELS", "Metrics",
           "SupervisorMetrics", "multiprocess_registry", "outcome_label", "reference_markdown",
           "render"]

PREFIX = "a2a_gateway_"
# every name here is a classic one, so the body is the 0.0.4 text format every Prometheus version reads
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# 1 ms .. 60 s: unary translation adds well under a millisecond; streams last as long as their task.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
OUTCOMES = frozenset({"ok", "stream", "error", "rejected", "cancelled"})
UPSTREAM_ERROR_KINDS = ("connect", "timeout", "bad_reply", "http_5xx", "stream_broken")
OVERLOAD_LIMITS = ("limits.max_client_connections", "limits.max_connections", "limits.max_stream_connections")
CLIENT_TIMEOUT_PHASES = ("headers", "body")
# the labels of the two families every exchange counts into
DURATION_LABELS = ("route", "operation", "client_version", "upstream_version")
REQUEST_LABELS = (*DURATION_LABELS, "binding", "outcome")


def outcome_label(outcome: object, status: int) -> str:
    """The exchange log's free-form `outcome` ("ok", "error -32001", "http 404", "stream", …) folded into
    a small label set: ok, stream, error, rejected, cancelled."""
    head = outcome.split(" ", 1)[0] if isinstance(outcome, str) else ""
    if head in OUTCOMES:
        return head
    return "ok" if status < 400 else "error"


class Metrics:
    """Every series of one gateway process, registered in its own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        # no `*_created` series: they double the output and nobody graphs them
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        # the two families every exchange counts into: in one process kept by _Exchanges (plain counts, read
        # when scraped); with several workers prometheus-client's own, whose values live in the shared files
        local = values.ValueClass is values.MutexValue
        self.requests = Counter(
            PREFIX + "requests", "Exchanges answered, by route, operation, client and upstream version, "
            "client binding and outcome (ok, stream, error, rejected, cancelled).",
            REQUEST_LABELS, registry=None if local else r)
        self.duration = Histogram(
            PREFIX + "request_duration_seconds", "Time from request to the end of the reply (for "
            "streaming operations: the stream's lifetime).",
            DURATION_LABELS, buckets=LATENCY_BUCKETS, registry=None if local else r)
        self._local = _Exchanges(self.requests, self.duration) if local else None
        if self._local is not None:
            r.register(self._local)
        self.in_flight = Gauge(PREFIX + "in_flight_requests", "Requests being handled.",
                               registry=r, multiprocess_mode="livesum")
        self.open_streams = Gauge(PREFIX + "open_streams", "SSE streams being relayed.",
                                  registry=r, multiprocess_mode="livesum")
        self.sse_events = Counter(
            PREFIX + "sse_events_relayed", "SSE events written to clients (comments excluded, error events "
            "included), by mode: translated or passthrough.", ("mode",), registry=r)
        self.notes = Counter(PREFIX + "translation_notes", "Translation notes (loss, coercion, defaults) "
                             "of exchanges, by code.", ("code",), registry=r)
        self.upstream_errors = Counter(
            PREFIX + "upstream_errors", "Failed upstream calls by kind: connect, timeout, bad_reply, "
            "http_5xx, stream_broken.", ("kind",), registry=r)
        self.upstream_retries = Counter(
            PREFIX + "upstream_retries", "Upstream calls sent again, by reason: refused, unreachable, "
            "name_not_resolved (no connection could be opened), dead_connection (the pooled one was closed "
            "before a byte was written), reset (the agent reset the connection with the request unread), and "
            "for read-only calls closed_early, http_502, http_503, http_504.", ("reason",), registry=r)
        self.upstream_failures = Counter(
            PREFIX + "upstream_failures", "Failed upstream calls by failure class (gateway.shell.agent.link_failures): "
            "refused, unreachable, name_not_resolved, tls_verification, tls_handshake, connect_deadline, "
            "head_deadline, idle_deadline, total_deadline, dead_connection, reset, closed_early, "
            "malformed_reply, oversized_reply; agent_down for calls answered at once while the agent is "
            "known down.", ("failure",), registry=r)
        self.agents_down = Gauge(PREFIX + "upstream_agents_down", "Agent addresses known down (a call found "
                                 "them unreachable; a background check looks for them coming back).", registry=r,
                                 multiprocess_mode="livesum")
        self.push = Counter(PREFIX + "push_deliveries", "Push-relay events by outcome (received, "
                            "delivered, retry, rejected, refused, failed, …).", ("outcome",), registry=r)
        self.card_refreshes = Counter(PREFIX + "card_refreshes", "Upstream agent-card fetches by outcome.",
                                      ("outcome",), registry=r)
        self.card_signatures = Counter(PREFIX + "card_signature_checks", "Upstream agent-card signature checks "
                                       "([card] verify keys) by result: valid, invalid, unsigned.", ("result",),
                                       registry=r)
        self.version_checks = Counter(
            PREFIX + "upstream_version_checks", "Agent interfaces probed for the version they really speak "
            "(upstream.version = auto), by outcome: verified (the card's claim proven), corrected (the agent "
            "answered the other version: its card lies), unverified (the probe proved nothing).", ("outcome",),
            registry=r)
        self.config_reloads = _config_reloads(r)
        self.overloaded = Counter(PREFIX + "connection_limit_rejections", "Requests answered 503 "
                                  "GATEWAY_OVERLOADED because the gateway itself was saturated, by the limit "
                                  "reached: limits.max_client_connections, limits.max_connections (unary "
                                  "calls' pool) or limits.max_stream_connections (streams' pool).", ("limit",),
                                  registry=r)
        self.edge_refusals = Counter(PREFIX + "edge_refusals", "Requests the edge refused before their door: "
                                     "unauthenticated (401), permission_denied (403), rate_limited (429).",
                                     ("reason",), registry=r)
        self.callers_store_errors = Counter(PREFIX + "callers_store_errors", "Per-caller limit checks made "
                                            "without their shared store (callers.store = redis unreachable: the "
                                            "caller admitted), by operation: take, open, close, renew.", ("op",),
                                            registry=r)
        self.client_timeouts = Counter(PREFIX + "client_timeouts", "Client connections closed because the "
                                       "client was too slow, by phase: headers (server.header_timeout_seconds), "
                                       "body (server.body_timeout_seconds).", ("phase",), registry=r)
        self.ready = Gauge(PREFIX + "ready", "1 while the process is ready for traffic (with several "
                           "workers: one series per worker, label `pid`).", registry=r,
                           multiprocess_mode="liveall")
        self.worker_requests = Gauge(PREFIX + "worker_requests", "Requests taken by this process since it "
                                     "started (with several workers: one series per worker, label `pid`).",
                                     registry=r, multiprocess_mode="liveall")
        self.build_info = Gauge(PREFIX + "build_info", "The gateway's version.", ("version",), registry=r,
                                multiprocess_mode="max")
        self.build_info.labels(__version__).set(1)
        for kind in UPSTREAM_ERROR_KINDS:  # present at 0 from the start, so rate() sees the first error
            self.upstream_errors.labels(kind)
        for failure in (*CLASSES, "agent_down"):
            self.upstream_failures.labels(failure)
        for limit in OVERLOAD_LIMITS:
            self.overloaded.labels(limit)
        for phase in CLIENT_TIMEOUT_PHASES:
            self.client_timeouts.labels(phase)
        # labels() validates and locks on every call; an exchange's series are looked up once, and so are
        # the children the relay and the upstream count into (per chunk of a stream, per failure)
        self._series: dict[tuple[str, ...], tuple[Counter, Histogram]] = {}
        self._children: dict[tuple[Counter, str], Counter] = {}

    def follow(self, in_flight: Callable[[], float], handled: Callable[[], float]) -> bool:
        """Read the in-flight and handled counts from these functions when scraped, so that requests need
        not write the two gauges; False (nothing done) in multiprocess mode, where a scrape reads the
        workers' files and each request must write them."""
        if values.ValueClass is not values.MutexValue:
            return False
        self.in_flight.set_function(in_flight)
        self.worker_requests.set_function(handled)
        return True

    # ---- one exchange (the pipeline's finish) -----------------------------------------------------

    def exchange(self, *, operation: str, client_version: str, upstream_version: str, binding: str,
                 outcome: str, duration_s: float, notes: Iterable[Note] = (), route: str = "default") -> None:
        key = (route, operation, client_version, upstream_version, binding, outcome)
        if self._local is not None:
            self._local.add(key, duration_s)
            if notes:
                self.count_notes(notes)
            return
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = (self.requests.labels(*key),
                                          self.duration.labels(route, operation, client_version, upstream_version))
        series[0].inc()
        series[1].observe(duration_s)
        self.count_notes(notes)

    def cancelled(self, *, route: str, operation: str, client_version: str, upstream_version: str,
                  binding: str) -> None:
        """An exchange whose handler was cancelled: counted (outcome `cancelled`), with no duration."""
        key = (route, operation, client_version, upstream_version, binding, "cancelled")
        if self._local is not None:
            self._local.add(key, None)
        else:
            self.requests.labels(*key).inc()

    def count_notes(self, notes: Iterable[Note]) -> None:
        """Translation notes made outside an exchange's line (a push delivery's)."""
        for note in notes:
            self._child(self.notes, note.code).inc()

    # ---- the API of the other shell modules ------------------------------------------------------

    def _child(self, counter: Counter, label: str) -> Counter:
        """`counter.labels(label)`, looked up once."""
        key = (counter, label)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = counter.labels(label)
        return child

    def upstream_error(self, kind: str) -> None:
        self._child(self.upstream_errors, kind).inc()

    def upstream_failure(self, failure: str) -> None:
        self._child(self.upstream_failures, failure).inc()

    def upstream_retry(self, reason: str) -> None:
        self.upstream_retries.labels(reason).inc()

    def overload(self, limit: str) -> None:
        """A request refused because the gateway reached `limit` (a key of OVERLOAD_LIMITS)."""
        self._child(self.overloaded, limit).inc()

    def edge_refusal(self, reason: str) -> None:
        self.edge_refusals.labels(reason).inc()

    def callers_store_error(self, op: str) -> None:
        self._child(self.callers_store_errors, op).inc()

    def client_timeout(self, phase: str) -> None:
        self._child(self.client_timeouts, phase).inc()

    def push_delivery(self, outcome: str, n: int = 1) -> None:
        self._child(self.push, outcome).inc(n)

    def version_check(self, outcome: str) -> None:
        self.version_checks.labels(outcome).inc()

    def card_refresh(self, outcome: str) -> None:
        self._child(self.card_refreshes, outcome).inc()

    def card_signature(self, result: str) -> None:
        self.card_signatures.labels(result).inc()

    def config_reload(self, outcome: str) -> None:
        self._child(self.config_reloads, outcome).inc()

    def events_relayed(self, n: int, mode: str) -> None:
        self._child(self.sse_events, mode).inc(n)

    def render(self) -> bytes:
        return render(self.registry)


class _Exchanges(Collector):
    """The requests counter and the duration histogram of one process, counted in plain Python and exposed
    as prometheus-client writes its own two (same names, labels, buckets and text) when the registry is
    collected. Each exchange adds to one count and one list of bucket counts: prometheus-client's
    children take a value lock per count (three per exchange) and walk the buckets in Python, ~12,000
    instructions an exchange. One event loop counts and scrapes, so the counts need no lock."""

    def __init__(self, requests: Counter, duration: Histogram) -> None:
        self._requests = next(iter(requests.describe()))   # the families' names and help
        self._duration = next(iter(duration.describe()))
        self._le = [floatToGoString(b) for b in LATENCY_BUCKETS] + ["+Inf"]   # type: ignore[no-untyped-call]
        self.counts: dict[tuple[str, ...], int] = {}
        # (route, operation, client_version, upstream_version) -> [count per bucket..., count past the last, sum]
        self.durations: dict[tuple[str, ...], list[float]] = {}

    def add(self, key: tuple[str, ...], duration_s: float | None) -> None:
        counts = self.counts
        counts[key] = counts.get(key, 0) + 1
        if duration_s is None:
            return
        series = self.durations.get(key[:4])
        if series is None:
            series = self.durations[key[:4]] = [0.0] * (len(LATENCY_BUCKETS) + 2)
        series[bisect_left(LATENCY_BUCKETS, duration_s)] += 1   # le is inclusive: a bound's own value is in it
        series[-1] += duration_s

    def describe(self) -> Iterator[Metric]:
        return iter(self._families())

    def _families(self) -> tuple[CounterMetricFamily, HistogramMetricFamily]:
        return (CounterMetricFamily(self._requests.name, self._requests.documentation, labels=REQUEST_LABELS),
                HistogramMetricFamily(self._duration.name, self._duration.documentation, labels=DURATION_LABELS))

    def collect(self) -> Iterator[Metric]:
        requests, duration = self._families()
        for key, n in self.counts.items():
            requests.add_metric(key, n)
        yield requests
        for key, series in self.durations.items():
            cumulative, buckets = 0.0, []
            for le, in_bucket in zip(self._le, series[:-1], strict=True):
                cumulative += in_bucket
                buckets.append((le, cumulative))
            duration.add_metric(key, buckets, series[-1])
        yield duration


def _config_reloads(registry: CollectorRegistry | None) -> Counter:
    return Counter(PREFIX + "config_reloads", "SIGHUP configuration reloads by outcome (ok, error).",
                   ("outcome",), registry=registry)


class SupervisorMetrics:
    """The parent's own series (workers > 1). Registered nowhere: in multiprocess mode they go to the
    same files as the workers' and are summed with them."""

    def __init__(self) -> None:
        self.config_reloads = _config_reloads(None)
        self.worker_restarts = Counter(PREFIX + "worker_restarts", "Workers restarted after they exited "
                                       "unexpectedly.", registry=None)


def render(registry: CollectorRegistry) -> bytes:
    """The Prometheus text exposition of `registry`."""
    return generate_latest(registry)


def reference_markdown() -> str:
    """The metrics table of docs/operating.md, generated from the definitions above (so it cannot drift)."""
    rows = ["| Metric | Type | Labels | Description |", "|---|---|---|---|"]
    seen: set[str] = set()
    for owner in (Metrics(CollectorRegistry()), SupervisorMetrics()):
        for metric in vars(owner).values():
            if not isinstance(metric, Counter | Gauge | Histogram):
                continue
            family = next(iter(metric.describe()))
            name = family.name + ("_total" if family.type == "counter" else "")
            if name in seen:
                continue
            seen.add(name)
            labels = ", ".join(f"`{label}`" for label in getattr(metric, "_labelnames", ()))
            doc = family.documentation.replace("|", "\\|")
            rows.append(f"| `{name}` | {family.type} | {labels} | {doc} |")
    return "\n".join(rows) + "\n"


def multiprocess_registry(path: str | None = None) -> CollectorRegistry:
    """A registry that sums every worker's files in the multiprocess directory (the parent's /metrics)."""
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    path = path or os.environ[MULTIPROC_ENV]
    multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    return registry


# the app key of the one instance an app holds
METRICS = web.AppKey("metrics", Metrics)
