"""Hypothesis profiles: `HYPOTHESIS_PROFILE=deep` (registered in tests/conftest.py) runs every property
with 20× its examples and no deadline; `examples(n)` scales a test's own `max_examples` the same way."""

from __future__ import annotations

import os

DEEP_FACTOR = 20
DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"


def examples(n: int) -> int:
    return n * DEEP_FACTOR if DEEP else n
