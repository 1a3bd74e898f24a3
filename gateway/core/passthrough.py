"""Owns `CheckedStream`: a stream whose agent speaks the client's version and binding, relayed byte for byte
but only whole events, each checked for what is free to check (framing, size, JSON text, envelope, its end)."""

from __future__ import annotations

import re
from typing import Any, Final

import gateway.core.dialects as dialects
import gateway.core.jsoncodec as jsoncodec
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
# (byte tests are `data.find(byte) >= 0`: bytes' `in` first tries its needle as an integer and raises, then
# clears, a TypeError each time)
_LF: Final = 0x0A
_CR: Final = 0x0D
_CLOSE: Final = 0x7D  # "}"
# bytes of plain events checked at once; a window holding another event is checked again in small windows,
# and a small one holding it is read event by event
_WINDOW: Final = 16384
_SMALL_WINDOW: Final = 2048
# v0.3 JSON-RPC: an item that may end the stream has a status (a Task, a status update) or `final`
_KIND_MARKERS: Final = (b'"status"', b'"final"')
_ERROR: Final = ERROR_EVENT.encode()
# v0.3 JSON-RPC stream items are told apart by `kind`; the ProtoJSON dialects by their one member
_KINDS: Final = {"task": "task", "message": "message", "status-update": "statusUpdate",
                 "artifact-update": "artifactUpdate"}


class CheckedStream:
    """One same-version stream, sans-IO, with the shell's relay protocol (`feed`, `close`, `release`, `fail`,
    `done`, `holding`, `events_out`). What it writes is the agent's own bytes, whole events only (a partial
    event is held until its blank line), so the client's stream is always at an event boundary.

    Each event with data is checked for what is free to check. The first item is read exactly: its data is
    JSON text (`jsoncodec.loads_relayed`: one C parse, no walk), over JSON-RPC a JSON-RPC response, and an
    item. It teaches the stream its agent's `lead`: the bytes the agent starts an event with that cannot end
    the stream (`data: ` and the envelope up to the item, over JSON-RPC `{"jsonrpc":"2.0","id":…,"result":{`
    as this agent spells it; and, in the ProtoJSON dialects, the `"artifactUpdate"` member). From then on a
    chunk of LF-framed single-line events is a chunk relay with byte tests: its events (found with memchr)
    whose data starts with the lead and ends with `}` pass unparsed when the chunk is `unremarkable` (UTF-8,
    no surrogate escape, no NaN or Infinity); every other event is read exactly, as the first one was (in
    v0.3 JSON-RPC, whose items are told apart by `kind`, each event with a `"status"` or `"final"` too).

    The first failing event is not relayed: the client gets one error event in its own shape (its JSON-RPC
    id, `frames`), and the stream ends. So it does when an event is larger than `max_event_bytes`, the
    agent's stream ends in the middle of an event, or `fail()` reports a broken upstream. An agent error
    event ends the stream after it; so does the stream's terminal event (a terminal state, a v0.3
    `final: true`, a Message as the first item): whatever the agent sends after it is not relayed. Comments
    and field lines pass as they are."""

    __slots__ = ("_done", "_frames", "_fresh", "_jsonrpc", "_lead", "_markers", "_pending", "_spec", "_started",
                 "events_out", "max_event_bytes", "spoke_v03")

    holding: Final = False  # nothing is held back for look-ahead: same version, same `final`

    def __init__(self, frames: SseFrames, *, dialect: Dialect, binding: Binding,
                 max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._frames = frames
        self._spec: DialectSpec = SPECS[dialect]
        self._jsonrpc = binding is JSONRPC
        # where an item's kind is a member it names (`kind`), the events that may end the stream are found
        # by these bytes; in the ProtoJSON dialects the lead names the one member that never ends it
        self._markers: tuple[bytes, ...] = _KIND_MARKERS if self._spec.kind_tags else ()
        self.max_event_bytes = max_event_bytes
        self._pending = b""  # the unfinished event (at the start: with its BOM, if any)
        self._lead = b""  # learned from the first item: an event starting so is plain (see the class)
        self._fresh = True  # no event has ended yet
        self._started = False  # an item has been relayed
        self._done = False
        self.events_out = 0  # events written (comments excluded; an error event included)
        # a v1.0 JSON-RPC stream's item read in v0.3's shape (langgraph-api's events after the first): the shell
        # learns that the interface speaks v0.3, whatever its card says (the item is relayed as it is)
        self.spoke_v03 = False

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
        return self._any(buf, skip) if buf.find(_CR) >= 0 else self._lf(buf, skip)

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

    def _lf(self, buf: bytes, skip: int) -> bytes:
        """LF line ends (the usual stream): the whole events of `buf` (from `skip`) up to the first that fails
        or ends the stream. A window of about `_WINDOW` bytes whose events are all plain (the class) is found
        so by C counts (`_all_plain`) and relayed as it is; a window that is not, again in small windows.
        In a small window that is not either, each event's line is found with memchr: a plain one is
        relayed, any other read exactly (`_check`)."""
        end = buf.rfind(b"\n\n", skip) + 2
        if end < 2:
            return self._hold(b"", buf)
        self._fresh = False
        region = buf if end == len(buf) else buf[:end]
        lead, find, starts = self._lead, region.find, region.startswith
        mark = self._mark(region, skip)
        pos, plain, size = skip, 0, _WINDOW
        everywhere = bool(lead) and jsoncodec.unremarkable(region)  # else each window is looked at alone
        try:
            while pos < end:
                stop = region.find(b"\n\n", pos + size) + 2 if pos + size < end else end
                stop = stop if stop >= 2 else end
                quiet = everywhere or (bool(lead) and jsoncodec.unremarkable(region[pos:stop]))
                if quiet and stop <= mark and (n := _all_plain(region, lead, pos, stop)):
                    plain += n
                    pos, size = stop, _WINDOW
                    continue
                if size > _SMALL_WINDOW:  # the other event is looked for in a smaller window first
                    size = _SMALL_WINDOW
                    continue
                while pos < stop:  # event by event: one memchr and three byte tests for a plain one
                    line = find(_LF, pos)
                    single = line + 1 < end and region[line + 1] == _LF
                    if quiet and single and line < mark and region[line - 1] == _CLOSE and starts(lead, pos):
                        plain += 1
                        pos = line + 2
                        continue
                    event: bytes | None
                    data: bytes | None
                    if single and starts(b"data: ", pos):  # the usual line
                        event, data, after = None, region[pos + 6:line], line + 2
                    else:  # more lines, a comment, a field
                        after = find(b"\n\n", pos) + 2
                        if after < 2:  # a line end after the last event: held with what follows
                            return self._hold(region[:pos], buf[pos:])
                        event, data = _fields(region[pos:after - 2])
                    if data is not None:
                        try:
                            ends = self._check(event, data)
                        except GatewayError as exc:
                            self._done = True
                            return region[:pos] + self._error(agent_fault(exc))
                        if ends:
                            self._done = True
                            return region[:after]
                        mark = self._mark(region, after - 2)
                    pos = after
                    if lead is not self._lead:  # the first item taught the lead: the next window is read so
                        lead = self._lead
                        break
        finally:
            self.events_out += plain
        return self._hold(region, buf[end:])

    def _hold(self, region: bytes, pending: bytes) -> bytes:
        """`region` relayed, `pending` (an unfinished event) held; an error event when it is too large."""
        if len(pending) > self.max_event_bytes:
            self._done = True
            return region + self._error(agent_fault(LimitExceeded(
                f"SSE event larger than {self.max_event_bytes} bytes")))
        self._pending = pending
        return region

    def _mark(self, region: bytes, start: int) -> int:
        """Where the first marker (`_markers`) at or after `start` is; past the end when there is none."""
        found = [at for marker in self._markers if (at := region.find(marker, start)) >= 0]
        return min(found) if found else len(region) + 1

    def _any(self, buf: bytes, skip: int) -> bytes:
        """CR or CRLF line ends: the events of `buf` (from `skip`) split and read one by one (`_relay`);
        the unfinished rest is held."""
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

    def _relay(self, buf: bytes, skip: int, blocks: list[bytes], sizes: list[int],
               error: GatewayError | None) -> bytes:
        """The bytes of `blocks` up to the first that fails or ends the stream, then `error` if any. The
        usual event (one `data: ` line) is read inline, the byte scans done once for all."""
        end = skip
        plain = jsoncodec.plain_text(buf)
        for block, size in zip(blocks, sizes, strict=True):
            event: bytes | None
            data: bytes | None
            if block[:6] == b"data: " and block.find(_LF) < 0 and block.find(_CR) < 0:
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
        """Read one event's data exactly; whether the event ends the stream. Raises GatewayError for a bad
        one. The first item teaches the lead."""
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
        if self._jsonrpc and not self._markers and payload.__class__ is dict and "kind" in payload \
                and dialects.v03_item(payload):
            self.spoke_v03 = True
        ends = _ends(payload, self._spec, first)
        if first and not ends:
            self._lead = _lead(data, self._jsonrpc, self._spec.kind_tags)
        return ends

    def _error(self, error: GatewayError) -> bytes:
        self.events_out += 1
        return self._frames.gateway_error(error)


def _all_plain(region: bytes, lead: bytes, start: int, stop: int) -> int:
    """How many events `region[start:stop]` (LF line ends, ending with a blank line) holds when every one of
    them is plain: starting with `lead` and ending with `}`; 0 when one is not. Two C counts: the window's
    blank lines are as many as its boundaries `}` + blank line + lead, plus its end. (What two counts cannot
    tell: an event of several lines whose first line starts with the lead and whose last ends with `}`.)"""
    n = region.count(b"}\n\n" + lead, start, stop) + 1
    if region.startswith(lead, start) and region.endswith(b"}\n\n", start, stop) \
            and region.count(b"\n\n", start, stop) == n:
        return n
    return 0


def _lead(data: bytes, jsonrpc: bool, kind_tags: bool) -> bytes:
    """The lead (see CheckedStream) an agent's first item teaches: `data: `, its envelope up to the item's
    opening brace, spelled as the agent spells it (JSON-RPC: every member before `result`, the id among
    them), and in the ProtoJSON dialects the artifact-update member; b"" (no plain events) when the item's
    bytes do not show the envelope plainly. The envelope is checked by parsing it closed: an object whose
    last member is `result`, an empty object, and (JSON-RPC) `jsonrpc` "2.0" and no `error`."""
    at = data.find(b'"result"') + 8 if jsonrpc else 0
    if jsonrpc and at < 8:
        return b""
    rest = data[at:].lstrip(b" ")
    if jsonrpc:
        if rest[:1] != b":":
            return b""
        rest = rest[1:].lstrip(b" ")
    if rest[:1] != b"{":
        return b""
    envelope = data[:len(data) - len(rest) + 1]
    try:
        probe = jsoncodec.loads_relayed(envelope + (b"}}" if jsonrpc else b"}"))
    except GatewayError:
        return b""
    if jsonrpc and not (type(probe) is dict and list(probe)[-1:] == ["result"] and probe["result"] == {}
                        and probe.get("jsonrpc") == "2.0" and "error" not in probe):
        return b""
    return b"data: " + envelope + (b"" if kind_tags else b'"artifactUpdate"')


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
    if block[:6] == b"data: " and block.find(_LF) < 0 and block.find(_CR) < 0:
        return None, block[6:]  # one data line: the usual event
    event: bytes | None = None
    data: list[bytes] = []
    for line in _LINES.split(block) if block.find(_CR) >= 0 else block.split(b"\n"):
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
