"""AG-UI event constructors (plain camelCase dicts, absent optionals omitted, never null) and their SSE
framing (`data: <compact JSON>\\n\\n`, LF only). It knows nothing of A2A or A2UI."""

from __future__ import annotations

from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.types import JsonObj

RUN_STARTED = "RUN_STARTED"
RUN_FINISHED = "RUN_FINISHED"
RUN_ERROR = "RUN_ERROR"
TEXT_MESSAGE_START = "TEXT_MESSAGE_START"
TEXT_MESSAGE_CONTENT = "TEXT_MESSAGE_CONTENT"
TEXT_MESSAGE_END = "TEXT_MESSAGE_END"
ACTIVITY_SNAPSHOT = "ACTIVITY_SNAPSHOT"
CUSTOM = "CUSTOM"
STATE_SNAPSHOT = "STATE_SNAPSHOT"
STATE_DELTA = "STATE_DELTA"

TERMINAL = frozenset({RUN_FINISHED, RUN_ERROR})
PING = b": ping\n\n"


def run_started(thread_id: str, run_id: str, *, protocol10: bool) -> JsonObj:
    event: JsonObj = {"type": RUN_STARTED, "threadId": thread_id, "runId": run_id}
    if protocol10:
        event["protocolVersion"] = "1.0"
    return event


def run_finished(thread_id: str, run_id: str, outcome: JsonObj | None = None) -> JsonObj:
    event: JsonObj = {"type": RUN_FINISHED, "threadId": thread_id, "runId": run_id}
    if outcome is not None:
        event["outcome"] = outcome
    return event


def run_error(message: str, code: str | None = None) -> JsonObj:
    event: JsonObj = {"type": RUN_ERROR, "message": message or "run failed"}
    if code:
        event["code"] = code
    return event


def text_start(message_id: str) -> JsonObj:
    return {"type": TEXT_MESSAGE_START, "messageId": message_id, "role": "assistant"}


def text_content(message_id: str, delta: str) -> JsonObj:
    return {"type": TEXT_MESSAGE_CONTENT, "messageId": message_id, "delta": delta}


def text_end(message_id: str) -> JsonObj:
    return {"type": TEXT_MESSAGE_END, "messageId": message_id}


def activity_snapshot(message_id: str, activity_type: str, content: JsonObj, *,
                      replace: bool = True) -> JsonObj:
    return {"type": ACTIVITY_SNAPSHOT, "messageId": message_id, "activityType": activity_type,
            "content": content, "replace": replace}


def state_snapshot(snapshot: Any) -> JsonObj:
    return {"type": STATE_SNAPSHOT, "snapshot": snapshot}


def state_delta(patch: list[JsonObj]) -> JsonObj:
    """`patch`: RFC 6902 JSON Patch operations on the client's state."""
    return {"type": STATE_DELTA, "delta": patch}


def custom(name: str, value: Any) -> JsonObj:
    return {"type": CUSTOM, "name": name, "value": value}


def frame(event: JsonObj) -> bytes:
    """One event as one SSE event; JSON never contains a raw line break, so one `data:` line."""
    return b"data: " + jsoncodec.dumpb(event) + b"\n\n"


def frames(events: list[JsonObj]) -> bytes:
    return b"".join(b"data: " + jsoncodec.dumpb(e) + b"\n\n" for e in events)
