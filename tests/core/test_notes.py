"""Tests for gateway/core/notes.py: every note code the gateway can record is explained, once, in
EXPLAINED (the migration page and `translate` show the explanation beside the code)."""

from __future__ import annotations

import re
from pathlib import Path

from gateway.core.notes import EXPLAINED, Cx

GATEWAY = Path(__file__).resolve().parents[2] / "gateway"
# how code records a note: cx.note("code", …), Note("code", …), or a constant named *_CODE / *_NOTE / UNRESOLVED
RECORDED = re.compile(r'''(?:\.note\(\s*|Note\(\s*|(?:_CODE|_NOTE|UNRESOLVED)(?:: Final)? = )"([a-z0-9_]+)"''')


def _codes_in_source() -> set[str]:
    return {code for path in GATEWAY.rglob("*.py") for code in RECORDED.findall(path.read_text())}


def test_every_recorded_code_is_explained_and_no_other() -> None:
    used = _codes_in_source()
    assert len(used) > 50, "the pattern no longer finds the codes"
    assert used - set(EXPLAINED) == set(), "explain these in gateway.core.notes.EXPLAINED"
    assert set(EXPLAINED) - used == set(), "these are explained but never recorded"
    assert all(text and not text[0].isupper() and not text.endswith(".") for text in EXPLAINED.values())


def test_lenient_is_off_unless_asked() -> None:
    assert not Cx().lenient and Cx(lenient=True).lenient
