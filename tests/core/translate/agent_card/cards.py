"""Helpers of the agent card tests: the golden cards by name, and a run through the card translators
(through the hub when neither side is v1.0) with its notes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from gateway.core.notes import Cx
from gateway.core.translate import Family
from gateway.core.translate.agent_card import TRANSLATORS as TABLE
from gateway.core.types import Dialect, JsonObj

V03RPC, V03REST, V10 = Dialect.V03RPC, Dialect.V03REST, Dialect.V10
GOLDEN = Path(__file__).parents[3] / "golden" / "agent_card"
TRANSLATORS = TABLE[Family.AGENT_CARD]


def golden(name: str) -> JsonObj:
    loaded: JsonObj = json.loads((GOLDEN / f"{name}.json").read_text())
    return loaded


def run(card: Any, src: Dialect, dst: Dialect) -> tuple[JsonObj, list[tuple[str, str]]]:
    cx = Cx()
    before = copy.deepcopy(card)
    if V10 in (src, dst):
        out = TRANSLATORS[(src, dst)](card, cx, "$")
    else:
        out = TRANSLATORS[(V10, dst)](TRANSLATORS[(src, V10)](card, cx, "$"), cx, "$")
    assert card == before, "translation mutated its input"
    return out, [(n.code, n.path) for n in cx.notes]
