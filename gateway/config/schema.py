"""Owns SCHEMA, every key in section order (the table plus keys derived from Quirks), its lookups,
the walk over a TOML document, building Settings from values, and the import-time self-check."""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import re
import typing
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from gateway.config.coerce import _coerce_value
from gateway.config.key import ENV_CONFIG_PATH, Key, Kind
from gateway.config.settings import (
    AdminSettings,
    AguiSettings,
    LimitsSettings,
    LogSettings,
    PushSettings,
    ServerSettings,
    Settings,
    TimeoutSettings,
    TracingSettings,
    UpstreamSettings,
)
from gateway.config.table import _BASE_SCHEMA, SECTIONS
from gateway.core.quirks import Quirks


def _quirk_docs() -> dict[str, str]:
    """The comment block above each Quirks field (shared by consecutive fields)."""
    docs: dict[str, str] = {}
    try:
        lines = inspect.getsource(Quirks).splitlines()
    except (OSError, TypeError):  # pragma: no cover - source not shipped
        return docs
    comment: list[str] = []  # the comment block being read
    shared = ""  # the block that applies to the current run of consecutive fields
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            shared = ""
            comment.append(stripped.lstrip("#").strip())
        elif m := re.match(r"^(\w+)\s*:", stripped):
            if comment:
                shared, comment = " ".join(comment), []
            docs[m.group(1)] = shared
        else:
            comment, shared = [], ""
    return docs


def _quirk_keys() -> tuple[Key, ...]:
    hints = typing.get_type_hints(Quirks)
    docs = _quirk_docs()
    keys: list[Key] = []
    for f in dataclasses.fields(Quirks):
        hint = hints[f.name]
        if f.default is dataclasses.MISSING:
            raise TypeError(f"config cannot express Quirks.{f.name}: it has no plain default")
        doc = (f.metadata.get("doc") or docs.get(f.name, "")).strip()
        kinds: dict[object, Kind] = {bool: "bool", int: "int", float: "float", str: "str"}
        if hint in kinds:
            keys.append(Key(f"quirks.{f.name}", kinds[hint], f.default, doc))
        elif typing.get_origin(hint) is Literal and all(isinstance(a, str) for a in typing.get_args(hint)):
            keys.append(Key(f"quirks.{f.name}", "enum", f.default, doc, choices=tuple(typing.get_args(hint))))
        else:
            raise TypeError(f"config cannot express Quirks.{f.name}: unsupported type {hint!r}")
    return tuple(keys)


# Every key, in section order (a stable sort keeps the order within a section).
SCHEMA: tuple[Key, ...] = tuple(
    sorted(_BASE_SCHEMA + _quirk_keys(), key=lambda k: list(SECTIONS).index(k.section))
)
_BY_NAME: dict[str, Key] = {k.name: k for k in SCHEMA}
ENV_NAMES: dict[str, Key] = {k.env: k for k in SCHEMA}

_SECTION_TYPES: dict[str, type] = {
    "server": ServerSettings,
    "upstream": UpstreamSettings,
    "upstream.timeout": TimeoutSettings,
    "limits": LimitsSettings,
    "push": PushSettings,
    "quirks": Quirks,
    "agui": AguiSettings,
    "log": LogSettings,
    "admin": AdminSettings,
    "tracing": TracingSettings,
}


def _subsections(section: str) -> list[str]:
    return [s for s in SECTIONS if s.rpartition(".")[0] == section]


def _self_check() -> None:
    """The schema, the section table and the dataclasses must agree, and env names be unique."""
    if len(ENV_NAMES) != len(SCHEMA) or ENV_CONFIG_PATH in ENV_NAMES:
        raise AssertionError("two keys map to the same environment variable")
    if set(_SECTION_TYPES) != set(SECTIONS) or {k.section for k in SCHEMA} != set(SECTIONS):
        raise AssertionError("SECTIONS, _SECTION_TYPES and SCHEMA disagree on the sections")
    top = {s for s in SECTIONS if "." not in s}
    if {f.name for f in dataclasses.fields(Settings)} - {"routes"} != top:
        raise AssertionError("Settings fields differ from the top-level sections")
    for section, cls in _SECTION_TYPES.items():
        want = {k.field for k in SCHEMA if k.section == section}
        want |= {s.rpartition(".")[2] for s in _subsections(section)}
        if {f.name for f in dataclasses.fields(cls)} != want:
            raise AssertionError(f"{cls.__name__} fields differ from the [{section}] keys")
    for k in SCHEMA:
        if k.name in SECTIONS:
            raise AssertionError(f"{k.name} is both a key and a section")
        if not k.required:
            _coerce_value(k, k.default)  # every default is valid for its own kind


def _walk_toml(doc: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted name, value) for every key in the document; unknown names yield too (the caller
    reports them). Schema keys whose kind is a table are not descended into."""
    for name, value in doc.items():
        dotted = f"{prefix}{name}"
        if dotted not in _BY_NAME and dotted in SECTIONS and isinstance(value, dict):
            yield from _walk_toml(value, dotted + ".")
        else:
            yield dotted, value


def _suggest(name: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def _build_section(section: str, values: Mapping[str, Any]) -> Any:
    kwargs: dict[str, Any] = {k.field: values[k.name] for k in SCHEMA if k.section == section}
    for sub in _subsections(section):
        kwargs[sub.rpartition(".")[2]] = _build_section(sub, values)
    return _SECTION_TYPES[section](**kwargs)


def _build(values: Mapping[str, Any]) -> Settings:
    return Settings(**{s: _build_section(s, values) for s in SECTIONS if "." not in s})


_self_check()
