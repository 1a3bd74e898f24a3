"""Owns the gateway's settings: the schema (one table of keys), TOML loading, A2A_GATEWAY_* and CLI
overrides, validation once at start-up, and the generated reference and sample file."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import difflib
import importlib.util
import inspect
import ipaddress
import math
import re
import textwrap
import tomllib
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from gateway.core.quirks import Quirks

__all__ = [
    "ENV_CONFIG_PATH",
    "ENV_NAMES",
    "ENV_PREFIX",
    "SCHEMA",
    "SECTIONS",
    "AdminSettings",
    "AguiSettings",
    "ConfigError",
    "Key",
    "LimitsSettings",
    "LogSettings",
    "Problem",
    "PushSettings",
    "RouteSettings",
    "ServerSettings",
    "Settings",
    "TimeoutSettings",
    "TracingSettings",
    "UpstreamSettings",
    "load",
    "reference_markdown",
    "sample_toml",
]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# ---------------------------------------------------------------------------------------------------
# Settings: what the rest of the gateway receives. Field names equal the schema's key names (checked
# at import), so `settings.upstream.timeout.connect` is key `upstream.timeout.connect`.
# ---------------------------------------------------------------------------------------------------


class _Listens:
    """`host` and `port` of a settings section's HOST:PORT `listen` value."""

    __slots__ = ()
    listen: str

    @property
    def host(self) -> str:
        """The listen host, without IPv6 brackets."""
        return _split_hostport(self.listen)[0]

    @property
    def port(self) -> int:
        return _split_hostport(self.listen)[1]


@dataclass(frozen=True, slots=True)
class ServerSettings(_Listens):
    listen: str
    public_url: str
    trusted_proxies: tuple[Network, ...]
    version_mode: Literal["lenient", "strict"]
    heartbeat_seconds: float
    shutdown_grace_seconds: float
    stream_drain_seconds: float
    workers: int
    event_loop: Literal["auto", "asyncio", "uvloop"]



@dataclass(frozen=True, slots=True)
class TimeoutSettings:
    connect: float
    first_byte: float
    idle_stream: float
    total_unary: float


@dataclass(frozen=True, slots=True)
class UpstreamSettings:
    url: str
    version: Literal["auto", "0.3", "1.0"]
    binding: Literal["auto", "JSONRPC", "HTTP+JSON"]
    tenant: str
    card_refresh_seconds: float
    card_retry_seconds: float
    headers: Mapping[str, str]
    timeout: TimeoutSettings


@dataclass(frozen=True, slots=True)
class LimitsSettings:
    max_body_bytes: int
    max_sse_event_bytes: int
    max_connections: int
    max_client_connections: int


@dataclass(frozen=True, slots=True)
class PushSettings:
    enabled: bool
    keys: tuple[bytes, ...] = dataclasses.field(repr=False)  # decoded 32-byte keys; keys[0] seals
    webhook_base_url: str
    webhook_path: str
    allow_networks: tuple[Network, ...]
    max_concurrency: int
    max_attempts: int
    backoff_seconds: float
    timeout_seconds: float
    max_body_bytes: int


@dataclass(frozen=True, slots=True)
class AguiSettings:
    contextid_mode: Literal["server", "thread"]
    unknown_surface: Literal["lenient", "strict"]
    action_encoding: Literal["auto", "v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0", "bare"]
    a2ui_versions: tuple[str, ...]
    a2ui_sniff: bool
    input_required_as_interrupt: bool
    snapshot_mode: Literal["log", "compact"]
    compact_above_bytes: int
    cancel_on_disconnect: bool
    mirror_ids_in_state: bool
    settle_seconds: float
    session_ttl_seconds: float
    max_sessions: int


@dataclass(frozen=True, slots=True)
class AdminSettings(_Listens):
    listen: str  # "" disables the admin listener


@dataclass(frozen=True, slots=True)
class TracingSettings:
    enabled: bool
    exporter: Literal["otlp", "console", "none"]


@dataclass(frozen=True, slots=True)
class LogSettings:
    format: Literal["json", "console"]
    level: Literal["debug", "info", "warning", "error", "critical"]


@dataclass(frozen=True, slots=True)
class RouteSettings:
    """One `[[routes]]` entry: an upstream agent selected by path prefix and/or Host, with its own
    upstream and quirks settings (the keys it does not set inherit `[upstream]` and `[quirks]`)."""

    name: str
    path_prefix: str  # "" or "/seg[/seg...]" without a trailing slash
    host: str  # "" (any) or a lower-case host name, matched without the port
    upstream: UpstreamSettings
    quirks: Quirks


@dataclass(frozen=True, slots=True)
class Settings:
    server: ServerSettings
    upstream: UpstreamSettings
    limits: LimitsSettings
    push: PushSettings
    quirks: Quirks
    agui: AguiSettings
    log: LogSettings
    admin: AdminSettings
    tracing: TracingSettings
    routes: tuple[RouteSettings, ...] = ()  # from the config file only; empty: the sidecar case


# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """One bad setting: the dotted key (or variable/file name), why, and where the value came from."""

    key: str
    reason: str
    source: str = ""

    def __str__(self) -> str:
        return f"{self.key}: {self.reason}" + (f" ({self.source})" if self.source else "")


class ConfigError(Exception):
    """Every configuration problem found in one pass; the message has one line per problem."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        assert problems, "ConfigError needs at least one problem"
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def key(self) -> str:
        """The key of the first problem."""
        return self.problems[0].key


class _Bad(ValueError):
    """Raised by coercions and checks with the reason only; load() adds key and source."""


# ---------------------------------------------------------------------------------------------------
# The schema
# ---------------------------------------------------------------------------------------------------

Kind = Literal["str", "int", "float", "bool", "list", "table", "enum"]

ENV_PREFIX = "A2A_GATEWAY_"
# Not a key: the config file path, read by the command line when --config is absent.
ENV_CONFIG_PATH = "A2A_GATEWAY_CONFIG"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True, slots=True)
class Key:
    """One setting: dotted name, value kind, default (or REQUIRED), one-paragraph doc."""

    name: str
    kind: Kind
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    check: Callable[[Any], Any] | None = None  # validates and normalizes a typed value; raises _Bad
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
        if self.kind == "enum":
            return " \\| ".join(f'`"{c}"`' for c in self.choices)
        return {
            "str": "string",
            "int": "integer",
            "float": "number",
            "bool": "boolean",
            "list": "list of strings",
            "table": "table of strings",
        }[self.kind]


# --- checks ----------------------------------------------------------------------------------------

_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.\-]*[A-Za-z0-9])?$")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
# Headers the gateway sets or that describe one hop; configuring them would break the proxy.
_RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
        "a2a-version",
    }
)


def _split_hostport(value: str) -> tuple[str, int]:
    if value.startswith("["):
        host, sep, port = value[1:].partition("]:")
        if not sep:
            raise _Bad(f"must be HOST:PORT (IPv6 as [ADDR]:PORT), got {value!r}")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise _Bad(f"{host!r} is not an IPv6 address") from None
    else:
        host, sep, port = value.rpartition(":")
        if not sep or not host:
            raise _Bad(f"must be HOST:PORT, e.g. 127.0.0.1:8080, got {value!r}")
        if ":" in host:
            raise _Bad(f"IPv6 addresses need brackets, e.g. [::1]:8080, got {value!r}")
        if not _HOSTNAME.match(host):
            raise _Bad(f"{host!r} is not a valid host name or address")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise _Bad(f"port must be a number from 0 to 65535, got {port!r}")
    return host, int(port)


def _check_listen(value: str) -> str:
    _split_hostport(value)
    return value


def _check_admin_listen(value: str) -> str:
    return value if value == "" else _check_listen(value)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _check_event_loop(value: str) -> str:
    if value == "uvloop" and not _installed("uvloop"):
        raise _Bad('uvloop is not installed: install a2a-gateway[uvloop], or use "auto"')
    return value


def _check_tracing(value: bool) -> bool:
    if value and not _installed("opentelemetry.sdk.trace"):
        raise _Bad("OpenTelemetry is not installed: install a2a-gateway[otel]")
    return value


def _check_http_url(value: str, *, what: str) -> str:
    if any(c.isspace() for c in value):
        raise _Bad(f"{what} must not contain whitespace, got {value!r}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise _Bad(f"{what} is not a valid URL ({exc}), got {value!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Bad(f"{what} must be an absolute http:// or https:// URL, got {value!r}")
    if parts.username is not None or parts.password is not None:
        raise _Bad(f"{what} must not carry credentials; use upstream.headers, got {value!r}")
    if parts.query or parts.fragment:
        raise _Bad(f"{what} must not have a query or fragment, got {value!r}")
    return value


def _check_upstream_url(value: str) -> str:
    return _check_http_url(value, what="the upstream URL")


def _check_public_url(value: str) -> str:
    if value == "":
        return value
    return _check_http_url(value, what="the public URL").rstrip("/")


def _check_cidrs(value: tuple[str, ...]) -> tuple[Network, ...]:
    nets: list[Network] = []
    for item in value:
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise _Bad(f"{item!r} is not an IP address or CIDR block") from None
    return tuple(nets)


def _check_tenant(value: str) -> str:
    if any(c in value for c in "/?#") or any(c.isspace() for c in value):
        raise _Bad(f"must be one path segment (no '/', '?', '#' or spaces), got {value!r}")
    return value


def _check_headers(value: Mapping[str, str]) -> Mapping[str, str]:
    for name, val in value.items():
        if not _TOKEN.match(name):
            raise _Bad(f"{name!r} is not a valid header name")
        if name.lower() in _RESERVED_HEADERS:
            raise _Bad(f"header {name!r} is set by the gateway and cannot be configured")
        if any(c in val for c in "\r\n\0"):
            raise _Bad(f"the value of header {name!r} contains a line break or NUL")
    return value


_A2UI_VERSIONS = ("v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0")


def _check_a2ui_versions(value: tuple[str, ...]) -> tuple[str, ...]:
    for item in value:
        if item not in _A2UI_VERSIONS:
            raise _Bad(f"{item!r} is not an A2UI version; expected some of {', '.join(_A2UI_VERSIONS)}")
    return value


def _at_least(minimum: float, *, strict: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value < minimum or (strict and value == minimum):
            raise _Bad(f"must be {'greater than' if strict else 'at least'} {minimum:g}, got {value!r}")
        return value

    return check


_POSITIVE = _at_least(0, strict=True)
_NON_NEGATIVE = _at_least(0)
_ONE_OR_MORE = _at_least(1)


def _check_push_keys(value: tuple[str, ...]) -> tuple[bytes, ...]:
    keys: list[bytes] = []
    for i, item in enumerate(value):
        text = item.strip().rstrip("=").replace("-", "+").replace("_", "/")  # standard or URL-safe
        try:
            key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise _Bad(f"key {i + 1} is not base64") from None
        if len(key) != 32:
            raise _Bad(f"key {i + 1} must decode to 32 bytes, got {len(key)}; make one with: "
                       "python -c 'import os,base64; print(base64.b64encode(os.urandom(32)).decode())'")
        keys.append(key)
    return tuple(keys)


def _check_webhook_base(value: str) -> str:
    return "" if value == "" else _check_http_url(value, what="the webhook base URL").rstrip("/")


def _check_webhook_path(value: str) -> str:
    path = value.rstrip("/")
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", path):
        raise _Bad(f"must be an absolute path of plain segments, e.g. /a2a-push, got {value!r}")
    return path

# --- the table -------------------------------------------------------------------------------------

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


def _quirk_docs() -> dict[str, str]:
    """The comment block above each Quirks field (shared by consecutive fields)."""
    docs: dict[str, str] = {}
    try:
        lines = inspect.getsource(Quirks).splitlines()
    except (OSError, TypeError):  # pragma: no cover - source not shipped
        return docs
    comment: list[str] = []  # the comment block being read
    shared = ""  # the block that applies to the current run of consecutive fields
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            shared = ""
            comment.append(stripped.lstrip("#").strip())
        elif m := re.match(r"^(\w+)\s*:", stripped):
            if comment:
                shared, comment = " ".join(comment), []
            docs[m.group(1)] = shared
        else:
            comment, shared = [], ""
    return docs


def _quirk_keys() -> tuple[Key, ...]:
    hints = typing.get_type_hints(Quirks)
    docs = _quirk_docs()
    keys: list[Key] = []
    for f in dataclasses.fields(Quirks):
        hint = hints[f.name]
        if f.default is dataclasses.MISSING:
            raise TypeError(f"config cannot express Quirks.{f.name}: it has no plain default")
        doc = (f.metadata.get("doc") or docs.get(f.name, "")).strip()
        kinds: dict[object, Kind] = {bool: "bool", int: "int", float: "float", str: "str"}
        if hint in kinds:
            keys.append(Key(f"quirks.{f.name}", kinds[hint], f.default, doc))
        elif typing.get_origin(hint) is Literal and all(isinstance(a, str) for a in typing.get_args(hint)):
            keys.append(Key(f"quirks.{f.name}", "enum", f.default, doc, choices=tuple(typing.get_args(hint))))
        else:
            raise TypeError(f"config cannot express Quirks.{f.name}: unsupported type {hint!r}")
    return tuple(keys)


# Every key, in section order (a stable sort keeps the order within a section).
SCHEMA: tuple[Key, ...] = tuple(
    sorted(_BASE_SCHEMA + _quirk_keys(), key=lambda k: list(SECTIONS).index(k.section))
)
_BY_NAME: dict[str, Key] = {k.name: k for k in SCHEMA}
ENV_NAMES: dict[str, Key] = {k.env: k for k in SCHEMA}

_SECTION_TYPES: dict[str, type] = {
    "server": ServerSettings,
    "upstream": UpstreamSettings,
    "upstream.timeout": TimeoutSettings,
    "limits": LimitsSettings,
    "push": PushSettings,
    "quirks": Quirks,
    "agui": AguiSettings,
    "log": LogSettings,
    "admin": AdminSettings,
    "tracing": TracingSettings,
}


def _subsections(section: str) -> list[str]:
    return [s for s in SECTIONS if s.rpartition(".")[0] == section]


def _self_check() -> None:
    """The schema, the section table and the dataclasses must agree, and env names be unique."""
    if len(ENV_NAMES) != len(SCHEMA) or ENV_CONFIG_PATH in ENV_NAMES:
        raise AssertionError("two keys map to the same environment variable")
    if set(_SECTION_TYPES) != set(SECTIONS) or {k.section for k in SCHEMA} != set(SECTIONS):
        raise AssertionError("SECTIONS, _SECTION_TYPES and SCHEMA disagree on the sections")
    top = {s for s in SECTIONS if "." not in s}
    if {f.name for f in dataclasses.fields(Settings)} - {"routes"} != top:
        raise AssertionError("Settings fields differ from the top-level sections")
    for section, cls in _SECTION_TYPES.items():
        want = {k.field for k in SCHEMA if k.section == section}
        want |= {s.rpartition(".")[2] for s in _subsections(section)}
        if {f.name for f in dataclasses.fields(cls)} != want:
            raise AssertionError(f"{cls.__name__} fields differ from the [{section}] keys")
    for k in SCHEMA:
        if k.name in SECTIONS:
            raise AssertionError(f"{k.name} is both a key and a section")
        if not k.required:
            _coerce_value(k, k.default)  # every default is valid for its own kind


# ---------------------------------------------------------------------------------------------------
# Coercion: raw values (TOML or Python objects) and text (environment) to typed values
# ---------------------------------------------------------------------------------------------------


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return f"{type(value).__name__} {value!r}"


def _enum(key: Key, value: str) -> str:
    for choice in key.choices:
        if value.strip().lower() == choice.lower():
            return choice
    options = ", ".join(f'"{c}"' for c in key.choices)
    raise _Bad(f"must be one of {options}, got {value!r}")


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise _Bad(f"must be a finite number, got {value!r}")
    return value


def _coerce_value(key: Key, value: object) -> Any:
    """A value from TOML or the command line, already typed."""
    kind = key.kind
    if kind == "str" and isinstance(value, str):
        return value
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return _finite(float(value))
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "enum" and isinstance(value, str):
        return _enum(key, value)
    if kind == "list" and isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if kind == "table" and isinstance(value, Mapping):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise _Bad("every value in the table must be a string")
        return types.MappingProxyType(dict(value))
    want = {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "enum": "a string",
        "list": "a list of strings",
        "table": "a table of strings",
    }[kind]
    hint = ""
    if kind == "enum" and isinstance(value, int | float) and not isinstance(value, bool):
        hint = f' (quote it: "{value}")'
    raise _Bad(f"must be {want}, got {_describe(value)}{hint}")


def _coerce_text(key: Key, text: str) -> Any:
    """A value from an environment variable (or a string on the command line)."""
    kind = key.kind
    s = text.strip()
    if kind == "str":
        return text
    if kind == "enum":
        return _enum(key, text)
    if kind == "int":
        try:
            return int(s, 10)
        except ValueError:
            raise _Bad(f"must be an integer, got {text!r}") from None
    if kind == "float":
        try:
            number = float(s)
        except ValueError:
            raise _Bad(f"must be a number, got {text!r}") from None
        return _finite(number)
    if kind == "bool":
        if s.lower() in ("true", "1"):
            return True
        if s.lower() in ("false", "0"):
            return False
        raise _Bad(f"must be true, false, 1 or 0, got {text!r}")
    if kind == "list":
        return tuple(item.strip() for item in s.split(",") if item.strip())
    # table: Name=value,Name2=value2
    table: dict[str, str] = {}
    for item in s.split(","):
        if not item.strip():
            continue
        name, sep, val = item.partition("=")
        if not sep or not name.strip():
            raise _Bad(f"must be comma-separated Name=value pairs, got {item.strip()!r}")
        table[name.strip()] = val.strip()
    return types.MappingProxyType(table)


# ---------------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------------


def _walk_toml(doc: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted name, value) for every key in the document; unknown names yield too (the caller
    reports them). Schema keys whose kind is a table are not descended into."""
    for name, value in doc.items():
        dotted = f"{prefix}{name}"
        if dotted not in _BY_NAME and dotted in SECTIONS and isinstance(value, dict):
            yield from _walk_toml(value, dotted + ".")
        else:
            yield dotted, value


def _suggest(name: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def _read_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(
            [Problem(str(path), f"cannot read the config file: {exc.strerror or exc}")]
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([Problem(str(path), f"invalid TOML: {exc}")]) from None


def load(
    path: Path | None,
    environ: Mapping[str, str],
    overrides: Mapping[str, object] | None = None,
) -> Settings:
    """Build Settings from the defaults, then the TOML file at `path` (if any), then `A2A_GATEWAY_*`
    variables in `environ`, then `overrides` (dotted key → value; None values are skipped).

    Every supplied value is validated, even one a later source overrides; all problems are reported
    together in one ConfigError.
    """
    problems: list[Problem] = []
    values: dict[str, Any] = {k.name: k.default for k in SCHEMA}

    def take(key: Key, raw: object, source: str, *, text: bool) -> None:
        try:
            typed = _coerce_text(key, cast(str, raw)) if text else _coerce_value(key, raw)
            values[key.name] = key.check(typed) if key.check else typed
        except _Bad as exc:
            problems.append(Problem(key.name, str(exc), source))

    raw_routes: object = None
    if path is not None:
        source = f"in {path}"
        doc = _read_file(path)
        raw_routes = doc.pop("routes", None)
        for name, raw in _walk_toml(doc):
            key = _BY_NAME.get(name)
            if key is None:
                if name in SECTIONS:
                    problems.append(Problem(name, f"must be a table [{name}], got {_describe(raw)}", source))
                elif isinstance(raw, dict):
                    reason = f"unknown section [{name}]" + _suggest(name, list(SECTIONS))
                    problems.append(Problem(name, reason, source))
                else:
                    problems.append(Problem(name, "unknown key" + _suggest(name, list(_BY_NAME)), source))
                continue
            take(key, raw, source, text=False)

    for var in sorted(environ):
        if not var.startswith(ENV_PREFIX) or var == ENV_CONFIG_PATH:
            continue
        key = ENV_NAMES.get(var)
        if key is None:
            reason = "unknown environment variable" + _suggest(var, list(ENV_NAMES))
            problems.append(Problem(var, reason, "environment"))
            continue
        take(key, environ[var], f"from environment variable {var}", text=True)

    for name, raw in (overrides or {}).items():
        if raw is None:
            continue
        key = _BY_NAME.get(name)
        if key is None:
            problems.append(Problem(name, "unknown key", "command line"))
            continue
        source = f"from {key.cli}" if key.cli else "from the command line"
        take(key, raw, source, text=isinstance(raw, str) and key.kind not in ("str", "enum"))

    route_overrides = _read_routes(raw_routes, f"in {path}", problems) if raw_routes is not None else []
    if route_overrides and values["upstream.url"] is REQUIRED:
        values["upstream.url"] = ""  # every route names its own agent

    for key in SCHEMA:
        if values[key.name] is REQUIRED and not any(p.key == key.name for p in problems):
            how = f"the config file, {key.env}" + (f" or {key.cli}" if key.cli else "")
            problems.append(Problem(key.name, f"is required; set it in {how}"))

    if problems:
        raise ConfigError(problems)
    settings = _build(values)
    if not route_overrides:
        return settings
    return dataclasses.replace(settings, routes=tuple(_build_route(values, o) for o in route_overrides))


# --- routes: [[routes]] in the config file --------------------------------------------------------

_ROUTE_NAME = re.compile(r"^[a-z0-9-]{1,63}$")
_ROUTE_FIELDS = ("name", "path_prefix", "host", "upstream", "quirks")


@dataclass(frozen=True, slots=True)
class _RouteOverrides:
    name: str
    path_prefix: str
    host: str
    values: dict[str, Any]  # typed upstream.* and quirks.* values the route sets


def _route_str(table: Mapping[str, Any], field: str, at: str, source: str, problems: list[Problem],
               check: Callable[[str], str]) -> str | None:
    raw = table.get(field, "")
    try:
        if not isinstance(raw, str):
            raise _Bad(f"must be a string, got {_describe(raw)}")
        return check(raw)
    except _Bad as exc:
        problems.append(Problem(f"{at}.{field}", str(exc), source))
        return None


def _check_route_name(value: str) -> str:
    if not value:
        raise _Bad("is required: 1-63 characters of a-z, 0-9 and '-'")
    if not _ROUTE_NAME.match(value):
        raise _Bad(f"must be 1-63 characters of a-z, 0-9 and '-', got {value!r}")
    return value


def _check_path_prefix(value: str) -> str:
    prefix = value.rstrip("/")
    if prefix and not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", prefix):
        raise _Bad(f'must be "" or an absolute path of plain segments, e.g. /agents/billing, got {value!r}')
    return prefix


def _check_route_host(value: str) -> str:
    if value and not _HOSTNAME.match(value):
        raise _Bad(f"must be a host name without a port, e.g. billing.example.com, got {value!r}")
    return value.lower()


def _read_routes(raw: object, source: str, problems: list[Problem]) -> list[_RouteOverrides]:
    """Validate `[[routes]]`: names and selectors, and each route's upstream/quirks keys, typed with
    the top-level keys' own checks; problems are named `routes[i].key` (i counts from 0)."""
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        problems.append(Problem("routes", f"must be an array of tables [[routes]], got {_describe(raw)}", source))
        return []
    out: list[_RouteOverrides] = []
    names: set[str] = set()
    selectors: set[tuple[str, str]] = set()
    for i, table in enumerate(raw):
        at = f"routes[{i}]"
        for extra in sorted(set(table) - set(_ROUTE_FIELDS)):
            problems.append(Problem(f"{at}.{extra}", "unknown key" + _suggest(extra, _ROUTE_FIELDS), source))
        name = _route_str(table, "name", at, source, problems, _check_route_name)
        prefix = _route_str(table, "path_prefix", at, source, problems, _check_path_prefix)
        host = _route_str(table, "host", at, source, problems, _check_route_host)
        if name is not None:
            if name in names:
                problems.append(Problem(f"{at}.name", f"{name!r} names another route too", source))
            names.add(name)
        if prefix is not None and host is not None:
            if (host, prefix) in selectors:
                where = f"path_prefix {prefix!r}" + (f" on host {host!r}" if host else "")
                problems.append(Problem(f"{at}.path_prefix", f"another route has {where}", source))
            selectors.add((host, prefix))
        typed: dict[str, Any] = {}
        sub = {k: table[k] for k in ("upstream", "quirks") if k in table}
        for dotted, value in _walk_toml(sub):
            key = _BY_NAME.get(dotted)
            if key is None or not dotted.startswith(("upstream.", "quirks.")):
                reason = (f"must be a table [routes.{dotted}], got {_describe(value)}" if dotted in SECTIONS
                          else "unknown key" + _suggest(dotted, [k for k in _BY_NAME
                                                                 if k.startswith(("upstream.", "quirks."))]))
                problems.append(Problem(f"{at}.{dotted}", reason, source))
                continue
            try:
                coerced = _coerce_value(key, value)
                typed[dotted] = key.check(coerced) if key.check else coerced
            except _Bad as exc:
                problems.append(Problem(f"{at}.{dotted}", str(exc), source))
        if "upstream.url" not in typed and not any(p.key == f"{at}.upstream.url" for p in problems):
            problems.append(Problem(f"{at}.upstream.url", "is required: every route names its own agent", source))
        if name is not None and prefix is not None and host is not None:
            out.append(_RouteOverrides(name, prefix, host, typed))
    return out


def _build_route(values: Mapping[str, Any], route: _RouteOverrides) -> RouteSettings:
    merged = {**values, **route.values}
    return RouteSettings(route.name, route.path_prefix, route.host, _build_section("upstream", merged),
                         _build_section("quirks", merged))


def _build_section(section: str, values: Mapping[str, Any]) -> Any:
    kwargs: dict[str, Any] = {k.field: values[k.name] for k in SCHEMA if k.section == section}
    for sub in _subsections(section):
        kwargs[sub.rpartition(".")[2]] = _build_section(sub, values)
    return _SECTION_TYPES[section](**kwargs)


def _build(values: Mapping[str, Any]) -> Settings:
    return Settings(**{s: _build_section(s, values) for s in SECTIONS if "." not in s})


# ---------------------------------------------------------------------------------------------------
# Generated documents
# ---------------------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {value!r}")  # pragma: no cover


def reference_markdown() -> str:
    """The configuration reference for the README, generated from SCHEMA."""
    out = [
        "## Configuration reference",
        "",
        "Settings come from built-in defaults, then the TOML file (`--config FILE` or "
        f"`{ENV_CONFIG_PATH}`), then environment variables, then command-line flags; later sources "
        "win. Every key has an environment variable: `A2A_GATEWAY_` followed by the dotted key "
        "upper-cased with dots replaced by underscores (`upstream.timeout.connect` is "
        "`A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT`). From the environment, booleans are "
        "`true`/`false`/`1`/`0`, lists are comma-separated, and tables are comma-separated "
        "`Name=value` pairs. An unknown key or `A2A_GATEWAY_*` variable is an error.",
    ]
    for section, sdoc in SECTIONS.items():
        out += ["", f"### `[{section}]`", "", sdoc, ""]
        out += ["| Key | Type | Default | Environment variable | Description |", "|---|---|---|---|---|"]
        for k in SCHEMA:
            if k.section != section:
                continue
            default = "required" if k.required else f"`{_toml_value(k.default)}`"
            doc = k.doc.replace("|", "\\|") + (f" Flag: `{k.cli}`." if k.cli else "")
            out.append(f"| `{k.field}` | {k.type_label} | {default} | `{k.env}` | {doc} |")
    out += ["", "### `[[routes]]`", "", _ROUTES_DOC, "",
            "| Key | Type | Default | Description |", "|---|---|---|---|"]
    out += [f"| `{name}` | {kind} | {default} | {doc} |" for name, kind, default, doc in _ROUTE_KEYS]
    return "\n".join(out) + "\n"


_ROUTES_DOC = (
    "Several agents behind one gateway: each `[[routes]]` entry is an upstream agent selected by path "
    "prefix and/or `Host`, served as its own sub-application (its card, JSON-RPC, HTTP+JSON, AG-UI and "
    "push webhook paths all under the prefix, its card's URLs pointing there). A request goes to the "
    "first route whose host (if set) and prefix match, routes with a host first, longer prefixes first; "
    "a path no route matches gets a 404 in the A2A HTTP+JSON error shape. With no routes the gateway "
    "is a sidecar in front of `[upstream]`. Routes come from the config file only: no environment "
    "variable or flag addresses a route, and changing them (or the `[upstream]`/`[quirks]` keys they "
    "inherit) needs a restart, not SIGHUP. Errors name the route by its index from 0, e.g. "
    "`routes[1].upstream.url`."
)
_ROUTE_KEYS = (
    ("name", "string", "required", "The route's name: 1-63 characters of `a-z`, `0-9` and `-`; unique."),
    ("path_prefix", "string", '`""`', "The path prefix, e.g. `/agents/billing` (plain segments, no "
     "trailing slash); `\"\"` matches every path. Host and prefix together are unique."),
    ("host", "string", '`""`', "Match only this `Host` (case-insensitive, the port ignored); `\"\"` matches "
     "any host."),
    ("upstream", "table", "`[upstream]`", "Any `[upstream]` key (`url` is required), e.g. "
     "`[routes.upstream]` and `[routes.upstream.timeout]`; keys not set inherit `[upstream]`."),
    ("quirks", "table", "`[quirks]`", "Any `[quirks]` key, as `[routes.quirks]`; keys not set inherit "
     "`[quirks]`."),
)


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, width=98, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)


def sample_toml() -> str:
    """The shipped config/gateway.toml: every key at its default, documented, generated from SCHEMA."""
    out = [
        "# a2a-gateway configuration: every key at its built-in default.",
        "#",
        "# Generated from gateway.config.SCHEMA; regenerate with",
        "#   python -c 'from gateway.config import sample_toml; print(sample_toml(), end=\"\")' "
        "> config/gateway.toml",
        "#",
        "# Precedence: defaults < this file < environment < command-line flags. Every key can be set",
        "# by an environment variable named A2A_GATEWAY_ + the dotted key upper-cased with dots as",
        "# underscores, e.g. upstream.timeout.connect -> A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT.",
        "# Check a file with: a2a-gateway check-config FILE",
    ]
    for section in SECTIONS:  # a section's table-valued keys come after its plain keys
        plain = [k for k in SCHEMA if k.section == section and k.kind != "table"]
        tables = [k for k in SCHEMA if k.section == section and k.kind == "table"]
        out += ["", f"[{section}]", *_comment(SECTIONS[section])]
        for k in plain:
            out += ["", *_comment(k.doc), f"# env: {k.env}"]
            if k.kind == "enum":
                out.append("# one of: " + ", ".join(f'"{c}"' for c in k.choices))
            if k.required:
                out.append(f"# {k.field} = {k.example}")
            else:
                out.append(f"{k.field} = {_toml_value(k.default)}")
        for k in tables:
            out += ["", f"[{k.name}]", *_comment(k.doc), f"# env: {k.env}"]
            example = k.example.strip("{} ")
            if example:
                out.append(f"# {example}")
    out += ["", *_comment("[[routes]]: several agents behind one gateway (see the README's configuration "
                          "reference); file only, restart to change. Without routes the gateway is a "
                          "sidecar in front of [upstream]. For example:"),
            "#",
            "# [[routes]]",
            '# name = "billing"',
            '# path_prefix = "/agents/billing"',
            "# [routes.upstream]",
            '# url = "http://billing-agent:9000"',
            '# version = "0.3"',
            "# [routes.upstream.headers]",
            '# Authorization = "Bearer <token>"',
            "#",
            "# [[routes]]",
            '# name = "search"',
            '# host = "search.agents.example.com"',
            "# [routes.upstream]",
            '# url = "http://search-agent:9000"',
            "# [routes.quirks]",
            "# # any [quirks] key"]
    return "\n".join(out) + "\n"


_self_check()
