"""Faulty agents, for all four paths (v0.3→v1.0 and v1.0→v0.3 translated, v0.3 and v1.0 pass-through, over
JSON-RPC): every case gives the caller a proper error in its own shape with its request id, or valid data;
nothing after a terminal event; and the gateway is healthy afterwards."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from gateway.core.sse import SseEvent, SseParser
from tests.faults.conftest import Front
from tests.faults.hostile import STREAM, UNARY

# (client version, agent version): the four paths
PATHS = {"v03-to-v10": ("0.3", "1.0"), "v10-to-v03": ("1.0", "0.3"),
         "v03-passthrough": ("0.3", "0.3"), "v10-passthrough": ("1.0", "1.0")}
METHODS = {("0.3", False): "message/send", ("0.3", True): "message/stream",
           ("1.0", False): "SendMessage", ("1.0", True): "SendStreamingMessage"}
V03_KINDS = {"task", "message", "status-update", "artifact-update"}
V10_MEMBERS = {"task", "message", "statusUpdate", "artifactUpdate"}
TERMINAL = {"completed", "failed", "canceled", "rejected", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
            "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"}

UNARY_OK = {"ok", "textplain", "slow"}  # the rest must be errors
# stream cases: "complete" = every event and the terminal one; "error" = valid items, then one error event;
# "prefix" = valid items, possibly not all (a translated stream drops an unterminated event, per WHATWG)
STREAM_EXPECT = {"ok": "complete", "awkward": "complete", "bytewise": "complete", "after_final": "complete",
                 "no_blank_end": "complete", "cut": "error", "cut_chunked": "error", "notjson": "error",
                 "huge": "error", "html503": "error", "close": "error"}
TRANSLATED_EXPECT = {"no_blank_end": "prefix", "cut": "prefix"}


def body(client: str, case: str, streaming: bool) -> dict[str, Any]:
    if client == "0.3":
        message = {"kind": "message", "messageId": case, "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
    else:
        message = {"messageId": case, "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    return {"jsonrpc": "2.0", "id": f"req-{case}", "method": METHODS[(client, streaming)],
            "params": {"message": message}}


def headers(client: str) -> dict[str, str]:
    return {"A2A-Version": "1.0"} if client == "1.0" else {}


def check_item(client: str, item: Any) -> None:
    """A result item valid in the client's version (shape only: the kind tag or the one member)."""
    assert isinstance(item, dict), item
    if client == "0.3":
        assert item.get("kind") in V03_KINDS, item
    else:
        assert "kind" not in item and len(item) == 1 and next(iter(item)) in V10_MEMBERS, item


def check_error(envelope: Any, rpc_id: str) -> None:
    assert isinstance(envelope, dict) and envelope.get("jsonrpc") == "2.0", envelope
    assert envelope.get("id") == rpc_id, envelope  # never "id": null when the request had one
    error = envelope.get("error")
    assert isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)


def is_terminal(client: str, item: dict[str, Any]) -> bool:
    obj = item if client == "0.3" else next(iter(item.values()))
    if client == "0.3" and item.get("final") is True:
        return True
    status = obj.get("status") if isinstance(obj, dict) else None
    return isinstance(status, dict) and status.get("state") in TERMINAL


def sse_events(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, decoded data) per event of a client's stream, read by a WHATWG parser (a pass-through
    relays the agent's own framing: CRLF, CR, comments)."""
    parser = SseParser(1 << 24)
    items = parser.feed(raw)
    return [(item.event, json.loads(item.data)) for item in items if isinstance(item, SseEvent)]


async def call(front: Front, client: str, case: str, streaming: bool,
               session: aiohttp.ClientSession) -> tuple[int, str, bytes]:
    async with session.post(front.gateway.base_url + "/", json=body(client, case, streaming),
                            headers=headers(client), timeout=aiohttp.ClientTimeout(total=30)) as resp:
        return resp.status, resp.content_type, await resp.read()


async def assert_healthy(front: Front, client: str, session: aiohttp.ClientSession) -> None:
    assert front.gateway.process.poll() is None, front.gateway.log()[-3000:]
    status, ctype, raw = await call(front, client, "ok", False, session)
    assert status == 200 and ctype == "application/json", raw
    check_item(client, json.loads(raw)["result"])


@pytest.mark.parametrize("case", sorted(UNARY))
@pytest.mark.parametrize("path", sorted(PATHS))
async def test_unary_faults(fronts: dict[str, Front], path: str, case: str) -> None:
    client, agent = PATHS[path]
    front = fronts[agent]
    async with aiohttp.ClientSession() as session:
        status, ctype, raw = await call(front, client, case, False, session)
        assert ctype == "application/json", (status, ctype, raw[:300])  # never an HTML or text page
        envelope = json.loads(raw)
        if case in UNARY_OK:
            assert envelope.get("id") == f"req-{case}", envelope
            check_item(client, envelope["result"])
        else:
            check_error(envelope, f"req-{case}")
        await assert_healthy(front, client, session)


@pytest.mark.parametrize("case", sorted(set(STREAM) - {"silent"}))
@pytest.mark.parametrize("path", sorted(PATHS))
async def test_stream_faults(fronts: dict[str, Front], path: str, case: str) -> None:
    client, agent = PATHS[path]
    front = fronts[agent]
    rpc_id = f"req-{case}"
    expect = STREAM_EXPECT[case] if client == agent else TRANSLATED_EXPECT.get(case, STREAM_EXPECT[case])
    async with aiohttp.ClientSession() as session:
        status, ctype, raw = await call(front, client, case, True, session)
        if ctype == "application/json":  # refused before the first event: a plain JSON-RPC error
            assert expect == "error", raw
            check_error(json.loads(raw), rpc_id)
        else:
            assert status == 200 and ctype == "text/event-stream", (status, ctype, raw[:300])
            events = sse_events(raw)
            assert events, raw[:300]
            *items, (last_name, last) = events
            for name, envelope in items:  # every event before the last: a valid item with the caller's id
                assert name in (None, "message") and envelope.get("id") == rpc_id, envelope
                check_item(client, envelope["result"])
                assert not is_terminal(client, envelope["result"]), "an event after the terminal one"
            if expect == "error":
                assert last_name == "error", events
                check_error(last, rpc_id)
            else:
                assert last_name in (None, "message") and last.get("id") == rpc_id, last
                check_item(client, last["result"])
                if expect == "complete":
                    assert is_terminal(client, last["result"]) and len(events) >= 4, events
        await assert_healthy(front, client, session)


@pytest.mark.parametrize("path", sorted(PATHS))
async def test_a_client_leaving_a_silent_stream_releases_the_agent(fronts: dict[str, Front], path: str) -> None:
    client, agent = PATHS[path]
    front = fronts[agent]
    left = front.agent.left
    async with aiohttp.ClientSession() as session:
        async with session.post(front.gateway.base_url + "/", json=body(client, "silent", True),
                                headers=headers(client)) as resp:
            assert resp.status == 200
            first = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 10)
            assert json.loads(first[6:])["id"] == "req-silent"
        deadline = time.monotonic() + 10  # the client left: the gateway lets go of the agent
        while front.agent.left == left and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert front.agent.left > left
        await assert_healthy(front, client, session)
