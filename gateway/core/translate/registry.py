"""The registry of family translators, `{family: {(src, dst): fn}}`, and `translate()`, which goes
through the v1.0 hub when neither side is v1.0. Unknown members are never copied: each is dropped
with a `dropped_unknown_member` note (strict v1.0 parsers reject them). No mapping rules live here."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from gateway.core.notes import Cx
from gateway.core.types import Dialect

Translator = Callable[[Any, Cx, str], Any]
FamilyTable = Mapping[str, Mapping[tuple[Dialect, Dialect], Translator]]

_REGISTRY: dict[str, dict[tuple[Dialect, Dialect], Translator]] = {}
_FAST: dict[str, dict[str, dict[str, Translator]]] = {}   # the same, as family -> src -> dst
_ALIASES: dict[str, str] = {}


def register(table: FamilyTable) -> None:
    for family, pairs in table.items():
        slot = _REGISTRY.setdefault(family, {})
        for pair, fn in pairs.items():
            if pair in slot:
                raise ValueError(f"translator for {family} {pair} registered twice")
            slot[pair] = fn
            _FAST.setdefault(family, {}).setdefault(pair[0]._value_, {})[pair[1]._value_] = fn


def register_fast(table: FamilyTable) -> None:
    """Put a fast path in front of registered translators: `translate()` calls it, `families()` still
    lists the full translator (the fast path falls back to it and is tested against it)."""
    for family, pairs in table.items():
        for (src, dst), fn in pairs.items():
            if (src, dst) not in _REGISTRY.get(family, {}):
                raise ValueError(f"fast path for {family} {(src, dst)} has no full translator")
            _FAST[family][src._value_][dst._value_] = fn


def alias(family: str, same_as: str) -> None:
    """`family` has exactly the shapes of `same_as` (e.g. result.get_task is a Task)."""
    _ALIASES[family] = same_as


def families() -> dict[str, dict[tuple[Dialect, Dialect], Translator]]:
    _load()
    return {**_REGISTRY, **{name: _REGISTRY[target] for name, target in _ALIASES.items() if target in _REGISTRY}}


def translate(family: str, value: Any, *, src: Dialect, dst: Dialect, cx: Cx, at: str = "$") -> Any:
    """Translate one object of `family` from dialect `src` to dialect `dst`."""
    if not _loaded:
        _load()
    if src is dst:
        return copy.deepcopy(value)
    # keyed by the dialects' string values: a `str` Enum member hashes and compares as its value,
    # in C (Enum.__hash__ and the class attribute lookups are Python-level and cost per call)
    table = _FAST[family]
    if src is _V10 or dst is _V10:
        return table[src][dst](value, cx, at)
    return table["v10"][dst](table[src]["v10"](value, cx, at), cx, at)


_loaded = False
_V10 = Dialect.V10


def _load() -> None:
    """Import the family modules once; each calls `register` at import."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for name in _FAMILY_MODULES:
        importlib.import_module(f"gateway.core.translate.{name}")
    for alias_name, target in _ALIASES.items():  # aliases resolve once, not per call
        _FAST[alias_name] = _FAST[target]


_FAMILY_MODULES = (
    "parts", "messages", "tasks", "events", "push_config", "agent_card", "requests", "responses",
    "errors", "rest_errors", "fastpath",
)
