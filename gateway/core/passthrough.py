"""Owns `CheckedStream`: a stream whose agent speaks the client's version and binding, relayed byte for byte
but only whole events, each checked for what is free to check (framing, size, JSON text, envelope, its end)."""

from __future__ import annotations

import re
from typing import Any, Final

from gateway.core import dialects, jsoncodec
from gateway.core.bindings.jsonrpc import response_from_json
from gateway.core.dialects import SPECS, STREAM_MEMBERS_V10, TERMINAL_V10, DialectSpec
from gateway.core.errors import GatewayError, InvalidAgentResponse, LimitExceeded, MalformedEnvelope, StreamError
from gateway.core.sse import DEFAULT_MAX_EVENT_BYTES
from gateway.core.stream import ERROR_EVENT, SseFrames, agent_fault, looks_like_rest_error
from gateway.core.types import JSONRPC, Binding, Dialect

__all__ = ["CheckedStream"]

# A blank line ends an event; a line ends with CRLF, LF or CR (a CR followed by LF is one ending).
_EOL: Final = rb"\r\n|\r|\n"
# A CR at the end of what has arrived may be half a CRLF: it ends a line once the next byte is known.
_BLANK: Final = re.compile(rb"(?:\r\n|\r(?=[^\n])|\n)(?:\r\n|\r(?=[^\n])|\n)")
_ENDS_WITH_BLANK: Final = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)\Z")
_LINES: Final = re.compile(_EOL)
_BOM: Final = b"\xef\xbb\xbf"
_ERROR: Final = ERROR_EVENT.encode()
# v0.3 JSON-RPC stream items are told apart by `kind`; the ProtoJSON dialects by their one member
_KINDS: Final = {"task": "task", "message": "message", "status-update": "statusUpdate",
                 "artifact-update": "artifactUpdate"}


class CheckedStream:
    """One same-version stream, sans-IO, with the shell's relay protocol (`feed`, `close`, `release`, `fail`,
    `done`, `holding`, `events_out`). What it writes is the agent's own bytes, whole events only (a partial
    event is held until its blank line), so the client's stream is always at an event boundary.

    Each event with data is checked, cheaply: the data is JSON text (`jsoncodec.loads_relayed`: one C
    parse, no walk); over JSON-RPC it is a JSON-RPC response; the event is not larger than
    `max_event_bytes`. The first failing event is not relayed: the client gets one error event in its own
    shape (its JSON-RPC id, `frames`), and the stream ends. So it does when the agent's stream ends in the
    middle of an event, or `fail()` reports a broken upstream. An agent error event ends the stream after
    it; so does the stream's terminal event (a terminal state, a v0.3 `final: true`, a Message as the first
    item): whatever the agent sends after it is not relayed. Comments and field lines pass as they are."""

    __slots__ = ("_done", "_frames", "_fresh", "_jsonrpc", "_pending", "_spec", "_started", "events_out",
                 "max_event_bytes")

    holding: Final = False  # nothing is held back for look-ahead: same version, same `final`

    def __init__(self, frames: SseFrames, *, dialect: Dialect, binding: Binding,
                 max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._frames = frames
        self._spec: DialectSpec = SPECS[dialect]
        self._jsonrpc = binding is JSONRPC
        self.max_event_bytes = max_event_bytes
        self._pending = b""  # the unfinished event (at the start: with its BOM, if any)
        self._fresh = True  # no event has ended yet
        self._started = False  # an item has been relayed
        self._done = False
        self.events_out = 0  # events written (comments excluded; an error event included)

    @property
    def done(self) -> bool:
        return self._done

    def feed(self, chunk: bytes) -> bytes:
        """The whole events `chunk` completes, as the agent wrote them; an error event at the first bad one."""
        if self._done or not chunk:
            return b""
        buf = self._pending + chunk if self._pending else chunk
        skip = 0
        if self._fresh:  # a leading BOM is relayed, and skipped when reading the first event
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                self._pending = buf
                return b""
            skip = len(_BOM) if buf.startswith(_BOM) else 0
        if b"\r" not in buf:  # LF only, the usual case: split in C
            blocks = buf[skip:].split(b"\n\n") if skip else buf.split(b"\n\n")
            pending = blocks.pop()
            sizes = [len(block) + 2 for block in blocks]
        else:
            blocks, sizes, pending = _split_any(buf, skip)
        if len(pending) > self.max_event_bytes:
            self._pending = b""
            return self._relay(buf, skip, blocks, sizes, LimitExceeded(
                f"SSE event larger than {self.max_event_bytes} bytes"))
        if not blocks:
            self._pending = buf
            return b""
        self._fresh = False
        self._pending = pending
        return self._relay(buf, skip, blocks, sizes, None)

    def close(self) -> bytes:
        """The agent's stream ended. Its last event without the blank line after it is relayed, completed,
        when it checks out (a clean end without the last blank line); an event cut short is an error (the
        client must not take a cut stream for a whole one)."""
        if self._done:
            return b""
        self._done = True
        pending = self._pending[len(_BOM):] if self._fresh and self._pending.startswith(_BOM) else self._pending
        if not pending.strip(b"\r\n"):
            return self._pending  # line ends after the last event: no event
        event, data = _fields(pending.rstrip(b"\r\n"))
        try:
            if data is not None:
                self._check(event, data)
        except GatewayError:
            return self._error(StreamError("the agent's stream ended in the middle of an event"))
        if _ENDS_WITH_BLANK.search(pending):  # whole, its last CR was only waiting for the next byte
            return self._pending
        return self._pending + (b"\n" if pending[-1:] in (b"\n", b"\r") else b"\n\n")

    def release(self) -> bytes:
        return b""

    def fail(self, error: GatewayError) -> bytes:
        """The upstream broke (transport error, idle timeout): one error event, then done."""
        if self._done:
            return b""
        self._done = True
        return self._error(error)

    # ---- the events ------------------------------------------------------------------------------------

    def _relay(self, buf: bytes, skip: int, blocks: list[bytes], sizes: list[int],
               error: GatewayError | None) -> bytes:
        """The bytes of `blocks` up to the first that fails or ends the stream, then `error` if any. The hot
        loop: the usual event (one `data: ` line) is checked inline, the byte scans done once for all."""
        end = skip
        plain = jsoncodec.plain_text(buf)
        for block, size in zip(blocks, sizes, strict=True):
            event: bytes | None
            data: bytes | None
            if block[:6] == b"data: " and b"\n" not in block and b"\r" not in block:
                event, data, single = None, block[6:], plain
            else:
                event, data = _fields(block)
                single = False
            if data is not None:
                try:
                    ends = self._check(event, data, single)
                except GatewayError as exc:
                    self._done = True
                    return buf[:end] + self._error(agent_fault(exc))
                if ends:
                    self._done = True
                    return buf[:end + size]
            end += size
        if error is not None:
            self._done = True
            return buf[:end] + self._error(agent_fault(error))
        return buf[:end] if end < len(buf) else buf

    def _check(self, event: bytes | None, data: bytes, plain: bool = False) -> bool:
        """Check one event's data; whether the event ends the stream. Raises GatewayError for a bad one."""
        try:
            value = jsoncodec.loads_relayed(data, plain=plain)
        except MalformedEnvelope:
            raise InvalidAgentResponse("agent stream: event data is not JSON") from None
        self.events_out += 1
        if self._jsonrpc:
            if type(value) is dict and "result" in value and "error" not in value and value.get("jsonrpc") == "2.0":
                payload = value["result"]  # the usual event, checked inline
            else:
                response = response_from_json(value)
                if response.error is not None:
                    return True
                payload = response.result
        elif event == _ERROR or looks_like_rest_error(value):
            return True
        else:
            payload = value
        first, self._started = not self._started, True
        return _ends(payload, self._spec, first)

    def _error(self, error: GatewayError) -> bytes:
        self.events_out += 1
        return self._frames.gateway_error(error)


def _split_any(buf: bytes, skip: int) -> tuple[list[bytes], list[int], bytes]:
    """Event blocks of `buf` (from `skip`) with any line ends: the blocks, their sizes with their blank
    line, and the unfinished rest."""
    blocks, sizes = [], []
    start = skip
    for match in _BLANK.finditer(buf, skip):
        blocks.append(buf[start:match.start()])
        sizes.append(match.end() - start)
        start = match.end()
    return blocks, sizes, buf[start:]


def _fields(block: bytes) -> tuple[bytes | None, bytes | None]:
    """An event block's `event` name and its data lines joined (None when it has no data line)."""
    if block[:6] == b"data: " and b"\n" not in block and b"\r" not in block:
        return None, block[6:]  # one data line: the usual event
    event: bytes | None = None
    data: list[bytes] = []
    for line in _LINES.split(block) if b"\r" in block else block.split(b"\n"):
        name, colon, value = line.partition(b":")
        if not name:
            continue  # a comment, or an empty line
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            data.append(value)
        elif name == b"event":
            event = value
    return event, (b"\n".join(data) if data else None)


def _ends(payload: Any, spec: DialectSpec, first: bool) -> bool:
    """Whether a stream item ends the stream: a Task or status update in a terminal state, a status update
    marked `final` (v0.3), a Message as the first item. Other shapes are the agent's business: relayed."""
    if type(payload) is not dict:
        raise InvalidAgentResponse("agent stream: the event is not a stream item object")
    if spec.kind_tags:
        member = _KINDS.get(payload.get("kind"))  # type: ignore[arg-type]
        obj: Any = payload
    elif len(payload) == 1:
        ((key, obj),) = payload.items()
        member = STREAM_MEMBERS_V10.get(key) or spec.member_aliases.get(key)
    else:
        return False
    if type(obj) is not dict:
        return False
    if member == "message":
        return first
    if member not in ("task", "statusUpdate"):
        return False
    if member == "statusUpdate" and obj.get("final") is True:
        return True
    status = obj.get("status")
    state = status.get("state") if type(status) is dict else None
    if type(state) is int:
        return dialects.V10_STATE_BY_NUMBER.get(state) in TERMINAL_V10
    return type(state) is str and spec.states_to_v10.get(state) in TERMINAL_V10
