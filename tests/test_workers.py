"""`server.workers = 2` on the real command line: both workers share the port and answer, the parent
reports and sums them, restarts a killed one, exits 0 on SIGTERM (throughput: bench/workers.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from gateway.core import jsoncodec
from tests.fakes.agents import fake_agent_factory
from tests.shell.test_lifecycle import V10_SEND, V10_TASK, _free_port
from tests.shell.test_metrics import parse, total, value

__all__ = ["fake_agent_factory"]

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = 40


async def _get_json(session: aiohttp.ClientSession, url: str) -> tuple[int, Any]:
    async with session.get(url) as resp:
        return resp.status, await resp.json()


async def test_two_workers_share_the_port_and_the_parent_reports_them(fake_agent_factory, tmp_path: Path) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    port, admin = _free_port(), _free_port()
    path = tmp_path / "gateway.toml"
    path.write_text(f'[server]\nlisten = "127.0.0.1:{port}"\nworkers = 2\nshutdown_grace_seconds = 5.0\n'
                    f'[upstream]\nurl = "{fake.url}"\nversion = "1.0"\n'
                    f'[admin]\nlisten = "127.0.0.1:{admin}"\n[log]\nlevel = "warning"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("A2A_GATEWAY_", "PROMETHEUS_"))}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "--config", str(path),
                                                cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{admin}"
    try:
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 30
            while True:  # both workers up and ready
                assert proc.returncode is None and time.monotonic() < deadline
                try:
                    status, body = await _get_json(session, f"{base}/readyz")
                    if status == 200:
                        break
                except aiohttp.ClientConnectionError:
                    pass
                await asyncio.sleep(0.1)

            for _ in range(REQUESTS):  # a new connection each time: the kernel spreads them over the workers
                async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as fresh, \
                        fresh.post(f"http://127.0.0.1:{port}/", data=jsoncodec.dumpb(V10_SEND),
                                   headers={"A2A-Version": "1.0", "Content-Type": "application/json"}) as resp:
                    assert resp.status == 200
                    assert (await resp.json())["result"] == {"task": V10_TASK}

            status, body = await _get_json(session, f"{base}/workers")
            workers = body["workers"]
            assert [w["index"] for w in workers] == [0, 1]
            assert all(w["alive"] and w["ready"] for w in workers)
            assert len({w["pid"] for w in workers} | {proc.pid}) == 3
            assert all(w["requests"] > 0 for w in workers), workers  # both answered
            assert sum(w["requests"] for w in workers) == REQUESTS

            async with session.get(f"{base}/metrics") as resp:
                m = parse(await resp.text())
            assert total(m, "a2a_gateway_requests_total", operation="send_message", outcome="ok") == REQUESTS

            for _ in range(100):  # the migration view: each worker's file (rewritten each second), summed
                status, view = await _get_json(session, f"{base}/migration")
                if view["totals"] == {"1.0": REQUESTS}:
                    break
                await asyncio.sleep(0.1)
            assert view["totals"] == {"1.0": REQUESTS}, view
            assert [c["total"] for c in view["callers"]] == [REQUESTS]   # one caller (aiohttp's User-Agent)
            assert view["agents"]["default"]["interfaces"][0]["status"] == "pinned"   # upstream.version = "1.0"
            assert value(m, "a2a_gateway_request_duration_seconds_count", route="default", operation="send_message",
                         client_version="1.0", upstream_version="1.0") == REQUESTS
            assert {labels for (name, labels) in m if name == "a2a_gateway_ready"} == {
                (("pid", str(w["pid"])),) for w in workers}

            os.kill(proc.pid, signal.SIGHUP)  # valid file: counted once, by the parent
            for _ in range(100):
                async with session.get(f"{base}/metrics") as resp:
                    m = parse(await resp.text())
                if value(m, "a2a_gateway_config_reloads_total", outcome="ok") == 1:
                    break
                await asyncio.sleep(0.05)
            assert value(m, "a2a_gateway_config_reloads_total", outcome="ok") == 1

            os.kill(workers[0]["pid"], signal.SIGKILL)  # a crashed worker is restarted
            for _ in range(200):
                status, body = await _get_json(session, f"{base}/workers")
                first = body["workers"][0]
                if first["pid"] != workers[0]["pid"] and first["alive"] and first["ready"]:
                    break
                await asyncio.sleep(0.05)
            assert first["restarts"] == 1 and first["alive"] and first["ready"], first
            async with session.get(f"{base}/metrics") as resp:
                m = parse(await resp.text())
            assert value(m, "a2a_gateway_worker_restarts_total") == 1
            assert total(m, "a2a_gateway_requests_total") == REQUESTS  # the dead worker's counts stay

        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 15) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
