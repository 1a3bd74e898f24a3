"""Safe retries toward the agent, with a real a2a-sdk 1.x agent restarted five times on its port under 50
concurrent callers (v0.3 and v1.0 JSON-RPC) through a gateway on its defaults: every call that failed had
reached the agent (its body is in the agent's journal of received requests); the others were retried. (A
restart longer than the retry budget marks the agent down: the calls meanwhile are answered at once, saying so.)"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.peers.gateway import free_port, run_gateway
from tests.peers.harness import Agent, start_agent

pytestmark = pytest.mark.peers

CALLERS = 50
RESTARTS = 5
CALL_TIMEOUT_S = 30.0


def _body(caller: int, n: int) -> tuple[str, bytes]:
    tag = f"c{caller}-n{n}"
    if caller % 2:   # v1.0 SendMessage, passed through
        params: dict[str, Any] = {"message": {"messageId": tag, "role": "ROLE_USER",
                                              "parts": [{"text": "echo " + tag}]}}
        return tag, json.dumps({"jsonrpc": "2.0", "id": tag, "method": "SendMessage", "params": params}).encode()
    params = {"message": {"kind": "message", "messageId": tag, "role": "user",   # v0.3, translated
                          "parts": [{"kind": "text", "text": "echo " + tag}]}}
    return tag, json.dumps({"jsonrpc": "2.0", "id": tag, "method": "message/send", "params": params}).encode()


async def _caller(session: aiohttp.ClientSession, url: str, caller: int, stop: asyncio.Event,
                  results: list[tuple[str, str | None]]) -> None:
    n = 0
    while not stop.is_set():
        tag, body = _body(caller, n)
        n += 1
        headers = {"Content-Type": "application/json", "A2A-Version": "1.0" if caller % 2 else "0.3"}
        try:
            async with session.post(url, data=body, headers=headers,
                                    timeout=aiohttp.ClientTimeout(total=CALL_TIMEOUT_S)) as resp:
                reply = await resp.json(content_type=None)
            error = None if resp.status == 200 and "result" in reply else f"HTTP {resp.status}: {reply}"
        except (aiohttp.ClientError, TimeoutError) as exc:
            error = f"{type(exc).__name__}: {exc}"
        results.append((tag, error))


async def _restart(agent: Agent, port: int, journal: Path) -> Agent:
    await asyncio.to_thread(agent.stop)
    return await asyncio.to_thread(start_agent, "v10", port, extra=("--journal", str(journal)))


async def _run(gateway_url: str, agent: Agent, port: int, journal: Path) -> tuple[list[tuple[str, str | None]], Agent]:
    results: list[tuple[str, str | None]] = []
    stop = asyncio.Event()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CALLERS)) as session:
        callers = [asyncio.create_task(_caller(session, gateway_url + "/", i, stop, results)) for i in range(CALLERS)]
        try:
            for _ in range(RESTARTS):
                await asyncio.sleep(1.0)
                agent = await _restart(agent, port, journal)
            await asyncio.sleep(1.0)
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(*callers), CALL_TIMEOUT_S + 5)
    return results, agent


def test_restarts_under_load_lose_no_call_that_never_reached_the_agent(tmp_path: Path) -> None:
    port, journal = free_port(), tmp_path / "journal"
    agent = start_agent("v10", port, extra=("--journal", str(journal)))
    try:
        with run_gateway(agent.base_url) as gateway:
            started = time.monotonic()
            results, agent = asyncio.run(_run(gateway.base_url, agent, port, journal))
            elapsed = time.monotonic() - started
            log = gateway.log()
            with urllib.request.urlopen(gateway.admin_url + "/metrics", timeout=5) as r:
                metrics = r.read().decode()
    finally:
        agent.stop()
    received = journal.read_bytes()
    failed = [(tag, error) for tag, error in results if error is not None]
    never_reached = [(tag, error) for tag, error in failed if f'"{tag}"'.encode() not in received]
    # retries are counted, not logged one by one: {reason: count} from the gateway's metrics
    retries = {m["reason"]: float(m["n"]) for m in re.finditer(
        r'^a2a_gateway_upstream_retries_total\{reason="(?P<reason>[^"]+)"\} (?P<n>\S+)$', metrics, re.M)}
    downs = [line for line in log.splitlines() if '"upstream_down"' in line or '"upstream_up"' in line]
    print(f"{len(results)} calls in {elapsed:.1f} s, {len(failed)} failed, retries: {retries}; the agent down "
          f"and back: {downs}")
    assert len(results) > CALLERS * RESTARTS
    assert sum(retries.values()) and set(retries) <= {"refused", "dead_connection", "reset"}, retries
    if downs:   # a restart longer than the retry budget (about 2.7-3.6 s): the agent was marked down, and the
        # calls meanwhile answered at once in plain words, as the agent known down or unreachable
        assert all(f"agent {agent.base_url.rstrip('/')} unavailable" in error or "unreachable" in error
                   for _, error in never_reached), never_reached[:5]
    else:
        assert not never_reached, (never_reached[:5],
                                   [line for line in log.splitlines() if "internal_error" in line][:2])
