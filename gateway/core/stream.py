"""Owns `StreamRelay`: one upstream SSE stream translated event by event for the client, with the
stream rules (first item, v0.3 `final`, closure, errors). It must not await, read clocks or log."""

from __future__ import annotations

from typing import Any, Final

from gateway.core import dialects, jsoncodec
from gateway.core.bindings.jsonrpc import response_from_json
from gateway.core.errors import GatewayError, InvalidAgentResponse, LimitExceeded, MalformedEnvelope, StreamError
from gateway.core.notes import Cx
from gateway.core.sse import DEFAULT_MAX_EVENT_BYTES, SseComment, SseEvent, SseParser, encode
from gateway.core.stream_frames import ERROR_EVENT, ClientFrames
from gateway.core.stream_upstream import (
    BINDINGS,
    agent_fault,
    looks_like_rest_error,
    member_of,
    rpc_error_to_hub,
    state_of,
    synthesized_task,
    truncate_history,
    upstream_final,
)
from gateway.core.translate import translate
from gateway.core.translate.errors import rest_error_from_http
from gateway.core.types import Binding, Dialect, JsonObj

__all__ = ["ERROR_EVENT", "StreamRelay"]

_INPUT_REQUIRED: Final = "TASK_STATE_INPUT_REQUIRED"

# enum members as module constants: Enum class attribute lookups are slow on the per-event path
_JSONRPC = Binding.JSONRPC
_V10 = Dialect.V10


class StreamRelay:
    """Translates one SSE stream from the upstream's (dialect, binding) to the client's, sans-IO.

    The shell calls `feed(chunk)` per upstream chunk, `close()` at upstream EOF, `release()` when its
    look-ahead timer fires while `holding`, and `fail(error)` when the upstream breaks; each returns
    the bytes to write to the client (possibly b""). Once `done`, the client stream must end and
    the shell stops reading upstream; every later call returns b"".

    Rules (wire-mapping.md §5):
    - Items go through the v1.0 hub with the "stream_response" family; comments are forwarded as
      comments; upstream `id:`/`retry:` are dropped, `event:` only marks errors.
    - v0.3 client: `final` is true exactly once, on the event that ends the stream: a terminal
      state; an upstream v0.3 `final: true`; an interrupted state from a v1.0 upstream per
      `cx.quirks.final_on_interrupted` ("lookahead": hold the event until the next event (→ false),
      `release()` (→ false) or EOF (→ true); "input_required": input-required final at once,
      auth-required never). A terminal Task, or a Message as the first item, also ends the stream.
      A stream the upstream ends without any of these is just closed: nothing is invented.
    - v1.0 client: the same closure rules without a flag, plus an upstream v0.3 `final: true`; a
      v0.3 upstream that starts with a status or artifact update gets a Task synthesised first
      (note `task_synthesized`).
    - `history_length` (not None): Task `history` cut to the last N messages (0: removed).
    - An upstream error event, a bad event (framing, size, JSON, item) or `fail()` becomes ONE error
      event in the client's shape (`event: error`), after which the relay is done.

    Notes go to `cx.notes` with paths `$[n]…`, n counting upstream events from 0; for a long stream
    the shell may drain that list after each call.
    """

    __slots__ = (
        "_done",
        "_frames",
        "_held",
        "_lookahead",
        "_parser",
        "_started",
        "client",
        "client_binding",
        "cx",
        "events_in",
        "events_out",
        "history_length",
        "rpc_id",
        "upstream",
        "upstream_binding",
    )

    def __init__(self, *, client: Dialect, client_binding: Binding, upstream: Dialect,
                 upstream_binding: Binding, rpc_id: Any, cx: Cx,
                 max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, history_length: int | None = None) -> None:
        for side, dialect, binding in (("client", client, client_binding),
                                       ("upstream", upstream, upstream_binding)):
            if binding not in BINDINGS[dialect]:
                raise ValueError(f"{side}: dialect {dialect.value} is not spoken over {binding.value}")
        if history_length is not None and history_length < 0:
            raise ValueError("history_length must be None or non-negative")
        self.client = client
        self.client_binding = client_binding
        self.upstream = upstream
        self.upstream_binding = upstream_binding
        self.rpc_id = rpc_id
        self.cx = cx
        self.history_length = history_length
        self.events_in = 0  # upstream events parsed (comments excluded)
        self.events_out = 0  # events written to the client (comments excluded; errors included)
        self._parser = SseParser(max_event_bytes)
        self._lookahead = cx.quirks.final_on_interrupted == "lookahead"
        self._frames = ClientFrames(client, client_binding, rpc_id, cx, cx.quirks.rest_v03_status_table)
        self._held: JsonObj | None = None  # a v0.3 client item awaiting its `final`
        self._started = False  # an item (not an error) has been seen
        self._done = False

    @property
    def done(self) -> bool:
        """The client stream must end now; the shell stops reading upstream."""
        return self._done

    @property
    def holding(self) -> bool:
        """An interrupted-state event is held for look-ahead (the shell arms its `release()` timer)."""
        return self._held is not None

    # ---- the shell's calls -----------------------------------------------------------------------

    def feed(self, chunk: bytes) -> bytes:
        """Consume upstream bytes; return the SSE bytes ready for the client."""
        if self._done or not chunk:
            return b""
        out: list[bytes] = []
        items: list[SseComment | SseEvent] = []
        error: StreamError | LimitExceeded | None = None
        try:
            self._parser.feed_into(chunk, items)
        except (StreamError, LimitExceeded) as exc:   # it ends the stream after the items completed before it
            error = exc
        if not self._items(items, out) and error is not None:
            self._fail_into(out, agent_fault(error))
        return b"".join(out)

    def _items(self, items: list[SseComment | SseEvent], out: list[bytes]) -> bool:
        """Relay parsed items in order until one ends the stream; whether it ended."""
        for item in items:
            if isinstance(item, SseComment):
                out.append(encode(item))
            else:
                self._event(item, out)
                if self._done:
                    return True
        return False

    def close(self) -> bytes:
        """Upstream EOF: an unterminated event is dropped (WHATWG); a held event goes out as the final one."""
        if self._done:
            return b""
        if self._parser.buffered_bytes:
            self.cx.note("unterminated_event_dropped", f"$[{self.events_in}]",
                         "the upstream closed inside an event")
        self._parser.close()
        self._done = True
        out: list[bytes] = []
        self._flush_held(out, final=True)
        return b"".join(out)

    def release(self) -> bytes:
        """The look-ahead timer fired: the held event goes out with `final: false`."""
        if self._done or self._held is None:
            return b""
        out: list[bytes] = []
        self._flush_held(out, final=False)
        return b"".join(out)

    def fail(self, error: GatewayError) -> bytes:
        """The upstream broke mid-stream (transport error, timeout): one error event, then done."""
        if self._done:
            return b""
        out: list[bytes] = []
        self._fail_into(out, error)
        return b"".join(out)

    # ---- one upstream event ----------------------------------------------------------------------

    def _event(self, event: SseEvent, out: list[bytes]) -> None:
        at = f"$[{self.events_in}]"
        self.events_in += 1
        if not event.data or event.data.isspace():
            self.cx.note("empty_event_ignored", at)
            return
        try:
            frames, hold, done = self._step(event, at, first=not self._started)
        except GatewayError as exc:
            self._fail_into(out, agent_fault(exc))
            return
        self._started = True
        self._flush_held(out, final=False)
        out.extend(frames)
        self.events_out += len(frames)
        self._held = hold
        self._done = done

    def _step(self, event: SseEvent, at: str, *, first: bool) -> tuple[list[bytes], JsonObj | None, bool]:
        """Decide one event, leaving the relay's state alone: (frames to write, item to hold, done)."""
        try:
            value = jsoncodec.loads(event.data)
        except MalformedEnvelope:
            raise InvalidAgentResponse("agent stream: event data is not JSON", path=at) from None
        if self.upstream_binding is _JSONRPC:
            response = response_from_json(value)
            if response.error is not None:
                hub = rpc_error_to_hub(response.error, self.upstream, self.cx, at)
                return [self._frames.upstream_error(hub, at)], None, True
            raw = response.result
        elif event.event == ERROR_EVENT or looks_like_rest_error(value):
            hub = rest_error_from_http(None, value, self.cx, at)
            return [self._frames.upstream_error(hub, at)], None, True
        else:
            raw = value
        hub = raw if self.upstream is _V10 else translate(
            "stream_response", raw, src=self.upstream, dst=_V10, cx=self.cx, at=at)
        member, payload = member_of(hub, at)
        if member == "task" and self.history_length is not None:
            truncate_history(payload, self.history_length, self.cx, f"{at}.task")
        state = state_of(payload) if member in ("task", "statusUpdate") else None
        ends = state in dialects.TERMINAL_V10 or (first and member == "message")
        v03_final = upstream_final(raw, member, self.upstream)

        if self.client is _V10:
            frames = []
            if first and self.upstream is not _V10 and member in ("statusUpdate", "artifactUpdate"):
                frames.append(self._frames.item(synthesized_task(member, payload, self.cx, at)))
            frames.append(self._frames.item(hub))
            return frames, None, ends or v03_final is True

        item: JsonObj = translate("stream_response", hub, src=_V10, dst=self.client, cx=self.cx, at=at)
        if member != "statusUpdate":
            return [self._frames.item(item)], None, ends
        final = ends or v03_final is True
        if not final and v03_final is None and state in dialects.INTERRUPTED_V10:
            if self._lookahead:
                self._frames.set_final(item, False)
                return [], item, False
            final = state == _INPUT_REQUIRED
        self._frames.set_final(item, final)
        return [self._frames.item(item)], None, final

    # ---- the client's side ----------------------------------------------------------------------

    def _flush_held(self, out: list[bytes], *, final: bool) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        self._frames.set_final(held, final)
        out.append(self._frames.item(held))
        self.events_out += 1
        if final:
            self._done = True

    def _fail_into(self, out: list[bytes], error: GatewayError) -> None:
        """The gateway's own error: flush a held event (not final: the error ends the stream), then done."""
        self._flush_held(out, final=False)
        out.append(self._frames.gateway_error(error))
        self.events_out += 1
        self._done = True
