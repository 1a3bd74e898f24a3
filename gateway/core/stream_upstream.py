"""Owns the reading of one upstream stream event: line splitting, the StreamResponse member and state,
v0.3 `final`, REST error bodies, history cuts and the synthesised first Task. It holds no stream state."""

from __future__ import annotations

from typing import Any, Final

from gateway.core import dialects
from gateway.core.errors import GatewayError, InvalidAgentResponse, StreamError, TranslationError, as_agent_error
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.types import Binding, Dialect, JsonObj

# enum members as module constants: Enum class attribute lookups are slow on the per-event path
_JSONRPC = Binding.JSONRPC
_REST = Binding.REST
_V03REST = Dialect.V03REST
_V03RPC = Dialect.V03RPC
_V10 = Dialect.V10

BINDINGS: Final = {  # the bindings each dialect is spoken over
    _V03RPC: frozenset({_JSONRPC}),
    _V03REST: frozenset({_REST}),
    _V10: frozenset({_JSONRPC, _REST}),
}
_SUBMITTED: Final = "TASK_STATE_SUBMITTED"


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


def rpc_error_to_hub(error: JsonObj, upstream: Dialect, cx: Cx, at: str) -> JsonObj:
    """An upstream JSON-RPC error object as the hub's (v1.0) error object."""
    if upstream is _V10:
        return error
    hub: JsonObj = translate("error", error, src=upstream, dst=_V10, cx=cx, at=f"{at}.error")
    return hub


def upstream_final(raw: Any, name: str, upstream: Dialect) -> bool | None:
    """The `final` a v0.3 upstream put on this event (None: a v1.0 upstream has no such flag)."""
    if upstream is _V10:
        return None
    if name != "statusUpdate":
        return False
    # the translator accepted `raw`: a status-update object, or a one-member REST wrapper
    ev = raw if upstream is _V03RPC else next(iter(raw.values()))
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


def synthesized_task(name: str, payload: JsonObj, cx: Cx, at: str) -> JsonObj:
    """S10 requires the Task first; a v0.3 agent may start with an update (wire-mapping §5.2)."""
    status = payload["status"] if name == "statusUpdate" else {"state": _SUBMITTED}
    task: JsonObj = {"id": payload.get("taskId", "")}
    if "contextId" in payload:
        task["contextId"] = payload["contextId"]
    task["status"] = status
    cx.note("task_synthesized", at, f"the v0.3 agent began the stream with {name}")
    return {"task": task}
