"""Small checks shared by every family translator: is this an object, a string, a list; drop the
members a dialect does not know (with a note). They raise TranslationError with the JSON path."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.types import JsonObj


def absent(cx: Cx, at: str) -> None:
    """A member its version requires is absent at `at`: refused, or in a lenient reading (`translate`)
    noted and left absent, as the SDKs' converters leave it."""
    if not cx.lenient:
        raise TranslationError(at, "required member is missing")
    cx.note("required_member_absent", at, "left absent, as the SDKs' converters leave it")


_TYPE_NAMES = {dict: "an object", str: "a string", list: "an array", bool: "a boolean", int: "an integer"}


def expect(value: Any, kind: type, at: str) -> Any:
    """`value` itself if it has JSON type `kind`, else a TranslationError at `at`."""
    if type(value) is not kind:
        if kind is int and type(value) is float and value.is_integer():
            return int(value)
        raise TranslationError(at, f"expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {_json_type(value)}")
    return value


def obj(value: Any, at: str) -> JsonObj:
    if type(value) is not dict:
        raise TranslationError(at, f"expected an object, got {_json_type(value)}")
    return value


def arr(value: Any, at: str) -> list[Any]:
    if type(value) is not list:
        raise TranslationError(at, f"expected an array, got {_json_type(value)}")
    return value


def text(value: Any, at: str) -> str:
    if type(value) is not str:
        raise TranslationError(at, f"expected a string, got {_json_type(value)}")
    return value


def required(src: JsonObj, key: str, at: str) -> Any:
    try:
        return src[key]
    except KeyError:
        raise TranslationError(f"{at}.{key}", "required member is missing") from None


def strings(value: Any, at: str) -> list[str]:
    """A list of strings (copied)."""
    items = arr(value, at)
    for i, item in enumerate(items):
        if type(item) is not str:
            raise TranslationError(f"{at}[{i}]", f"expected a string, got {_json_type(item)}")
    return list(items)


def drop_unknown(src: JsonObj, known: frozenset[str], cx: Cx, at: str) -> None:
    """Note every member of `src` that the target dialect has no slot for (the caller skips them)."""
    if known.issuperset(src):  # the common case, decided in C (cheaper than keys() <= known)
        return
    for key in src:
        if key not in known:
            cx.note("dropped_unknown_member", f"{at}.{key}")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number"}.get(type(value), type(value).__name__)
