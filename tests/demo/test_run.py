"""Tests for gateway/demo/run.py: `a2a-gateway demo` on the real command line serves the gateway in front
of the demo agent, a v0.3 client's message comes back echoed by the v1.0 agent, and Ctrl-C exits 0; `make
run` as a user runs it shows the admin listener too, prints what to try, and stops on Ctrl-C with no error."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

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
    env["A2A_GATEWAY_ADMIN_LISTEN"] = ""  # the admin listener off, gRPC on a free port: no fixed port needed
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gateway", "demo", "--listen",
                                                f"127.0.0.1:{port}", "--grpc-listen", "127.0.0.1:0", cwd=ROOT, env=env,
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
        out = (await proc.stdout.read()).decode()
        assert f"curl -s http://127.0.0.1:{port}/ -H 'Content-Type: application/json'" in out
        assert "admin listener" not in out
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def _read_until(path: Path, text: str, process: subprocess.Popen[bytes], seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out = path.read_text(errors="replace")
        if text in out:
            return out
        assert process.poll() is None, f"make run exited {process.returncode}:\n{out}"
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never printed:\n{path.read_text(errors='replace')}")


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.read().decode()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_shows_everything_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port, grpc_port, admin_port = _free_port(), _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}
    # this checkout's code under the console script; the admin listener moved off 9090 (as the banner says)
    env.update(PYTHONPATH=str(ROOT), A2A_GATEWAY_ADMIN_LISTEN=f"127.0.0.1:{admin_port}")
    out_path = tmp_path / "make-run.out"
    with out_path.open("wb") as out:
        # a session of its own: Ctrl-C in a terminal is SIGINT to the foreground process group
        make = subprocess.Popen(["make", "--no-print-directory", "run",
                                 f"ARGS=--listen 127.0.0.1:{port} --grpc-listen 127.0.0.1:{grpc_port}"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        printed = _read_until(out_path, "Ctrl-C stops it.", make, 60)
        base, admin = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{admin_port}"
        # the first curl it prints (the README's) works as printed
        [curl] = [line.strip() for line in printed.splitlines() if line.strip().startswith(f"curl -s {base}/ -H")
                  and "message/send" in line]
        reply = json.loads(subprocess.run(["sh", "-c", curl], capture_output=True, check=True, timeout=30).stdout)
        assert reply["result"]["status"]["state"] == "completed"
        assert f"gRPC (both versions' services) on 127.0.0.1:{grpc_port}" in printed
        for path in ("/", "/migration", "/metrics", "/readyz"):
            assert f"{admin}{path} " in printed
            assert _get(admin + path)[0] == 200, path
        [caller] = json.loads(_get(admin + "/migration")[1])["still_v03"]  # the curl above, a v0.3 caller
        assert caller.startswith("curl/")
        card = json.loads(_get(base + "/.well-known/agent-card.json")[1])
        assert any(f"127.0.0.1:{grpc_port}" in i["url"] for i in card.get("additionalInterfaces", []))
        os.killpg(make.pid, signal.SIGINT)
        make.wait(30)
        after = out_path.read_text(errors="replace")
        assert "***" not in after and "Traceback" not in after, after
        assert "drain_done" in after
        with pytest.raises(OSError):
            _get(admin + "/readyz")
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait(10)
