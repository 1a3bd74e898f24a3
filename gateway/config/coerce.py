"""Owns coercion of raw values (TOML or Python objects) and text (environment variables) to the typed
value of a key's kind, and the wording that describes a bad value."""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import Any

from gateway.config.errors import _Bad
from gateway.config.key import Key


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return f"{type(value).__name__} {value!r}"


def _enum(key: Key, value: str) -> str:
    for choice in key.choices:
        if value.strip().lower() == choice.lower():
            return choice
    options = ", ".join(f'"{c}"' for c in key.choices)
    raise _Bad(f"must be one of {options}, got {value!r}")


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise _Bad(f"must be a finite number, got {value!r}")
    return value


def _coerce_value(key: Key, value: object) -> Any:
    """A value from TOML or the command line, already typed."""
    kind = key.kind
    if kind == "str" and isinstance(value, str):
        return value
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return _finite(float(value))
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "enum" and isinstance(value, str):
        return _enum(key, value)
    if kind == "list" and isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if kind == "table" and isinstance(value, Mapping):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise _Bad("every value in the table must be a string")
        return types.MappingProxyType(dict(value))
    want = {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "enum": "a string",
        "list": "a list of strings",
        "table": "a table of strings",
    }[kind]
    hint = ""
    if kind == "enum" and isinstance(value, int | float) and not isinstance(value, bool):
        hint = f' (quote it: "{value}")'
    raise _Bad(f"must be {want}, got {_describe(value)}{hint}")


def _coerce_text(key: Key, text: str) -> Any:
    """A value from an environment variable (or a string on the command line)."""
    kind = key.kind
    s = text.strip()
    if kind == "str":
        return text
    if kind == "enum":
        return _enum(key, text)
    if kind == "int":
        try:
            return int(s, 10)
        except ValueError:
            raise _Bad(f"must be an integer, got {text!r}") from None
    if kind == "float":
        try:
            number = float(s)
        except ValueError:
            raise _Bad(f"must be a number, got {text!r}") from None
        return _finite(number)
    if kind == "bool":
        if s.lower() in ("true", "1"):
            return True
        if s.lower() in ("false", "0"):
            return False
        raise _Bad(f"must be true, false, 1 or 0, got {text!r}")
    if kind == "list":
        return tuple(item.strip() for item in s.split(",") if item.strip())
    # table: Name=value,Name2=value2
    table: dict[str, str] = {}
    for item in s.split(","):
        if not item.strip():
            continue
        name, sep, val = item.partition("=")
        if not sep or not name.strip():
            raise _Bad(f"must be comma-separated Name=value pairs, got {item.strip()!r}")
        table[name.strip()] = val.strip()
    return types.MappingProxyType(table)
