"""Owns the schema: Key (one setting: its kind, default, description, check and flag, and how a raw or
textual value becomes its typed value), SECTIONS, every key in SCHEMA with its lookups, [[routes]] keys."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from gateway.config.checks import (
    NON_NEGATIVE,
    ONE_OR_MORE,
    POSITIVE,
    BadValue,
    check_a2ui_versions,
    check_admin_listen,
    check_cidrs,
    check_deprecation_link,
    check_event_loop,
    check_grpc_address,
    check_header_name,
    check_headers,
    check_instant,
    check_jwks_url,
    check_jwt_algorithms,
    check_listen,
    check_public_url,
    check_push_keys,
    check_redis_url,
    check_tenant,
    check_tracing,
    check_upstream_url,
    check_webhook_base,
    check_webhook_path,
    describe,
)
from gateway.config.settings import (
    AdminSettings,
    AguiSettings,
    AuthSettings,
    CallersSettings,
    CardSettings,
    GrpcSettings,
    LimitsSettings,
    LogSettings,
    MigrationSettings,
    PushSettings,
    ServerSettings,
    Settings,
    TaskIndexSettings,
    TimeoutSettings,
    TlsSettings,
    TracingSettings,
    UpstreamSettings,
)
from gateway.core.agui import A2UI_DEFAULT_VERSIONS
from gateway.core.quirks import Quirks

__all__ = [
    "BY_NAME",
    "ENV_CONFIG_PATH",
    "ENV_NAMES",
    "ENV_PREFIX",
    "REQUIRED",
    "ROUTED_SECTIONS",
    "ROUTES_DOC",
    "ROUTE_KEYS",
    "SCHEMA",
    "SECTIONS",
    "SECTION_TYPES",
    "Key",
    "Kind",
    "RouteKey",
    "subsections",
]

Kind = Literal["str", "int", "float", "bool", "auto_bool", "list", "table", "enum"]

ENV_PREFIX = "A2A_GATEWAY_"
# Not a key: the config file path, read by the command line when --config is absent.
ENV_CONFIG_PATH = "A2A_GATEWAY_CONFIG"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # the default of a key that has none: a value must be supplied


# --- one key ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Key:
    """One setting: dotted name, value kind, default (or REQUIRED), one-paragraph description."""

    name: str
    kind: Kind
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    check: Callable[[Any], Any] | None = None  # validates and normalizes a typed value; raises BadValue
    example: str = ""  # TOML value shown (commented out) in the sample file for REQUIRED keys
    cli: str = ""  # the command-line flag that sets this key, if any

    @property
    def section(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def field(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace(".", "_")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def type_label(self) -> str:
        """The key's type as the reference shows it."""
        if self.kind == "enum":
            return " \\| ".join(f'`"{c}"`' for c in self.choices)
        return _KINDS[self.kind].label

    def read(self, raw: object, *, text: bool = False) -> Any:
        """The typed and checked value of `raw`: a TOML or Python value, or (`text`) an environment
        variable's text. Raises BadValue with the reason."""
        typed = self.from_text(str(raw)) if text else self.typed(raw)
        return typed if self.check is None else self.check(typed)

    def typed(self, value: object) -> Any:
        """A value from TOML or the command line, already typed, as this key holds it."""
        rules = _KINDS[self.kind]
        if rules.accepts(value):
            return rules.typed(self, value)
        hint = f' (quote it: "{value}")' if self.kind == "enum" and _is_number(value) else ""
        raise BadValue(f"must be {rules.want}, got {describe(value)}{hint}")

    def from_text(self, text: str) -> Any:
        """A value from an environment variable (or a string on the command line)."""
        return _KINDS[self.kind].from_text(self, text)

    def choice(self, value: str) -> str:
        """The choice `value` names, case and surrounding spaces ignored."""
        for choice in self.choices:
            if value.strip().lower() == choice.lower():
                return choice
        options = ", ".join(f'"{c}"' for c in self.choices)
        raise BadValue(f"must be one of {options}, got {value!r}")


# --- the kinds of value ----------------------------------------------------------------------------


class _KindRules(NamedTuple):
    label: str  # the Type column of the reference
    want: str  # a reason's "must be ..."
    accepts: Callable[[object], bool]  # a TOML or Python value of this kind
    typed: Callable[[Key, Any], Any]  # that value as a key holds it
    from_text: Callable[[Key, str], Any]  # an environment variable's text as a key holds it


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise BadValue(f"must be a finite number, got {value!r}")
    return value


def _table(key: Key, value: Mapping[Any, Any]) -> Mapping[str, str]:
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise BadValue("every value in the table must be a string")
    return types.MappingProxyType(dict(value))


def _int_text(key: Key, text: str) -> int:
    try:
        return int(text.strip(), 10)
    except ValueError:
        raise BadValue(f"must be an integer, got {text!r}") from None


def _float_text(key: Key, text: str) -> float:
    try:
        number = float(text.strip())
    except ValueError:
        raise BadValue(f"must be a number, got {text!r}") from None
    return _finite(number)


def _auto_bool_text(key: Key, text: str) -> bool | str:
    return "auto" if text.strip().lower() == "auto" else _bool_text(key, text)


def _bool_text(key: Key, text: str) -> bool:
    word = text.strip().lower()
    if word in ("true", "1"):
        return True
    if word in ("false", "0"):
        return False
    raise BadValue(f"must be true, false, 1 or 0, got {text!r}")


def _list_text(key: Key, text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.strip().split(",") if item.strip())


def _table_text(key: Key, text: str) -> Mapping[str, str]:
    """Name=value,Name2=value2"""
    table: dict[str, str] = {}
    for item in text.strip().split(","):
        if not item.strip():
            continue
        name, sep, val = item.partition("=")
        if not sep or not name.strip():
            raise BadValue(f"must be comma-separated Name=value pairs, got {item.strip()!r}")
        table[name.strip()] = val.strip()
    return types.MappingProxyType(table)


def _same(key: Key, value: Any) -> Any:
    return value


_KINDS: dict[Kind, _KindRules] = {
    "str": _KindRules("string", "a string", lambda v: isinstance(v, str), _same, _same),
    "int": _KindRules("integer", "an integer", lambda v: isinstance(v, int) and not isinstance(v, bool), _same,
                      _int_text),
    "float": _KindRules("number", "a number", _is_number, lambda k, v: _finite(float(v)), _float_text),
    "bool": _KindRules("boolean", "true or false", lambda v: isinstance(v, bool), _same, _bool_text),
    "auto_bool": _KindRules('`"auto"` \\| boolean', '"auto", true or false',
                            lambda v: isinstance(v, bool) or v == "auto", _same, _auto_bool_text),
    "enum": _KindRules("", "a string", lambda v: isinstance(v, str), Key.choice, Key.choice),  # labelled by its choices
    "list": _KindRules("list of strings", "a list of strings",
                       lambda v: isinstance(v, list | tuple) and all(isinstance(x, str) for x in v),
                       lambda k, v: tuple(v), _list_text),
    "table": _KindRules("table of strings", "a table of strings", lambda v: isinstance(v, Mapping), _table,
                        _table_text),
}


# --- the sections and their keys -------------------------------------------------------------------

SECTIONS: dict[str, str] = {
    "server": "The listening side: where clients connect and how the gateway presents itself.",
    "upstream": "The agent behind the gateway.",
    "upstream.timeout": "Timeouts for calls to the upstream agent, in seconds.",
    "upstream.tls": "TLS toward the upstream agent (https:// URLs, and grpcs:// or https:// gRPC interfaces): "
    "a private CA, a client certificate for mutual TLS, the name to check. Unset, the system's CA store is "
    "used (SSL_CERT_FILE, when set, names it). The files are read at start-up and again on every SIGHUP "
    "(certificates rotated by cert-manager are picked up), and check-config checks they exist and load. A "
    "certificate the gateway refuses, or a handshake the agent refuses, fails the call at once (never "
    "retried) with a message naming the agent and the cause.",
    "limits": "Size and concurrency limits.",
    "push": "The push-notification relay: client webhooks are registered upstream as the gateway's own "
    "webhook, with the client's route sealed (encrypted) into its URL, so any replica can deliver.",
    "quirks": "Per-peer compatibility switches for known differences between A2A implementations. The "
    "defaults follow the specification.",
    "task_index": "What the gateway remembers of the tasks it sees pass to a v0.3 agent, so that it can "
    "answer a v1.0 client's ListTasks (v0.3 has no list): each task's id, context, state, timestamp and "
    "the caller's scope (a digest of the authenticated subject with [auth] on, else of the request's "
    "credential headers; never the credentials). Tasks the gateway never saw are not listed.",
    "agui": "The AG-UI front door (POST /agui): AG-UI clients such as CopilotKit in front of the A2A "
    "agent, with A2UI surfaces as activity snapshots.",
    "log": "Logging.",
    "grpc": "The gRPC listener: both versions' A2AService on one port (the service tells the caller's "
    "version: `a2a.v1.A2AService` is v0.3, `lf.a2a.v1.A2AService` is v1.0), every RPC through the same "
    "translation, limits, logs, metrics and drain as the HTTP listener. Off unless `listen` is set; the "
    "agent card then lists it (v1.0 `protocolBinding` GRPC, v0.3 `additionalInterfaces` transport GRPC). "
    "With `[[routes]]` it serves no route (gRPC has no path prefix): the check refuses that combination.",
    "admin": "The admin listener: GET /healthz (the process is alive), /readyz (the upstream agent is known "
    "and the gateway is not draining; 503 with a JSON reason otherwise), /metrics (Prometheus text), "
    "/workers (the worker processes), /migration (who still speaks v0.3, as JSON) and / (the same as an "
    "HTML page). It is never served on the main listener.",
    "migration": "Gradual migration from A2A 0.3 to 1.0: who still speaks v0.3 (the admin listener's "
    "GET /migration and its page), and what v0.3 clients are told: the `Deprecation` (RFC 9745), `Sunset` "
    "(RFC 8594) and `Link rel=\"deprecation\"` headers on every reply to a v0.3 client, and past the cut-off "
    "the version error instead of a translation. A [[routes]] entry may set its own.",
    "tracing": "OpenTelemetry tracing (the `otel` extra): a server span per request, and the W3C trace "
    "context (`traceparent`) passed to the upstream agent.",
    "card": "Agent-card signatures (JWS over the card's RFC 8785 canonical form): checking the upstream "
    "card's against known keys, and signing every card the gateway serves with its own key, published "
    "as a JWKS at /.well-known/jwks.json.",
    "auth": "Caller authentication at the gateway (off unless a JWKS URL or API keys are set): every A2A "
    "and AG-UI request, and every gRPC call (the same names in its metadata), needs a JWT bearer token "
    "that verifies against the JWKS, or a known API key; others are answered 401 (403 for a token of "
    "another issuer or audience) in the caller's own error shape, with `WWW-Authenticate` (gRPC: "
    "UNAUTHENTICATED or PERMISSION_DENIED, `www-authenticate` trailing). The public agent card and the "
    "JWKS stay public; the extended card is a call like any other. A [[routes]] entry may set its own.",
    "callers": "Per-caller limits (each off at 0), per replica or shared by replicas in Redis (`store`): a "
    "caller is the authenticated subject, else the value of identity_header. Over a limit the caller is "
    "answered 429 with Retry-After in its own error shape (gRPC: RESOURCE_EXHAUSTED, `retry-after` "
    "trailing). A [[routes]] entry may set its own.",
}

_MIB = 1024 * 1024

_TABLE: tuple[Key, ...] = (
    Key("server.listen", "str", "127.0.0.1:8080",
        "Address to listen on, HOST:PORT (IPv6 as [ADDR]:PORT). Use 0.0.0.0:8080 in a container.",
        check=check_listen, cli="--listen"),
    Key("server.public_url", "str", "",
        "Base URL clients use to reach the gateway, written into the agent card it serves. Empty "
        "means derive it from each request (Host, and X-Forwarded-* from trusted proxies).",
        check=check_public_url, cli="--public-url"),
    Key("server.trusted_proxies", "list", (),
        "IP addresses or CIDR blocks of reverse proxies whose X-Forwarded-* headers are believed. "
        "Empty means ignore those headers.",
        check=check_cidrs),
    Key("server.version_mode", "enum", "lenient",
        "What to do when a request's A2A-Version header contradicts its JSON-RPC method spelling: "
        "\"lenient\" serves it in the version the method spelling implies, \"strict\" rejects it.",
        choices=("lenient", "strict")),
    Key("server.heartbeat_seconds", "float", 15.0,
        "Interval of SSE keep-alive comments sent to clients on quiet streams; 0 disables them.",
        check=NON_NEGATIVE),
    Key("server.shutdown_grace_seconds", "float", 30.0,
        "On SIGTERM readiness fails at once and the listener stops accepting; in-flight requests then "
        "have this long to finish (streams are ended earlier, see stream_drain_seconds). Whatever is "
        "left is cancelled and the process exits 0.",
        check=NON_NEGATIVE),
    Key("server.stream_drain_seconds", "float", 5.0,
        "On SIGTERM, how long open streams keep relaying before each is ended after its last complete "
        "event (a `: draining` comment, then the end of the response); capped by "
        "shutdown_grace_seconds. 0 ends them at once.",
        check=NON_NEGATIVE),
    Key("server.header_timeout_seconds", "float", 10.0,
        "Time a client has to send a request's line and headers, counted from the connection's opening "
        "for its first request and from the first byte of each later one; a connection that takes longer "
        "is closed. It bounds slow-header (slowloris) clients.",
        check=POSITIVE),
    Key("server.body_timeout_seconds", "float", 60.0,
        "Time a client has to send a whole request body once its headers are in; a slower client is "
        "answered 408 and its connection closed.",
        check=POSITIVE),
    Key("server.idle_timeout_seconds", "float", 75.0,
        "How long an idle keep-alive client connection is kept open between requests. Keep it above the "
        "idle timeout of any load balancer in front (60 seconds on many), so that the balancer, not the "
        "gateway, closes idle connections.",
        check=POSITIVE),
    Key("server.workers", "int", 1,
        "Worker processes sharing the listen port (SO_REUSEPORT; needs a fixed port). Above 1 a parent "
        "process starts them, forwards SIGTERM and SIGHUP, and serves the admin listener with their "
        "metrics combined. Under Kubernetes keep 1 and scale with replicas.",
        check=ONE_OR_MORE),
    Key("server.event_loop", "enum", "auto",
        "The asyncio event loop: \"auto\" uses uvloop when it is installed (a dependency everywhere but Windows), "
        "\"uvloop\" requires it, \"asyncio\" is the standard loop.",
        choices=("auto", "asyncio", "uvloop"), check=check_event_loop),
    Key("upstream.url", "str", REQUIRED,
        "URL of the upstream agent: its base URL, where its card is read (/.well-known/agent-card.json, "
        "then /.well-known/agent.json); the gateway calls the interfaces the card lists. With "
        "upstream.version fixed, calls go to this URL itself: then it is the agent's JSON-RPC endpoint or "
        "HTTP+JSON base URL (upstream.binding). Required: set it here, with A2A_GATEWAY_UPSTREAM_URL, or "
        "with --upstream.",
        check=check_upstream_url, example='"http://127.0.0.1:9999"', cli="--upstream"),
    Key("upstream.version", "enum", "auto",
        "A2A version the upstream agent speaks; \"auto\" reads it from the agent card.",
        choices=("auto", "0.3", "1.0")),
    Key("upstream.binding", "enum", "auto",
        "Protocol binding used to call the upstream agent; \"auto\" uses the agent card's "
        "preferred binding (gRPC only for gRPC callers, or when the agent offers nothing else); "
        "\"GRPC\" calls the card's gRPC interface (or, with a fixed upstream.version, the host and port "
        "of upstream.url; https:// means TLS).",
        choices=("auto", "JSONRPC", "HTTP+JSON", "GRPC")),
    Key("upstream.tenant", "str", "",
        "Tenant path segment for v1.0 upstream calls; empty means none.",
        check=check_tenant),
    Key("upstream.card_refresh_seconds", "float", 300.0,
        "How often the upstream agent card is fetched again.",
        check=POSITIVE),
    Key("upstream.card_retry_seconds", "float", 5.0,
        "Delay before retrying a failed agent-card fetch.",
        check=POSITIVE),
    Key("upstream.headers", "table", types.MappingProxyType({}),
        "Extra headers added to every upstream request, e.g. Authorization. From the environment: "
        "comma-separated Name=value pairs (values cannot contain commas); it replaces the whole "
        "table.",
        check=check_headers, example='{ Authorization = "Bearer <token>" }'),
    Key("upstream.retry_attempts", "int", 7,
        "How many times a call is sent again when it provably never reached the agent (the connection was "
        "refused, the host had no route or its name did not resolve, the pooled connection had been closed "
        "by the agent before a byte was written, or the agent reset it with the request unread); read-only "
        "calls (GetTask, ListTasks, push-config reads, the card) also on 502, 503, 504 and on a connection "
        "lost after sending. Never a SendMessage the agent may have seen, nor a TLS failure or a connect "
        "timeout. Each retry waits (see retry_backoff_seconds) and all stay within the call's own deadline; "
        "0 disables retries. A call whose retries all found the agent unreachable marks it down: until a "
        "background check (every 0.05 s at first, then up to every second) reaches it again, calls are answered "
        "at once, 503 with Retry-After (gRPC UNAVAILABLE), instead of each paying the retries.",
        check=NON_NEGATIVE),
    Key("upstream.retry_backoff_seconds", "float", 0.05,
        "The wait before the first retry; it doubles with each one, up to 1 second, with jitter (the "
        "default's seven retries span about 2.7 to 3.6 seconds: a restarting agent is waited for that long).",
        check=POSITIVE),
    Key("upstream.timeout.connect", "float", 5.0,
        "Time to open a connection to the upstream agent (TCP and TLS), for every kind of call: unary, "
        "stream, agent card. Not retried past it.",
        check=POSITIVE),
    Key("upstream.timeout.first_byte", "float", 60.0,
        "Time from sending a request to the reply's head (its status line and headers), retries included: "
        "for a unary call (within total_unary), a stream, and an agent-card fetch alike. A silent agent is "
        "answered as timed out after it.",
        check=POSITIVE),
    Key("upstream.timeout.idle_stream", "float", 300.0,
        "Longest silence allowed on an upstream stream, between its head and an event or two events, "
        "before it is closed.",
        check=POSITIVE),
    Key("upstream.timeout.total_unary", "float", 120.0,
        "Total time for one non-streaming upstream call (an agent-card fetch too): connection, request, reply "
        "head (within first_byte) and the whole reply body. A stream has no total: idle_stream bounds it. "
        "Push deliveries to webhooks have their own push.timeout_seconds.",
        check=POSITIVE),
    Key("upstream.tls.ca_file", "str", "",
        "A PEM file of the CA certificates that sign the agent's certificate (a private CA); it replaces the "
        "system's CA store for the agent. Empty means the system's store (or SSL_CERT_FILE).",
        example='"/etc/a2a-gateway/agent-ca.pem"'),
    Key("upstream.tls.cert_file", "str", "",
        "A PEM file of the gateway's client certificate (and its chain), for an agent that demands one "
        "(mutual TLS); the key is key_file, or in this file when key_file is empty.",
        example='"/etc/a2a-gateway/client.pem"'),
    Key("upstream.tls.key_file", "str", "",
        "A PEM file of the client certificate's private key (unencrypted); needs cert_file.",
        example='"/etc/a2a-gateway/client-key.pem"'),
    Key("upstream.tls.server_name", "str", "",
        "The name sent as SNI and checked against the agent's certificate, instead of the URL's host (an "
        "agent reached by IP address or through a tunnel). Empty means the URL's host."),
    Key("upstream.tls.insecure", "bool", False,
        "Skip verifying the agent's certificate on the HTTP link (development only: anyone on the path can "
        "pose as the agent); a warning is logged at every start and reload. gRPC channels always verify "
        "(grpcio has no such switch): give them ca_file."),
    Key("limits.max_body_bytes", "int", 10 * _MIB,
        "Largest request or reply body accepted, in bytes (default 10 MiB).",
        check=ONE_OR_MORE),
    Key("limits.max_sse_event_bytes", "int", 4 * _MIB,
        "Largest single SSE event accepted from the upstream, in bytes (default 4 MiB).",
        check=ONE_OR_MORE),
    Key("limits.max_connections", "int", 1024,
        "Most simultaneous non-streaming calls to the upstream agent, each on its own connection (the "
        "pool of unary calls). Streams have their own pool (max_stream_connections), so long streams "
        "never starve unary calls.",
        check=ONE_OR_MORE),
    Key("limits.max_stream_connections", "int", 4096,
        "Most simultaneous streams to the upstream agent; each open stream holds one connection for "
        "its whole life. The default matches max_client_connections, as every stream also holds a "
        "client connection.",
        check=ONE_OR_MORE),
    Key("limits.pool_wait_seconds", "float", 5.0,
        "Longest wait for a free upstream connection when its pool is full. Past it the call is "
        "answered 503 with Retry-After and the reason GATEWAY_OVERLOADED: the gateway's own saturation, "
        "never reported as the agent's timeout. 0 answers at once.",
        check=NON_NEGATIVE),
    Key("limits.max_client_connections", "int", 4096,
        "Most simultaneous client connections per worker process; a request on a connection beyond "
        "it is answered 503 with Retry-After and the reason GATEWAY_OVERLOADED, in the caller's own "
        "error shape, and its connection closed.",
        check=ONE_OR_MORE),
    Key("limits.max_agent_head_bytes", "int", 64 * 1024,
        "Largest reply head (status line and headers, with any 1xx interim heads) read from the upstream "
        "agent, in bytes (default 64 KiB). An agent that sends more, or a head without end, is answered at "
        "once as an invalid agent reply (502) naming the agent and the limit, never retried, and its "
        "connection is closed: the gateway reads no more of it than this.",
        check=ONE_OR_MORE),
    Key("limits.max_agent_line_bytes", "int", 8190,
        "Longest header line in the upstream agent's reply head, in bytes (aiohttp's client allows 8190 "
        "too); a longer one is refused as max_agent_head_bytes says.",
        check=ONE_OR_MORE),
    Key("limits.max_agent_headers", "int", 128,
        "Most header fields in the upstream agent's reply head (aiohttp's client allows 128 too); more are "
        "refused as max_agent_head_bytes says.",
        check=ONE_OR_MORE),
    Key("limits.max_agent_chunk_line_bytes", "int", 8190,
        "Longest run of chunk framing without data in the upstream agent's chunked reply body, in bytes: a "
        "chunk-size line with its extensions, or the trailers (counted per read from the connection, so it "
        "may run past by one read). A longer one cuts the body there as a broken reply, and the connection "
        "is closed.",
        check=ONE_OR_MORE),
    Key("push.enabled", "bool", True,
        "Relay push notifications between versions; false passes clients' webhook configs through "
        "unchanged."),
    Key("push.keys", "list", (),
        "Base64 32-byte keys that seal webhook routes; the first seals, all open, so rotate by "
        "prepending a new key and dropping the old one later. Every replica needs the same keys. Empty "
        "means a random key per process (a warning at start): registrations then break on restart and "
        "on other replicas.",
        check=check_push_keys, example='["<base64 of 32 random bytes>"]'),
    Key("push.webhook_base_url", "str", "",
        "Base URL at which the upstream agent reaches the gateway's webhook. Empty means "
        "server.public_url, else http:// plus server.listen (loopback for an unspecified host: the "
        "sidecar case).",
        check=check_webhook_base),
    Key("push.webhook_path", "str", "/a2a-push",
        "Path prefix of the gateway's webhook; the sealed route follows it as one more segment.",
        check=check_webhook_path),
    Key("push.allow_networks", "list", (),
        "IP addresses or CIDR blocks that client webhooks may resolve to although they are loopback, "
        "private, link-local or otherwise non-public (refused by default against SSRF).",
        check=check_cidrs),
    Key("push.max_concurrency", "int", 32,
        "Most webhook deliveries in flight at once.",
        check=ONE_OR_MORE),
    Key("push.max_attempts", "int", 5,
        "Attempts per delivery (timeouts, connection errors, 408, 429 and 5xx are retried).",
        check=ONE_OR_MORE),
    Key("push.backoff_seconds", "float", 0.5,
        "Delay before the first retry; it doubles per attempt (with jitter), up to 30 seconds.",
        check=NON_NEGATIVE),
    Key("push.timeout_seconds", "float", 10.0,
        "Time allowed for one delivery attempt to the client's webhook.",
        check=POSITIVE),
    Key("push.max_body_bytes", "int", 4 * _MIB,
        "Largest notification body accepted from the upstream agent, in bytes (default 4 MiB).",
        check=ONE_OR_MORE),
    Key("task_index.store", "enum", "memory",
        "Where the records live: memory (bounded, in this process: complete for a sidecar with one "
        "worker) or redis (shared by replicas and worker processes; see task_index.redis_url).",
        choices=("memory", "redis")),
    Key("task_index.redis_url", "str", "redis://127.0.0.1:6379/0",
        "The Redis server of store = redis (redis:// or rediss:// URL, credentials included if any).",
        check=check_redis_url),
    Key("task_index.ttl_seconds", "float", 86400.0,
        "How long a record is kept after the task was last seen; the Redis keys expire then.",
        check=POSITIVE),
    Key("task_index.max_tasks", "int", 10000,
        "Most records kept per agent (per caller scope in Redis); the least recently seen go first.",
        check=ONE_OR_MORE),
    Key("task_index.key_prefix", "str", "a2a-gateway:",
        "Prefix of every Redis key the index writes (to share one Redis between deployments)."),
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
    Key("agui.a2ui_versions", "list", A2UI_DEFAULT_VERSIONS,
        "A2UI versions the gateway may activate with the agent, best first: the first one the agent card "
        "lists is used. The default holds what the common front ends draw (CopilotKit, assistant-ui, the "
        "A2UI React and Lit renderers: v0.9, and v0.8 for older ones); add \"v1.0\" or \"v0.10\" for a "
        "front end that draws them, e.g. [\"v1.0\", \"v0.9.1\", \"v0.9\"] for assistant-ui.",
        check=check_a2ui_versions),
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
        check=ONE_OR_MORE),
    Key("agui.cancel_on_disconnect", "bool", False,
        "When the AG-UI client leaves mid-run, cancel the A2A task (tasks/cancel, CancelTask); off: the "
        "task goes on and the thread's next run picks it up.",),
    Key("agui.mirror_ids_in_state", "bool", False,
        "Mirror the thread's A2A ids into the AG-UI state (STATE_DELTA at /a2a) and read them back "
        "from input.state.a2a when the gateway no longer knows the thread (a restart, another replica).",),
    Key("agui.settle_seconds", "float", 0.5,
        "After an input-required or auth-required state, how long to wait for the agent to close its "
        "stream before the run is finished anyway.",
        check=NON_NEGATIVE),
    Key("agui.session_ttl_seconds", "float", 86400.0,
        "How long a thread's state (A2A context and task, A2UI surfaces) is kept after its last run.",
        check=POSITIVE),
    Key("agui.max_sessions", "int", 10000,
        "Most threads whose state is kept; the least recently used go first.",
        check=ONE_OR_MORE),
    Key("log.format", "enum", "json",
        "\"json\": one JSON object per line (production); \"console\": human-readable (development).",
        choices=("json", "console")),
    Key("log.level", "enum", "info",
        "Lowest level logged.",
        choices=("debug", "info", "warning", "error", "critical")),
    Key("grpc.listen", "str", "",
        "Address of the gRPC listener, HOST:PORT; empty (the default) disables it. Use 0.0.0.0:50051 in a "
        "container.",
        check=check_admin_listen, cli="--grpc-listen"),
    Key("grpc.public_address", "str", "",
        "The HOST:PORT clients dial for gRPC, as the agent card lists it (or a grpc:// or grpcs:// URL, "
        "listed as it is, for clients that want a scheme); empty: the host of the public URL "
        "(server.public_url, else the card request's) with the listener's port.",
        check=check_grpc_address),
    Key("admin.listen", "str", "127.0.0.1:9090",
        "Address of the admin listener, HOST:PORT; empty disables it. Use 0.0.0.0:9090 in a container "
        "so that probes and Prometheus reach it, and keep it off public Services.",
        check=check_admin_listen),
    Key("migration.caller_header", "str", "User-Agent",
        "The request header that names a caller in the migration view (e.g. a client-id header). A "
        "credential header (Authorization, Cookie, X-API-Key, …) is shown as a SHA-256 fingerprint, never "
        "its value.", check=check_header_name),
    Key("migration.max_callers", "int", 100,
        "How many callers the migration view keeps apart (the busiest); the others are summed as one.",
        check=ONE_OR_MORE),
    Key("migration.deprecation", "str", "",
        "When v0.3 was (or will be) deprecated: a date (2026-06-30), an ISO 8601 date-time with its offset or "
        "@<unix seconds>. Set: every reply to a v0.3 client carries `Deprecation: @<unix seconds>` (RFC 9745).",
        check=check_instant),
    Key("migration.sunset", "str", "",
        "When v0.3 stops being served (same forms as `deprecation`). Set: every reply to a v0.3 client "
        "carries `Sunset: <HTTP-date>` (RFC 8594). It only informs; `cutoff` enforces.",
        check=check_instant),
    Key("migration.link", "str", "",
        "A page on moving to A2A 1.0. Set: every reply to a v0.3 client carries `Link: <url>; "
        "rel=\"deprecation\"` (RFC 9745).", check=check_deprecation_link),
    Key("migration.cutoff", "str", "",
        "From this moment (same forms as `deprecation`), v0.3 clients are answered the version error "
        "(VersionNotSupported, naming `A2A-Version: 1.0`) instead of a translation. \"\": never.",
        check=check_instant),
    Key("tracing.enabled", "bool", False,
        "Make a server span per request and pass the trace context upstream; needs the `otel` extra.",
        check=check_tracing),
    Key("tracing.exporter", "enum", "otlp",
        "Where spans go: \"otlp\" (OTLP over HTTP, configured by the standard OTEL_EXPORTER_OTLP_* "
        "variables; needs opentelemetry-exporter-otlp-proto-http, in the `otel` extra), \"console\" "
        "(stdout, for debugging), \"none\" (spans only propagate the trace context).",
        choices=("otlp", "console", "none")),
    Key("card.signing_key_file", "str", "",
        "PEM file of the private key the gateway signs the cards it serves with (EC P-256/P-384/P-521: "
        "ES256/ES384/ES512, RSA: RS256, Ed25519: EdDSA); its public key is served at "
        "/.well-known/jwks.json. Cards are signed only when the upstream card verified against the verify "
        "keys below, or when none are set. Empty: served cards carry no signature (the upstream card's own "
        "signatures never survive the rewriting; they are dropped, noted card_signature_dropped)."),
    Key("card.signing_kid", "str", "",
        "The `kid` of the gateway's signatures and JWKS entry; empty: the key's RFC 7638 thumbprint."),
    Key("card.verify_key_files", "list", (),
        "Files of the keys the upstream card's signatures are checked against: PEM public keys or "
        "certificates, JWK or JWKS JSON files. With verify_jwks_url empty too, nothing is checked."),
    Key("card.verify_jwks_url", "str", "",
        "A JWKS URL the upstream card's signature keys are fetched from (kept for five minutes, fetched "
        "again for an unknown `kid`). A signature's own `jku` is never followed.",
        check=check_jwks_url),
    Key("card.require_verified", "bool", False,
        "Serve no card, and fail readiness, while the upstream card carries no signature that verifies "
        "against the keys above: the card door answers 502, and the extended-card calls an error in the "
        "caller's shape, saying why. False: only reports it (in /readyz, the log and a metric), and serves "
        "the card unsigned."),
    Key("auth.jwks_url", "str", "",
        "JWKS URL of the keys caller JWTs (`Authorization: Bearer`) are signed with; fetched at start, "
        "kept for five minutes, fetched again for an unknown `kid`. Empty: no JWT is accepted.",
        check=check_jwks_url),
    Key("auth.issuer", "str", "",
        "The `iss` a caller's JWT must carry; empty: any."),
    Key("auth.audience", "str", "",
        "The `aud` a caller's JWT must include; empty: a token naming an audience is refused."),
    Key("auth.algorithms", "list", ("RS256", "ES256", "EdDSA"),
        "JWS algorithms accepted for caller JWTs (asymmetric only).",
        check=check_jwt_algorithms),
    Key("auth.leeway_seconds", "float", 30.0,
        "Clock skew allowed on a JWT's `exp` and `nbf`.",
        check=NON_NEGATIVE),
    Key("auth.api_keys", "list", (),
        "API keys accepted in api_key_header, each `name:key` (the name is the caller's subject) or a bare "
        "key. From the environment: comma-separated."),
    Key("auth.api_keys_file", "str", "",
        "A file of API keys, one `name:key` or bare key a line (`#` starts a comment), read at start."),
    Key("auth.api_key_header", "str", "X-API-Key",
        "The request header an API key comes in."),
    Key("auth.forward_credentials", "bool", True,
        "Pass the caller's Authorization and API key headers on to the agent; false strips them (the "
        "agent then sees only upstream.headers)."),
    Key("callers.identity_header", "str", "User-Agent",
        "Who an unauthenticated caller is, for its limits: the value of this request header or gRPC "
        "metadata key (absent: its address; gRPC clients send their own user-agent)."),
    Key("callers.requests_per_second", "float", 0.0,
        "Requests per second each caller may make, as a token bucket of `burst`; 0: no limit.",
        check=NON_NEGATIVE),
    Key("callers.burst", "int", 20,
        "How many requests a caller may make at once before requests_per_second paces it.",
        check=ONE_OR_MORE),
    Key("callers.max_streams", "int", 0,
        "Streams (SSE: streamed sends, subscriptions, AG-UI runs; server-streaming gRPC calls) each caller "
        "may have open at once; 0: no limit.",
        check=NON_NEGATIVE),
    Key("callers.max_stream_seconds", "float", 0.0,
        "Longest a caller's stream is relayed; past it the stream ends after its last complete event (a "
        "`: draining` comment, as on shutdown). 0: no limit.",
        check=NON_NEGATIVE),
    Key("callers.max_stream_bytes", "int", 0,
        "Most bytes a caller's stream is sent; past it the stream ends after its last complete event. 0: "
        "no limit.",
        check=NON_NEGATIVE),
    Key("callers.store", "enum", "memory",
        "Where the limits are counted: memory (per replica and worker process) or redis (one count shared "
        "by every replica and worker; see callers.redis_url). With Redis unreachable the gateway admits "
        "(fails open), logs `callers_store_unavailable` and counts a2a_gateway_callers_store_errors_total.",
        choices=("memory", "redis")),
    Key("callers.redis_url", "str", "redis://127.0.0.1:6379/0",
        "The Redis server of store = redis (redis:// or rediss:// URL, credentials included if any; may be "
        "the task index's).",
        check=check_redis_url),
    Key("callers.key_prefix", "str", "a2a-gateway:",
        "Prefix of every Redis key the limits write (then `callers:<route>:`)."),
    Key("callers.stream_lease_seconds", "float", 30.0,
        "With store = redis: how long an open stream counts against max_streams without its replica "
        "renewing it (every third of this); a replica that dies frees its callers' slots after it.",
        check=POSITIVE),
)  # fmt: skip


# The [quirks] keys are the fields of gateway.core.quirks.Quirks (their defaults are its defaults); what
# each one means to an operator is said here, in words (the core's comments cite the sources).
_QUIRK_DOCS: dict[str, str] = {
    "rest_double_base64":
        "v0.3 HTTP+JSON `fileWithBytes`: a2a-sdk 0.3 for Python and the v0.3 layer of a2a-sdk 1.x for "
        "Python put base64(base64(content)) on the wire; the v0.3 proto (and the JS SDK) say "
        "base64(content). \"auto\" tells them apart: a client is answered in the convention its request "
        "used, else the one its User-Agent suggests; an agent is spoken to in the one its replies showed, "
        "else the one its server software suggests (the Python SDKs' ASGI servers); with no evidence, the "
        "proto's. Every guess is a translation note. false pins the proto's convention; true, the Python "
        "SDKs'.",
    "rpc_blocking_default":
        "How a v0.3 JSON-RPC request without `blocking` is treated: true, as blocking (v0.3 JSON-RPC "
        "servers blocked); false, as returning at once.",
    "rest_blocking_default":
        "How a v0.3 HTTP+JSON request without `blocking` is treated: false, as returning at once (v0.3 "
        "HTTP+JSON servers did not block); true, as blocking.",
    "ignore_blocking_false":
        "v0.3 .NET clients always send `blocking: false`; set to treat it as absent.",
    "final_on_interrupted":
        "`final` on an interrupted state for v0.3 stream clients: \"lookahead\" looks ahead to the "
        "stream's end (recommended); \"input_required\" makes input-required always final, as the Go "
        "SDK's v0.3 layer does.",
    "rest_push_create_body":
        "Body of the v0.3 HTTP+JSON push-config create call sent to v0.3 agents: \"config\", the v0.3 "
        "proto's `TaskPushNotificationConfig` (as the JS SDK sends it); \"request\", a "
        "`CreateTaskPushNotificationConfigRequest`, as a2a-sdk 0.3 for Python has it; \"auto\", the "
        "request when the agent's Server header names the servers a2a-sdk for Python runs on (uvicorn, "
        "hypercorn, ...), the config otherwise.",
    "rest_subscribe_verb":
        "HTTP method of the v0.3 HTTP+JSON subscribe call sent to v0.3 agents: GET (the v0.3 proto's "
        "annotation, and what a2a-sdk 0.3 for Python serves) or POST (the v0.3 specification's text, and "
        "what the JS SDK 0.3 client sends). v0.3 clients may use either.",
    "rest_success_codes":
        "Success statuses answered to v0.3 HTTP+JSON clients: \"200\" everywhere (as the v0.3 layer of "
        "a2a-sdk 1.x for Python answers), or \"js\": 201 for message:send and push-config create, 204 "
        "with no body for push-config delete (as the JS SDK answers).",
    "rest_v03_status_table":
        "HTTP statuses of errors for v0.3 HTTP+JSON clients: \"py03\", the table of a2a-sdk 0.3 for "
        "Python (409/415/422/501/502; its client reads only the status, while the JS SDK's clients read "
        "the body's code), or \"v10\", the v1.0 table (400/404/500).",
}


def _quirk_keys() -> tuple[Key, ...]:
    hints = typing.get_type_hints(Quirks)
    kinds: dict[object, Kind] = {bool: "bool", int: "int", float: "float", str: "str"}
    keys: list[Key] = []
    for f in dataclasses.fields(Quirks):
        hint, doc = hints[f.name], _QUIRK_DOCS.get(f.name, "")
        if f.default is dataclasses.MISSING:
            raise TypeError(f"config cannot express Quirks.{f.name}: it has no plain default")
        if hint in kinds:
            keys.append(Key(f"quirks.{f.name}", kinds[hint], f.default, doc))
        elif hint == bool | Literal["auto"]:
            keys.append(Key(f"quirks.{f.name}", "auto_bool", f.default, doc))
        elif typing.get_origin(hint) is Literal and all(isinstance(a, str) for a in typing.get_args(hint)):
            keys.append(Key(f"quirks.{f.name}", "enum", f.default, doc, choices=tuple(typing.get_args(hint))))
        else:
            raise TypeError(f"config cannot express Quirks.{f.name}: unsupported type {hint!r}")
    return tuple(keys)


# Every key, in section order (a stable sort keeps the order within a section).
SCHEMA: tuple[Key, ...] = tuple(sorted(_TABLE + _quirk_keys(), key=lambda k: list(SECTIONS).index(k.section)))
BY_NAME: dict[str, Key] = {k.name: k for k in SCHEMA}
ENV_NAMES: dict[str, Key] = {k.env: k for k in SCHEMA}

SECTION_TYPES: dict[str, type] = {
    "server": ServerSettings,
    "upstream": UpstreamSettings,
    "upstream.timeout": TimeoutSettings,
    "upstream.tls": TlsSettings,
    "limits": LimitsSettings,
    "push": PushSettings,
    "quirks": Quirks,
    "task_index": TaskIndexSettings,
    "agui": AguiSettings,
    "log": LogSettings,
    "grpc": GrpcSettings,
    "admin": AdminSettings,
    "tracing": TracingSettings,
    "card": CardSettings,
    "auth": AuthSettings,
    "callers": CallersSettings,
    "migration": MigrationSettings,
}


def subsections(section: str) -> list[str]:
    """The sections directly inside `section` ("upstream" holds "upstream.timeout")."""
    return [s for s in SECTIONS if s.rpartition(".")[0] == section]


# --- [[routes]] ------------------------------------------------------------------------------------


class RouteKey(NamedTuple):
    """One key of a `[[routes]]` entry, as the reference shows it."""

    name: str
    type_label: str
    default: str
    doc: str


ROUTES_DOC = (
    "Several agents behind one gateway: each `[[routes]]` entry is an upstream agent selected by path "
    "prefix and/or `Host`, served as its own sub-application (its card, JSON-RPC, HTTP+JSON, AG-UI and "
    "push webhook paths all under the prefix, its card's URLs pointing there). A request goes to the "
    "first route whose host (if set) and prefix match, routes with a host first, longer prefixes first; "
    "a path no route matches gets a 404 in the A2A HTTP+JSON error shape. With no routes the gateway "
    "is a sidecar in front of `[upstream]`. Routes come from the config file only: no environment "
    "variable or flag addresses a route, and changing them (or the `[upstream]`/`[quirks]`/`[migration]` "
    "keys they inherit) needs a restart, not SIGHUP. Errors name the route by its index from 0, e.g. "
    "`routes[1].upstream.url`."
)
ROUTE_KEYS: tuple[RouteKey, ...] = (
    RouteKey("name", "string", "required", "The route's name: 1-63 characters of `a-z`, `0-9` and `-`; unique."),
    RouteKey("path_prefix", "string", '`""`', "The path prefix, e.g. `/agents/billing` (plain segments, no "
             "trailing slash); `\"\"` matches every path. Host and prefix together are unique."),
    RouteKey("host", "string", '`""`', "Match only this `Host` (case-insensitive, the port ignored); `\"\"` "
             "matches any host."),
    RouteKey("upstream", "table", "`[upstream]`", "Any `[upstream]` key (`url` is required), e.g. "
             "`[routes.upstream]`, `[routes.upstream.timeout]` and `[routes.upstream.tls]`; keys not set inherit "
             "`[upstream]`."),
    RouteKey("quirks", "table", "`[quirks]`", "Any `[quirks]` key, as `[routes.quirks]`; keys not set inherit "
             "`[quirks]`."),
    RouteKey("migration", "table", "`[migration]`", "Any `[migration]` key, as `[routes.migration]` (e.g. a "
             "route's own deprecation dates and cut-off); keys not set inherit `[migration]`."),
    RouteKey("auth", "table", "`[auth]`", "Any `[auth]` key, as `[routes.auth]`; keys not set inherit `[auth]`."),
    RouteKey("callers", "table", "`[callers]`", "Any `[callers]` key, as `[routes.callers]`; keys not set "
             "inherit `[callers]`."),
)
# the sections a route may set (and the tables among its keys)
ROUTED_SECTIONS = ("upstream", "quirks", "migration", "auth", "callers")


# --- the schema agrees with itself -----------------------------------------------------------------


def _self_check() -> None:
    """The schema, the section table and the dataclasses must agree, every key be described, and
    environment variable names be unique."""
    if len(ENV_NAMES) != len(SCHEMA) or ENV_CONFIG_PATH in ENV_NAMES:
        raise AssertionError("two keys map to the same environment variable")
    if set(SECTION_TYPES) != set(SECTIONS) or {k.section for k in SCHEMA} != set(SECTIONS):
        raise AssertionError("SECTIONS, SECTION_TYPES and SCHEMA disagree on the sections")
    top = {s for s in SECTIONS if "." not in s}
    if {f.name for f in dataclasses.fields(Settings)} - {"routes"} != top:
        raise AssertionError("Settings fields differ from the top-level sections")
    for section, cls in SECTION_TYPES.items():
        want = {k.field for k in SCHEMA if k.section == section}
        want |= {s.rpartition(".")[2] for s in subsections(section)}
        if {f.name for f in dataclasses.fields(cls)} != want:
            raise AssertionError(f"{cls.__name__} fields differ from the [{section}] keys")
    if set(_QUIRK_DOCS) != {f.name for f in dataclasses.fields(Quirks)}:
        raise AssertionError("every Quirks field needs its description in _QUIRK_DOCS, and only they")
    for k in SCHEMA:
        if k.name in SECTIONS:
            raise AssertionError(f"{k.name} is both a key and a section")
        if not k.doc:
            raise AssertionError(f"{k.name} has no description")
        if not k.required:
            k.typed(k.default)  # every default is valid for its own kind


_self_check()
