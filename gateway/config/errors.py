"""Owns how configuration problems are reported: Problem (one bad setting, with its source) and
ConfigError (every problem of one load), plus the internal _Bad raised by coercions and checks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
