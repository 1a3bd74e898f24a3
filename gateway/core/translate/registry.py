"""The registry mechanism: `Family` (every family name), `Registry` built from family tables, fast paths
and aliases, and its `translate`, which goes through the v1.0 hub when neither side is v1.0. No rules."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from gateway.core.errors import UnknownFamily
from gateway.core.notes import Cx
from gateway.core.types import Dialect

Translator = Callable[[Any, Cx, str], Any]   # (value, cx, JSON path of the value) -> translated value
Pairs = Mapping[tuple[Dialect, Dialect], Translator]
Table = Mapping[str, Pairs]                   # family -> (src, dst) -> translator


class Family(StrEnum):
    """Every family the core translates; a member is its own string (`Family.TASK == "task"`)."""

    PART = "part"
    MESSAGE = "message"
    ARTIFACT = "artifact"
    TASK_STATUS = "task_status"
    TASK = "task"
    STATUS_UPDATE = "status_update"
    ARTIFACT_UPDATE = "artifact_update"
    STREAM_RESPONSE = "stream_response"
    SEND_RESULT = "send_result"
    PUSH_CONFIG = "push_config"
    TASK_PUSH_CONFIG = "task_push_config"
    AGENT_CARD = "agent_card"
    ERROR = "error"
    REST_ERROR = "rest_error"
    PARAMS_SEND_MESSAGE = "params.send_message"
    PARAMS_GET_TASK = "params.get_task"
    PARAMS_LIST_TASKS = "params.list_tasks"
    PARAMS_CANCEL_TASK = "params.cancel_task"
    PARAMS_SUBSCRIBE_TO_TASK = "params.subscribe_to_task"
    PARAMS_CREATE_PUSH_CONFIG = "params.create_push_config"
    PARAMS_GET_PUSH_CONFIG = "params.get_push_config"
    PARAMS_LIST_PUSH_CONFIGS = "params.list_push_configs"
    PARAMS_DELETE_PUSH_CONFIG = "params.delete_push_config"
    PARAMS_GET_EXTENDED_CARD = "params.get_extended_card"
    RESULT_SEND_MESSAGE = "result.send_message"
    RESULT_GET_TASK = "result.get_task"
    RESULT_LIST_TASKS = "result.list_tasks"
    RESULT_CANCEL_TASK = "result.cancel_task"
    RESULT_CREATE_PUSH_CONFIG = "result.create_push_config"
    RESULT_GET_PUSH_CONFIG = "result.get_push_config"
    RESULT_LIST_PUSH_CONFIGS = "result.list_push_configs"
    RESULT_DELETE_PUSH_CONFIG = "result.delete_push_config"
    RESULT_GET_EXTENDED_CARD = "result.get_extended_card"


@dataclass(frozen=True, slots=True)
class FastPath:
    """A short path for the commonest shapes of one rule, standing in front of its full translator:
    exact-shape checks and one flat rewrite, anything else handed to `full`, which alone notes and
    raises. `rule` is a family (then `translate()` calls `fast`) or a rule inside one (a parts list,
    a SendMessage configuration), which its family's translators call. Both take the same `at`."""

    rule: str
    src: Dialect
    dst: Dialect
    fast: Translator
    full: Translator


class Translate(Protocol):
    def __call__(self, family: str, value: Any, *, src: Dialect, dst: Dialect, cx: Cx, at: str = "$") -> Any: ...


class Registry:
    """Translators by family and dialect pair. Unknown members are never copied by a translator: each
    is dropped with a `dropped_unknown_member` note (strict v1.0 parsers reject them)."""

    __slots__ = ("_fast_paths", "_full", "translate")

    def __init__(self, tables: Iterable[Table], *, fast_paths: Iterable[FastPath] = (),
                 aliases: Mapping[str, str] | None = None) -> None:
        full: dict[str, dict[tuple[Dialect, Dialect], Translator]] = {}
        for table in tables:
            for family, pairs in table.items():
                slot = full.setdefault(str(family), {})
                for pair, fn in pairs.items():
                    if pair in slot:
                        raise ValueError(f"translator for {family} {pair} registered twice")
                    slot[pair] = fn
        for name, target in (aliases or {}).items():  # `name` has exactly the shapes of `target`
            if name in full or target not in full:
                raise ValueError(f"alias {name} -> {target}: the name is taken or the target unknown")
            full[str(name)] = full[target]
        # dispatch is keyed by the dialects' string values: a `str` Enum member hashes and compares as
        # its value, in C (the Enum's own attribute lookups are Python-level and cost per call)
        dispatch = {family: _by_value(pairs) for family, pairs in full.items()}
        self._fast_paths = tuple(fast_paths)
        for path in self._fast_paths:
            if path.rule not in full:
                continue  # a rule inside a family: its family's translators call it
            if full[path.rule].get((path.src, path.dst)) is not path.full:
                raise ValueError(f"fast path for {path.rule} {(path.src, path.dst)} is not in front of its translator")
            dispatch[path.rule][path.src.value][path.dst.value] = path.fast
        for name, target in (aliases or {}).items():
            dispatch[str(name)] = dispatch[target]
        self._full = full
        self.translate: Translate = _translator(dispatch)

    def families(self) -> dict[str, dict[tuple[Dialect, Dialect], Translator]]:
        """Every family with its full translators (aliases included), whatever fast paths stand in front."""
        return {family: dict(pairs) for family, pairs in self._full.items()}

    def fast_paths(self) -> tuple[FastPath, ...]:
        return self._fast_paths


def _by_value(pairs: Mapping[tuple[Dialect, Dialect], Translator]) -> dict[str, dict[str, Translator]]:
    out: dict[str, dict[str, Translator]] = {}
    for (src, dst), fn in pairs.items():
        out.setdefault(src.value, {})[dst.value] = fn
    return out


_V10 = Dialect.V10


def _translator(dispatch: dict[str, dict[str, dict[str, Translator]]]) -> Translate:
    def translate(family: str, value: Any, *, src: Dialect, dst: Dialect, cx: Cx, at: str = "$") -> Any:
        """Translate one object of `family` from dialect `src` to dialect `dst`."""
        if src is dst:
            if family not in dispatch:
                raise _unknown(family, src, dst, at, dispatch)
            return copy.deepcopy(value)
        try:
            table = dispatch[family]
            if src is _V10 or dst is _V10:
                fn, up = table[src][dst], None
            else:
                fn, up = table["v10"][dst], table[src]["v10"]
        except KeyError:
            raise _unknown(family, src, dst, at, dispatch) from None
        if up is None:
            return fn(value, cx, at)
        return fn(up(value, cx, at), cx, at)
    return translate


def _unknown(family: str, src: Dialect, dst: Dialect, at: str,
             dispatch: dict[str, dict[str, dict[str, Translator]]]) -> UnknownFamily:
    name = str(family)
    if name not in dispatch:
        return UnknownFamily(f"unknown translation family {name!r}", path=at)
    return UnknownFamily(f"family {name!r} has no translator from {src.value} to {dst.value}", path=at)
