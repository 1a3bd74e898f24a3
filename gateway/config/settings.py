"""Owns the frozen Settings dataclasses the rest of the gateway receives, one per section; field
names equal the schema's key names (checked at import by the schema's self-check)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from gateway.config.checks import Network, split_hostport
from gateway.core.quirks import Quirks


class _Listens:
    """`host` and `port` of a settings section's HOST:PORT `listen` value."""

    __slots__ = ()
    listen: str

    @property
    def host(self) -> str:
        """The listen host, without IPv6 brackets."""
        return split_hostport(self.listen)[0]

    @property
    def port(self) -> int:
        return split_hostport(self.listen)[1]


@dataclass(frozen=True, slots=True)
class ServerSettings(_Listens):
    listen: str
    public_url: str
    trusted_proxies: tuple[Network, ...]
    version_mode: Literal["lenient", "strict"]
    heartbeat_seconds: float
    shutdown_grace_seconds: float
    stream_drain_seconds: float
    header_timeout_seconds: float
    body_timeout_seconds: float
    idle_timeout_seconds: float
    workers: int
    event_loop: Literal["auto", "asyncio", "uvloop"]


@dataclass(frozen=True, slots=True)
class TimeoutSettings:
    connect: float
    first_byte: float
    idle_stream: float
    total_unary: float


@dataclass(frozen=True, slots=True)
class TlsSettings:
    ca_file: str
    cert_file: str
    key_file: str
    server_name: str
    insecure: bool

    @property
    def configured(self) -> bool:
        """Whether any key is set: else the agent's TLS is the system's (and SSL_CERT_FILE's) default."""
        return bool(self.ca_file or self.cert_file or self.key_file or self.server_name or self.insecure)


@dataclass(frozen=True, slots=True)
class UpstreamSettings:
    url: str
    version: Literal["auto", "0.3", "1.0"]
    binding: Literal["auto", "JSONRPC", "HTTP+JSON", "GRPC"]
    tenant: str
    card_refresh_seconds: float
    card_retry_seconds: float
    headers: Mapping[str, str]
    retry_attempts: int
    retry_backoff_seconds: float
    timeout: TimeoutSettings
    tls: TlsSettings


@dataclass(frozen=True, slots=True)
class LimitsSettings:
    max_body_bytes: int
    max_sse_event_bytes: int
    max_connections: int
    max_stream_connections: int
    pool_wait_seconds: float
    max_client_connections: int
    max_agent_head_bytes: int
    max_agent_line_bytes: int
    max_agent_headers: int
    max_agent_chunk_line_bytes: int


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
class TaskIndexSettings:
    store: Literal["memory", "redis"]
    redis_url: str
    ttl_seconds: float
    max_tasks: int
    key_prefix: str


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
class GrpcSettings(_Listens):
    listen: str  # "" disables the gRPC listener
    public_address: str  # HOST:PORT of the card's gRPC interfaces; "": derived


@dataclass(frozen=True, slots=True)
class AdminSettings(_Listens):
    listen: str  # "" disables the admin listener


@dataclass(frozen=True, slots=True)
class TracingSettings:
    enabled: bool
    exporter: Literal["otlp", "console", "none"]


@dataclass(frozen=True, slots=True)
class CardSettings:
    signing_key_file: str  # "" : served cards are not signed
    signing_kid: str       # "" : the key's RFC 7638 thumbprint
    verify_key_files: tuple[str, ...]
    verify_jwks_url: str
    require_verified: bool


@dataclass(frozen=True, slots=True)
class AuthSettings:
    jwks_url: str
    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    leeway_seconds: float
    api_keys: tuple[str, ...] = dataclasses.field(repr=False)
    api_keys_file: str
    api_key_header: str
    forward_credentials: bool

    @property
    def enabled(self) -> bool:
        return bool(self.jwks_url or self.api_keys or self.api_keys_file)


@dataclass(frozen=True, slots=True)
class CallersSettings:
    identity_header: str
    requests_per_second: float
    burst: int
    max_streams: int
    max_stream_seconds: float
    max_stream_bytes: int
    store: Literal["memory", "redis"]
    redis_url: str
    key_prefix: str
    stream_lease_seconds: float

    @property
    def enabled(self) -> bool:
        return bool(self.requests_per_second or self.max_streams or self.max_stream_seconds
                    or self.max_stream_bytes)


@dataclass(frozen=True, slots=True)
class LogSettings:
    format: Literal["json", "console"]
    level: Literal["debug", "info", "warning", "error", "critical"]


@dataclass(frozen=True, slots=True)
class MigrationSettings:
    caller_header: str
    max_callers: int
    deprecation: str  # "" or "@<unix seconds>" (normalised by checks.check_instant)
    sunset: str
    link: str
    cutoff: str


@dataclass(frozen=True, slots=True)
class RouteSettings:
    """One `[[routes]]` entry: an upstream agent selected by path prefix and/or Host, with its own
    upstream, quirks and migration settings (the keys it does not set inherit the top-level sections)."""

    name: str
    path_prefix: str  # "" or "/seg[/seg...]" without a trailing slash
    host: str  # "" (any) or a lower-case host name, matched without the port
    upstream: UpstreamSettings
    quirks: Quirks
    migration: MigrationSettings
    auth: AuthSettings
    callers: CallersSettings


@dataclass(frozen=True, slots=True)
class Settings:
    server: ServerSettings
    upstream: UpstreamSettings
    limits: LimitsSettings
    push: PushSettings
    quirks: Quirks
    task_index: TaskIndexSettings
    agui: AguiSettings
    log: LogSettings
    grpc: GrpcSettings
    admin: AdminSettings
    tracing: TracingSettings
    migration: MigrationSettings
    card: CardSettings
    auth: AuthSettings
    callers: CallersSettings
    routes: tuple[RouteSettings, ...] = ()  # from the config file only; empty: the sidecar case
