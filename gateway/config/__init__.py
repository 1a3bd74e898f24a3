"""Owns the gateway's settings: the schema (one table of keys), TOML loading, A2A_GATEWAY_* and CLI
overrides, validation once at start-up, and the generated reference and sample file."""

from __future__ import annotations

from gateway.config.docs import reference_markdown, sample_toml
from gateway.config.errors import ConfigError, Problem
from gateway.config.key import ENV_CONFIG_PATH, ENV_PREFIX, Key
from gateway.config.load import load
from gateway.config.schema import ENV_NAMES, SCHEMA
from gateway.config.settings import (
    AdminSettings,
    AguiSettings,
    LimitsSettings,
    LogSettings,
    PushSettings,
    RouteSettings,
    ServerSettings,
    Settings,
    TimeoutSettings,
    TracingSettings,
    UpstreamSettings,
)
from gateway.config.table import SECTIONS

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
