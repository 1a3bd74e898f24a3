"""`AguiRun`, one AG-UI run as a state machine over v1.0 A2A items: RUN_STARTED first, agent text as text
messages, A2UI as per-surface activity snapshots, other parts as CUSTOM events, and exactly one
RUN_FINISHED or RUN_ERROR last with every text closed. Sans-IO; ids and time are injected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gateway.core.agui.a2ui as a2ui
import gateway.core.agui.events as ev
import gateway.core.agui.mirror as mirror
from gateway.core.agui.compact import MAX_SNAPSHOT_BYTES, for_snapshot
from gateway.core.agui.inputs import RunInput
from gateway.core.agui.parts import custom_part, joined_text
from gateway.core.agui.request import Agent, Call, Options, plan_call
from gateway.core.agui.session import ThreadSession, remember
from gateway.core.agui.text import Mode, Texts
from gateway.core.dialects import INTERRUPTED_V10, STATE_FROM_V10, STREAM_MEMBER_ALIASES_V10, TERMINAL_V10
from gateway.core.types import JsonObj

# JSON-RPC errors meaning the stored task cannot be continued (TaskNotFound, UnsupportedOperation)
_STALE_TASK_CODES = frozenset({-32001, -32004})
# terminal state → (error code, default message); None: the run finishes
_TERMINAL_ERRORS: dict[str, tuple[str, str] | None] = {
    "TASK_STATE_COMPLETED": None,
    "TASK_STATE_FAILED": ("a2a.task_failed", "upstream task failed"),
    "TASK_STATE_REJECTED": ("a2a.task_rejected", "upstream agent rejected the task"),
    "TASK_STATE_CANCELED": ("a2a.task_canceled", "upstream task was canceled"),
}
_ERROR_STATES = frozenset({"TASK_STATE_FAILED", "TASK_STATE_REJECTED"})
_INTERRUPT_REASONS = {"TASK_STATE_INPUT_REQUIRED": "input_required",
                      "TASK_STATE_AUTH_REQUIRED": "a2a:auth_required"}


def _state_name(state: Any) -> str:
    return STATE_FROM_V10.get(state, state) if type(state) is str else "unknown"


class AguiRun:
    """One run: `opening()`, `plan(agent)`, then `on_item`/`on_rpc_error` per upstream result and
    `on_eof()` (or `fail()`); every method returns the AG-UI events to send, in order."""

    def __init__(self, inp: RunInput, session: ThreadSession, options: Options, *,
                 new_id: Callable[[], str], now: Callable[[], float]) -> None:
        self.input, self.session, self.options = inp, session, options
        self._new_id, self._now = new_id, now
        self._texts = Texts()
        self._state: str | None = None
        self._status_text = ""
        self._forwarded: str | None = None
        self._sent_task: str | None = None
        self._resubscribe = False
        self.done = False
        self.settled = False      # an interrupted state was reached: the run ends at upstream EOF
        self.items = 0

    # ---- start ------------------------------------------------------------------------------------

    def opening(self) -> list[JsonObj]:
        out = [ev.run_started(self.input.thread_id, self.input.run_id, protocol10=self.input.protocol10)]
        wanted = self.input.forwarded.get("a2a")
        if type(wanted) is dict and wanted.get("replaySurfaces") is True:
            out += [self._snapshot(sid, list(s.ops)) for sid, s in self.session.surfaces.live.items()]
        return out

    def plan(self, agent: Agent) -> tuple[list[JsonObj], Call | None]:
        """The call to make upstream (None: the run is already over) and the events before it."""
        if self.options.mirror_ids_in_state:
            mirror.recover(self.input.state, self.session)
        plan = plan_call(self.input, self.session, agent, self.options, self._now())
        self._forwarded, self._sent_task, self._resubscribe = plan.forwarded, plan.task_id, plan.resubscribe
        if plan.resubscribe:   # the client may have lost them with the connection: paint them once more
            plan.events += [self._snapshot(sid, list(s.ops)) for sid, s in self.session.surfaces.live.items()]
        if plan.error is not None:
            return [*plan.events, *self._error(*plan.error)], None
        if plan.call is None:
            return [*plan.events, *self._finish()], None
        return plan.events, plan.call

    # ---- upstream results -------------------------------------------------------------------------

    def on_item(self, item: JsonObj) -> list[JsonObj]:
        """One v1.0 StreamResponse (`task`, `message`, `statusUpdate` or `artifactUpdate`)."""
        if self.done or type(item) is not dict or len(item) != 1:
            return [] if self.done else self.fail("upstream.protocol_error", "not a StreamResponse")
        ((key, value),) = item.items()
        handler = self._HANDLERS.get(STREAM_MEMBER_ALIASES_V10.get(key, key))
        if handler is None or type(value) is not dict:
            return self.fail("upstream.protocol_error", f"unexpected stream item {key!r}")
        self.items += 1
        if self._forwarded is not None:   # the agent took the message: do not send it again
            self.session.last_forwarded, self._forwarded = self._forwarded, None
        return handler(self, value)

    def on_rpc_error(self, error: JsonObj) -> list[JsonObj]:
        if self.done:
            return []
        code = error.get("code")
        if code in _STALE_TASK_CODES and self._sent_task is not None:
            self.session.task_id = self.session.task_state = None
            if self._resubscribe:   # the task ended meanwhile: what the thread holds is its last word
                return self._finish()
        message = error.get("message") if type(error.get("message")) is str else "upstream error"
        return self._error(f"a2a.rpc.{code}", str(message))

    def on_eof(self) -> list[JsonObj]:
        if self.done:
            return []
        if self.settled:
            return self._finish(interrupted=True)
        return self._error("upstream.incomplete", "upstream stream ended before the task finished")

    def fail(self, code: str, message: str) -> list[JsonObj]:
        """End the run with RUN_ERROR (transport failures, timeouts, internal errors)."""
        return [] if self.done else self._error(code, message)

    # ---- item handlers ----------------------------------------------------------------------------

    def _task(self, task: JsonObj) -> list[JsonObj]:
        status: JsonObj = task["status"] if type(task.get("status")) is dict else {}
        self._ids(task.get("contextId"), task.get("id"))
        out = [ev.custom("a2a.task", {"taskId": task.get("id"), "contextId": task.get("contextId"),
                                      "state": _state_name(status.get("state"))})]
        state = status.get("state")
        message = status.get("message")
        if not (type(message) is dict and message.get("messageId") in self.session.seen):   # not a replay
            out += self._status_message(message, state)
        task_id = str(task.get("id"))
        for artifact in task.get("artifacts") or []:
            if type(artifact) is dict and self._artifact_source(task_id, artifact) not in self.session.seen:
                out += self._artifact_parts(artifact, task_id, "new", last=True)
        return out + self._enter(state)

    def _message(self, message: JsonObj) -> list[JsonObj]:
        self._ids(message.get("contextId"), None)
        if message.get("role") == "ROLE_USER":
            return []
        out = self._parts(message.get("parts"), self._message_source(message), "cumulative", message)
        return out + self._finish()

    def _status(self, update: JsonObj) -> list[JsonObj]:
        status: JsonObj = update["status"] if type(update.get("status")) is dict else {}
        self._ids(update.get("contextId"), update.get("taskId"))
        state = status.get("state")
        return self._status_message(status.get("message"), state) + self._enter(state)

    def _artifact(self, update: JsonObj) -> list[JsonObj]:
        self._ids(update.get("contextId"), update.get("taskId"))
        artifact = update.get("artifact")
        if type(artifact) is not dict:
            return []
        mode: Mode = "append" if update.get("append") is True else "new"
        last = update.get("lastChunk") is True
        return self._artifact_parts(artifact, str(update.get("taskId")), mode, last=last)

    _HANDLERS: ClassVar[dict[str, Callable[[AguiRun, JsonObj], list[JsonObj]]]] = {
        "task": _task, "message": _message, "statusUpdate": _status, "artifactUpdate": _artifact,
    }

    # ---- content ----------------------------------------------------------------------------------

    def _status_message(self, message: Any, state: Any) -> list[JsonObj]:
        out = self._texts.close() if state != self._state else []
        self._status_text = ""
        if type(message) is not dict or message.get("role") == "ROLE_USER":
            return out
        self._status_text = joined_text(message.get("parts"))
        if state in _ERROR_STATES:   # its text becomes the RUN_ERROR message, not a chat message
            return out + self._parts(message.get("parts"), "", "cumulative", message, text=False)
        return out + self._parts(message.get("parts"), self._message_source(message), "cumulative", message)

    def _artifact_parts(self, artifact: JsonObj, task_id: str, mode: Mode, *, last: bool) -> list[JsonObj]:
        source = self._artifact_source(task_id, artifact)
        out = self._parts(artifact.get("parts"), source, mode, artifact)
        return out + (self._texts.end(source) if last else [])

    @staticmethod
    def _artifact_source(task_id: str, artifact: JsonObj) -> str:
        return f"artifact:{task_id}:{artifact.get('artifactId')}"

    def _parts(self, parts: Any, source: str, mode: Mode, owner: JsonObj, *,
               text: bool = True) -> list[JsonObj]:
        texts: list[str] = []
        found: list[JsonObj] = []
        mime: str | None = None
        extra: list[JsonObj] = []
        for part in parts if type(parts) is list else ():
            if type(part) is not dict:
                continue
            if type(part.get("text")) is str:
                texts.append(part["text"])
                continue
            messages = a2ui.messages_of(part, sniff=self.options.a2ui_sniff)
            if messages is not None:
                found += messages
                mime = mime or a2ui.part_mime(part)
            else:
                extra.append(custom_part(part, owner))
        joined = "\n".join(t for t in texts if t)
        if source:
            remember(self.session, source)
        out = self._texts.say(source, joined, mode) if text and (joined or mode == "append") else []
        if found:
            snapshots, surfaceless = self.session.surfaces.apply(found, mime)
            out += [self._snapshot(sid, ops) for sid, ops in snapshots]
            out += [ev.custom("a2ui.message", {"message": m, "version": m.get("version")})
                    for m in surfaceless]
        return out + extra

    def _snapshot(self, surface_id: str, ops: list[JsonObj]) -> JsonObj:
        """One surface's log as an activity snapshot, compacted (`snapshot_mode`, `compact_above_bytes`);
        a surface too large for one event even compacted becomes an `a2ui.warning` (the log is kept)."""
        sent = for_snapshot(ops, self.options.snapshot_mode, self.options.compact_above_bytes)
        if sent is None:
            message = f"surface {surface_id!r} is too large for one event, even compacted ({MAX_SNAPSHOT_BYTES} bytes)"
            return ev.custom("a2ui.warning", {"code": "a2ui.snapshot_too_large", "message": message,
                                              "surfaceId": surface_id})
        return ev.activity_snapshot(a2ui.SURFACE_ID_PREFIX + surface_id, a2ui.ACTIVITY_TYPE,
                                    {a2ui.OPERATIONS_KEY: sent})

    def _message_source(self, message: JsonObj) -> str:
        mid = message.get("messageId")
        return mid if type(mid) is str and mid else self._new_id()

    # ---- states and the end -----------------------------------------------------------------------

    def _ids(self, context_id: Any, task_id: Any) -> None:
        if type(context_id) is str and context_id and self.options.contextid_mode == "server":
            self.session.context_id = context_id
        if type(task_id) is str and task_id:
            self.session.task_id = task_id

    def _enter(self, state: Any) -> list[JsonObj]:
        if type(state) is not str:
            return []
        self._state = self.session.task_state = state
        if state in INTERRUPTED_V10:
            self.settled = True
            value = {"taskId": self.session.task_id, "contextId": self.session.context_id,
                     "state": _state_name(state)}
            out = [*self._texts.close(), ev.custom("a2a.task", value)]
            if state == "TASK_STATE_AUTH_REQUIRED":
                out.append(ev.custom("a2a.auth_required", value))
            return out
        self.settled = False
        if state not in TERMINAL_V10:
            return []
        self.session.task_id = None
        error = _TERMINAL_ERRORS[state]
        if state == "TASK_STATE_CANCELED" and self.input.protocol10:
            return self._finish(outcome={"type": "cancelled"})
        if error is None:
            return self._finish()
        return self._error(error[0], self._status_text.strip() or error[1])

    def _finish(self, *, interrupted: bool = False, outcome: JsonObj | None = None) -> list[JsonObj]:
        out = [*self._texts.close(), *self._mirror()]
        self.done = True
        if outcome is None and self.input.protocol10:
            outcome = self._interrupt() if interrupted else None
            outcome = outcome or {"type": "success"}
        return [*out, ev.run_finished(self.input.thread_id, self.input.run_id, outcome)]

    def _interrupt(self) -> JsonObj | None:
        task_id = self.session.task_id
        if not self.options.input_required_as_interrupt or not task_id:
            return None
        interrupt: JsonObj = {"id": f"a2a:{task_id}",
                              "reason": _INTERRUPT_REASONS.get(self._state or "", "input_required"),
                              "metadata": {"taskId": task_id, "contextId": self.session.context_id}}
        if self._status_text.strip():
            interrupt["message"] = self._status_text
        self.session.pending_interrupt = interrupt["id"]
        return {"type": "interrupt", "interrupts": [interrupt]}

    def _mirror(self) -> list[JsonObj]:
        return mirror.mirror_events(self.input.state, self.session) if self.options.mirror_ids_in_state else []

    def _error(self, code: str, message: str) -> list[JsonObj]:
        out = [*self._texts.close(), *self._mirror()]
        self.done = True
        return [*out, ev.run_error(message, code)]

