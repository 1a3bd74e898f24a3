"""Owns the gateway's settings: the schema (one table of keys), TOML loading, A2A_GATEWAY_* and CLI
overrides, validation once at start-up, and the generated reference and sample file."""

# The modules, each importing only those above it: checks (what makes one value valid), settings (the
# frozen dataclasses the gateway receives), tls (the TLS toward agents [upstream.tls]'s files make), schema
# (every key: kind, default, description, check, flag), load (the sources in order, [[routes]], the
# problems) and reference (the documents the schema generates).

from __future__ import annotations

from gateway.config.load import ConfigError, Problem, load
from gateway.config.reference import reference_markdown, sample_toml
from gateway.config.schema import BY_NAME, ENV_CONFIG_PATH, ENV_NAMES, ENV_PREFIX, SCHEMA, SECTIONS, Key
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
    RouteSettings,
    ServerSettings,
    Settings,
    TaskIndexSettings,
    TimeoutSettings,
    TlsSettings,
    TracingSettings,
    UpstreamSettings,
)

__all__ = [
    "BY_NAME",
    "ENV_CONFIG_PATH",
    "ENV_NAMES",
    "ENV_PREFIX",
    "SCHEMA",
    "SECTIONS",
    "AdminSettings",
    "AguiSettings",
    "AuthSettings",
    "CallersSettings",
    "CardSettings",
    "ConfigError",
    "GrpcSettings",
    "Key",
    "LimitsSettings",
    "LogSettings",
    "MigrationSettings",
    "Problem",
    "PushSettings",
    "RouteSettings",
    "ServerSettings",
    "Settings",
    "TaskIndexSettings",
    "TimeoutSettings",
    "TlsSettings",
    "TracingSettings",
    "UpstreamSettings",
    "load",
    "reference_markdown",
    "sample_toml",
]
