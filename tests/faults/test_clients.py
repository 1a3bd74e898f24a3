"""Hostile clients on a raw socket against the gateway on its defaults: bodies that crash JSON handlers, at
every door; broken and smuggling-shaped HTTP; oversized bodies; slow heads; clients that leave mid-call.
Each gets a clear error in its own protocol's shape (broken HTTP: a 400 and the connection closed, before
any door has read what protocol it speaks), and the gateway stays healthy."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from tests.faults.conftest import Front

HOSTILE_JSON = {
    "lone surrogate": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": '
                      b'"m", "role": "ROLE_USER", "parts": [{"text": "\\ud800"}]}}}',
    "invalid UTF-8": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": "\xff\xfe"}}',
    "NaN": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": NaN}}',
    "Infinity": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": -Infinity}}',
    "huge integer": b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "SendMessage"}',
    "deep nesting": b"[" * 100_000,
    "deep object nesting": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": '
                           + b'{"a":' * 5000 + b"1" + b"}" * 5001,
    "duplicate keys": b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "method": "GetTask", "params": {}}',
    "not JSON": b"<xml/>",
    "empty": b"",
}
# where each door is, and what its errors look like
DOORS = {"jsonrpc": "/", "rest-v10": "/message:send", "rest-v03": "/v1/message:send", "agui": "/agui"}


async def exchange(front: Front, raw: bytes, *, read: bool = True, timeout: float = 10) -> bytes:
    """Write `raw` on a fresh connection; what comes back until the gateway closes it (or `timeout`)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", front.gateway.port)
    try:
        writer.write(raw)
        await writer.drain()
        if not read:
            return b""
        out = b""
        try:
            async with asyncio.timeout(timeout):
                while chunk := await reader.read(65536):
                    out += chunk
        except TimeoutError:
            pass
        return out
    finally:
        writer.close()


def request(path: str, body: bytes, *, headers: dict[str, str] | None = None, close: bool = True) -> bytes:
    head = {"Host": "127.0.0.1", "Content-Type": "application/json", "Content-Length": str(len(body)),
            **({"Connection": "close"} if close else {}), **(headers or {})}
    return (f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n").encode() + body


def parse(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        body = _dechunk(body)
    return status, headers, body


def _dechunk(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            break
        out, body = out + rest[:n], rest[n + 2:]
    return out


async def healthy(front: Front) -> None:
    assert front.gateway.process.poll() is None, front.gateway.log()[-3000:]
    ok = json.dumps({"jsonrpc": "2.0", "id": "h", "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": "ok", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}})
    status, _, body = parse(await exchange(front, request("/", ok.encode())))
    assert status == 200 and json.loads(body)["result"]["kind"] == "task", body


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
@pytest.mark.parametrize("door", sorted(DOORS))
async def test_bodies_that_crash_json_handlers(fronts: dict[str, Front], door: str, case: str) -> None:
    front = fronts["1.0"]
    extra = {"A2A-Version": "0.3" if door == "rest-v03" else "1.0"}
    status, headers, body = parse(await exchange(front, request(DOORS[door], HOSTILE_JSON[case], headers=extra)))
    assert headers.get("content-type", "").startswith("application/json"), (status, headers, body[:200])
    reply: Any = json.loads(body)
    if door == "jsonrpc":
        assert reply["jsonrpc"] == "2.0" and reply["id"] is None  # unreadable: JSON-RPC says null
        assert reply["error"]["code"] in (-32700, -32600), reply
    elif case == "empty" and status == 200:  # no body is no message: whatever the agent makes of it
        assert isinstance(reply, dict)
    elif door == "rest-v03":  # a2a-sdk 0.3's REST error body: {"code", "message", "type"}
        assert 400 <= status < 500 and isinstance(reply.get("code"), int), (status, reply)
    else:
        assert 400 <= status < 500 and isinstance(reply.get("error"), dict), (status, reply)
    assert "internal error" not in body.decode("utf-8", "replace").lower()
    await healthy(front)


ODD = {  # well-formed HTTP the JSON-RPC door must still answer in JSON-RPC's shape
    "GET": b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "DELETE": b"DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "gzip that is not": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}",
    "bad chunk size": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\nzz\r\n",
}


@pytest.mark.parametrize("case", sorted(ODD))
async def test_odd_requests_get_json_rpc_errors(fronts: dict[str, Front], case: str) -> None:
    front = fronts["1.0"]
    _, headers, body = parse(await exchange(front, ODD[case]))
    assert headers["content-type"].startswith("application/json"), (headers, body)
    reply = json.loads(body)
    assert reply["error"]["code"] in (-32700, -32600) and "internal" not in reply["error"]["message"], reply
    await healthy(front)


SMUGGLING = {
    "CL and TE": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                 b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n",
    "two CLs": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
    "TE obfuscated": b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "bad header": b"POST / HTTP/1.1\r\nHost: x\r\nBad Header\x00: 1\r\nContent-Length: 2\r\n\r\n{}",
    "bad request line": b"PO ST /\x01 HTTP/1.1\r\n\r\n",
    "bad content length": b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}",
}


@pytest.mark.parametrize("case", sorted(SMUGGLING))
async def test_broken_and_smuggling_http_is_refused(fronts: dict[str, Front], case: str) -> None:
    front = fronts["1.0"]
    raw = await exchange(front, SMUGGLING[case])
    status_line = raw.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.") and status_line.split(b" ")[1] == b"400", raw[:300]  # refused
    assert len(re.findall(rb"HTTP/1\.[01] \d{3} ", raw)) == 1, raw  # once: no smuggled second request answered
    _, headers, body = parse(raw)   # in JSON-RPC's shape (id null: the request was never read), not aiohttp's page
    assert headers["content-type"].startswith("application/json"), raw
    reply = json.loads(body)
    assert reply["id"] is None and reply["error"]["code"] == -32600, reply
    await healthy(front)


async def test_an_oversized_body_is_refused_in_the_callers_shape_without_being_read(
        fronts: dict[str, Front]) -> None:
    front = fronts["1.0"]
    head = request("/", b"", headers={"Content-Length": str(64 * 1024 * 1024)})
    status, headers, body = parse(await exchange(front, head + b'{"jsonrpc": "2.0", "id": 1'))
    assert status == 413 or json.loads(body)["error"]["code"] == -32600, (status, body)
    assert headers["content-type"].startswith("application/json")
    await healthy(front)


async def test_slow_heads_do_not_hold_up_others(fronts: dict[str, Front]) -> None:
    front = fronts["1.0"]
    slow = [await asyncio.open_connection("127.0.0.1", front.gateway.port) for _ in range(20)]
    try:
        for _, writer in slow:
            writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nContent-")  # and then nothing, for now
        await healthy(front)
    finally:
        for _, writer in slow:
            writer.close()


@pytest.mark.parametrize("case", ["slow", "silent"])
async def test_clients_that_leave_mid_call(fronts: dict[str, Front], case: str) -> None:
    front = fronts["0.3"]
    method = "message/stream" if case == "silent" else "message/send"
    body = json.dumps({"jsonrpc": "2.0", "id": 5, "method": method, "params": {"message": {
        "kind": "message", "messageId": case, "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}})
    await exchange(front, request("/", body.encode()), read=False)  # sent, then gone at once
    await exchange(front, request("/", body.encode())[:40], read=False)  # half a head, then gone
    await exchange(front, request("/", body.encode())[:-10], read=False)  # half a body, then gone
    await healthy(front)
