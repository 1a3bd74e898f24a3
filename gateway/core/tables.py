"""Tables as the specification: `bijection` builds a one-to-one map with its inverse (duplicates
raise at import) and `lookup` turns a miss into a TranslationError with its JSON path."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

from gateway.core.errors import TranslationError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V", bound=Hashable)


def bijection(mapping: Mapping[K, V]) -> tuple[dict[K, V], dict[V, K]]:
    forward = dict(mapping)
    inverse: dict[V, K] = {}
    for key, value in forward.items():
        if value in inverse:
            raise ValueError(f"bijection: {value!r} is the image of both {inverse[value]!r} and {key!r}")
        inverse[value] = key
    return forward, inverse


def lookup(table: Mapping[K, V], key: object, *, at: str) -> V:
    try:
        return table[key]  # type: ignore[index]
    except (KeyError, TypeError):
        raise TranslationError(at, f"unknown value {key!r}") from None
