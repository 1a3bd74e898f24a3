"""Owns load(): defaults, then the TOML file, then A2A_GATEWAY_* variables, then command-line
overrides, every value validated and all problems reported together in one ConfigError."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from gateway.config.coerce import _coerce_text, _coerce_value, _describe
from gateway.config.errors import ConfigError, Problem, _Bad
from gateway.config.key import ENV_CONFIG_PATH, ENV_PREFIX, REQUIRED, Key
from gateway.config.routes import _build_route, _read_routes
from gateway.config.schema import _BY_NAME, ENV_NAMES, SCHEMA, _build, _suggest, _walk_toml
from gateway.config.settings import Settings
from gateway.config.table import SECTIONS


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
