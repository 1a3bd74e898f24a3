"""Owns the table of keys: SECTIONS (each section's doc) and _BASE_SCHEMA, every non-quirk key with
its kind, default, documentation, check and command-line flag."""

from __future__ import annotations

import types

from gateway.config.checks import (
    _NON_NEGATIVE,
    _ONE_OR_MORE,
    _POSITIVE,
    _check_a2ui_versions,
    _check_admin_listen,
    _check_cidrs,
    _check_event_loop,
    _check_headers,
    _check_listen,
    _check_public_url,
    _check_push_keys,
    _check_tenant,
    _check_tracing,
    _check_upstream_url,
    _check_webhook_base,
    _check_webhook_path,
)
from gateway.config.key import REQUIRED, Key

SECTIONS: dict[str, str] = {
    "server": "The listening side: where clients connect and how the gateway presents itself.",
    "upstream": "The agent behind the gateway.",
    "upstream.timeout": "Timeouts for calls to the upstream agent, in seconds.",
    "limits": "Size and concurrency limits.",
    "push": "The push-notification relay: client webhooks are registered upstream as the gateway's own "
    "webhook, with the client's route sealed (encrypted) into its URL, so any replica can deliver.",
    "quirks": "Per-peer compatibility switches for known differences between A2A implementations "
    "(wire-mapping.md §10.5). The defaults follow the specification.",
    "agui": "The AG-UI front door (POST /agui): AG-UI clients such as CopilotKit in front of the A2A "
    "agent, with A2UI surfaces as activity snapshots.",
    "log": "Logging.",
    "admin": "The admin listener: GET /healthz (the process is alive), /readyz (the upstream agent is known "
    "and the gateway is not draining; 503 with a JSON reason otherwise), /metrics (Prometheus text) and "
    "/workers (the worker processes). It is never served on the main listener.",
    "tracing": "OpenTelemetry tracing (the `otel` extra): a server span per request, and the W3C trace "
    "context (`traceparent`) passed to the upstream agent.",
}

_MIB = 1024 * 1024

_BASE_SCHEMA: tuple[Key, ...] = (
    Key("server.listen", "str", "127.0.0.1:8080",
        "Address to listen on, HOST:PORT (IPv6 as [ADDR]:PORT). Use 0.0.0.0:8080 in a container.",
        check=_check_listen, cli="--listen"),
    Key("server.public_url", "str", "",
        "Base URL clients use to reach the gateway, written into the agent card it serves. Empty "
        "means derive it from each request (Host, and X-Forwarded-* from trusted proxies).",
        check=_check_public_url, cli="--public-url"),
    Key("server.trusted_proxies", "list", (),
        "IP addresses or CIDR blocks of reverse proxies whose X-Forwarded-* headers are believed. "
        "Empty means ignore those headers.",
        check=_check_cidrs),
    Key("server.version_mode", "enum", "lenient",
        "What to do when a request's A2A-Version header contradicts its JSON-RPC method spelling: "
        "\"lenient\" serves it in the version the method spelling implies, \"strict\" rejects it.",
        choices=("lenient", "strict")),
    Key("server.heartbeat_seconds", "float", 15.0,
        "Interval of SSE keep-alive comments sent to clients on quiet streams; 0 disables them.",
        check=_NON_NEGATIVE),
    Key("server.shutdown_grace_seconds", "float", 30.0,
        "On SIGTERM readiness fails at once and the listener stops accepting; in-flight requests then "
        "have this long to finish (streams are ended earlier, see stream_drain_seconds). Whatever is "
        "left is cancelled and the process exits 0.",
        check=_NON_NEGATIVE),
    Key("server.stream_drain_seconds", "float", 5.0,
        "On SIGTERM, how long open streams keep relaying before each is ended after its last complete "
        "event (a `: draining` comment, then the end of the response); capped by "
        "shutdown_grace_seconds. 0 ends them at once.",
        check=_NON_NEGATIVE),
    Key("server.workers", "int", 1,
        "Worker processes sharing the listen port (SO_REUSEPORT; needs a fixed port). Above 1 a parent "
        "process starts them, forwards SIGTERM and SIGHUP, and serves the admin listener with their "
        "metrics combined. Under Kubernetes keep 1 and scale with replicas.",
        check=_ONE_OR_MORE),
    Key("server.event_loop", "enum", "auto",
        "The asyncio event loop: \"auto\" uses uvloop when it is installed (the `uvloop` extra), "
        "\"uvloop\" requires it, \"asyncio\" is the standard loop.",
        choices=("auto", "asyncio", "uvloop"), check=_check_event_loop),
    Key("upstream.url", "str", REQUIRED,
        "URL of the upstream agent: its JSON-RPC endpoint or HTTP+JSON base URL. Required: set it "
        "here, with A2A_GATEWAY_UPSTREAM_URL, or with --upstream.",
        check=_check_upstream_url, example='"http://127.0.0.1:9999"', cli="--upstream"),
    Key("upstream.version", "enum", "auto",
        "A2A version the upstream agent speaks; \"auto\" reads it from the agent card.",
        choices=("auto", "0.3", "1.0")),
    Key("upstream.binding", "enum", "auto",
        "Protocol binding used to call the upstream agent; \"auto\" uses the agent card's "
        "preferred binding.",
        choices=("auto", "JSONRPC", "HTTP+JSON")),
    Key("upstream.tenant", "str", "",
        "Tenant path segment for v1.0 upstream calls; empty means none.",
        check=_check_tenant),
    Key("upstream.card_refresh_seconds", "float", 300.0,
        "How often the upstream agent card is fetched again.",
        check=_POSITIVE),
    Key("upstream.card_retry_seconds", "float", 5.0,
        "Delay before retrying a failed agent-card fetch.",
        check=_POSITIVE),
    Key("upstream.headers", "table", types.MappingProxyType({}),
        "Extra headers added to every upstream request, e.g. Authorization. From the environment: "
        "comma-separated Name=value pairs (values cannot contain commas); it replaces the whole "
        "table.",
        check=_check_headers, example='{ Authorization = "Bearer <token>" }'),
    Key("upstream.timeout.connect", "float", 5.0,
        "Time to open a connection to the upstream agent.",
        check=_POSITIVE),
    Key("upstream.timeout.first_byte", "float", 60.0,
        "Time from sending a request to the first byte of the reply (a unary reply or the first "
        "byte of a stream).",
        check=_POSITIVE),
    Key("upstream.timeout.idle_stream", "float", 300.0,
        "Longest silence allowed on an upstream stream before it is closed.",
        check=_POSITIVE),
    Key("upstream.timeout.total_unary", "float", 120.0,
        "Total time for one non-streaming upstream call.",
        check=_POSITIVE),
    Key("limits.max_body_bytes", "int", 10 * _MIB,
        "Largest request or reply body accepted, in bytes (default 10 MiB).",
        check=_ONE_OR_MORE),
    Key("limits.max_sse_event_bytes", "int", 4 * _MIB,
        "Largest single SSE event accepted from the upstream, in bytes (default 4 MiB).",
        check=_ONE_OR_MORE),
    Key("limits.max_connections", "int", 100,
        "Most simultaneous connections to the upstream agent (the client pool size). A call waits for "
        "a free connection within upstream.timeout.connect.",
        check=_ONE_OR_MORE),
    Key("limits.max_client_connections", "int", 4096,
        "Most simultaneous client connections per worker process; a request on a connection beyond "
        "it is answered 503 with Retry-After and its connection closed.",
        check=_ONE_OR_MORE),
    Key("push.enabled", "bool", True,
        "Relay push notifications between versions; false passes clients' webhook configs through "
        "unchanged."),
    Key("push.keys", "list", (),
        "Base64 32-byte keys that seal webhook routes; the first seals, all open, so rotate by "
        "prepending a new key and dropping the old one later. Every replica needs the same keys. Empty "
        "means a random key per process (a warning at start): registrations then break on restart and "
        "on other replicas.",
        check=_check_push_keys, example='["<base64 of 32 random bytes>"]'),
    Key("push.webhook_base_url", "str", "",
        "Base URL at which the upstream agent reaches the gateway's webhook. Empty means "
        "server.public_url, else http:// plus server.listen (loopback for an unspecified host: the "
        "sidecar case).",
        check=_check_webhook_base),
    Key("push.webhook_path", "str", "/a2a-push",
        "Path prefix of the gateway's webhook; the sealed route follows it as one more segment.",
        check=_check_webhook_path),
    Key("push.allow_networks", "list", (),
        "IP addresses or CIDR blocks that client webhooks may resolve to although they are loopback, "
        "private, link-local or otherwise non-public (refused by default against SSRF).",
        check=_check_cidrs),
    Key("push.max_concurrency", "int", 32,
        "Most webhook deliveries in flight at once.",
        check=_ONE_OR_MORE),
    Key("push.max_attempts", "int", 5,
        "Attempts per delivery (timeouts, connection errors, 408, 429 and 5xx are retried).",
        check=_ONE_OR_MORE),
    Key("push.backoff_seconds", "float", 0.5,
        "Delay before the first retry; it doubles per attempt (with jitter), up to 30 seconds.",
        check=_NON_NEGATIVE),
    Key("push.timeout_seconds", "float", 10.0,
        "Time allowed for one delivery attempt to the client's webhook.",
        check=_POSITIVE),
    Key("push.max_body_bytes", "int", 4 * _MIB,
        "Largest notification body accepted from the upstream agent, in bytes (default 4 MiB).",
        check=_ONE_OR_MORE),
    Key("agui.contextid_mode", "enum", "server",
        "\"server\": the agent issues the A2A contextId on a thread's first run and the gateway keeps "
        "it; \"thread\": the AG-UI threadId is sent as the contextId (only for agents that accept "
        "client-chosen ids).",
        choices=("server", "thread")),
    Key("agui.unknown_surface", "enum", "lenient",
        "A user action on a surface the thread does not know (or deleted): \"lenient\" forwards it "
        "with a CUSTOM a2ui.warning event, \"strict\" ends the run with RUN_ERROR.",
        choices=("lenient", "strict")),
    Key("agui.action_encoding", "enum", "auto",
        "How a user action is encoded for the agent: \"auto\" in the A2UI version of its surface, a "
        "version to force one, \"bare\" for the action object alone.",
        choices=("auto", "v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0", "bare")),
    Key("agui.a2ui_versions", "list", ("v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0"),
        "A2UI versions the gateway may activate; the newest one the agent card also lists is used.",
        check=_check_a2ui_versions),
    Key("agui.a2ui_sniff", "bool", True,
        "Recognise A2UI messages in DataParts without an A2UI media type by their shape.",),
    Key("agui.input_required_as_interrupt", "bool", False,
        "End input-required runs of AG-UI 1.0 clients with an interrupt outcome (clients must then "
        "answer with resume); off: a plain RUN_FINISHED, which A2UI action runs need.",),
    Key("agui.snapshot_mode", "enum", "log",
        "How a surface's ACTIVITY_SNAPSHOT carries it: \"log\", every A2UI message so far (as agui.ex); "
        "\"compact\", createSurface, one updateComponents with components merged by id and one "
        "updateDataModel with the folded data model. Logs over agui.compact_above_bytes are compacted "
        "in either mode.",
        choices=("log", "compact")),
    Key("agui.compact_above_bytes", "int", _MIB,
        "A surface log larger than this (JSON bytes) is sent compacted, so that one SSE event stays far "
        "below the 10 MiB an @ag-ui/client accepts (default 1 MiB).",
        check=_ONE_OR_MORE),
    Key("agui.cancel_on_disconnect", "bool", False,
        "When the AG-UI client leaves mid-run, cancel the A2A task (tasks/cancel, CancelTask); off: the "
        "task goes on and the thread's next run picks it up.",),
    Key("agui.mirror_ids_in_state", "bool", False,
        "Mirror the thread's A2A ids into the AG-UI state (STATE_DELTA at /a2a) and read them back "
        "from input.state.a2a when the gateway no longer knows the thread (a restart, another replica).",),
    Key("agui.settle_seconds", "float", 0.5,
        "After an input-required or auth-required state, how long to wait for the agent to close its "
        "stream before the run is finished anyway.",
        check=_NON_NEGATIVE),
    Key("agui.session_ttl_seconds", "float", 86400.0,
        "How long a thread's state (A2A context and task, A2UI surfaces) is kept after its last run.",
        check=_POSITIVE),
    Key("agui.max_sessions", "int", 10000,
        "Most threads whose state is kept; the least recently used go first.",
        check=_ONE_OR_MORE),
    Key("log.format", "enum", "json",
        "\"json\": one JSON object per line (production); \"console\": human-readable (development).",
        choices=("json", "console")),
    Key("log.level", "enum", "info",
        "Lowest level logged.",
        choices=("debug", "info", "warning", "error", "critical")),
    Key("admin.listen", "str", "127.0.0.1:9090",
        "Address of the admin listener, HOST:PORT; empty disables it. Use 0.0.0.0:9090 in a container "
        "so that probes and Prometheus reach it, and keep it off public Services.",
        check=_check_admin_listen),
    Key("tracing.enabled", "bool", False,
        "Make a server span per request and pass the trace context upstream; needs the `otel` extra.",
        check=_check_tracing),
    Key("tracing.exporter", "enum", "otlp",
        "Where spans go: \"otlp\" (OTLP over HTTP, configured by the standard OTEL_EXPORTER_OTLP_* "
        "variables; needs opentelemetry-exporter-otlp-proto-http, in the `otel` extra), \"console\" "
        "(stdout, for debugging), \"none\" (spans only propagate the trace context).",
        choices=("otlp", "console", "none")),
)  # fmt: skip
