"""One table-driven test over every golden pair, both directions, plus the oracle over every file, and
every registered family has a golden case."""

from __future__ import annotations

import copy

import pytest

from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.quirks import Quirks
from gateway.core.translate import Family, families, translate
from tests import golden, oracle

# The goldens are the protos' and schema's wire shapes: v0.3 REST file bytes in the proto's convention,
# pinned (quirk rest_double_base64 "auto" tells conventions apart and notes its guesses: test_dialects).
PROTO = Quirks(rest_double_base64=False)


@pytest.mark.parametrize("case", golden.cases(), ids=str)
def test_golden(case: golden.Case) -> None:
    cx = Cx(quirks=PROTO)
    source = copy.deepcopy(case.source)
    if case.error is not None:
        with pytest.raises(GatewayError) as caught:
            translate(case.family, source, src=case.src, dst=case.dst, cx=cx)
        assert {"type": type(caught.value).__name__, "path": caught.value.path,
                "message": caught.value.message} == case.error
        return
    out = translate(case.family, source, src=case.src, dst=case.dst, cx=cx)
    assert out == case.expected
    assert [(n.code, n.path) for n in cx.notes] == case.notes
    assert source == case.source, "translation mutated its input"


@pytest.mark.parametrize("fixture", golden.fixtures(), ids=str)
def test_fixture_is_valid_for_the_official_types(fixture: golden.Fixture) -> None:
    oracle.check(fixture.family, fixture.dialect, fixture.payload)


def test_every_family_has_a_golden_case() -> None:
    covered = {case.family for case in golden.cases()}
    assert set(families()) == set(Family)
    assert sorted(set(Family) - covered) == []
