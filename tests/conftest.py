"""Suite-wide test settings: the `deep` hypothesis profile (longer property runs, on demand with
`HYPOTHESIS_PROFILE=deep make test`), loaded when the environment asks for it; the suite-wide fixtures
(`redis_url`: tests/redis_server.py)."""

from __future__ import annotations

import os

from hypothesis import settings

from tests.profiles import DEEP_FACTOR

pytest_plugins = ["tests.redis_server"]

settings.register_profile("deep", max_examples=100 * DEEP_FACTOR, deadline=None)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])
