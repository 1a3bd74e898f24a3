"""Owns OpenTelemetry tracing (the `otel` extra, `tracing.enabled`): a server span per request continuing
the caller's trace, A2A attributes, `traceparent` upstream. Off, build_app never imports this module."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

from aiohttp import web

from gateway import __version__
from gateway.config import ConfigError, Problem, TracingSettings
from gateway.observability import bound

__all__ = ["TRACING", "Tracing"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# bound log fields (gateway.observability) copied onto the span
_ATTRIBUTES = {
    "operation": "a2a.operation",
    "method": "a2a.method",
    "client_version": "a2a.client_version",
    "upstream_version": "a2a.upstream_version",
    "binding": "a2a.binding",
    "request_id": "a2a.request_id",
}


class Tracing:
    """One app's tracer provider, its request middleware and the upstream header injector."""

    def __init__(self, settings: TracingSettings) -> None:
        from opentelemetry import propagate, trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

        self._trace = trace
        self._propagate = propagate
        # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES still win over this default
        self.provider = TracerProvider(resource=Resource.create({"service.name": "a2a-gateway",
                                                                 "service.version": __version__}))
        exporter: SpanExporter | None = None
        if settings.exporter == "console":
            exporter = ConsoleSpanExporter()
        elif settings.exporter == "otlp":
            try:  # an optional package: imported by name so that type checks run without it
                otlp = importlib.import_module("opentelemetry.exporter.otlp.proto.http.trace_exporter")
            except ImportError:
                raise ConfigError([Problem("tracing.exporter", "\"otlp\" needs opentelemetry-exporter-otlp-"
                                           "proto-http: install a2a-gateway[otel], or choose \"console\" or "
                                           "\"none\"")]) from None
            exporter = otlp.OTLPSpanExporter()
        if exporter is not None:
            self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("a2a-gateway", __version__)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        parent = self._propagate.extract(request.headers)
        with self.tracer.start_as_current_span(f"{request.method} {request.path}", context=parent,
                                               kind=self._trace.SpanKind.SERVER) as span:
            span.set_attribute("http.request.method", request.method)
            span.set_attribute("url.path", request.path)
            try:
                response = await handler(request)
            finally:
                fields = bound()
                for key, name in _ATTRIBUTES.items():
                    if fields.get(key) is not None:
                        span.set_attribute(name, str(fields[key]))
                if fields.get("operation") is not None:
                    span.update_name(f"A2A {fields['operation']}")
            span.set_attribute("http.response.status_code", response.status)
            if response.status >= 500:
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR))
            return response

    def inject(self, headers: MutableMapping[str, str]) -> None:
        """Write the current trace context (`traceparent`, `tracestate`) into upstream request headers."""
        self._propagate.inject(headers)

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        yield
        self.provider.shutdown()  # flushes the batch processor


    def add_exporter(self, exporter: Any) -> None:
        """Export every span synchronously to `exporter` as well (tests, debugging)."""
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor

        self.provider.add_span_processor(SimpleSpanProcessor(exporter))


TRACING = web.AppKey("tracing", Tracing)
