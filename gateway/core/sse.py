"""Owns the incremental Server-Sent-Events codec: WHATWG event-stream parsing (`SseParser`), its inverse
(`encode`, `encode_data`), and relayed whole events rewritten data line by data line (`RewrittenStream`).
Sans-IO, bounded; it must not touch JSON, A2A, sockets, clocks or logs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from gateway.core.errors import LimitExceeded, StreamError

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "RewrittenStream",
    "SseComment",
    "SseEvent",
    "SseItem",
    "SseParser",
    "encode",
    "encode_data",
    "map_data_lines",
]

DEFAULT_MAX_EVENT_BYTES = 1 << 20
_BOM = b"\xef\xbb\xbf"
_LF = 0x0A
_CR = 0x0D


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One dispatched event. `data` is its `data` lines joined with "\\n" (never contains "\\r").
    `event` is None when absent or empty (the WHATWG default type, "message"). `id` and `retry` are
    the fields given inside this event's block (None when absent); `id` may be "" (a reset)."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


@dataclass(frozen=True, slots=True)
class SseComment:
    """A comment line, e.g. a keep-alive. `text` is everything after the colon, leading space
    included (`: ping` gives " ping"), so `encode` writes the line back byte for byte."""

    text: str


SseItem: TypeAlias = SseEvent | SseComment

# The parser's way to build an event, one per event of every stream: a frozen dataclass's __init__ sets
# each field through object.__setattr__; the slots' own descriptors set them directly (same object).
_new_object = object.__new__
_SET_EVENT = tuple(vars(SseEvent)[name].__set__ for name in ("data", "event", "id", "retry"))


def _event(data: str, event: str | None, id_: str | None, retry: int | None) -> SseEvent:
    """`SseEvent(data, event, id_, retry)`, built without the frozen dataclass's __init__."""
    item: SseEvent = _new_object(SseEvent)
    set_data, set_event, set_id, set_retry = _SET_EVENT
    set_data(item, data)
    set_event(item, event)
    set_id(item, id_)
    set_retry(item, retry)
    return item

_DATA_PREFIX = b"data: "


class SseParser:
    """Incremental WHATWG event-stream parser: `feed(bytes)` returns the items completed so far.

    Line ends are LF, CR or CRLF (also when a CRLF is split across chunks); one leading BOM is
    skipped; each comment line is returned as an `SseComment` as soon as it ends (before the event
    it may sit inside); a blank line dispatches the event, unless it had no `data` line, in which
    case its fields are discarded. Unknown fields, an `id` containing NUL and a non-digit `retry`
    are ignored.

    Bound: the raw bytes of the current event's `data` lines plus the line being read may not
    exceed `max_event_bytes` (`LimitExceeded`). Invalid UTF-8 in a line raises `StreamError`. Both
    outcomes do not depend on how the input is chunked. After an error the parser is unusable.
    """

    __slots__ = (
        "_at_start",
        "_data",
        "_data_bytes",
        "_event",
        "_id",
        "_pending",
        "_retry",
        "_skip_lf",
        "max_event_bytes",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be positive")
        self.max_event_bytes = max_event_bytes
        self._reset()

    def _reset(self) -> None:
        self._pending = bytearray()  # the unterminated line (or, at the start, a possible BOM)
        self._at_start = True  # the leading BOM is not decided yet
        self._skip_lf = False  # the last chunk ended with CR: a leading LF belongs to it
        self._data: list[str] = []
        self._data_bytes = 0
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for the current event: the pending line plus the `data` lines so far."""
        return len(self._pending) + self._data_bytes

    def feed(self, chunk: bytes) -> list[SseItem]:
        """Consume `chunk`; return the comments and events it completes, in stream order."""
        out: list[SseItem] = []
        self.feed_into(chunk, out)
        return out

    def feed_into(self, chunk: bytes, out: list[SseItem]) -> None:
        """`feed`, appending to `out`: when it raises, `out` holds every item completed before the
        offending line, so what a caller relays does not depend on how the input was chunked."""
        if self._at_start:
            self._pending += chunk
            if len(self._pending) < len(_BOM) and _BOM.startswith(self._pending):
                return
            self._at_start = False
            start = len(_BOM) if self._pending.startswith(_BOM) else 0
            chunk = bytes(self._pending[start:])
            self._pending.clear()
        if self._skip_lf and chunk:
            self._skip_lf = False
            if chunk[0] == _LF:
                chunk = chunk[1:]
        if chunk.find(_CR) >= 0:   # (not `in`: it raises and clears a TypeError before it looks)
            self._skip_lf = chunk[-1] == _CR
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if lines:
            if self._pending:
                self._pending += lines[0]
                lines[0] = bytes(self._pending)
                self._pending.clear()
            limit = self.max_event_bytes
            for line in lines:
                # the usual line, `data: ` and UTF-8 within the bound, read here; anything else by _line
                if line[:6] == _DATA_PREFIX and len(line) + self._data_bytes <= limit:
                    try:
                        self._data.append(line[6:].decode("utf-8"))
                    except UnicodeDecodeError:
                        pass
                    else:
                        self._data_bytes += len(line)
                        continue
                self._line(line, out)
        if tail:
            if len(self._pending) + len(tail) + self._data_bytes > self.max_event_bytes:
                raise self._too_large()
            self._pending += tail

    def close(self) -> list[SseItem]:
        """End of stream. Every complete event was already returned by `feed`; an unterminated
        event is dropped (WHATWG). The parser is back at its initial state afterwards."""
        self._reset()
        return []

    def _line(self, raw: bytes, out: list[SseItem]) -> None:
        if not raw:
            if self._data:
                out.append(_event("\n".join(self._data), self._event or None, self._id, self._retry))
                self._data = []
                self._data_bytes = 0
            self._event = ""
            self._id = None
            self._retry = None
            return
        size = len(raw)
        if size + self._data_bytes > self.max_event_bytes:
            raise self._too_large()
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(f"invalid UTF-8 in event stream at byte {exc.start} of a line") from None
        name, _, value = line.partition(":")
        if not name:  # the line starts with ":"
            out.append(SseComment(value))
            return
        if value[:1] == " ":
            value = value[1:]
        match name:
            case "data":
                self._data.append(value)
                self._data_bytes += size
            case "event":
                self._event = value
            case "id":
                if "\0" not in value:
                    self._id = value
            case "retry":
                if value.isascii() and value.isdigit():
                    self._retry = int(value)
            case _:
                pass  # unknown fields are ignored

    def _too_large(self) -> LimitExceeded:
        return LimitExceeded(f"SSE event larger than {self.max_event_bytes} bytes")


def encode(item: SseItem) -> bytes:
    """Frame one item with LF line ends. An event is its `event:`, `id:` and `retry:` lines (when
    set; an empty `event` is omitted), one `data:` line per line of `data` (CR, LF and CRLF all
    split), and a blank line. A comment is ":" + text + "\\n\\n", the inverse of `SseParser`.
    Values that cannot be framed (a line break in event/id/comment, NUL in id, negative retry)
    raise ValueError: they are programming errors, never upstream input."""
    if isinstance(item, SseComment):
        _check_single_line("comment", item.text)
        return f":{item.text}\n\n".encode()
    head = ""
    if item.event:
        _check_single_line("event", item.event)
        head = f"event: {item.event}\n"
    if item.id is not None:
        _check_single_line("id", item.id)
        if "\0" in item.id:
            raise ValueError("SSE id may not contain NUL")
        head += f"id: {item.id}\n"
    if item.retry is not None:
        if item.retry < 0:
            raise ValueError("SSE retry must be non-negative")
        head += f"retry: {item.retry}\n"
    return (head + _data_lines(item.data) + "\n").encode()


def encode_data(data: str, event: str | None = None) -> bytes:
    """Fast path for `encode(SseEvent(data, event))`: the relay's common case."""
    if event:
        _check_single_line("event", event)
        return f"event: {event}\n{_data_lines(data)}\n".encode()
    return f"{_data_lines(data)}\n".encode()


def _data_lines(data: str) -> str:
    if "\r" in data:
        data = data.replace("\r\n", "\n").replace("\r", "\n")
    return "data: " + data.replace("\n", "\ndata: ") + "\n"


def _check_single_line(field: str, value: str) -> None:
    if "\n" in value or "\r" in value:
        raise ValueError(f"SSE {field} may not contain a line break")


def map_data_lines(frames: bytes, rewrite: Callable[[bytes], bytes]) -> bytes:
    """Whole SSE events (`frames`) with the value of each `data:` line replaced by `rewrite(value)` (which
    returns its argument itself to keep it); line ends kept. An event whose data spans several lines has
    each line rewritten alone: `rewrite` keeps what it cannot read."""
    lines = frames.split(b"\n")
    changed = False
    for i, line in enumerate(lines):
        if line.startswith(b"data:"):
            cr = line.endswith(b"\r")
            value = line[5:-1] if cr else line[5:]
            value = value[1:] if value.startswith(b" ") else value
            new = rewrite(value)
            if new is not value:
                lines[i] = b"data: " + new + (b"\r" if cr else b"")
                changed = True
    return b"\n".join(lines) if changed else frames


class RewrittenStream:
    """A stream relay (core.passthrough.CheckedStream, core.stream.StreamRelay: whole events out) whose output
    goes through `rewrite` (`map_data_lines` for one data line at a time); the relay protocol otherwise the
    inner relay's. The gateway's own error event (`fail`) is not rewritten."""

    __slots__ = ("_inner", "rewrite")

    def __init__(self, inner: Any, rewrite: Callable[[bytes], bytes]) -> None:
        self._inner = inner
        self.rewrite = rewrite

    @property
    def inner(self) -> Any:
        """The relay whose output is rewritten (the shell counts a pass-through's stream as one)."""
        return self._inner

    @property
    def done(self) -> bool:
        return bool(self._inner.done)

    @property
    def holding(self) -> bool:
        return bool(self._inner.holding)

    @property
    def events_out(self) -> int:
        return int(self._inner.events_out)

    def feed(self, chunk: bytes) -> bytes:
        return self.rewrite(self._inner.feed(chunk))

    def close(self) -> bytes:
        return self.rewrite(self._inner.close())

    def release(self) -> bytes:
        return self.rewrite(self._inner.release())

    def fail(self, error: Any) -> bytes:
        return bytes(self._inner.fail(error))
