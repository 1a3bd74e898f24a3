"""Owns [[routes]] in the config file: each route's name and selectors (path prefix, host), its
upstream/quirks keys typed with the top-level checks, and building RouteSettings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gateway.config.checks import _HOSTNAME
from gateway.config.coerce import _coerce_value, _describe
from gateway.config.errors import Problem, _Bad
from gateway.config.schema import _BY_NAME, _build_section, _suggest, _walk_toml
from gateway.config.settings import RouteSettings
from gateway.config.table import SECTIONS

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

