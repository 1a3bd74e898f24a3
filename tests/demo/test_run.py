"""Tests for gateway/demo/run.py: `a2a-gateway demo` on the real command line serves the gateway in front
of the demo agent, a v0.3 client's message comes back echoed by the v1.0 agent, and Ctrl-C exits 0."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from gateway.core import jsoncodec

ROOT = Path(__file__).resolve().parents[2]
V03_SEND = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]}}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait_for_card(session: aiohttp.ClientSession, port: int, proc: Any) -> Any:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert proc.returncode is None, "the demo exited"
        try:
            async with session.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json") as resp:
                if resp.status == 200:
                    return await resp.json()
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError("the demo did not come up")


async def test_demo_serves_a_v03_client_and_exits_0_on_ctrl_c() -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "demo", "--listen",
                                                f"127.0.0.1:{port}", cwd=ROOT, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        async with aiohttp.ClientSession() as session:
            card = await _wait_for_card(session, port, proc)
            assert card["name"] == "a2a-gateway demo agent"
            async with session.post(f"http://127.0.0.1:{port}/", data=jsoncodec.dumpb(V03_SEND),
                                    headers={"Content-Type": "application/json"}) as resp:
                assert resp.status == 200
                task = (await resp.json())["result"]
        assert (task["kind"], task["status"]["state"]) == ("task", "completed")
        assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "hello"}]
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 10) == 0
        assert proc.stdout is not None
        assert "demo_ready" in (await proc.stdout.read()).decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
