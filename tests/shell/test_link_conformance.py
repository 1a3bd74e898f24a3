"""The link's conformance table (gateway/shell/agent/stream_link.py): scripted raw-socket agents for what HTTP/1.1
allows (lengths, chunks with extensions and trailers, bodies ended by the close, interim 1xx heads,
keep-alive reuse and `Connection: close`, the codings before a last `chunked`), what aiohttp's client
tolerates and so does the link (bare LF line ends, folded headers, spaces after a chunk size), and what
breaks it (cut bodies, Content-Length too short or too long, invalid chunk sizes, conflicting framing,
heads, lines, header counts and chunk-size lines past the link's bounds), each row with the outcome the
link must give: the status and body, whether the connection is used again, or the failure's type. The TLS
failures' rows are tests/shell/test_agent_tls.py's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NamedTuple

import pytest

from gateway.shell.agent.stream_link import DEFAULT_BOUNDS, Links

ENDLESS = 4 * 1024 * 1024   # what an "endless" agent writes at most before it gives up (far past every bound)


class Row(NamedTuple):
    reply: bytes                  # the agent's answer to each request
    outcome: str                  # "<status> <body>" or the failure's type ("<status> <body> then <type>")
    reused: bool | None = None    # whether a second call reuses the connection (None: not asked)
    endless: bytes = b""          # written again and again after `reply`, up to ENDLESS bytes


def _head(*lines: str) -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


OK = _head("HTTP/1.1 200 OK", "Content-Length: 2") + b"ok"
CHUNKED = _head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked")
LINE = DEFAULT_BOUNDS.line

TABLE: dict[str, Row] = {
    # what HTTP/1.1 allows
    "content-length": Row(OK, "200 b'ok'", reused=True),
    "chunked": Row(CHUNKED + b"2\r\nok\r\n3\r\n ok\r\n0\r\n\r\n", "200 b'ok ok'", reused=True),
    "chunk extensions": Row(CHUNKED + b"2;name=value;x\r\nok\r\n0;last\r\n\r\n", "200 b'ok'", reused=True),
    "chunked trailers": Row(CHUNKED + b"2\r\nok\r\n0\r\nX-Trailer: t\r\n\r\n", "200 b'ok'", reused=True),
    "no body (204)": Row(_head("HTTP/1.1 204 No Content"), "204 b''", reused=True),
    "empty length": Row(_head("HTTP/1.1 200 OK", "Content-Length: 0"), "200 b''", reused=True),
    "100 continue first": Row(_head("HTTP/1.1 100 Continue") + OK, "200 b'ok'", reused=True),
    "103 early hints first": Row(_head("HTTP/1.1 103 Early Hints", "Link: </a>; rel=preload") + OK, "200 b'ok'",
                                 reused=True),
    "two interim heads first": Row(_head("HTTP/1.1 100 Continue") + _head("HTTP/1.1 102 Processing") + OK, "200 b'ok'",
                                   reused=True),
    "empty chunked": Row(CHUNKED + b"0\r\n\r\n", "200 b''", reused=True),
    "connection close": Row(_head("HTTP/1.1 200 OK", "Content-Length: 2", "Connection: close") + b"ok",
                            "200 b'ok'", reused=False),
    "http/1.0 ended by close": Row(_head("HTTP/1.0 200 OK") + b"until the close", "200 b'until the close'",
                                   reused=False),
    "http/1.0 keep-alive": Row(_head("HTTP/1.0 200 OK", "Content-Length: 2", "Connection: keep-alive") + b"ok",
                               "200 b'ok'", reused=True),
    "long header within bounds": Row(_head("HTTP/1.1 200 OK", "X-Long: " + "a" * (LINE - 10), "Content-Length: 2")
                                     + b"ok", "200 b'ok'", reused=True),
    "many headers within bounds": Row(_head("HTTP/1.1 200 OK", *(f"X-{n}: v" for n in range(DEFAULT_BOUNDS.headers
                                                                                            - 1)),
                                            "Content-Length: 2") + b"ok", "200 b'ok'", reused=True),
    "chunked after another coding": Row(_head("HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked")
                                        + b"2\r\nok\r\n0\r\n\r\n", "200 b'ok'", reused=True),
    "chunked not last: ended by close": Row(_head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked, gzip") + b"ok",
                                            "200 b'ok'", reused=False),
    "upper-case chunk size": Row(CHUNKED + b"A\r\n0123456789\r\n0\r\n\r\n", "200 b'0123456789'", reused=True),
    "no reason phrase": Row(b"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", "200 b'ok'", reused=True),
    "304 with a length": Row(_head("HTTP/1.1 304 Not Modified", "Content-Length: 5"), "304 b''", reused=True),
    # tolerated as aiohttp's client tolerates them
    "bare LF line ends": Row(b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", "200 b'ok'", reused=True),
    "folded header": Row(b"HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok", "200 b'ok'", reused=True),
    "spaces after a chunk size": Row(CHUNKED + b"2  \r\nok\r\n0\r\n\r\n", "200 b'ok'", reused=True),
    # what breaks it
    "an unasked upgrade (101)": Row(_head("HTTP/1.1 101 Switching Protocols", "Upgrade: websocket",
                                          "Connection: Upgrade") + b"xx", "ClientPayloadError"),
    "bytes after a closing reply": Row(_head("HTTP/1.1 200 OK", "Content-Length: 2", "Connection: close") + b"okEXTRA",
                                       "200 b'ok'", reused=False),
    "header without a colon": Row(_head("HTTP/1.1 200 OK", "X-A a", "Content-Length: 2") + b"ok", "ClientPayloadError"),
    "negative length": Row(_head("HTTP/1.1 200 OK", "Content-Length: -1") + b"ok", "ClientPayloadError"),
    "not HTTP/1.x": Row(_head("HTTP/2 200", "Content-Length: 2") + b"ok", "ClientPayloadError"),
    "no reply": Row(b"", "ServerDisconnectedError"),
    "bad status line": Row(_head("HTTP/1.1 2xx nonsense"), "ClientPayloadError"),
    "cut head": Row(b"HTTP/1.1 200 OK\r\nContent-Le", "ServerDisconnectedError"),
    "content-length short": Row(_head("HTTP/1.1 200 OK", "Content-Length: 10") + b"ok",
                                "200 b'ok' then ClientPayloadError"),
    "content-length long": Row(_head("HTTP/1.1 200 OK", "Content-Length: 2") + b"ok and more", "200 b'ok'",
                               reused=False),
    "two content-lengths": Row(_head("HTTP/1.1 200 OK", "Content-Length: 2", "Content-Length: 3") + b"ok",
                               "ClientPayloadError"),
    "length and chunked": Row(_head("HTTP/1.1 200 OK", "Content-Length: 2", "Transfer-Encoding: chunked")
                              + b"2\r\nok\r\n0\r\n\r\n", "ClientPayloadError"),
    "cut chunked": Row(CHUNKED + b"2\r\nok\r\n5\r\nab", "200 b'okab' then ClientPayloadError"),
    "invalid chunk size": Row(CHUNKED + b"2\r\nok\r\nzz\r\nok\r\n0\r\n\r\n", "200 b'ok' then ClientPayloadError"),
    "chunk size overflow": Row(CHUNKED + b"fffffffffffffffffffff\r\nok\r\n", "200 b'' then ClientPayloadError"),
    # past the link's bounds (limits.max_agent_*), on its defaults
    "endless head": Row(b"HTTP/1.1 200 OK\r\n", "ReplyTooLarge", endless=b"X-Endless: " + b"a" * 1000 + b"\r\n"),
    "endless short headers": Row(b"HTTP/1.1 200 OK\r\n", "ReplyTooLarge", endless=b"X-Endless: a\r\n"),
    "endless header line": Row(b"HTTP/1.1 200 OK\r\nX-Endless: ", "ReplyTooLarge", endless=b"a" * 1000),
    "endless status line": Row(b"HTTP/1.1 200 ", "ReplyTooLarge", endless=b"O" * 1000),
    "header line past its bound": Row(_head("HTTP/1.1 200 OK", "X-Long: " + "a" * LINE, "Content-Length: 2") + b"ok",
                                      "ReplyTooLarge"),
    "headers past their count": Row(_head("HTTP/1.1 200 OK", *(f"X-{n}: v" for n in range(DEFAULT_BOUNDS.headers)),
                                          "Content-Length: 2") + b"ok", "ReplyTooLarge"),
    "endless interim heads": Row(b"", "ReplyTooLarge", endless=_head("HTTP/1.1 100 Continue")),
    "endless chunk extension": Row(CHUNKED + b"2\r\nok\r\n2;ext=", "200 b'ok' then FramingTooLarge",
                                   endless=b"e" * 1000),
    "endless trailers": Row(CHUNKED + b"2\r\nok\r\n0\r\n", "200 b'ok' then FramingTooLarge",
                            endless=b"X-Trailer: " + b"t" * 100 + b"\r\n"),
    "chunks larger than the bound": Row(CHUNKED + b"4000\r\n" + b"c" * 0x4000 + b"\r\n0\r\n\r\n",
                                        "200 " + repr(b"c" * 0x4000), reused=True),
}


class Agent:
    """A loopback agent answering every request on every connection by its row; counts its connections."""

    def __init__(self, row: Row) -> None:
        self.row = row
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                await reader.readexactly(length)
                writer.write(self.row.reply)
                sent = 0
                while self.row.endless and sent < ENDLESS:
                    writer.write(self.row.endless)
                    sent += len(self.row.endless)
                    await writer.drain()
                await writer.drain()
                if not self.row.reused:   # the rows of a connection kept open, else the reply ends at the close
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/rpc"


@pytest.fixture
async def agents() -> AsyncIterator[Callable[[Row], Awaitable[tuple[Agent, str]]]]:
    started: list[Agent] = []

    async def start(row: Row) -> tuple[Agent, str]:
        agent = Agent(row)
        started.append(agent)
        return agent, await agent.start()

    yield start
    for agent in started:
        if agent.server is not None:
            agent.server.close()


async def _call(links: Links, url: str) -> str:
    """One call's outcome as the table writes it."""
    try:
        reply = await links.request("POST", url, {}, b"{}", (), None, time.monotonic() + 5.0)
    except Exception as exc:
        return type(exc).__name__
    chunks = []
    try:
        while chunk := await reply.readany():
            chunks.append(chunk)
    except Exception as exc:
        reply.close()
        return f"{reply.status} {b''.join(chunks)!r} then {type(exc).__name__}"
    reply.release()
    return f"{reply.status} {b''.join(chunks)!r}"


@pytest.mark.parametrize("name", list(TABLE))
async def test_the_link_answers_each_row_as_the_table_says(name: str,
                                                          agents: Callable[[Row], Awaitable[tuple[Agent, str]]]
                                                          ) -> None:
    row = TABLE[name]
    agent, url = await agents(row)
    links = Links(5.0)
    started = time.monotonic()
    assert await _call(links, url) == row.outcome
    assert time.monotonic() - started < 2.0   # at once, never the deadline's 5 s
    if row.reused is not None:
        await asyncio.sleep(0.05)   # a close by the agent has reached this end
        assert await _call(links, url) == row.outcome
        assert agent.connections == (1 if row.reused else 2)
    links.close()


async def test_a_breach_names_the_agent_and_the_limit(agents: Callable[[Row], Awaitable[tuple[Agent, str]]]) -> None:
    _, url = await agents(TABLE["endless head"])
    links = Links(5.0)
    with pytest.raises(Exception) as caught:
        await links.request("POST", url, {}, b"{}", (), None)
    origin = url.removesuffix("/rpc")
    assert str(caught.value) == (f"the agent at {origin} sent a reply head larger than {DEFAULT_BOUNDS.head} bytes "
                                 "(limits.max_agent_head_bytes); the call is refused")
    links.close()
