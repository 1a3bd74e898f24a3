"""hypothesis properties of the translators: no notes ⇒ exact round trip, one round reaches a fixed
point, inputs are never mutated, every output is valid for the official types, and arbitrary JSON
yields a result or the core's own error, never anything else."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate import families, translate
from gateway.core.types import Dialect
from tests import oracle, strategies
from tests.profiles import examples

V03 = [Dialect.V03RPC, Dialect.V03REST]
FAMILIES = sorted(strategies.V10)


def _t(family: str, value: Any, src: Dialect, dst: Dialect) -> tuple[Any, Cx]:
    cx = Cx()
    return translate(family, value, src=src, dst=dst, cx=cx), cx


@pytest.mark.parametrize("dialect", V03, ids=str)
@pytest.mark.parametrize("family", FAMILIES)
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=examples(60))
@given(data=st.data())
def test_round_trip_and_fixed_point(family: str, dialect: Dialect, data: st.DataObject) -> None:
    x = data.draw(strategies.V10[family])
    original = copy.deepcopy(x)
    down, cx1 = _t(family, x, Dialect.V10, dialect)
    assert x == original, "translation mutated its input"
    oracle.check(family, dialect, down)
    up, cx2 = _t(family, down, dialect, Dialect.V10)
    oracle.check(family, Dialect.V10, up)
    if not cx1.notes and not cx2.notes:
        assert up == x, "no notes, yet the round trip is not exact"
    # one round reaches a fixed point, lossy or not
    down2, _ = _t(family, up, Dialect.V10, dialect)
    up2, _ = _t(family, down2, dialect, Dialect.V10)
    assert up2 == up
    assert down2 == _t(family, up2, Dialect.V10, dialect)[0]


ALL_PAIRS = [(family, src, dst) for family, pairs in sorted(families().items())
             for (src, dst) in sorted(pairs, key=str)]


@pytest.mark.parametrize(("family", "src", "dst"), ALL_PAIRS, ids=lambda v: str(getattr(v, "value", v)))
@settings(max_examples=examples(40))
@given(value=strategies.json_values)
def test_arbitrary_json_yields_a_result_or_our_error(family: str, src: Dialect, dst: Dialect, value: Any) -> None:
    before = copy.deepcopy(value)
    with contextlib.suppress(GatewayError):
        translate(family, value, src=src, dst=dst, cx=Cx())
    assert value == before


def test_deep_nesting_and_huge_strings_are_handled() -> None:
    deep: Any = {"text": "x"}
    for _ in range(5000):
        deep = {"metadata": deep, "text": "x"}
    with pytest.raises(GatewayError):
        translate("part", {"kind": "text", "text": 1, "metadata": deep}, src=Dialect.V03RPC, dst=Dialect.V10,
                  cx=Cx())
    huge = "a" * 5_000_000
    out = translate("part", {"kind": "text", "text": huge}, src=Dialect.V03RPC, dst=Dialect.V10, cx=Cx())
    assert out["text"] is huge
