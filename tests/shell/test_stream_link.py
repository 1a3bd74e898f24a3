"""Tests for gateway/shell/agent/stream_link.py against real loopback servers (aiohttp's, and raw asyncio ones
scripted byte by byte for what aiohttp would not send): the request as written, the reply's head and
body, reuse of a cleanly ended connection and never of one the agent closed, cut and malformed replies
as aiohttp's exception types, bodies delimited by the close, interim replies, flow control, the drain's
wake-up, and the done callbacks."""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest
from aiohttp import web

from gateway.shell.agent.headers import RequestHeaders
from gateway.shell.agent.stream_link import HIGH_WATER, Links, StreamReply

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_head(reader: asyncio.StreamReader) -> bytes:
    return await reader.readuntil(b"\r\n\r\n")


def _answering(reply: bytes, heads: list[bytes]) -> Script:
    """A script that keeps each request's head in `heads`, answers `reply` and closes."""
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads.append(await _read_head(reader))
        writer.write(reply)
        await writer.drain()
        writer.close()

    return script


@pytest.fixture
async def raw_server() -> AsyncIterator[Callable[[Script], Awaitable[str]]]:
    """A loopback server running `script` for each connection; yields a function giving its URL."""
    servers: list[asyncio.Server] = []

    async def start(script: Script) -> str:
        server = await asyncio.start_server(script, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/rpc"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


async def _body(reply: StreamReply) -> bytes:
    chunks = []
    while chunk := await reply.readany():
        chunks.append(chunk)
    return b"".join(chunks)


async def test_a_stream_is_read_whole_and_its_connection_reused(aiohttp_server: Callable[..., Awaitable[object]]
                                                                ) -> None:
    peers: list[tuple[str, int]] = []
    seen: list[tuple[str, str, str | None, bytes]] = []

    async def stream(request: web.Request) -> web.StreamResponse:
        peers.append(request.transport.get_extra_info("peername"))  # type: ignore[union-attr]
        seen.append((request.method, request.path_qs, request.headers.get("X-Test"), await request.read()))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8", "X-Agent": "a"})
        await resp.prepare(request)
        for n in range(3):
            await resp.write(f"data: {n}\n\n".encode())
        await resp.write_eof()
        return resp

    app = web.Application()
    app.router.add_post("/rpc", stream)
    server = await aiohttp_server(app)
    url = f"http://127.0.0.1:{server.port}/rpc"  # type: ignore[attr-defined]
    links = Links(5.0)
    for _ in range(2):
        reply = await links.request("POST", url, {"X-Test": "yes"}, b'{"a":1}', [("q", "a b")], None)
        assert (reply.status, reply.content_type, reply.headers["X-Agent"]) == (200, "text/event-stream", "a")
        assert await _body(reply) == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"
        assert reply.at_eof()
        reply.release()
        assert reply.closed
    assert seen == [("POST", "/rpc?q=a+b", "yes", b'{"a":1}')] * 2
    assert peers[0] == peers[1], "a cleanly ended connection is used again"
    links.close()


async def test_an_event_peeked_at_is_read_again(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    """peek_event reads up to the first blank line, however the event comes in pieces, and keeps what it read:
    the relay reads the body whole from its start; at the body's end it gives what there was."""
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n")
        for piece in (b"data: {\"a\"", b":1}\r\n", b"\r\ndata: 2\n\n", b"data: 3"):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.01)
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    url = await raw_server(script)
    reply = await Links(5.0).request("POST", url, {}, b"{}", (), None)
    head = await reply.peek_event(1024)
    assert head.startswith(b'data: {"a":1}\r\n\r\n')
    assert await _body(reply) == b'data: {"a":1}\r\n\r\ndata: 2\n\ndata: 3'
    reply.close()
    short = await Links(5.0).request("POST", url, {}, b"{}", (), None)
    assert await short.peek_event(4) == b'data: {"a"'   # past its limit: what it read, kept
    assert await _body(short) == b'data: {"a":1}\r\n\r\ndata: 2\n\ndata: 3'
    short.close()


async def test_a_connection_the_agent_closed_is_not_reused(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    connections = 0

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/event-stream\r\n\r\nok")
        await writer.drain()
        writer.close()   # no Connection: close said: the reply looks reusable, the socket is not

    url = await raw_server(script)
    links = Links(5.0)
    for _ in range(2):
        reply = await links.request("GET", url, {}, None, (), None)
        assert await reply.read() == b"ok"
        reply.release()
        await asyncio.sleep(0.05)   # the close has reached this end's socket
    assert connections == 2
    links.close()


async def test_a_cut_body_fails_after_what_came_before_it(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n5\r\ndat")
        await writer.drain()
        writer.close()

    reply = await Links(5.0).request("POST", await raw_server(script), {}, b"{}", (), None)
    assert await reply.readany() == b"data: 1\n\ndat"   # the bytes that came, then the cut
    with pytest.raises(aiohttp.ClientPayloadError):
        while await reply.readany():
            pass
    assert not reply.at_eof()
    reply.close()


async def test_a_body_delimited_by_the_close_ends_cleanly(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                     b"data: a\n\n")
        await writer.drain()
        writer.write(b"data: b\n\n")
        writer.close()

    reply = await Links(5.0).request("POST", await raw_server(script), {}, b"{}", (), None)
    assert reply.status == 200
    assert await _body(reply) == b"data: a\n\ndata: b\n\n"
    assert reply.at_eof()
    reply.release()


@pytest.mark.parametrize(("answer", "error"), [
    (b"", aiohttp.ServerDisconnectedError),
    (b"HTTP/1.1 2xx nonsense\r\n\r\n", aiohttp.ClientPayloadError),
])
async def test_no_head_is_aiohttp_s_error(raw_server: Callable[[Script], Awaitable[str]], answer: bytes,
                                          error: type[Exception]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(answer)
        await writer.drain()
        writer.close()

    with pytest.raises(error):
        await Links(5.0).request("POST", await raw_server(script), {}, b"{}", (), None)


async def test_a_refused_connection_is_a_connector_error(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(aiohttp.ClientConnectorError):
        await Links(5.0).request("POST", f"http://127.0.0.1:{port}/", {}, b"{}", (), None)


async def test_a_header_with_a_line_break_is_never_sent(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    with pytest.raises(ValueError, match="line break"):
        await Links(5.0).request("POST", "http://127.0.0.1:9/", {"X-Bad": "a\r\nX-Smuggled: 1"}, b"{}", (), None)


async def test_reading_pauses_while_the_reader_lags(raw_server: Callable[[Script], Awaitable[str]]) -> None:
    sent = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 65536
        for _ in range(2 * HIGH_WATER // len(chunk)):
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        sent.set()
        await writer.drain()
        writer.close()

    reply = await Links(5.0).request("POST", await raw_server(script), {}, b"{}", (), None)
    for _ in range(100):
        if reply.link is not None and reply.link.transport is not None and not reply.link.transport.is_reading():
            break
        await asyncio.sleep(0.01)
    assert reply.link is not None and reply.link.transport is not None
    assert not reply.link.transport.is_reading(), "more than HIGH_WATER unread bytes pause the socket's reads"
    assert len(await _body(reply)) == 2 * HIGH_WATER
    assert sent.is_set()
    reply.release()


async def test_set_exception_wakes_a_waiting_read_and_done_callbacks_run_once(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    hold = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        await writer.drain()
        await hold.wait()
        writer.close()

    reply = await Links(5.0).request("POST", await raw_server(script), {}, b"{}", (), None)
    calls: list[int] = []
    reply.add_done(lambda: calls.append(1))
    waiting = asyncio.ensure_future(reply.readany())
    await asyncio.sleep(0.01)
    reply.set_exception(KeyError("drain"))
    with pytest.raises(KeyError):
        await waiting
    reply.close()
    reply.release()
    reply.add_done(lambda: calls.append(2))
    assert calls == [1, 2]
    hold.set()


async def test_a_second_unasked_reply_is_ignored_and_its_connection_dropped(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    connections = 0

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                     b"HTTP/1.1 500 Oops\r\nContent-Length: 3\r\n\r\nbad")
        await writer.drain()
        await reader.read()   # until the gateway's end closes
        writer.close()

    url = await raw_server(script)
    links = Links(5.0)
    reply = await links.request("GET", url, {}, None, (), None)
    await asyncio.sleep(0.05)   # the unasked reply has come too
    assert (reply.status, await reply.read()) == (200, b"ok")
    reply.release()
    again = await links.request("GET", url, {}, None, (), None)
    assert (again.status, await again.read()) == (200, b"ok")
    again.close()
    assert connections == 2, "a connection that sent more than its reply is not used again"
    links.close()


async def test_a_configured_host_header_is_sent_and_framing_headers_are_the_links_own(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    heads: list[bytes] = []
    url = await raw_server(_answering(b"HTTP/1.1 204 No Content\r\n\r\n", heads))
    reply = await Links(5.0).request("POST", url, {"host": "agent.internal", "Content-Length": "99",
                                                   "Transfer-Encoding": "chunked"}, b"{}", (), None)
    assert reply.status == 204
    reply.close()
    lines = heads[0].decode().split("\r\n")
    assert lines[1] == "Host: agent.internal"
    assert [line for line in lines if line.lower().startswith(("content-length", "transfer-encoding"))] == [
        "Content-Length: 2"]


async def test_credentials_in_the_agents_url_are_sent_as_basic_authentication(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    heads: list[bytes] = []
    url = (await raw_server(_answering(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", heads))
           ).replace("http://", "http://agent:p%40ss@")
    reply = await Links(5.0).request("GET", url, {"Accept": "application/json"}, None, (), None)
    reply.close()
    lines = heads[0].decode().split("\r\n")
    assert "Authorization: Basic " + base64.b64encode(b"agent:p@ss").decode() in lines
    assert lines[0] == "GET /rpc HTTP/1.1" and not any("p%40ss" in line or "agent:" in line for line in lines[1:2])


def _stalling(head: bytes, opened: list[int]) -> Script:
    """A script that answers `head` (and whatever body bytes it ends with), then says nothing more until the
    link closes the connection."""
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(1)
        await _read_head(reader)
        writer.write(head)
        await writer.drain()
        await reader.read()
        writer.close()
        await writer.wait_closed()

    return script


async def test_a_reply_past_its_deadline_fails_before_its_head_and_within_its_body(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    opened: list[int] = []
    silent = await raw_server(_stalling(b"", opened))
    links = Links(5.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError):
        await links.request("POST", silent, {}, b"{}", (), None, due=time.monotonic() + 0.2)
    assert 0.15 < loop.time() - started < 2.0
    cut = await raw_server(_stalling(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", opened))
    reply = await links.request("POST", cut, {}, b"{}", (), None, due=time.monotonic() + 0.2)
    assert await reply.readany() == b"abc"   # what came before the deadline is read first
    with pytest.raises(TimeoutError):
        await reply.readany()
    reply.release()   # a reply that failed: its connection is closed, not kept
    assert links.due == {}
    again = await links.request("POST", cut, {}, b"{}", (), None)
    assert len(opened) == 3   # a new connection
    again.close()
    links.close()


async def test_replies_share_one_timer_for_their_deadlines_and_leave_it_when_they_end(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    heads: list[bytes] = []
    quick = await raw_server(_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", heads))
    opened: list[int] = []
    silent = await raw_server(_stalling(b"", opened))
    links = Links(5.0)
    later = asyncio.ensure_future(links.request("POST", silent, {}, b"{}", (), None, due=time.monotonic() + 0.6))
    sooner = asyncio.ensure_future(links.request("POST", silent, {}, b"{}", (), None, due=time.monotonic() + 0.2))
    reply = await links.request("POST", quick, {}, b"{}", (), None, due=time.monotonic() + 0.4)
    assert await reply.read() == b"ok"
    reply.release()
    assert len(links.due) == 2   # the two silent calls are watched; the answered one is not any more
    done, _ = await asyncio.wait([sooner, later], return_when=asyncio.FIRST_COMPLETED)
    assert done == {sooner} and isinstance(sooner.exception(), TimeoutError)
    with pytest.raises(TimeoutError):
        await later   # the timer, armed again for the later deadline, fails it too
    assert links.due == {}
    links.close()


async def test_a_connect_cut_short_by_the_calls_deadline_is_a_timeout() -> None:
    # a listener that accepts nothing, its backlog full: the kernel drops the next SYNs, the connect hangs
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        await asyncio.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await Links(5.0).request("GET", f"http://127.0.0.1:{port}/", {}, None, (), None,
                                     due=time.monotonic() + 0.3)
        assert time.monotonic() - started < 2.0
        for filler in fillers:
            filler.close()


async def test_request_headers_go_as_their_client_lines_and_the_gateways_block(
        raw_server: Callable[[Script], Awaitable[str]]) -> None:
    heads: list[bytes] = []
    url = await raw_server(_answering(b"HTTP/1.1 204 No Content\r\n\r\n", heads))
    headers = RequestHeaders([b"X-Client: 1\r\n", b"x-client: 2\r\n"], [b"Content-Type: application/json\r\n"])
    headers["X-Own"] = "3"
    reply = await Links(5.0).request("POST", url, headers, b"{}", (), None)
    reply.close()
    assert heads[0].decode().split("\r\n")[1:] == [
        f"Host: {url.split('/')[2]}", "X-Client: 1", "x-client: 2", "Content-Type: application/json", "X-Own: 3",
        "Content-Length: 2", "", ""]
    with pytest.raises(ValueError, match="line break"):
        await Links(5.0).request("POST", url, RequestHeaders([b"X-Bad: a\nb\r\n"], []), b"{}", (), None)
