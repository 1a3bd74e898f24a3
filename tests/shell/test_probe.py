"""`a2a-gateway probe`: an honest card, a lying one (corrected, exit 3), one that proves nothing (exit 1) and
an agent that cannot be reached (exit 4), as text and as JSON; what each client version and binding gets."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from gateway.config import load
from gateway.shell.process.probe import probe, render_text
from tests.fakes.agents import FakeAgent

ROOT = Path(__file__).resolve().parents[2]


async def _cli_both(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "probe", *args, cwd=ROOT,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _cli(*args: str) -> tuple[int, str]:
    code, out, _ = await _cli_both(*args)
    return code, out


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


async def test_progress_on_stderr_and_quiet(fake_agent_factory: Any) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    code, out, err = await _cli_both(fake.url)
    assert code == 0 and "the card tells the truth" in out
    assert f"probe: reading the agent card at {fake.url}/.well-known/agent-card.json" in err
    assert "/.well-known/agent.json" in err and "probe: probed JSONRPC" in err and ": proven, TaskNotFound" in err
    code, out, err = await _cli_both(fake.url, "--quiet")
    assert (code, err) == (0, "") and "the card tells the truth" in out


async def _silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read()  # reads, never answers; ends when the caller leaves
    writer.close()


async def _not_found(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    writer.close()


async def test_an_agent_that_never_answers_is_given_up_on_in_bounded_time(unused_tcp_port: int) -> None:
    server = await asyncio.start_server(_silent, "127.0.0.1", unused_tcp_port)
    async with server:
        started = time.monotonic()
        code, out, err = await _cli_both(f"http://127.0.0.1:{unused_tcp_port}", "--timeout", "1")
        took = time.monotonic() - started
    assert code == 4 and "timed out" in out, out + err
    assert took < 6, took  # two card paths at --timeout 1 each, and the interpreter's start
    base = f"http://127.0.0.1:{unused_tcp_port}"
    assert f"tried: {base}/.well-known/agent-card.json\n  tried: {base}/.well-known/agent.json" in out
    assert "(each within 1 s)" in err


async def test_no_card_names_both_places_it_looked(unused_tcp_port: int) -> None:
    server = await asyncio.start_server(_not_found, "127.0.0.1", unused_tcp_port)
    async with server:
        code, out, _ = await _cli_both(f"http://127.0.0.1:{unused_tcp_port}/")
    base = f"http://127.0.0.1:{unused_tcp_port}"
    assert code == 4
    assert (f"agent card not found at {base}/.well-known/agent-card.json nor {base}/.well-known/agent.json "
            "(HTTP 404)") in out


async def test_a_bad_url_is_said_to_be_the_positional_one() -> None:
    code, out, err = await _cli_both("agent.example.com")
    assert (code, out) == (2, "")
    assert err.startswith("a2a-gateway probe: URL: ") and err.rstrip().endswith("(positional URL)")
    assert "--upstream" not in err
