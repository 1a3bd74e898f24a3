"""The shared shape checks: JSON types with their paths, integral floats as integers, unknown members noted."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.shape import arr, drop_unknown, expect, obj, required, strings, text


@pytest.mark.parametrize(("check", "value", "message"), [
    (obj, [], "expected an object, got array"), (arr, {}, "expected an array, got object"),
    (text, None, "expected a string, got null"), (obj, 1.5, "expected an object, got number"),
])
def test_checks_name_the_json_type(check: Any, value: Any, message: str) -> None:
    with pytest.raises(TranslationError) as caught:
        check(value, "$.x")
    assert (caught.value.path, caught.value.message) == ("$.x", message)


def test_expect_reads_integral_floats_as_integers() -> None:
    assert expect(3.0, int, "$") == 3 and type(expect(3.0, int, "$")) is int
    with pytest.raises(TranslationError):
        expect(3.5, int, "$")
    with pytest.raises(TranslationError):
        expect(True, int, "$")


def test_strings_copy_and_check_every_item() -> None:
    items = ["a", "b"]
    out = strings(items, "$.l")
    assert out == items and out is not items
    with pytest.raises(TranslationError) as caught:
        strings(["a", 2], "$.l")
    assert caught.value.path == "$.l[1]"


def test_required_and_unknown_members() -> None:
    with pytest.raises(TranslationError) as caught:
        required({}, "id", "$")
    assert caught.value.path == "$.id"
    cx = Cx()
    drop_unknown({"a": 1, "b": 2, "c": 3}, frozenset({"a"}), cx, "$")
    assert [(n.code, n.path) for n in cx.notes] == [("dropped_unknown_member", "$.b"),
                                                    ("dropped_unknown_member", "$.c")]
