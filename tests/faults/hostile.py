"""A scripted hostile A2A agent: a raw asyncio HTTP/1.1 server (its own thread and loop, on loopback) that
serves a valid card of its version and answers every call by the script the request names (its message's
`messageId`): unanswered closes, cut bodies and streams, HTML 503 pages, bad JSON, wrong content types,
awkward-but-valid SSE framing, huge events, heads without end, events after the terminal one, silent
streams. It writes bytes, not an HTTP library's idea of them: every fault a real agent or an ingress in
front of it produces."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

Writer = asyncio.StreamWriter
Script = Callable[["Call", Writer], Awaitable[None]]

HUGE = 5 * 1024 * 1024  # past the gateway's default limits.max_sse_event_bytes (4 MiB)
ENDLESS = 64 * 1024 * 1024  # what an endless head writes at most


class Call:
    """One request as the hostile agent read it: its JSON-RPC id, and the version it speaks."""

    def __init__(self, version: str, body: Any, reader: asyncio.StreamReader | None = None, *,
                 rest: bool = False) -> None:
        self.version = version
        self.rest = rest  # HTTP+JSON: no envelope, ProtoJSON items (v0.3's with `final`)
        self.reader = reader
        self.body = body if isinstance(body, dict) else {}
        self.rpc_id = self.body.get("id")

    @property
    def case(self) -> str:
        params = self.body if self.rest else self.body.get("params") or {}
        message = params.get("message") or params.get("request") or {}
        return str(message.get("messageId", ""))

    def envelope(self, result: Any) -> bytes:
        if self.rest:
            return json.dumps(result).encode()
        return json.dumps({"jsonrpc": "2.0", "id": self.rpc_id, "result": result}).encode()

    @property
    def kinds(self) -> bool:
        """v0.3 JSON-RPC items carry `kind`; the ProtoJSON ones (v1.0, v0.3 REST) are one-member wrappers."""
        return self.version == "0.3" and not self.rest

    # items of the agent's own version and binding
    def task(self, state: str) -> dict[str, Any]:
        if self.kinds:
            return {"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state}}
        return {"task": {"id": "t-1", "contextId": "c-1", "status": {"state": _V10_STATE[state]}}}

    def status(self, state: str, final: bool = False) -> dict[str, Any]:
        update = {"taskId": "t-1", "contextId": "c-1", "status": {"state": state if self.kinds else _V10_STATE[state]}}
        if self.kinds:
            return {"kind": "status-update", **update, "final": final}
        return {"statusUpdate": {**update, **({"final": final} if self.version == "0.3" and final else {})}}

    def artifact(self, text: str) -> dict[str, Any]:
        parts = [{"kind": "text", "text": text}] if self.kinds else [{"text": text}]
        update = {"taskId": "t-1", "contextId": "c-1", "artifact": {"artifactId": "a-1", "parts": parts}}
        return {"kind": "artifact-update", **update} if self.kinds else {"artifactUpdate": update}

    def unary_result(self) -> dict[str, Any]:
        """A completed Task as the SendMessage result of this version."""
        return self.task("completed")


_V10_STATE = {"submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING",
              "completed": "TASK_STATE_COMPLETED"}


def head(status: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items()), "Connection: close", "", ""]
    return "\r\n".join(lines).encode()


async def reply(w: Writer, status: str, ctype: str, body: bytes) -> None:
    w.write(head(status, {"Content-Type": ctype, "Content-Length": str(len(body))}) + body)
    await w.drain()


async def sse_head(w: Writer) -> None:
    w.write(head("200 OK", {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}))
    await w.drain()


def data(call: Call, item: Any) -> bytes:
    return b"data: " + call.envelope(item) + b"\n\n"


def valid_events(call: Call) -> list[bytes]:
    return [data(call, call.task("submitted")), data(call, call.status("working")),
            data(call, call.artifact("hello")), data(call, call.status("completed", final=True))]


# ---- unary scripts -------------------------------------------------------------------------------------

async def u_ok(call: Call, w: Writer) -> None:
    await reply(w, "200 OK", "application/json", call.envelope(call.unary_result()))


async def u_close(call: Call, w: Writer) -> None:
    pass  # read the request, answer nothing, close


async def u_cut(call: Call, w: Writer) -> None:
    body = call.envelope(call.unary_result())
    w.write(head("200 OK", {"Content-Type": "application/json", "Content-Length": str(len(body))}) + body[:20])
    await w.drain()


async def u_html503(call: Call, w: Writer) -> None:
    await reply(w, "503 Service Unavailable", "text/html",
                b"<html><body><h1>503 Service Temporarily Unavailable</h1><hr>nginx</body></html>")


async def u_notjson(call: Call, w: Writer) -> None:
    await reply(w, "200 OK", "application/json", b"OK, all good!")


async def u_html200(call: Call, w: Writer) -> None:
    await reply(w, "200 OK", "text/html", b"<html>login here</html>")


async def u_textplain(call: Call, w: Writer) -> None:  # JSON labelled text/plain: valid data
    await reply(w, "200 OK", "text/plain", call.envelope(call.unary_result()))


async def u_nan(call: Call, w: Writer) -> None:
    await reply(w, "200 OK", "application/json", call.envelope(call.unary_result())[:-1] + b', "x": NaN}')


async def u_notrpc(call: Call, w: Writer) -> None:
    await reply(w, "200 OK", "application/json", json.dumps(call.unary_result()).encode())


async def u_slow(call: Call, w: Writer) -> None:
    await asyncio.sleep(1.0)
    await u_ok(call, w)


async def u_endless_head(call: Call, w: Writer) -> None:
    await endless_head(w)


async def endless_head(w: Writer) -> None:
    """A status line, then header lines without end (up to ENDLESS bytes), until the gateway closes."""
    w.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    block = (b"X-Endless: " + b"a" * 1000 + b"\r\n") * 64
    sent = 0
    while sent < ENDLESS:
        w.write(block)
        sent += len(block)
        await w.drain()


# ---- stream scripts ------------------------------------------------------------------------------------

async def s_ok(call: Call, w: Writer) -> None:
    await sse_head(w)
    w.write(b"".join(valid_events(call)))
    await w.drain()


async def s_awkward(call: Call, w: Writer) -> None:
    """CRLF line ends, comments, an event split over data lines, fields, a BOM-less CR-only event."""
    await sse_head(w)
    first, second, third, last = valid_events(call)
    w.write(b": hello\r\n\r\n" + first.replace(b"\n", b"\r\n"))
    body = second[6:-2]
    w.write(b"event: message\r\nid: 2\r\n" + b"".join(b"data: " + line + b"\r\n"
                                                       for line in body.replace(b", ", b",\n").split(b"\n")) + b"\r\n")
    w.write(third.replace(b"\n", b"\r") + b": ping\n\n" + last)
    await w.drain()


async def s_bytewise(call: Call, w: Writer) -> None:
    await sse_head(w)
    for byte in b"".join(valid_events(call)):
        w.write(bytes([byte]))
        await w.drain()


async def s_no_blank_end(call: Call, w: Writer) -> None:
    await sse_head(w)
    w.write(b"".join(valid_events(call))[:-1])  # the last event's blank line missing at a clean end
    await w.drain()


async def s_cut(call: Call, w: Writer) -> None:
    await sse_head(w)
    first, second, _, _ = valid_events(call)
    w.write(first + second[:25])  # then close: the stream ends inside an event
    await w.drain()


async def s_cut_chunked(call: Call, w: Writer) -> None:
    w.write(head("200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"}))
    first = valid_events(call)[0]
    w.write(b"%x\r\n%s\r\n" % (len(first), first) + b"400\r\n" + b"data: {")  # the chunk never completes
    await w.drain()


async def s_notjson(call: Call, w: Writer) -> None:
    await sse_head(w)
    first, *rest = valid_events(call)
    w.write(first + b"data: this is not json\n\n" + b"".join(rest))
    await w.drain()


async def s_after_final(call: Call, w: Writer) -> None:
    await sse_head(w)
    w.write(b"".join(valid_events(call)) + data(call, call.status("working")) + data(call, call.artifact("late")))
    await w.drain()


async def s_huge(call: Call, w: Writer) -> None:
    await sse_head(w)
    first = valid_events(call)[0]
    w.write(first + b"data: " + call.envelope(call.artifact("x" * HUGE)) + b"\n\n")
    await w.drain()


async def s_silent(call: Call, w: Writer) -> None:
    await sse_head(w)
    w.write(valid_events(call)[0])
    await w.drain()
    assert call.reader is not None
    await asyncio.wait_for(call.reader.read(), 30)  # silent until the gateway leaves (the client left)
    raise ConnectionResetError


async def s_html503(call: Call, w: Writer) -> None:
    await u_html503(call, w)


async def s_close(call: Call, w: Writer) -> None:
    pass


async def s_endless_head(call: Call, w: Writer) -> None:
    await endless_head(w)


UNARY: dict[str, Script] = {name[2:]: fn for name, fn in globals().items() if name.startswith("u_")}
STREAM: dict[str, Script] = {name[2:]: fn for name, fn in globals().items() if name.startswith("s_")}


class HostileAgent:
    """The agent (`binding` JSONRPC or HTTP+JSON) on 127.0.0.1:`port` (a free one unless given) in a thread of
    its own; `left` counts connections the gateway closed while a script was still writing or waiting (a
    client that left is passed on)."""

    def __init__(self, version: str, binding: str = "JSONRPC", port: int = 0) -> None:
        self.version = version
        self.binding = binding
        self.port = port   # 0: any free port
        self.left = 0
        self.calls: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"hostile-{version}", daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HostileAgent:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._server.close()
        pending = asyncio.all_tasks(self._loop)  # scripts still waiting (a silent stream): cancelled
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.run_until_complete(self._server.wait_closed())
        self._loop.close()

    def card(self) -> bytes:
        url = self.url + "/" if self.binding == "JSONRPC" else self.url
        card: dict[str, Any] = {"name": f"hostile v{self.version}", "description": "scripted faults",
                                "version": "1.0.0", "capabilities": {"streaming": True},
                                "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                                "skills": []}
        if self.version == "0.3":
            card |= {"protocolVersion": "0.3.0", "url": url, "preferredTransport": self.binding}
        else:
            card["supportedInterfaces"] = [{"url": url, "protocolBinding": self.binding, "protocolVersion": "1.0"}]
        return json.dumps(card).encode()

    async def _serve(self, r: asyncio.StreamReader, w: Writer) -> None:
        try:
            raw_head = await r.readuntil(b"\r\n\r\n")
            lines = raw_head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {k.strip().lower(): v.strip()
                       for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await r.readexactly(int(headers.get("content-length", "0")))
            if method == "GET":
                await reply(w, "200 OK", "application/json", self.card())
                return
            rest = self.binding != "JSONRPC"
            call = Call(self.version, json.loads(body) if body else None, r, rest=rest)
            streaming = path.endswith(":stream") if rest else \
                str(call.body.get("method")) in ("message/stream", "SendStreamingMessage")
            script = (STREAM if streaming else UNARY).get(call.case, s_ok if streaming else u_ok)
            self.calls.append(call.case)
            await script(call, w)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.left += 1
        finally:
            w.close()
