"""The gateway's HTTP/1.1 connections to the agent (unary calls and event streams) on the lowest layer that
does the job: an asyncio protocol per connection fed to httptools' llhttp parser, the idle keep-alive
connections kept for the next call, and the reply as the relay reads it (status, head, unread chunks, flow
control, how it ended).

An open stream is long-lived and there may be thousands: aiohttp's client keeps ~12 KiB for each (the
request's info, the parsed head twice over, two stream readers, the connector's bookkeeping), this ~3 KiB;
a small unary call costs a third of aiohttp's client CPU.
Failures are aiohttp's own exception types, so the retry rules (upstream.retry_reason) read them alike;
but a reply past the link's bounds (Bounds: the head, a header line, the number of headers, a chunked
body's framing without data) is the agent's fault, refused at once in plain words and never retried
(ReplyTooLarge before the head is in, FramingTooLarge inside a body), and the connection closed: what the
agent sends is read only as far as the bounds allow, so an endless head costs a call its bound, not the
gateway's memory. TLS is
[upstream.tls]'s (gateway.config.tls), and its failures are TlsFailed's kinds, never retried either."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import ssl
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import aiohttp
import httptools
from aiohttp.client_reqrep import ConnectionKey
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from gateway.config import BY_NAME, LimitsSettings
from gateway.config.tls import AgentTls
from gateway.core.errors import InvalidAgentResponse, UpstreamUnavailable
from gateway.shell.agent.headers import RequestHeaders

# unread bytes at which reading from the agent pauses (the client is slower than the agent); it resumes when
# the reader takes what is buffered (read_nowait takes it all)
HIGH_WATER = 256 * 1024
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")   # a blank line: an SSE event's end
IDLE_SECONDS = 15.0   # an idle connection older than this is closed rather than reused (aiohttp's default)
MAX_IDLE = 256        # idle connections kept per agent address
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_FRAMING = frozenset({"host", "content-length", "transfer-encoding"})   # set by the link, not copied
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Bounds:
    """How much of an agent's reply the link reads before refusing it ([limits], near aiohttp client's own
    bounds): its whole head (the status line, headers and any 1xx interim heads before them), one header
    line, the number of header fields, and a chunked body's framing without data (a chunk-size line with
    its extensions, trailers)."""

    head: int
    line: int
    headers: int
    chunk_line: int

    @classmethod
    def of(cls, limits: LimitsSettings) -> Bounds:
        return cls(limits.max_agent_head_bytes, limits.max_agent_line_bytes, limits.max_agent_headers,
                   limits.max_agent_chunk_line_bytes)


DEFAULT_BOUNDS = Bounds(*(BY_NAME[f"limits.{key}"].default for key in (
    "max_agent_head_bytes", "max_agent_line_bytes", "max_agent_headers", "max_agent_chunk_line_bytes")))


class ReplyTooLarge(InvalidAgentResponse):
    """The agent's reply head went past one of the link's bounds: the call fails at once (never retried:
    the agent answered), the connection is closed."""


class FramingTooLarge(aiohttp.ClientPayloadError):
    """A chunked body's framing without data (a chunk-size line, trailers) went past
    limits.max_agent_chunk_line_bytes: the body is cut there (as a broken body is), the connection closed."""


class TlsFailed(UpstreamUnavailable):
    """TLS toward the agent failed (an https:// agent, or a grpcs:// one): never retried, for it fails the
    same way again until the certificates or the settings change."""


class TlsVerificationFailed(TlsFailed):
    """The agent's certificate is not one the gateway trusts (its CA unknown, its name another, expired)."""


class TlsHandshakeFailed(TlsFailed):
    """The TLS handshake failed otherwise: the agent refused the gateway's certificate (or its lack of one),
    or no TLS answered (a plain HTTP port behind an https:// URL)."""


# plain words for what OpenSSL names a handshake failure by: the likely cause and the setting for it
_HANDSHAKE_HINTS = {
    "TLSV13_ALERT_CERTIFICATE_REQUIRED": "the agent wants a client certificate: set upstream.tls.cert_file and "
                                         "key_file",
    "SSLV3_ALERT_BAD_CERTIFICATE": "the agent refused the gateway's client certificate (upstream.tls.cert_file)",
    "SSLV3_ALERT_HANDSHAKE_FAILURE": "the agent refused the handshake (a client certificate it wants, or no "
                                     "cipher in common)",
    "TLSV1_ALERT_UNKNOWN_CA": "the agent does not trust the CA of the gateway's client certificate "
                              "(upstream.tls.cert_file)",
    "WRONG_VERSION_NUMBER": "no TLS answered: is the agent serving plain HTTP (an http:// URL)?",
}


# the TLS connections whose agent asked for a client certificate in its handshake (TLS 1.3 tells a refused
# certificate only after the handshake, by an alert many servers never send, asyncio's and uvloop's among
# them: the agent just closes; its request for a certificate is what tells that close from any other)
_ASKED: weakref.WeakSet[ssl.SSLObject] = weakref.WeakSet()
_HANDSHAKE, _CERTIFICATE_REQUEST = 22, 13   # TLS's record content type and handshake message type


def _note_certificate_request(conn: ssl.SSLObject, direction: str, version: object, content_type: int,
                              msg_type: int, data: bytes) -> None:
    if content_type == _HANDSHAKE and msg_type == _CERTIFICATE_REQUEST and direction == "read":
        _ASKED.add(conn)


_HANDSHAKING: dict[ssl.SSLContext, int] = {}   # the handshakes under way, by context


@contextlib.contextmanager
def _watching_handshake(context: ssl.SSLContext) -> Iterator[None]:
    """Note the agent's request for a client certificate while a connection of `context` is made (the ssl
    module's message callback, its one way to show a handshake's messages; TLS 1.3 sends the request before
    the handshake ends). The callback is on while any handshake is under way: it costs a call into Python
    per TLS record, which established connections should not pay."""
    _HANDSHAKING[context] = _HANDSHAKING.get(context, 0) + 1
    context._msg_callback = _note_certificate_request  # type: ignore[attr-defined]
    try:
        yield
    finally:
        left = _HANDSHAKING.pop(context) - 1
        if left:
            _HANDSHAKING[context] = left
        else:
            context._msg_callback = None  # type: ignore[attr-defined]


def tls_failure(exc: ssl.SSLError, origin: str) -> TlsFailed:
    """A TLS error of the connection to the agent at `origin`, in plain words naming it and the setting."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return TlsVerificationFailed(
            f"the agent at {origin} presented a certificate the gateway does not trust: "
            f"{exc.verify_message or exc.reason} (a private CA is set with upstream.tls.ca_file, the name "
            "checked with upstream.tls.server_name)")
    reason = str(exc.reason or exc)
    hint = _HANDSHAKE_HINTS.get(reason)
    return TlsHandshakeFailed(f"the TLS handshake with the agent at {origin} failed: "
                              f"{reason.lower().replace('_', ' ')}" + (f" ({hint})" if hint else ""))


class Link(asyncio.Protocol):
    """One connection to the agent: the parser's callbacks go to the reply being read on it. Idle (no
    reply) between streams, in its pool's idle list. While a reply's head is read, `taken` counts its bytes
    and `line` the current line's; inside a chunked body, `stalled` those read since its last data (a
    chunk-size line with its extensions, trailers; None outside a chunked body)."""

    __slots__ = ("address", "closed", "idle_since", "line", "links", "loop", "parser", "reply", "stalled",
                 "taken", "transport", "watch")

    def __init__(self, links: Links, address: tuple[str, str, int], loop: asyncio.AbstractEventLoop) -> None:
        self.links, self.address, self.loop = links, address, loop
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        # as lenient as aiohttp's client is toward replies (outside its debug mode): LF-only line ends, spaces
        # after a chunk size, header values it would not send itself
        self.parser.set_dangerous_leniencies(lenient_headers=True, lenient_optional_cr_before_lf=True,
                                             lenient_spaces_after_chunk_size=True)
        self.reply: StreamReply | None = None
        self.closed = False
        self.idle_since = 0.0
        # while a call on this reused connection waits for its reply's head: where a descriptor of its own on
        # the socket goes if the agent closes it first (upstream._reset_follows then asks how it ended)
        self.watch: list[int] | None = None
        self.taken = self.line = 0
        self.stalled: int | None = None

    # ---- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)   # (uvloop's transports are not its subclasses)

    def data_received(self, data: bytes) -> None:
        reply = self.reply
        if reply is None:   # an idle connection must not send: it is broken
            self.close()
            return
        try:
            if not reply.status:
                bounds = self.links.bounds
                taken = self.taken + len(data)
                if taken > bounds.head or self.line + len(data) > bounds.line:   # a bound may be reached
                    self._feed_head(reply, data, bounds)
                    return
                self.taken = taken
                self.parser.feed_data(data)
                if not reply.status:   # the head goes on in the next read: its last line so far
                    cut = data.rfind(b"\n")
                    self.line = self.line + len(data) if cut < 0 else len(data) - cut - 1
            elif self.stalled is None:   # a body of known length, or one ended by the close: as it comes
                self.parser.feed_data(data)
            else:   # a chunked body: framing without data counted until the parser gives data (on_body)
                self.stalled = stalled = self.stalled + len(data)
                self.parser.feed_data(data)
                if self.stalled == stalled and stalled > self.links.bounds.chunk_line:   # no data came of it
                    raise self.framing_too_large()
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            breach = exc.__context__   # raised by a callback (on_header) and carried by the parser's error
            if reply.ended:   # bytes after the whole reply (a body longer than its Content-Length): ignored
                reply.stray()
            else:
                reply.fail(breach if isinstance(breach, ReplyTooLarge | FramingTooLarge)
                           else aiohttp.ClientPayloadError(f"malformed reply from the agent: {exc}"))
            self.close()
        except (ReplyTooLarge, FramingTooLarge) as exc:
            reply.fail(exc)
            self.close()

    def _feed_head(self, reply: StreamReply, data: bytes, bounds: Bounds) -> None:
        """Feed `data` to the parser within the head's bounds, the lines checked first: the head only up to its
        bound (the parser keeps a header being read whole: none is fed past it), the rest as the body's."""
        room = bounds.head - self.taken
        part = data[:room] if len(data) > room else data
        start, carry = 0, self.line
        while True:   # each line of the head's part (the first one goes on from the last read)
            end = part.find(b"\n", start)
            length = (len(part) if end < 0 else end) - start + carry
            if length > bounds.line:
                raise self.too_large(f"a header line longer than {bounds.line} bytes", "max_agent_line_bytes")
            if end < 0 or length <= 1:   # the part's end, or the blank line that ends the head
                break
            start, carry = end + 1, 0
        self.taken += len(part)
        self.parser.feed_data(part)
        if not reply.status:
            if part is not data:
                raise self.too_large(f"a reply head larger than {bounds.head} bytes", "max_agent_head_bytes")
            self.line = length
        elif part is not data:
            self.data_received(data[room:])

    def framing_too_large(self) -> FramingTooLarge:
        """A chunk-size line or trailers without end, cut at their bound (at most a read past it)."""
        return FramingTooLarge(f"the agent at {self.origin} sent more than {self.links.bounds.chunk_line} bytes "
                               "of chunk framing without data: a chunk-size line or trailers without end "
                               "(limits.max_agent_chunk_line_bytes)")

    @property
    def origin(self) -> str:
        return _origin(self.address)

    def too_large(self, what: str, key: str) -> ReplyTooLarge | FramingTooLarge:
        """The breach of a bound of the head, or of the trailers once the head is in (the body is cut there)."""
        if self.reply is None or self.reply.in_head():
            return ReplyTooLarge(f"the agent at {self.origin} sent {what} (limits.{key}); the call is refused")
        return FramingTooLarge(f"the agent at {self.origin} sent {what} in its trailers (limits.{key})")

    def eof_received(self) -> bool:
        """The agent closed its end: so is ours. Before a watched call's reply, the socket is kept a little
        longer (a descriptor of its own, made now, while it is still open: made only when needed, not on
        every reuse)."""
        watch = self.watch
        if watch is not None and self.reply is not None and self.reply.status == 0:
            fd = self.dup()
            if fd is not None:
                watch.append(fd)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        reply = self.reply
        if reply is not None:
            # (TLS 1.3: an agent refusing the gateway's certificate says so after the handshake, as the reply)
            reply.lost(tls_failure(exc, self.origin) if isinstance(exc, ssl.SSLError) else
                       self._refused_certificate() or exc)
        else:
            self.links.forget(self)

    def _refused_certificate(self) -> TlsHandshakeFailed | None:
        """A new TLS connection closed before any reply by an agent that asked for a client certificate: it
        refused the gateway's, or its lack of one."""
        if self.idle_since or self.reply is None or self.reply.status or self.transport is None:
            return None
        conn = self.transport.get_extra_info("ssl_object")
        if conn is None or conn not in _ASKED:
            return None
        given = self.links.tls is not None and self.links.tls.chain is not None
        return TlsHandshakeFailed(
            f"the agent at {self.origin} asked for a client certificate and closed the connection: " +
            ("it does not accept the gateway's (upstream.tls.cert_file)" if given else
             "it wants one it trusts (upstream.tls.cert_file and key_file)"))

    # ---- the parser's callbacks, for the reply being read

    def on_header(self, name: bytes, value: bytes) -> None:
        reply = self.reply
        if reply is not None:
            raw = reply.raw
            if len(raw) >= self.links.bounds.headers:   # (the lines are checked as they are read)
                limit = self.links.bounds.headers
                raise self.too_large(f"more than {limit} header fields", "max_agent_headers")
            raw.append((name.decode("latin-1"), value.decode("utf-8", "surrogateescape")))

    def on_headers_complete(self) -> None:
        reply = self.reply
        if reply is not None and reply.head_done(self.parser.get_status_code()):   # chunked: framing counted
            self.stalled = 0

    def on_body(self, body: bytes) -> None:
        if self.stalled:
            self.stalled = 0
        if self.reply is not None:
            self.reply.body(body)

    def on_message_complete(self) -> None:
        self.stalled = None
        if self.reply is not None:
            self.reply.complete(self.parser.should_keep_alive())

    # ----

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def dead(self) -> bool:
        """Whether the agent has closed this idle connection (or sent anything on it, which an idle HTTP
        connection must not), as the socket says now, before the event loop has read it."""
        if self.closed or self.transport is None or self.transport.is_closing():
            return True
        sock = self.transport.get_extra_info("socket")
        if sock is None:
            return False
        poller = select.poll()   # (select() cannot take descriptors past 1023)
        poller.register(sock.fileno(), select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))

    def dup(self) -> int | None:
        """A descriptor of its own on this connection, to be asked how it ended after it is closed."""
        sock = self.transport.get_extra_info("socket") if self.transport is not None else None
        return None if sock is None else os.dup(sock.fileno())


class StreamReply:
    """One reply from the agent as the relay reads it: status and headers once the head is in, then the body's
    chunks (read_nowait / readany, b"" at the end), its end clean or not. release() gives a cleanly ended
    connection back for reuse, close() drops it; either one once calls what waits on it (the pool's slot)."""

    __slots__ = ("_chunks", "_done", "_due_in", "_ended", "_error", "_framed", "_head", "_kept", "_loop",
                 "_on_done", "_size", "_waiter", "headers", "idle", "link", "raw", "status")

    def __init__(self, link: Link) -> None:
        self.link: Link | None = link
        self._loop = link.loop
        self.status = 0
        self.raw: list[tuple[str, str]] = []   # the head's headers as they come
        self.headers: CIMultiDictProxy[str] = _NO_HEADERS
        self._head: asyncio.Future[None] | None = link.loop.create_future()
        self._chunks: list[bytes] = []
        self._size = 0
        self._framed = False    # the body's end is said (a length, or chunked): a closed connection before it cuts it
        self._ended = False     # the body is complete, or the connection is gone
        self._kept = False      # ended cleanly on a connection the agent keeps open
        self._error: BaseException | None = None   # raised once the buffered chunks are read
        self._waiter: asyncio.Future[None] | None = None
        self._on_done: list[Callable[[], None]] = []
        self._done = False
        self._due_in: Links | None = None   # the links whose timer watches this reply's deadline
        self.idle = float("inf")   # a stream's deadline between two chunks (the Upstream sets it; the relay keeps it)

    # ---- what the connection tells it

    def head_done(self, status: int) -> bool:
        """The head is in: whether its body is chunked."""
        if 100 <= status < 200:   # an interim reply (100 Continue): the real head follows
            self.raw.clear()
            return False
        if self.status:   # a second reply on the connection, unasked: ignored, the connection not reused
            self.stray()
            return False
        self.status = status
        headers = self.headers = CIMultiDictProxy(CIMultiDict(self.raw))
        self.raw = []
        # chunked when it is the last coding (else the body runs until the close: RFC 9112, 6.3)
        chunked = headers.get("Transfer-Encoding", "").rpartition(",")[2].strip().lower() == "chunked"
        self._framed = chunked or "Content-Length" in headers
        if self._head is not None and not self._head.done():
            self._head.set_result(None)
        return chunked

    def body(self, data: bytes) -> None:
        if self._ended:
            self.stray()
            return
        self._chunks.append(data)
        self._size += len(data)
        if self._size > HIGH_WATER and self.link is not None and self.link.transport is not None:
            self.link.transport.pause_reading()
        self._wake()

    def complete(self, keep_alive: bool) -> None:
        if self.status == 0:
            return   # the end of an interim reply
        if self._ended:
            self.stray()
            return
        self._ended, self._kept = True, keep_alive
        self._wake()

    def stray(self) -> None:
        """The agent sent more than the one reply asked for: what came is ignored, and the connection, which
        can no longer be read in step, is not used again."""
        self._kept = False
        self.raw = []

    def in_head(self) -> bool:
        """The reply's head is still being read (an interim 1xx head too)."""
        return not self.status

    @property
    def ended(self) -> bool:
        """The whole reply is in (or the connection is gone)."""
        return self._ended

    def lost(self, exc: Exception | None) -> None:
        """The connection is gone: before the head, the call failed; inside a body of known length (or
        chunked), it was cut; a body that runs until the connection closes has ended."""
        if self._head is not None and not self._head.done():
            self._head.set_exception(_lost_before_head(exc))
        elif not self._ended:
            if self._error is None and self._framed:
                self._error = aiohttp.ClientPayloadError(f"the agent's reply was cut: {exc or 'connection closed'}")
            self._ended = True
        self._wake()
        self._finish()

    def fail(self, error: BaseException) -> None:
        """The reply cannot be read on (bytes the parser refuses): `error` once the chunks before it are read."""
        if self._head is not None and not self._head.done():
            self._head.set_exception(error)
        elif self._error is None:
            self._error = error
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def hold_to(self, due: float) -> None:
        """From now on, fail the reply with TimeoutError past `due` (time.monotonic) instead of its first
        deadline: a unary call's head is held to first_byte, the rest of it to the whole call's deadline."""
        links = self._due_in
        if links is not None and not self._done:
            links._watch(self, due)   # the timer armed for the earlier deadline then finds none late

    # ---- the head

    async def head(self) -> None:
        """Until the reply's head is in (the status and headers set), or why it never will be."""
        head = self._head
        assert head is not None
        try:
            await head
        finally:
            self._head = None

    @property
    def content_type(self) -> str:
        """The media type of the reply (lower case, no parameters), application/octet-stream when unsaid."""
        value = self.headers.get("Content-Type")
        return value.partition(";")[0].strip().lower() if value else "application/octet-stream"

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("Content-Length")
        return int(value) if value is not None and value.isdigit() else None

    def forget_headers(self) -> None:
        """The headers are passed on: not kept for the stream's life."""
        self.headers = _NO_HEADERS

    # ---- the body, as aiohttp's StreamReader reads (the relay reads either)

    @property
    def content(self) -> StreamReply:
        return self

    def read_nowait(self) -> bytes:
        """What is buffered, at once (b"" when nothing is); raises what set_exception() set."""
        if self._error is not None and not self._ended:
            raise self._error
        chunks = self._chunks
        if not chunks:
            if self._error is not None:
                raise self._error
            return b""
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        chunks.clear()
        paused = self._size > HIGH_WATER
        self._size = 0
        if paused and self.link is not None and self.link.transport is not None:
            self.link.transport.resume_reading()
        return data

    def at_eof(self) -> bool:
        return self._ended and not self._chunks and self._error is None

    async def readany(self) -> bytes:
        """The next chunks, waited for; b"" at a clean end."""
        while not self._chunks and not self._ended and self._error is None:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.read_nowait()

    async def peek_event(self, limit: int) -> bytes:
        """The body up to its first blank line (an SSE event's end), read ahead and kept to be read again:
        at most about `limit` bytes, less at the end of the body. What was read stays kept whatever stops the
        wait (a deadline's cancellation included)."""
        got = b""
        try:
            while len(got) <= limit and _EVENT_END.search(got) is None:
                chunk = await self.readany()
                if not chunk:
                    break
                got += chunk
        finally:
            if got:
                self._chunks.insert(0, got)
                self._size += len(got)
        return got

    async def iter_any(self) -> AsyncIterator[bytes]:
        while chunk := await self.readany():
            yield chunk

    async def read(self) -> bytes:
        """The whole body (the caller bounds it, see upstream.read_bounded)."""
        chunks = []
        while chunk := await self.readany():
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def set_exception(self, exc: BaseException) -> None:
        """Wake the reader now with `exc` (the drain), whatever is buffered."""
        self._error = exc
        self._wake()

    # ---- the end

    @property
    def closed(self) -> bool:
        return self._done

    def add_done(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the reply is released or closed (at once if it is)."""
        if self._done:
            callback()
        else:
            self._on_done.append(callback)

    def release(self) -> None:
        """Done with the reply: a connection whose reply ended cleanly goes back to the pool, any other closes."""
        link = self.link
        if link is not None and self._ended and self._kept and not self._chunks and self._error is None:
            self.link = None
            link.reply = None
            link.links.keep(link)
        self.close()

    def close(self) -> None:
        link, self.link = self.link, None
        if link is not None:
            link.reply = None
            link.close()
        self._finish()

    def _finish(self) -> None:
        if self._done:
            return
        self._done = True
        if self._due_in is not None:
            self._due_in.due.pop(self, None)
        callbacks, self._on_done = self._on_done, []
        for callback in callbacks:
            callback()


_NO_HEADERS: CIMultiDictProxy[str] = CIMultiDictProxy(CIMultiDict())


def _origin(address: tuple[str, str, int]) -> str:
    """An agent's address as its messages name it: scheme://host:port."""
    scheme, host, port = address
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def _lost_before_head(exc: Exception | None) -> Exception:
    """The failure of a call whose connection went before the reply's head, in aiohttp's terms (TLS's own)."""
    if isinstance(exc, TlsFailed):
        return exc
    if isinstance(exc, OSError) and exc.errno is not None:
        return aiohttp.ClientOSError(exc.errno, f"the agent's connection failed: {exc.strerror or exc}")
    return aiohttp.ServerDisconnectedError()


class Links:
    """The connections of one pool to the agent's addresses: each call opens one (or reuses an idle one,
    looked at first, see Link.dead) and gives it back at a clean end. `watch`, when a call passes it, gets a
    descriptor of its own on a reused connection the agent closes before the reply's head (see
    Link.eof_received; upstream._reset_follows asks how it ended).

    A call's deadline (`due`, time.monotonic) fails its reply with TimeoutError, wherever it is read: the
    replies' deadlines share one lazy timer, armed for the earliest and, when it fires, failing those past
    theirs and arming again for the earliest left. A call whose deadline comes after the armed one (all of
    them, with one timeout for all) costs a dict entry, where a timeout of its own (asyncio.timeout) costs a
    timer, a task lookup and a cancellation scope: about 28,000 instructions, the tenth of a small call."""

    __slots__ = ("_idle", "_loop", "_ssl", "_timer", "_timer_at", "bounds", "closed", "connect_timeout", "due",
                 "tls")

    def __init__(self, connect_timeout: float, bounds: Bounds = DEFAULT_BOUNDS, tls: AgentTls | None = None) -> None:
        self.connect_timeout = connect_timeout
        self.bounds = bounds
        self.tls = tls   # [upstream.tls] (None: the system's defaults); a reload sets the one re-read
        # the loop, found at the first call (asyncio.get_running_loop costs a getpid() call in CPython 3.11)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False   # close() was called: the idle connections are closed, new ones still open
        self._idle: dict[tuple[str, str, int], list[Link]] = {}
        self._ssl: ssl.SSLContext | None = None
        self.due: dict[StreamReply, float] = {}   # the replies of calls with a deadline, until they end
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    async def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                      query: Sequence[tuple[str, str]], watch: list[int] | None,
                      due: float | None = None) -> StreamReply:
        """Send one request and wait for its reply's head; past `due` (time.monotonic), a TimeoutError from
        the connect, the head or any read of the body."""
        target = _targets.get(url) if not query else None
        if target is None:
            target = _Target.of(url, query)
        if target.credentials is not None:   # in the agent's URL: Basic authentication, as aiohttp sends it
            headers = CIMultiDict(headers.pairs() if isinstance(headers, RequestHeaders) else headers)
            if "Authorization" not in headers:
                headers["Authorization"] = target.credentials
        head = _request_head(method, target, headers, body)
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        scheme, host, port = address = target.address
        link = self._reused(address, loop)
        if link is not None:
            link.watch = watch
        else:
            link = await self._connect(scheme, host, port, loop, due)
        reply = link.reply = StreamReply(link)
        link.taken = link.line = 0
        link.stalled = None
        if due is not None:
            self._watch(reply, due)
        transport = link.transport
        if transport is None or transport.is_closing():
            reply.close()
            raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
        transport.write(head + body if body else head)
        try:
            await reply.head()
        except BaseException:
            reply.close()
            raise
        finally:
            link.watch = None
        return reply

    def _reused(self, address: tuple[str, str, int], loop: asyncio.AbstractEventLoop) -> Link | None:
        idle = self._idle.get(address)
        now = loop.time() if idle else 0.0
        while idle:
            link = idle.pop()
            if now - link.idle_since < IDLE_SECONDS and not link.dead():
                return link
            link.close()
        return None

    def _watch(self, reply: StreamReply, due: float) -> None:
        self.due[reply] = due
        reply._due_in = self
        if self._timer is None or due < self._timer_at:
            self._arm(due)

    def _arm(self, due: float) -> None:
        assert self._loop is not None, "armed from a request, which found the loop"
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = due
        self._timer = self._loop.call_later(max(0.0, due - time.monotonic()), self._expire)

    def _expire(self) -> None:
        """The timer: the replies past their deadline fail; the timer is armed for the earliest left."""
        self._timer = None
        now = time.monotonic()
        late = [reply for reply, due in self.due.items() if due <= now]
        for reply in late:
            del self.due[reply]
            reply.fail(TimeoutError("the agent did not answer within the call's deadline"))
        if self.due:
            self._arm(min(self.due.values()))

    async def _connect(self, scheme: str, host: str, port: int, loop: asyncio.AbstractEventLoop,
                       due: float | None) -> Link:
        """A new connection within the connect timeout, and before the call's deadline (TimeoutError past it)."""
        context = self._context() if scheme == "https" else None
        address = (scheme, host, port)
        left = self.connect_timeout if due is None else due - time.monotonic()
        name = None
        if context is not None:
            name = self.tls.server_name if self.tls and self.tls.server_name else host
        try:
            async with asyncio.timeout(max(0.0, min(self.connect_timeout, left))):
                with _watching_handshake(context) if context is not None else contextlib.nullcontext():
                    _, link = await loop.create_connection(lambda: Link(self, address, loop), host, port,
                                                           ssl=context, server_hostname=name)
        except ssl.SSLError as exc:
            raise tls_failure(exc, _origin(address)) from None
        except OSError as exc:
            if isinstance(exc, TimeoutError) and left < self.connect_timeout:   # the call's deadline, not the connect's
                raise TimeoutError("the agent did not answer within the call's deadline") from None
            key = ConnectionKey(host, port, context is not None, context or True, None, None, None)
            raise aiohttp.ClientConnectorError(key, exc) from exc
        return link

    def _context(self) -> ssl.SSLContext:
        if self.tls is not None:
            return self.tls.context
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    def keep(self, link: Link) -> None:
        """An idle connection, for the next stream to the same address."""
        idle = self._idle.setdefault(link.address, [])
        if link.closed or self.closed or len(idle) >= MAX_IDLE:
            link.close()
            return
        link.idle_since = link.loop.time()
        idle.append(link)

    def forget(self, link: Link) -> None:
        """An idle connection the agent closed."""
        idle = self._idle.get(link.address)
        if idle is not None and link in idle:
            idle.remove(link)

    def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for idle in self._idle.values():
            for link in idle:
                link.close()
        self._idle.clear()


class _Target(NamedTuple):
    """What a request needs of its URL, read once per URL: the connection's address, the request line's
    target, the Host and any Basic credentials."""

    address: tuple[str, str, int]
    path_qs: str
    host: str
    credentials: str | None

    @classmethod
    def of(cls, url: str, query: Sequence[tuple[str, str]]) -> _Target:
        parsed = URL(url)
        if query:
            parsed = parsed.extend_query(list(query))
        basic = aiohttp.BasicAuth.from_url(parsed) if parsed.raw_user is not None else None
        scheme = parsed.scheme
        target = cls((scheme, parsed.raw_host or "", parsed.port or _DEFAULT_PORTS.get(scheme, 80)), parsed.raw_path_qs,
                     parsed.host_port_subcomponent or "", basic.encode() if basic is not None else None)
        if not query and len(_targets) < _TARGETS:
            _targets[url] = target
        return target


_targets: dict[str, _Target] = {}   # by URL (without a query): an upstream has few
_TARGETS = 256


def _request_head(method: str, url: _Target, headers: Mapping[str, str], body: bytes | None) -> bytes:
    """The request line and headers; a header holding a line break is refused (it would end the head). A Host
    among `headers` is sent instead of the URL's (a configured upstream.headers Host, for an ingress that
    routes by it); the body's framing is the link's own (Content-Length), never a caller's. RequestHeaders'
    written lines go as they are, after the Host (they hold no Host and no framing), its block's one each."""
    copied = b""
    if type(headers) is RequestHeaders:
        written = [*headers.lines, *headers.block]
        copied = b"".join(written)
        if copied.count(b"\n") != len(written) or copied.count(b"\r") != len(written):
            raise ValueError("a header holds a line break")
        headers = headers.own
    lines = [f"{method} {url.path_qs} HTTP/1.1", ""]
    host = url.host
    for name, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name:
            raise ValueError(f"header {name!r} holds a line break")
        lower = name.lower()
        if lower in _FRAMING:
            if lower == "host":
                host = value
            continue
        lines.append(f"{name}: {value}")
    lines[1] = f"Host: {host}"
    if body or method in _BODY_METHODS:
        lines.append(f"Content-Length: {len(body) if body else 0}")
    lines.append("\r\n")
    if not copied:
        return "\r\n".join(lines).encode("utf-8", "surrogateescape")
    lines[1] += "\r\n"
    return b"%s%s%s" % ("\r\n".join(lines[:2]).encode("utf-8", "surrogateescape"), copied,
                        "\r\n".join(lines[2:]).encode("utf-8", "surrogateescape"))

