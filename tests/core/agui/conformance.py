"""AG-UI conformance checks shared by the front-door tests: every event validated by the official
`ag-ui-protocol` models, the run lifecycle the clients enforce, and the SSE framing byte by byte."""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import Event
from pydantic import TypeAdapter

_EVENT = TypeAdapter(Event)
TERMINAL = ("RUN_FINISHED", "RUN_ERROR")


def validate(events: list[dict[str, Any]], *, protocol10: bool | None = None) -> None:
    """Each event validates as an AG-UI 1.0 event; the stream obeys the client's lifecycle rules:
    RUN_STARTED first, exactly one terminal event last, text messages opened once, never an empty
    delta, all closed before the end; no `outcome` for 0.0.x clients (protocol10 False)."""
    assert events, "no events"
    for event in events:
        _EVENT.validate_python(event)
        assert None not in event.values(), f"null member in {event}"
    assert events[0]["type"] == "RUN_STARTED", events[0]
    types = [e["type"] for e in events]
    assert types[-1] in TERMINAL, types
    assert sum(t in TERMINAL for t in types) == 1, types
    assert types.count("RUN_STARTED") == 1, types
    open_ids: set[str] = set()
    seen: set[str] = set()
    for event in events:
        kind = event["type"]
        if kind == "TEXT_MESSAGE_START":
            assert event["messageId"] not in seen, f"message id reused: {event}"
            open_ids.add(event["messageId"])
            seen.add(event["messageId"])
        elif kind == "TEXT_MESSAGE_CONTENT":
            assert event["messageId"] in open_ids, event
            assert event["delta"], f"empty delta: {event}"
        elif kind == "TEXT_MESSAGE_END":
            open_ids.remove(event["messageId"])
        elif kind in TERMINAL:
            assert not open_ids, f"{kind} with open text messages {open_ids}"
        if protocol10 is False:
            assert "outcome" not in event and "protocolVersion" not in event, event


def parse_sse(body: bytes) -> list[dict[str, Any]]:
    """The events of an AG-UI SSE body; asserts the framing: LF only, one `data:` line per event,
    comments (keep-alives) allowed."""
    assert b"\r" not in body, "CR in the AG-UI stream"
    assert body.endswith(b"\n\n") or not body
    out = []
    for block in body.split(b"\n\n")[:-1]:
        lines = [ln for ln in block.split(b"\n") if not ln.startswith(b":")]
        if not lines:
            continue
        assert len(lines) == 1 and lines[0].startswith(b"data: "), block
        out.append(json.loads(lines[0][6:]))
    return out


def texts(events: list[dict[str, Any]]) -> dict[str, str]:
    """The assistant text per AG-UI message id, as a client assembles it."""
    out: dict[str, str] = {}
    for event in events:
        if event["type"] == "TEXT_MESSAGE_CONTENT":
            out[event["messageId"]] = out.get(event["messageId"], "") + event["delta"]
    return out


def snapshots(events: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [
        (e["messageId"], e["content"]["a2ui_operations"]) for e in events if e["type"] == "ACTIVITY_SNAPSHOT"
    ]
