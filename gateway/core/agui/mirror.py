"""The thread's A2A ids mirrored into the AG-UI state (`mirror_ids_in_state`): the event that writes
them at `/a2a` before a run ends, and reading them back from `input.state.a2a` for a thread the gateway
no longer knows (a restart, another replica without shared sessions)."""

from __future__ import annotations

from typing import Any

import gateway.core.agui.events as ev
from gateway.core.agui.session import ThreadSession
from gateway.core.dialects import V10_STATE_NUMBER
from gateway.core.types import JsonObj

KEY = "a2a"
_FIELDS = (("contextId", "context_id"), ("taskId", "task_id"), ("taskState", "task_state"))


def ids_of(session: ThreadSession) -> JsonObj:
    """What the thread holds, as the client's state keeps it (absent ids left out; a task state
    only beside its task)."""
    ids = {name: value for name, attr in _FIELDS if (value := getattr(session, attr)) is not None}
    if "taskId" not in ids:
        ids.pop("taskState", None)
    return ids


def recover(state: Any, session: ThreadSession) -> bool:
    """Fill a session that knows no ids from the client's `state.a2a`; whether anything was taken.
    Only strings are taken, and a task state only when it is a v1.0 state name."""
    if session.context_id is not None or session.task_id is not None:
        return False
    mirrored = state.get(KEY) if type(state) is dict else None
    if type(mirrored) is not dict:
        return False
    context_id, task_id, task_state = (mirrored.get(name) for name, _ in _FIELDS)
    if type(context_id) is str and context_id:
        session.context_id = context_id
    if type(task_id) is str and task_id:
        session.task_id = task_id
        if type(task_state) is str and task_state in V10_STATE_NUMBER:
            session.task_state = task_state
    return session.context_id is not None or session.task_id is not None


def mirror_events(state: Any, session: ThreadSession) -> list[JsonObj]:
    """The event that makes the client's `state.a2a` equal to the thread's ids, if it does not yet:
    a STATE_DELTA adding `/a2a` to an object state, a STATE_SNAPSHOT when the client sent no state;
    nothing for a state that is neither (a JSON Patch could not apply to it)."""
    ids = ids_of(session)
    if type(state) is dict:
        if state.get(KEY) == ids:
            return []
        return [ev.state_delta([{"op": "add", "path": "/" + KEY, "value": ids}])]
    if state is None and ids:
        return [ev.state_snapshot({KEY: ids})]
    return []
