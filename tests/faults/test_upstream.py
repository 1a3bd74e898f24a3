"""Faulty agents, for all four paths (v0.3→v1.0 and v1.0→v0.3 translated, v0.3 and v1.0 pass-through), over
JSON-RPC and over HTTP+JSON: every case gives the caller a proper error in its own shape (with its request id
over JSON-RPC), or valid data; nothing after a terminal event; and the gateway is healthy afterwards."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from gateway.core.sse import SseEvent, SseParser
from tests.faults.conftest import Front
from tests.faults.hostile import STREAM, UNARY

# path -> (client version, the front's key: agent version and binding); the client speaks the front's binding
PATHS = {"v03-to-v10": ("0.3", "1.0"), "v10-to-v03": ("1.0", "0.3"),
         "v03-passthrough": ("0.3", "0.3"), "v10-passthrough": ("1.0", "1.0"),
         "rest-v03-to-v10": ("0.3", "1.0 rest"), "rest-v10-to-v03": ("1.0", "0.3 rest"),
         "rest-v03-passthrough": ("0.3", "0.3 rest"), "rest-v10-passthrough": ("1.0", "1.0 rest")}
METHODS = {("0.3", False): "message/send", ("0.3", True): "message/stream",
           ("1.0", False): "SendMessage", ("1.0", True): "SendStreamingMessage"}
V03_KINDS = {"task", "message", "status-update", "artifact-update"}
MEMBERS = {"task", "message", "msg", "statusUpdate", "artifactUpdate"}  # v0.3 REST calls a Message `msg`
TERMINAL = {"completed", "failed", "canceled", "rejected", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
            "TASK_STATE_CANCELED", "TASK_STATE_CANCELLED", "TASK_STATE_REJECTED"}

UNARY_OK = {"ok", "textplain", "slow"}  # the rest must be errors
REST_OK = UNARY_OK | {"notrpc"}  # a bare result is what HTTP+JSON sends
# stream cases, the same on every path: "complete" = every event and the terminal one; "error" = valid
# items, then one error event
STREAM_EXPECT = {"ok": "complete", "awkward": "complete", "bytewise": "complete", "after_final": "complete",
                 "no_blank_end": "complete", "cut": "error", "cut_chunked": "error", "notjson": "error",
                 "huge": "error", "html503": "error", "close": "error", "endless_head": "error"}


@dataclass(frozen=True)
class Client:
    """A client of one version and binding: its requests, and what its valid items and errors look like."""

    version: str
    rest: bool

    def request(self, case: str, streaming: bool) -> tuple[str, dict[str, Any], dict[str, str]]:
        """(path, JSON body, headers) of a send whose message names the hostile agent's script."""
        headers = {"A2A-Version": "1.0"} if self.version == "1.0" else {}
        if self.rest:
            parts = "content" if self.version == "0.3" else "parts"
            message = {"messageId": case, "role": "ROLE_USER", parts: [{"text": "hi"}]}
            prefix = "/v1" if self.version == "0.3" else ""
            return f"{prefix}/message:{'stream' if streaming else 'send'}", {"message": message}, headers
        if self.version == "0.3":
            message = {"kind": "message", "messageId": case, "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
        else:
            message = {"messageId": case, "role": "ROLE_USER", "parts": [{"text": "hi"}]}
        body = {"jsonrpc": "2.0", "id": f"req-{case}", "method": METHODS[(self.version, streaming)],
                "params": {"message": message}}
        return "/", body, headers

    def item(self, data: Any, case: str) -> Any:
        """The item a reply or event carries (over JSON-RPC: with the caller's id), checked for its shape."""
        if not self.rest:
            assert data.get("id") == f"req-{case}", data  # never "id": null when the request had one
            data = data["result"]
        assert isinstance(data, dict), data
        if self.rest or self.version == "1.0":
            assert "kind" not in data and len(data) == 1 and next(iter(data)) in MEMBERS, data
        else:
            assert data.get("kind") in V03_KINDS, data
        return data

    def error(self, body: Any, case: str) -> None:
        """JSON-RPC: an error envelope with the caller's id; v1.0 REST `{"error": {…}}`; v0.3 REST (a2a-sdk
        0.3's) `{code, message, …}`."""
        if not self.rest:
            assert body.get("jsonrpc") == "2.0" and body.get("id") == f"req-{case}", body
            body = body.get("error")
        elif self.version == "1.0":
            body = body.get("error")
        assert isinstance(body, dict) and isinstance(body.get("message"), str), body
        assert self.rest or isinstance(body.get("code"), int), body

    def is_terminal(self, item: dict[str, Any]) -> bool:
        obj = item if "kind" in item else next(iter(item.values()))
        status = obj.get("status") if isinstance(obj, dict) else None
        return obj.get("final") is True or (isinstance(status, dict) and status.get("state") in TERMINAL)


def path_of(name: str) -> tuple[Client, str]:
    version, front = PATHS[name]
    return Client(version, front.endswith("rest")), front


def sse_events(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, decoded data) per event of a client's stream, read by a WHATWG parser (a pass-through
    relays the agent's own framing: CRLF, CR, comments)."""
    parser = SseParser(1 << 24)
    items = parser.feed(raw)
    return [(item.event, json.loads(item.data)) for item in items if isinstance(item, SseEvent)]


async def send(front: Front, client: Client, case: str, streaming: bool,
               session: aiohttp.ClientSession) -> tuple[int, str, bytes]:
    path, body, headers = client.request(case, streaming)
    async with session.post(front.gateway.base_url + path, json=body, headers=headers,
                            timeout=aiohttp.ClientTimeout(total=30)) as resp:
        return resp.status, resp.content_type, await resp.read()


async def assert_healthy(front: Front, client: Client, session: aiohttp.ClientSession) -> None:
    assert front.gateway.process.poll() is None, front.gateway.log()[-3000:]
    status, _, raw = await send(front, client, "ok", False, session)
    assert status == 200, raw
    client.item(json.loads(raw), "ok")


@pytest.mark.parametrize("case", sorted(UNARY))
@pytest.mark.parametrize("path", sorted(PATHS))
async def test_unary_faults(fronts: dict[str, Front], path: str, case: str) -> None:
    client, key = path_of(path)
    front = fronts[key]
    async with aiohttp.ClientSession() as session:
        status, ctype, raw = await send(front, client, case, False, session)
        assert ctype in ("application/json", "application/a2a+json"), (status, ctype, raw[:300])  # never a page
        body = json.loads(raw)
        if case in (REST_OK if client.rest else UNARY_OK):
            client.item(body, case)
        else:
            assert not client.rest or status >= 400, (status, body)
            client.error(body, case)
        await assert_healthy(front, client, session)


@pytest.mark.parametrize("case", sorted(set(STREAM) - {"silent"}))
@pytest.mark.parametrize("path", sorted(PATHS))
async def test_stream_faults(fronts: dict[str, Front], path: str, case: str) -> None:
    client, key = path_of(path)
    front = fronts[key]
    expect = STREAM_EXPECT[case]
    async with aiohttp.ClientSession() as session:
        status, ctype, raw = await send(front, client, case, True, session)
        if ctype != "text/event-stream":  # refused before the first event: a plain error reply
            assert expect == "error" and ctype in ("application/json", "application/a2a+json"), (status, raw)
            client.error(json.loads(raw), case)
        else:
            assert status == 200, (status, raw[:300])
            events = sse_events(raw)
            assert events, raw[:300]
            *items, (last_name, last) = events
            for name, data in items:
                assert name in (None, "message"), data
                assert not client.is_terminal(client.item(data, case)), "an event after the terminal one"
            if expect == "error":
                assert last_name == "error", events
                client.error(last, case)
            else:
                assert last_name in (None, "message"), last
                assert client.is_terminal(client.item(last, case)) and len(events) >= 4, events
        await assert_healthy(front, client, session)


@pytest.mark.parametrize("path", sorted(PATHS))
async def test_a_client_leaving_a_silent_stream_releases_the_agent(fronts: dict[str, Front], path: str) -> None:
    client, key = path_of(path)
    front = fronts[key]
    left = front.agent.left
    url, body, headers = client.request("silent", True)
    async with aiohttp.ClientSession() as session:
        async with session.post(front.gateway.base_url + url, json=body, headers=headers) as resp:
            assert resp.status == 200
            first = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 10)
            client.item(json.loads(first[first.index(b"data:") + 5:]), "silent")
        deadline = time.monotonic() + 10  # the client left: the gateway lets go of the agent
        while front.agent.left == left and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert front.agent.left > left
        await assert_healthy(front, client, session)


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "stream"])
async def test_an_endless_head_is_refused_at_once_in_bounded_memory(fronts: dict[str, Front], streaming: bool) -> None:
    """An agent sending header lines without end: each caller answered within 10 s with an error naming the
    limit, the gateway's memory up by less than 16 MiB over a few such calls."""
    client, key = path_of("v10-passthrough")
    front = fronts[key]
    pid = front.gateway.process.pid
    async with aiohttp.ClientSession() as session:
        await assert_healthy(front, client, session)
        before = _rss_kib(pid)
        for _ in range(5):
            started = time.monotonic()
            status, ctype, raw = await send(front, client, "endless_head", streaming, session)
            assert time.monotonic() - started < 10.0
            assert ctype == "application/json", (status, raw[:300])
            body = json.loads(raw)
            client.error(body, "endless_head")
            assert body["error"]["code"] == -32006 and "limits.max_agent_" in body["error"]["message"], raw[:300]
        grown = _rss_kib(pid) - before
        assert grown < 16 * 1024, f"{grown} KiB"
        await assert_healthy(front, client, session)
