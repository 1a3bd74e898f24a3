"""`a2a-gateway probe`: an honest card, a lying one (corrected, exit 3), one that proves nothing (exit 1) and
an agent that cannot be reached (exit 4), as text and as JSON; what each client version and binding gets."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from gateway.config import load
from gateway.shell.process.probe import probe, render_text
from tests.fakes.agents import FakeAgent

ROOT = Path(__file__).resolve().parents[2]


async def _cli(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "probe", *args, cwd=ROOT,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode()


def _settings(url: str) -> Any:
    return load(None, {}, {"upstream.url": url, "log.format": "console"})


async def test_an_honest_card(fake_agent_factory: Any) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    report = await probe(_settings(fake.url))
    assert report["verdict"] == "honest" and report["interfaces"][0]["status"] == "verified"
    views = {(c["client_version"], c["binding"]): c for c in report["clients"]}
    assert views[("1.0", "JSONRPC")]["passthrough"] and not views[("0.3", "JSONRPC")]["passthrough"]
    assert "the card tells the truth" in render_text(report)


async def test_a_lying_card_is_reported_as_such(fake_agent_factory: Any) -> None:
    fake: FakeAgent = await fake_agent_factory("0.3", claims="1.0")
    code, out = await _cli(fake.url)
    assert code == 3 and "THE CARD LIES" in out and "card claims 1.0, agent speaks 0.3" in out, out
    code, out = await _cli(fake.url, "--json")
    report = json.loads(out)
    assert code == 3 and report["verdict"] == "lying"
    views = {(c["client_version"], c["binding"]): c for c in report["clients"]}
    assert views[("0.3", "JSONRPC")]["passthrough"]   # the gateway corrects the card: v0.3 passes through
    assert any("ListTasks composed by the gateway" in n for n in views[("1.0", "JSONRPC")]["notes"])


async def test_a_card_that_proves_nothing_and_an_agent_that_is_not_there(fake_agent_factory: Any,
                                                                         unused_tcp_port: int) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.probe_failures = 10
    report = await probe(_settings(fake.url))
    assert report["verdict"] == "unverified" and report["interfaces"][0]["observed"] is None
    code, out = await _cli(f"http://127.0.0.1:{unused_tcp_port}")
    assert code == 4 and "unreachable" in out
