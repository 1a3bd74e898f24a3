"""Turning one RunAgentInput into at most one A2A call (v1.0 params): the trigger (interrupt answer, user
action, new user messages), user content as parts, context/task continuation and the A2UI extension."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

import gateway.core.agui.a2ui as a2ui
import gateway.core.agui.events as ev
import gateway.core.exchange as exchange
from gateway.core.agui.inputs import RunInput
from gateway.core.agui.session import ThreadSession
from gateway.core.dialects import INTERRUPTED_V10, STATE_TO_V10
from gateway.core.operations import by_name
from gateway.core.types import Binding, JsonObj, Version

ACCEPTED_OUTPUT_MODES = ["text/plain", "application/json", a2ui.MIME_LEGACY, a2ui.MIME]
_MEDIA_TYPES = frozenset({"image", "audio", "video", "document"})
RUNNING_V10 = frozenset({STATE_TO_V10["submitted"], STATE_TO_V10["working"]})


@dataclass(frozen=True, slots=True)
class Options:
    """The front door's per-upstream switches (config section [agui])."""

    contextid_mode: Literal["server", "thread"] = "server"
    unknown_surface: Literal["lenient", "strict"] = "lenient"
    action_encoding: str = "auto"
    a2ui_sniff: bool = True
    input_required_as_interrupt: bool = False
    snapshot_mode: Literal["log", "compact"] = "log"
    compact_above_bytes: int = 1024 * 1024
    mirror_ids_in_state: bool = False


@dataclass(frozen=True, slots=True)
class Agent:
    """What the front door needs to know of the upstream agent (from its card)."""

    streaming: bool = True
    a2ui: a2ui.Profile | None = None


@dataclass(frozen=True, slots=True)
class Call:
    operation: str                 # an OPERATIONS name: send_streaming_message | send_message | cancel_task
    params: JsonObj                # v1.0 params
    extensions: tuple[str, ...] = ()

    def a2a(self, rpc_id: str) -> exchange.Call:
        """The call as the exchange makes it: a v1.0 caller's, over JSON-RPC with `rpc_id` (the run's id),
        so that any agent interface (either version, either binding) can be reached through the hub."""
        return exchange.Call(by_name(self.operation), Version.V10, Binding.JSONRPC, self.params, rpc_id)


@dataclass(slots=True)
class Plan:
    call: Call | None = None
    events: list[JsonObj] = field(default_factory=list)   # warnings to emit before calling
    error: tuple[str, str] | None = None                  # (code, message): end the run at once
    forwarded: str | None = None                          # the user message id to record once accepted
    task_id: str | None = None                            # the task the call continues, if any
    resubscribe: bool = False                             # the call re-attaches to a running task


# ---- user content → v1.0 parts ----------------------------------------------------------------------

def _source_part(item: JsonObj) -> JsonObj | None:
    src = item.get("source")
    if type(src) is not dict or type(src.get("value")) is not str:
        return None
    out: JsonObj = {"url" if src.get("type") == "url" else "raw": src["value"]}
    if type(src.get("mimeType")) is str:
        out["mediaType"] = src["mimeType"]
    return out


def _binary_part(item: JsonObj) -> JsonObj | None:
    key = "url" if type(item.get("url")) is str else "raw" if type(item.get("data")) is str else None
    if key is None:
        return None   # an `id` names a file the client uploaded elsewhere: nothing to forward
    out: JsonObj = {key: item["url" if key == "url" else "data"]}
    if type(item.get("mimeType")) is str:
        out["mediaType"] = item["mimeType"]
    if type(item.get("filename")) is str:
        out["filename"] = item["filename"]
    return out


def _content_part(item: Any) -> JsonObj | None:
    if type(item) is not dict:
        return None
    kind = item.get("type")
    if kind == "text":
        text = item.get("text")
        return {"text": text} if type(text) is str and text.strip() else None
    if kind == "binary":
        return _binary_part(item)
    return _source_part(item) if kind in _MEDIA_TYPES else None


def user_parts(content: Any) -> list[JsonObj]:
    """A user message's AG-UI content as v1.0 parts; empty text is left out."""
    if type(content) is str:
        return [{"text": content}] if content.strip() else []
    return [p for p in map(_content_part, content if type(content) is list else []) if p is not None]


def new_user_messages(messages: list[JsonObj], last_forwarded: str | None) -> list[JsonObj]:
    """User messages after the last one already forwarded; when that one is unknown, the last message
    if it is the user's."""
    ids = [m.get("id") for m in messages]
    if last_forwarded is not None and last_forwarded in ids:
        tail = messages[len(ids) - ids[::-1].index(last_forwarded):]
        return [m for m in tail if m.get("role") == "user"]
    return messages[-1:] if messages and messages[-1].get("role") == "user" else []


def _action_message_id(thread_id: str, run_id: str) -> str:
    return "agui-" + hashlib.sha256(f"{thread_id}\n{run_id}".encode()).hexdigest()[:32]


# ---- the plan ---------------------------------------------------------------------------------------

def _resume_parts(entry: JsonObj) -> list[JsonObj]:
    payload = entry.get("payload")
    if type(payload) is str:
        return [{"text": payload}] if payload.strip() else []
    if type(payload) is dict and type(payload.get("text")) is str:
        return [{"text": payload["text"]}]
    return [] if payload is None else [{"data": payload, "mediaType": "application/json"}]


def _action_parts(inp: RunInput, session: ThreadSession, agent: Agent, options: Options, now: float,
                  plan: Plan) -> list[JsonObj]:
    assert inp.action is not None
    action = a2ui.complete_action(inp.action, now)
    sid = action["surfaceId"]
    profile, deleted = session.surfaces.profile(sid)
    if profile is None or deleted:
        code = "a2ui.surface_deleted" if deleted else "a2ui.unknown_surface"
        message = f"surface {sid!r} was deleted" if deleted else f"no surface {sid!r} is known in this thread"
        if options.unknown_surface == "strict":
            plan.error = (code, message)
            return []
        plan.events.append(ev.custom("a2ui.warning", {"code": code, "message": message, "surfaceId": sid}))
    profile = profile or agent.a2ui or a2ui.PROFILES["v1.0"]
    parts = [a2ui.action_part(action, profile, options.action_encoding)]
    if agent.a2ui is None:
        parts.append({"text": a2ui.action_text(action)})
    return parts


def _resubscription(inp: RunInput, session: ThreadSession, plan: Plan) -> Plan:
    """No new input: re-attach to the thread's task if it is still running (or the client asks)."""
    wanted = inp.forwarded.get("a2a")
    asked = type(wanted) is dict and wanted.get("resubscribe") is True
    if session.task_id and (session.task_state in RUNNING_V10 or asked):
        plan.call = Call("subscribe_to_task", {"id": session.task_id})
        plan.task_id, plan.resubscribe = session.task_id, True
    return plan


def plan_call(inp: RunInput, session: ThreadSession, agent: Agent, options: Options, now: float) -> Plan:
    """The one A2A call this run makes (or none, or an error to end it with)."""
    plan = Plan()
    parts: list[JsonObj] = []
    pending = session.pending_interrupt
    if pending is not None and options.input_required_as_interrupt:
        answer = next((r for r in inp.resume if r.get("interruptId") == pending), None)
        if answer is None:
            plan.error = ("agui.pending_interrupt", f"interrupt {pending!r} must be answered with resume")
            return plan
        session.pending_interrupt = None
        if answer.get("status") == "cancelled" and session.task_id:
            plan.call = Call("cancel_task", {"id": session.task_id})
            return plan
        parts += _resume_parts(answer)
    if inp.action is not None:
        parts += _action_parts(inp, session, agent, options, now, plan)
        if plan.error:
            return plan
    fresh = new_user_messages(inp.messages, session.last_forwarded)
    for message in fresh:
        parts += user_parts(message.get("content"))
    if not parts:
        return _resubscription(inp, session, plan)
    plan.forwarded = fresh[-1]["id"] if fresh else None
    out: JsonObj = {"messageId": plan.forwarded or _action_message_id(inp.thread_id, inp.run_id),
                    "role": "ROLE_USER", "parts": parts}
    context_id = inp.thread_id if options.contextid_mode == "thread" else session.context_id
    if context_id:
        out["contextId"] = context_id
    if session.task_id and session.task_state in INTERRUPTED_V10:
        out["taskId"] = plan.task_id = session.task_id
    extensions: tuple[str, ...] = ()
    if agent.a2ui is not None:
        extensions = (a2ui.extension_uri(agent.a2ui),)
        out["extensions"] = list(extensions)
        caps = a2ui.client_capabilities(agent.a2ui, inp.context)
        if caps is not None:
            out["metadata"] = {"a2uiClientCapabilities": caps}
    params: JsonObj = {"message": out, "configuration": {"acceptedOutputModes": ACCEPTED_OUTPUT_MODES},
                       "metadata": {"ag-ui": {"threadId": inp.thread_id, "runId": inp.run_id}}}
    operation = "send_streaming_message" if agent.streaming else "send_message"
    plan.call = Call(operation, params, extensions)
    return plan
