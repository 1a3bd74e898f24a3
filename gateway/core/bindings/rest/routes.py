"""The HTTP+JSON route table per version, compiled from OPERATIONS (routes live only there): path
templates as segments, exact matching (a `:verb` suffix is part of the last segment), expansion with
percent-encoded values. Strings only; it never looks at params, queries or bodies."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from gateway.core.operations import OPERATIONS, Operation
from gateway.core.types import Version

_SEGMENT = re.compile(r"\{(\w+)\}(.*)|([^{}]+)")


@dataclass(frozen=True, slots=True)
class Segment:
    """One path segment of a template: a literal, or a variable with an optional literal suffix."""

    literal: str | None
    var: str | None
    suffix: str = ""

    def match(self, segment: str) -> str | None:
        """The variable's value ("" for a matching literal), None when `segment` does not match."""
        if self.var is None:
            return "" if segment == self.literal else None
        if len(segment) > len(self.suffix) and segment.endswith(self.suffix):
            return segment[: len(segment) - len(self.suffix)]
        return None

    @property
    def rank(self) -> int:
        """Specificity: a literal beats `{var}:verb`, which beats a bare `{var}`."""
        return 2 if self.var is None else 1 if self.suffix else 0


@dataclass(frozen=True, slots=True)
class Route:
    op: Operation
    verb: str
    template: str
    segments: tuple[Segment, ...]

    @property
    def vars(self) -> tuple[str, ...]:
        return tuple(s.var for s in self.segments if s.var is not None)

    def match(self, segments: Sequence[str]) -> dict[str, str] | None:
        """The variables of a decoded path (no tenant) this route serves; None when it does not."""
        values: dict[str, str] = {}
        for pattern, segment in zip(self.segments, segments, strict=True):
            value = pattern.match(segment)
            if value is None:
                return None
            if pattern.var is not None:
                values[pattern.var] = value
        return values

    def expand(self, values: Mapping[str, str]) -> str:
        """The path with every variable percent-encoded (all but RFC 3986 unreserved characters)."""
        return "".join(f"/{s.literal}" if s.var is None else f"/{quote(values[s.var], safe='')}{s.suffix}"
                       for s in self.segments)


def compile_template(template: str) -> tuple[Segment, ...]:
    if not template.startswith("/"):
        raise ValueError(f"route template {template!r} must start with '/'")
    segments = []
    for part in template[1:].split("/"):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise ValueError(f"route template {template!r}: bad segment {part!r}")
        segments.append(Segment(m[3], None) if m[3] is not None else Segment(None, m[1], m[2]))
    return tuple(segments)


def _routes() -> dict[tuple[str, Version], tuple[Route, ...]]:
    return {(op.name, version): tuple(Route(op, verb, template, compile_template(template))
                                      for verb, template in op.routes(version))
            for op in OPERATIONS for version in Version}


ROUTES: Mapping[tuple[str, Version], tuple[Route, ...]] = _routes()
"""Each operation's routes per version, in OPERATIONS order (the first is the one emitted)."""


def _table(version: Version) -> dict[int, tuple[Route, ...]]:
    """Routes by segment count, most specific first (`/tasks/{id}:cancel` is tried before `/tasks/{id}`)."""
    routes = [route for (_, v), rs in ROUTES.items() if v is version for route in rs]
    by_length: dict[int, list[Route]] = {}
    for route in sorted(routes, key=lambda r: [-s.rank for s in r.segments]):
        by_length.setdefault(len(route.segments), []).append(route)
    return {n: tuple(rs) for n, rs in by_length.items()}


TABLES: Mapping[Version, Mapping[int, tuple[Route, ...]]] = {v: _table(v) for v in Version}


def candidates(version: Version, segments: Sequence[str]) -> list[tuple[Route, dict[str, str]]]:
    """Every route of `version` whose path matches, any verb, most specific first."""
    out = []
    for route in TABLES[version].get(len(segments), ()):
        values = route.match(segments)
        if values is not None:
            out.append((route, values))
    return out


def route_for(op: Operation, version: Version, verb: str | None = None) -> Route | None:
    """The route to emit: the operation's first route (with `verb`, when given); None when it has none."""
    return next((r for r in ROUTES[(op.name, version)] if verb is None or r.verb == verb), None)
