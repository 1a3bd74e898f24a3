"""Owns the smoke check of the load bench: `python -m bench.load` with a small swarm runs its three arms
(fast, and slow with events spaced out) and finds every event; and its checker really catches lost,
duplicated, reordered and corrupt events (a faulty stream served in process). No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bench.load import ARM_NAMES, Swarm, text_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("mode", [[], ["--interval", "0.05"]], ids=["fast", "slow"])
def test_load_bench_runs_all_arms_and_loses_nothing(mode: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.load", "--streams", "12", "--events", "20", *mode],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("12 streams × 23 events") and lines[1].startswith("arm")
    rows = lines[2:5]
    assert [row[:30].strip() for row in rows] == list(ARM_NAMES.values())
    for row in rows:
        events, lost, dup, reordered, corrupt, errors = row[30:].split()[:6]
        assert (int(events), lost, dup, reordered, corrupt, errors) == (12 * 23, "0", "0", "0", "0", "0"), row


def _event(sid: int, result: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps({"jsonrpc": "2.0", "id": sid, "result": result}).encode() + b"\n\n"


def _chunk(sid: int, seq: int, text: str | None = None) -> bytes:
    part = {"text": text_of(sid, seq) if text is None else text}
    return _event(sid, {"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {
        "artifactId": "a", "parts": [part]}}})


async def test_the_checker_catches_every_fault(aiohttp_server: Any) -> None:
    head = [_event(0, {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
            _event(0, {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})]
    end = _event(0, {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}})
    # chunks 0..5: 1 twice, 3 before 2, 4 missing, 5 corrupt; one event after the end
    faulty = [*head, _chunk(0, 0), _chunk(0, 1), _chunk(0, 1), _chunk(0, 3), _chunk(0, 2),
              _chunk(0, 5, "s0 e5 tampered"), end, _chunk(0, 6)]

    async def rpc(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b"".join(faulty))
        return resp

    app = web.Application()
    app.router.add_post("/", rpc)
    server = await aiohttp_server(app)
    async with aiohttp.ClientSession() as session:
        tally = await Swarm(str(server.make_url("/")), False, 1, 7).run(session)
    assert (tally.duplicated, tally.reordered, tally.corrupt) == (1, 1, 1)
    assert tally.lost == 3   # 4, 5 (corrupt, so never received intact) and 6 (after the end)
    assert tally.errors == ["stream 0: an event after the terminal one"] and not tally.clean
