"""Owns `StreamRelay`: one upstream SSE stream translated event by event for the client, with the stream
rules (first item, v0.3 `final`, closure, errors), and the client's framing of it (SSE bytes, or v1.0 items
for an in-process client such as the AG-UI door). It must not await, read clocks or log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

import gateway.core.dialects as dialects
import gateway.core.jsoncodec as jsoncodec
from gateway.core.bindings.jsonrpc import NOT_PLAIN, error_envelope, plain_result, response_from_json, result_envelope
from gateway.core.dialects import BINDINGS
from gateway.core.errors import (
    GatewayError,
    InvalidAgentResponse,
    LimitExceeded,
    MalformedEnvelope,
    StreamError,
    TranslationError,
    as_agent_error,
)
from gateway.core.mixed import agent_item
from gateway.core.notes import Cx
from gateway.core.sse import DEFAULT_MAX_EVENT_BYTES, SseComment, SseEvent, SseParser, encode, encode_data
from gateway.core.timestamps import repair_status
from gateway.core.translate import translate
from gateway.core.translate.errors import StatusTable, jsonrpc_error, rest_body, rest_error, rest_error_from_http

# enum members as module constants (Enum class attribute lookups are slow on the per-event path)
from gateway.core.types import JSONRPC, REST, V03RPC, V10, Binding, Dialect, JsonObj

__all__ = ["ERROR_EVENT", "Frames", "HubFrames", "HubItem", "SseFrames", "StreamRelay", "sse_relay"]

ERROR_EVENT: Final = "error"  # the SSE event name of every error the relay writes (v0.3 clients ignore it)

_SUBMITTED: Final = "TASK_STATE_SUBMITTED"
_INPUT_REQUIRED: Final = "TASK_STATE_INPUT_REQUIRED"


# ---- reading one upstream event ---------------------------------------------------------------------

def agent_fault(exc: GatewayError) -> GatewayError:
    """Whatever went wrong with an upstream event is the agent's fault: -32006 InvalidAgentResponse."""
    if isinstance(exc, InvalidAgentResponse | StreamError):
        return exc
    if isinstance(exc, TranslationError):
        return as_agent_error(exc)
    return InvalidAgentResponse(f"agent stream: {exc.message}", path=exc.path)


def looks_like_rest_error(value: Any) -> bool:
    """A REST error body without `event: error` (a StreamResponse never has `error` or `code`)."""
    return type(value) is dict and ("error" in value or type(value.get("code")) is int)


def member_of(hub: Any, at: str) -> tuple[str, JsonObj]:
    """The one member of a v1.0 StreamResponse and its object (checked: a v1.0 upstream is not translated)."""
    if type(hub) is not dict or len(hub) != 1:
        raise TranslationError(at, "expected a StreamResponse with exactly one member")
    ((key, payload),) = hub.items()
    name = dialects.STREAM_MEMBERS_V10.get(key)
    if name is None:
        raise TranslationError(f"{at}.{key}", "expected one of task, message, statusUpdate, artifactUpdate")
    if type(payload) is not dict:
        raise TranslationError(f"{at}.{key}", "expected an object")
    return name, payload


def state_of(payload: JsonObj) -> str | None:
    """The v1.0 state name of a Task or status update (enum numbers and lenient spellings read too)."""
    status = payload.get("status")
    value = status.get("state") if type(status) is dict else None
    if type(value) is int:
        return dialects.V10_STATE_BY_NUMBER.get(value)
    if type(value) is str:
        return dialects.STATE_ALIASES_V10.get(value, value)
    return None


def _rpc_error_to_hub(error: JsonObj, upstream: Dialect, cx: Cx, at: str) -> JsonObj:
    """An upstream JSON-RPC error object as the hub's (v1.0) error object."""
    if upstream is V10:
        return error
    hub: JsonObj = translate("error", error, src=upstream, dst=V10, cx=cx, at=f"{at}.error")
    return hub


def _upstream_final(raw: Any, name: str, upstream: Dialect) -> bool | None:
    """The `final` a v0.3 upstream put on this event (None: a v1.0 upstream has no such flag)."""
    if upstream is V10:
        return None
    if name != "statusUpdate":
        return False
    # the translator accepted `raw`: a status-update object, or a one-member REST wrapper
    ev = raw if upstream is V03RPC else next(iter(raw.values()))
    return ev.get("final") is True


def truncate_history(task: JsonObj, keep: int, cx: Cx, at: str) -> None:
    """Task `history` cut to the last `keep` messages (0: removed), noted when anything goes."""
    history = task.get("history")
    if type(history) is not list:
        return
    if len(history) > keep:
        cx.note("history_truncated", f"{at}.history", f"{len(history)} -> {keep} messages")
    if keep == 0:
        del task["history"]
    elif len(history) > keep:
        task["history"] = history[-keep:]


def _synthesized_task(name: str, payload: JsonObj, cx: Cx, at: str) -> JsonObj:
    """v1.0 requires the Task as a stream's first item; a v0.3 agent may start with an update. A status update's
    status becomes the Task's, message and all, and leaves the update relayed right after it without its
    message (google-adk's v0.3 agents open with `submitted` and the caller's message: read once, not twice)."""
    status = {"state": _SUBMITTED}
    if name == "statusUpdate":
        status = payload["status"]
        if "message" in status:
            payload["status"] = {k: v for k, v in status.items() if k != "message"}
    task: JsonObj = {"id": payload.get("taskId", "")}
    if "contextId" in payload:
        task["contextId"] = payload["contextId"]
    task["status"] = status
    cx.note("task_synthesized", at, f"the v0.3 agent began the stream with {name}")
    return {"task": task}


# ---- the client's side ------------------------------------------------------------------------------

F = TypeVar("F")      # one frame for the client
Out = TypeVar("Out")  # what a relay call returns: the frames joined
Out_co = TypeVar("Out_co", covariant=True)


class Frames(Protocol[F, Out_co]):
    """How the client receives a relayed stream: one frame per item, upstream error or gateway fault."""

    @property
    def dialect(self) -> Dialect: ...

    def set_final(self, item: JsonObj, final: bool) -> None: ...
    def item(self, item: JsonObj) -> F: ...
    def comment(self, comment: SseComment) -> F | None: ...
    def upstream_error(self, hub: JsonObj, at: str) -> F: ...
    def gateway_error(self, error: GatewayError) -> F: ...
    def join(self, frames: list[F]) -> Out_co: ...


class SseFrames:
    """SSE frames in the client's dialect and binding, whose JSON-RPC id is fixed at the stream's start."""

    __slots__ = ("binding", "cx", "dialect", "rpc_id", "status_table")

    def __init__(self, dialect: Dialect, binding: Binding, rpc_id: Any, cx: Cx, status_table: StatusTable) -> None:
        self.dialect = dialect
        self.binding = binding
        self.rpc_id = rpc_id
        self.cx = cx
        self.status_table = status_table

    def set_final(self, item: JsonObj, final: bool) -> None:
        """Mark a client status-update item final or not (v0.3 JSON-RPC `final`, REST `statusUpdate.final`)."""
        if self.dialect is V03RPC:
            item["final"] = final
        elif final:
            item["statusUpdate"]["final"] = True
        else:
            item["statusUpdate"].pop("final", None)  # ProtoJSON omits a false bool

    def item(self, item: JsonObj) -> bytes:
        """One translated item, in a JSON-RPC result envelope when the client speaks JSON-RPC."""
        body = result_envelope(self.rpc_id, item) if self.binding is JSONRPC else item
        return b"data: " + jsoncodec.dumpb(body) + b"\n\n"   # JSON text holds no raw line break: one line

    def comment(self, comment: SseComment) -> bytes:
        return encode(comment)

    def upstream_error(self, hub: JsonObj, at: str) -> bytes:
        """An upstream A2A error (hub: a v1.0 JSON-RPC error object) in the client's shape, code kept."""
        body: JsonObj
        if self.binding is REST:
            body = rest_body(hub, self.dialect, self.cx, self.status_table, at)[1]
        elif self.dialect is V10:
            body = error_envelope(self.rpc_id, hub)
        else:
            body = error_envelope(self.rpc_id, translate("error", hub, src=V10, dst=self.dialect,
                                                         cx=self.cx, at=f"{at}.error"))
        return encode_data(jsoncodec.dumps(body), ERROR_EVENT)

    def gateway_error(self, error: GatewayError) -> bytes:
        """The gateway's own error in the client's shape."""
        if self.binding is JSONRPC:
            body = error_envelope(self.rpc_id, jsonrpc_error(error, self.dialect))
        else:
            body = rest_error(error, self.dialect, self.status_table)[1]
        return encode_data(jsoncodec.dumps(body), ERROR_EVENT)

    def join(self, frames: list[bytes]) -> bytes:
        return b"".join(frames)


@dataclass(frozen=True, slots=True)
class HubItem:
    """What an in-process client receives per relayed event: exactly one of a v1.0 StreamResponse (`item`),
    an upstream A2A error as a v1.0 JSON-RPC error object (`error`), or the gateway's own fault (`fault`)."""

    item: JsonObj | None = None
    error: JsonObj | None = None
    fault: GatewayError | None = None


class HubFrames:
    """The relay's output for an in-process client of the v1.0 hub (the AG-UI door): items, not bytes."""

    __slots__ = ()
    dialect: Final = V10

    def set_final(self, item: JsonObj, final: bool) -> None:
        pass  # v1.0 has no `final`: the relay's `done` says the stream is over

    def item(self, item: JsonObj) -> HubItem:
        return HubItem(item=item)

    def comment(self, comment: SseComment) -> None:
        return None

    def upstream_error(self, hub: JsonObj, at: str) -> HubItem:
        return HubItem(error=hub)

    def gateway_error(self, error: GatewayError) -> HubItem:
        return HubItem(fault=error)

    def join(self, frames: list[HubItem]) -> list[HubItem]:
        return frames


# ---- the relay --------------------------------------------------------------------------------------

class StreamRelay(Generic[F, Out]):
    """Translates one SSE stream from the upstream's (dialect, binding) to the client's, sans-IO.

    The shell calls `feed(chunk)` per upstream chunk, `close()` at upstream EOF, `release()` when its
    look-ahead timer fires while `holding`, and `fail(error)` when the upstream breaks; each returns
    what to send to the client, framed by `frames` (SSE bytes, possibly b""). Once `done`, the client
    stream must end and the shell stops reading upstream; every later call returns nothing.

    Rules:
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
      (note `task_synthesized`), as v1.0 requires the Task as a stream's first item.
    - `history_length` (not None): Task `history` cut to the last N messages (0: removed).
    - An upstream error event, a bad event (framing, size, JSON, item) or `fail()` becomes ONE error
      frame in the client's shape (SSE: `event: error`), after which the relay is done.

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
        "cx",
        "events_in",
        "events_out",
        "history_length",
        "spoke_v03",
        "track",
        "tracked",
        "upstream",
        "upstream_binding",
    )

    def __init__(self, frames: Frames[F, Out], *, upstream: Dialect, upstream_binding: Binding, cx: Cx,
                 max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, history_length: int | None = None) -> None:
        if upstream_binding not in BINDINGS[upstream]:
            raise ValueError(f"upstream: dialect {upstream.value} is not spoken over {upstream_binding.value}")
        if history_length is not None and history_length < 0:
            raise ValueError("history_length must be None or non-negative")
        self.client = frames.dialect
        self.upstream = upstream
        self.upstream_binding = upstream_binding
        self.cx = cx
        self.history_length = history_length
        self.events_in = 0  # upstream events parsed (comments excluded)
        self.events_out = 0  # events written to the client (comments excluded; errors included)
        self._parser = SseParser(max_event_bytes)
        self._lookahead = cx.quirks.final_on_interrupted == "lookahead"
        self._frames = frames
        self._held: JsonObj | None = None  # a v0.3 client item awaiting its `final`
        self._started = False  # an item (not an error) has been seen
        self._done = False
        self.spoke_v03 = False  # an item in v0.3's shape came from an interface said to speak v1.0
        self.track = False   # keep each task's last Task or status update in `tracked` (the task index)
        self.tracked: dict[str, JsonObj] = {}

    @property
    def done(self) -> bool:
        """The client stream must end now; the shell stops reading upstream."""
        return self._done

    @property
    def holding(self) -> bool:
        """An interrupted-state event is held for look-ahead (the shell arms its `release()` timer)."""
        return self._held is not None

    # ---- the shell's calls -----------------------------------------------------------------------

    def feed(self, chunk: bytes) -> Out:
        """Consume upstream bytes; return what is ready for the client."""
        out: list[F] = []
        if self._done or not chunk:
            return self._frames.join(out)
        items: list[SseComment | SseEvent] = []
        error: StreamError | LimitExceeded | None = None
        try:
            self._parser.feed_into(chunk, items)
        except (StreamError, LimitExceeded) as exc:   # it ends the stream after the items completed before it
            error = exc
        if not self._items(items, out) and error is not None:
            self._fail_into(out, agent_fault(error))
        return self._frames.join(out)

    def _items(self, items: list[SseComment | SseEvent], out: list[F]) -> bool:
        """Relay parsed items in order until one ends the stream; whether it ended."""
        for item in items:
            if isinstance(item, SseComment):
                frame = self._frames.comment(item)
                if frame is not None:
                    out.append(frame)
            else:
                self._event(item, out)
                if self._done:
                    return True
        return False

    def open_with(self, task: JsonObj) -> Out:
        """Begin the client's stream with this Task (a composed subscription's, fetched by GetTask): the
        first item, so none is synthesised; a terminal Task ends the stream at once."""
        out: list[F] = []
        if self._done or self._started:
            return self._frames.join(out)
        hub: JsonObj = {"task": task}
        if self.history_length is not None:
            truncate_history(task, self.history_length, self.cx, "$.task")
        item = hub if self.client is V10 else translate("stream_response", hub, src=V10, dst=self.client,
                                                        cx=self.cx, at="$.task")
        out.append(self._frames.item(item))
        self.events_out += 1
        self._started = True
        self._done = state_of(task) in dialects.TERMINAL_V10
        if self.track:
            self.tracked[str(task.get("id", ""))] = hub
        return self._frames.join(out)

    def emit(self, hub: JsonObj) -> Out:
        """A v1.0 item the shell composed (a change GetTask showed once the agent's own stream was over),
        framed for the client, whether or not the agent's stream is done."""
        item = hub if self.client is V10 else translate("stream_response", hub, src=V10, dst=self.client,
                                                        cx=self.cx, at="$.composed")
        self.events_out += 1
        if self.track:
            member, payload = member_of(hub, "$.composed")
            self.tracked[str(payload.get("id" if member == "task" else "taskId", ""))] = hub
        return self._frames.join([self._frames.item(item)])

    def close(self) -> Out:
        """Upstream EOF. An event without its last blank line is relayed when its data is whole JSON (a clean
        end that left the blank line out); an event cut short is dropped (noted) and, as the client must not
        take a cut stream for a whole one, answered with one error frame. A held event goes out as the
        final one."""
        out: list[F] = []
        if self._done:
            return self._frames.join(out)
        if self._parser.buffered_bytes and self._last_event(out):
            return self._frames.join(out)
        self._parser.close()
        self._done = True
        self._flush_held(out, final=True)
        return self._frames.join(out)

    def _last_event(self, out: list[F]) -> bool:
        """The event the upstream left without its blank line: relayed if whole, else the cut's error;
        whether that ended the stream."""
        items: list[SseComment | SseEvent] = []
        try:
            self._parser.feed_into(b"\n\n", items)
            whole = [item for item in items if isinstance(item, SseEvent)]
            for event in whole:
                jsoncodec.loads_reencoded(event.data)
        except GatewayError:
            whole = []
        if whole:
            return self._items(items, out)
        self.cx.note("unterminated_event_dropped", f"$[{self.events_in}]", "the upstream closed inside an event")
        self._fail_into(out, StreamError("the agent's stream ended in the middle of an event"))
        return True

    def release(self) -> Out:
        """The look-ahead timer fired: the held event goes out with `final: false`."""
        out: list[F] = []
        if not self._done and self._held is not None:
            self._flush_held(out, final=False)
        return self._frames.join(out)

    def fail(self, error: GatewayError) -> Out:
        """The upstream broke mid-stream (transport error, timeout): one error frame, then done."""
        out: list[F] = []
        if not self._done:
            self._fail_into(out, error)
        return self._frames.join(out)

    def feed_item(self, raw: Any) -> Out:
        """One upstream item that came framed already (a gRPC agent's message, decoded into its
        dialect's StreamResponse): relayed as an SSE event's data would be."""
        out: list[F] = []
        if not self._done:
            at = f"$[{self.events_in}]"
            self.events_in += 1
            self._apply(self._decide, raw, at, out)
        return self._frames.join(out)

    def error(self, hub: JsonObj) -> Out:
        """The upstream ended the stream with an A2A error (hub: a v1.0 JSON-RPC error object): one
        error frame in the client's shape (a held event goes out first, not final), then done."""
        out: list[F] = []
        if not self._done:
            self._flush_held(out, final=False)
            out.append(self._frames.upstream_error(hub, f"$[{self.events_in}]"))
            self.events_out += 1
            self._done = True
        return self._frames.join(out)

    # ---- one upstream event ----------------------------------------------------------------------

    def _event(self, event: SseEvent, out: list[F]) -> None:
        at = f"$[{self.events_in}]"
        self.events_in += 1
        if not event.data or event.data.isspace():
            self.cx.note("empty_event_ignored", at)
            return
        self._apply(self._step, event, at, out)

    def _apply(self, decide: Callable[[Any, str, bool], tuple[list[F], JsonObj | None, bool]], item: Any, at: str,
               out: list[F]) -> None:
        """Decide one item (`_step` or `_decide`) and apply the decision to the relay's state (a GatewayError
        is the agent's fault); no closure per event."""
        try:
            frames, hold, done = decide(item, at, not self._started)
        except GatewayError as exc:
            self._fail_into(out, agent_fault(exc))
            return
        self._started = True
        self._flush_held(out, final=False)
        out.extend(frames)
        self.events_out += len(frames)
        self._held = hold
        self._done = done

    def _step(self, event: SseEvent, at: str, first: bool) -> tuple[list[F], JsonObj | None, bool]:
        """Decide one event, leaving the relay's state alone: (frames to write, item to hold, done)."""
        try:  # the parse alone: the event is written again (jsoncodec's rule for that)
            value = jsoncodec.loads_reencoded(event.data)
        except MalformedEnvelope:
            raise InvalidAgentResponse("agent stream: event data is not JSON", path=at) from None
        if self.upstream_binding is JSONRPC:
            raw = plain_result(value)   # the usual event
            if raw is NOT_PLAIN:
                response = response_from_json(value)
                if response.error is not None:
                    hub = _rpc_error_to_hub(response.error, self.upstream, self.cx, at)
                    return [self._frames.upstream_error(hub, at)], None, True
                raw = response.result
        elif event.event == ERROR_EVENT or looks_like_rest_error(value):
            hub = rest_error_from_http(None, value, self.cx, at)
            return [self._frames.upstream_error(hub, at)], None, True
        else:
            raw = value
        return self._decide(raw, at, first=first)

    def _decide(self, raw: Any, at: str, first: bool) -> tuple[list[F], JsonObj | None, bool]:
        """One upstream item (a StreamResponse in the upstream's dialect), decided as `_step` says."""
        upstream = self.upstream
        if upstream is V10 and raw.__class__ is dict and (first or "kind" in raw) and self.upstream_binding is JSONRPC \
                and (v03 := agent_item(raw, self.cx, at)) is not None:  # a 1.0 card, a v0.3 item: read so, learned
            raw, upstream, self.spoke_v03 = v03, V03RPC, True
        hub = raw if upstream is V10 else translate(
            "stream_response", raw, src=upstream, dst=V10, cx=self.cx, at=at)
        member, payload = member_of(hub, at)
        if member == "task" and self.history_length is not None:
            truncate_history(payload, self.history_length, self.cx, f"{at}.task")
        has_status = member in ("task", "statusUpdate")
        if has_status and upstream is V10:  # its timestamp repaired (a v0.3 agent's by the translation)
            repair_status(payload, self.cx, at, f".{member}")
        state = state_of(payload) if has_status else None
        if self.track and state is not None:
            self.tracked[str(payload.get("id" if member == "task" else "taskId", ""))] = hub
        ends = state in dialects.TERMINAL_V10 or (first and member == "message")
        v03_final = _upstream_final(raw, member, upstream)

        if self.client is V10:
            frames = []
            if first and upstream is not V10 and member in ("statusUpdate", "artifactUpdate"):
                frames.append(self._frames.item(_synthesized_task(member, payload, self.cx, at)))
            frames.append(self._frames.item(hub))
            return frames, None, ends or v03_final is True

        item: JsonObj = translate("stream_response", hub, src=V10, dst=self.client, cx=self.cx, at=at)
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

    def _flush_held(self, out: list[F], *, final: bool) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        self._frames.set_final(held, final)
        out.append(self._frames.item(held))
        self.events_out += 1
        if final:
            self._done = True

    def _fail_into(self, out: list[F], error: GatewayError) -> None:
        """The gateway's own error: flush a held event (not final: the error ends the stream), then done."""
        self._flush_held(out, final=False)
        out.append(self._frames.gateway_error(error))
        self.events_out += 1
        self._done = True


def sse_relay(*, client: Dialect, client_binding: Binding, upstream: Dialect, upstream_binding: Binding,
              rpc_id: Any, cx: Cx, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
              history_length: int | None = None) -> StreamRelay[bytes, bytes]:
    """A relay whose client reads SSE in `client`'s dialect over `client_binding` (JSON-RPC `rpc_id`)."""
    if client_binding not in BINDINGS[client]:
        raise ValueError(f"client: dialect {client.value} is not spoken over {client_binding.value}")
    frames = SseFrames(client, client_binding, rpc_id, cx, cx.quirks.rest_v03_status_table)
    return StreamRelay(frames, upstream=upstream, upstream_binding=upstream_binding, cx=cx,
                       max_event_bytes=max_event_bytes, history_length=history_length)
