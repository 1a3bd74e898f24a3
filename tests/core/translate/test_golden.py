"""One table-driven test over every golden pair, both directions, plus the oracle over every file."""

from __future__ import annotations

import copy

import pytest

from gateway.core.notes import Cx
from gateway.core.translate import translate
from tests import golden, oracle


@pytest.mark.parametrize("case", golden.cases(), ids=str)
def test_golden(case: golden.Case) -> None:
    cx = Cx()
    source = copy.deepcopy(case.source)
    out = translate(case.family, source, src=case.src, dst=case.dst, cx=cx)
    assert out == case.expected
    assert [(n.code, n.path) for n in cx.notes] == case.notes
    assert source == case.source, "translation mutated its input"


@pytest.mark.parametrize("fixture", golden.fixtures(), ids=str)
def test_fixture_is_valid_for_the_official_types(fixture: golden.Fixture) -> None:
    oracle.check(fixture.family, fixture.dialect, fixture.payload)
