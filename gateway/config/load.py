"""Owns load(): defaults, then the TOML file (with its [[routes]]), then A2A_GATEWAY_* variables, then
command-line overrides, every value typed and checked, all problems reported together in one ConfigError."""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.config.checks import BadValue, check_path_prefix, check_route_host, check_route_name, describe
from gateway.config.schema import (
    BY_NAME,
    ENV_CONFIG_PATH,
    ENV_NAMES,
    ENV_PREFIX,
    REQUIRED,
    ROUTE_KEYS,
    ROUTED_SECTIONS,
    SCHEMA,
    SECTION_TYPES,
    SECTIONS,
    Key,
    subsections,
)
from gateway.config.settings import RouteSettings, Settings
from gateway.config.tls import TlsFileError, agent_tls

__all__ = ["ConfigError", "Problem", "build_settings", "load"]


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
    loading = _Loading()
    doc = _read_file(path) if path is not None else {}
    raw_routes = doc.pop("routes", None)
    loading.take_file(doc, f"in {path}")
    loading.take_environ(environ)
    loading.take_overrides(overrides or {})
    routes = _read_routes(raw_routes, f"in {path}", loading.problems) if raw_routes is not None else []
    if routes and loading.values["grpc.listen"]:
        loading.problems.append(Problem("grpc.listen", "the gRPC listener serves [upstream] alone: gRPC has no "
                                        "path prefix to choose a [[routes]] agent by", f"in {path}"))
    if routes and loading.values["upstream.url"] is REQUIRED:
        loading.values["upstream.url"] = ""  # every route names its own agent
    loading.require_the_required()
    if loading.problems:
        raise ConfigError(loading.problems)
    settings = build_settings(loading.values)
    if routes:
        settings = dataclasses.replace(settings, routes=tuple(route.build(loading.values) for route in routes))
    problems = _tls_problems(settings)
    if problems:
        raise ConfigError(problems)
    return settings


def _tls_problems(settings: Settings) -> list[Problem]:
    """Each [upstream.tls] set (the top level's, each route's) has files that exist and load."""
    problems: list[Problem] = []
    upstreams = [("upstream", settings.upstream), *((f"routes[{i}].upstream", route.upstream)
                                                    for i, route in enumerate(settings.routes))]
    for at, upstream in upstreams:
        if upstream.tls.configured:
            try:
                agent_tls(upstream.tls)
            except TlsFileError as exc:
                problems.append(Problem(f"{at}.tls.{exc.key}", str(exc)))
    return problems


def build_settings(values: Mapping[str, Any]) -> Settings:
    """Settings from a typed value for every key of SCHEMA (dotted name → value)."""
    return Settings(**{s: _build_section(s, values) for s in SECTIONS if "." not in s})


def _build_section(section: str, values: Mapping[str, Any]) -> Any:
    kwargs: dict[str, Any] = {k.field: values[k.name] for k in SCHEMA if k.section == section}
    for sub in subsections(section):
        kwargs[sub.rpartition(".")[2]] = _build_section(sub, values)
    return SECTION_TYPES[section](**kwargs)


# --- the sources, in order -------------------------------------------------------------------------


class _Loading:
    """One load in progress: every key's value so far (the default until a source sets it) and the
    problems found."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {k.name: k.default for k in SCHEMA}
        self.problems: list[Problem] = []

    def take(self, key: Key, raw: object, source: str, *, text: bool) -> None:
        try:
            self.values[key.name] = key.read(raw, text=text)
        except BadValue as exc:
            self.problems.append(Problem(key.name, str(exc), source))

    def take_file(self, doc: Mapping[str, Any], source: str) -> None:
        for name, raw in _walk_toml(doc):
            key = BY_NAME.get(name)
            if key is not None:
                self.take(key, raw, source, text=False)
            elif name in SECTIONS:
                self.problems.append(Problem(name, f"must be a table [{name}], got {describe(raw)}", source))
            elif isinstance(raw, dict):
                self.problems.append(Problem(name, f"unknown section [{name}]" + _suggest(name, SECTIONS), source))
            else:
                self.problems.append(Problem(name, "unknown key" + _suggest(name, BY_NAME), source))

    def take_environ(self, environ: Mapping[str, str]) -> None:
        for var in sorted(environ):
            if not var.startswith(ENV_PREFIX) or var == ENV_CONFIG_PATH:
                continue
            key = ENV_NAMES.get(var)
            if key is None:
                reason = "unknown environment variable" + _suggest(var, ENV_NAMES)
                self.problems.append(Problem(var, reason, "environment"))
                continue
            self.take(key, environ[var], f"from environment variable {var}", text=True)

    def take_overrides(self, overrides: Mapping[str, object]) -> None:
        for name, raw in overrides.items():
            if raw is None:
                continue
            key = BY_NAME.get(name)
            if key is None:
                self.problems.append(Problem(name, "unknown key", "command line"))
                continue
            source = f"from {key.cli}" if key.cli else "from the command line"
            self.take(key, raw, source, text=isinstance(raw, str) and key.kind not in ("str", "enum"))

    def require_the_required(self) -> None:
        for key in SCHEMA:
            if self.values[key.name] is REQUIRED and not any(p.key == key.name for p in self.problems):
                how = f"the config file, {key.env}" + (f" or {key.cli}" if key.cli else "")
                self.problems.append(Problem(key.name, f"is required; set it in {how}"))


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


def _walk_toml(doc: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted name, value) for every key in the document; unknown names yield too (the caller
    reports them). Schema keys whose kind is a table are not descended into."""
    for name, value in doc.items():
        dotted = f"{prefix}{name}"
        if dotted not in BY_NAME and dotted in SECTIONS and isinstance(value, dict):
            yield from _walk_toml(value, dotted + ".")
        else:
            yield dotted, value


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


# --- [[routes]] ------------------------------------------------------------------------------------

_ROUTE_FIELDS = tuple(k.name for k in ROUTE_KEYS)
_ROUTED_PREFIXES = tuple(f"{s}." for s in ROUTED_SECTIONS)
_ROUTED_KEYS = [name for name in BY_NAME if name.startswith(_ROUTED_PREFIXES)]  # the keys a route may set


@dataclass(frozen=True, slots=True)
class _Route:
    """One valid `[[routes]]` entry: its selectors and the typed upstream/quirks values it sets."""

    name: str
    path_prefix: str
    host: str
    values: dict[str, Any]

    def build(self, values: Mapping[str, Any]) -> RouteSettings:
        """The route's settings: its own values over the top-level ones."""
        merged = {**values, **self.values}
        return RouteSettings(self.name, self.path_prefix, self.host, _build_section("upstream", merged),
                             _build_section("quirks", merged), _build_section("migration", merged),
                             _build_section("auth", merged), _build_section("callers", merged))


def _read_routes(raw: object, source: str, problems: list[Problem]) -> list[_Route]:
    """Validate `[[routes]]`: names and selectors, and each route's upstream/quirks keys, typed with
    the top-level keys' own checks; problems are named `routes[i].key` (i counts from 0)."""
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        problems.append(Problem("routes", f"must be an array of tables [[routes]], got {describe(raw)}", source))
        return []
    out: list[_Route] = []
    names: set[str] = set()
    selectors: set[tuple[str, str]] = set()
    for i, table in enumerate(raw):
        at = f"routes[{i}]"
        for extra in sorted(set(table) - set(_ROUTE_FIELDS)):
            problems.append(Problem(f"{at}.{extra}", "unknown key" + _suggest(extra, _ROUTE_FIELDS), source))
        name = _route_str(table, "name", at, source, problems, check_route_name)
        prefix = _route_str(table, "path_prefix", at, source, problems, check_path_prefix)
        host = _route_str(table, "host", at, source, problems, check_route_host)
        if name is not None:
            if name in names:
                problems.append(Problem(f"{at}.name", f"{name!r} names another route too", source))
            names.add(name)
        if prefix is not None and host is not None:
            if (host, prefix) in selectors:
                where = f"path_prefix {prefix!r}" + (f" on host {host!r}" if host else "")
                problems.append(Problem(f"{at}.path_prefix", f"another route has {where}", source))
            selectors.add((host, prefix))
        typed = _route_values(table, at, source, problems)
        if name is not None and prefix is not None and host is not None:
            out.append(_Route(name, prefix, host, typed))
    return out


def _route_str(table: Mapping[str, Any], field: str, at: str, source: str, problems: list[Problem],
               check: Callable[[str], str]) -> str | None:
    raw = table.get(field, "")
    try:
        if not isinstance(raw, str):
            raise BadValue(f"must be a string, got {describe(raw)}")
        return check(raw)
    except BadValue as exc:
        problems.append(Problem(f"{at}.{field}", str(exc), source))
        return None


def _route_values(table: Mapping[str, Any], at: str, source: str, problems: list[Problem]) -> dict[str, Any]:
    """The route's upstream/quirks keys, typed and checked as the top-level keys are."""
    typed: dict[str, Any] = {}
    sub = {k: table[k] for k in ROUTED_SECTIONS if k in table}
    for dotted, value in _walk_toml(sub):
        key = BY_NAME.get(dotted)
        if key is None or not dotted.startswith(_ROUTED_PREFIXES):
            reason = (f"must be a table [routes.{dotted}], got {describe(value)}" if dotted in SECTIONS
                      else "unknown key" + _suggest(dotted, _ROUTED_KEYS))
            problems.append(Problem(f"{at}.{dotted}", reason, source))
            continue
        try:
            typed[dotted] = key.read(value)
        except BadValue as exc:
            problems.append(Problem(f"{at}.{dotted}", str(exc), source))
    if "upstream.url" not in typed and not any(p.key == f"{at}.upstream.url" for p in problems):
        problems.append(Problem(f"{at}.upstream.url", "is required: every route names its own agent", source))
    return typed
