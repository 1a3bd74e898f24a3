"""Builders for front-door core tests: RunAgentInput bodies, v1.0 A2A items and A2UI messages, and a
run driven from input to events with a counter for ids and a fixed clock."""

from __future__ import annotations

import itertools
import json
from typing import Any

from gateway.core.agui import a2ui, inputs
from gateway.core.agui.request import Agent, Call, Options
from gateway.core.agui.run import AguiRun
from gateway.core.agui.session import ThreadSession

NOW = 1_790_000_000.0
V10 = Agent(streaming=True, a2ui=a2ui.PROFILES["v1.0"])
V09 = Agent(streaming=True, a2ui=a2ui.PROFILES["v0.9"])
PLAIN = Agent(streaming=True, a2ui=None)


def body(
    *messages: dict[str, Any], thread: str = "th", run: str = "r1", v1: bool = True, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"threadId": thread, "runId": run, "messages": list(messages), **extra}
    if v1:
        out["protocolVersion"] = "1.0"
    else:
        out.setdefault("tools", [])
        out.setdefault("context", [])
        out.setdefault("state", None)
        out.setdefault("forwardedProps", {})
    return out


def user(text: Any, mid: str = "u1") -> dict[str, Any]:
    return {"id": mid, "role": "user", "content": text}


def action(name: str = "book", surface: str = "s1", **more: Any) -> dict[str, Any]:
    return {"a2uiAction": {"userAction": {"name": name, "surfaceId": surface, **more}}}


class Driver:
    """One run: opening + plan on construction (`events`, `call`), then feed items."""

    def __init__(
        self,
        payload: dict[str, Any],
        session: ThreadSession | None = None,
        *,
        options: Options | None = None,
        agent: Agent = V10,
    ) -> None:
        counter = itertools.count(1)
        self.session = session if session is not None else ThreadSession()
        self.input = inputs.parse(json.dumps(payload).encode())
        self.run = AguiRun(
            self.input,
            self.session,
            options or Options(),
            new_id=lambda: f"gen-{next(counter)}",
            now=lambda: NOW,
        )
        self.events = self.run.opening()
        planned, self.call = self.run.plan(agent)
        self.events += planned

    @property
    def message(self) -> dict[str, Any]:
        assert isinstance(self.call, Call)
        message: dict[str, Any] = self.call.params["message"]
        return message

    def feed(self, *items: dict[str, Any], eof: bool = True) -> list[dict[str, Any]]:
        for item in items:
            self.events += self.run.on_item(item)
        if eof:
            self.events += self.run.on_eof()
        return self.events

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


# ---- v1.0 A2A items ---------------------------------------------------------------------------------


def task(state: str = "submitted", tid: str = "T1", ctx: str = "C1", **more: Any) -> dict[str, Any]:
    return {"task": {"id": tid, "contextId": ctx, "status": {"state": _state(state)}, **more}}


def status(
    state: str,
    *parts: dict[str, Any],
    mid: str = "m1",
    tid: str = "T1",
    ctx: str = "C1",
    role: str = "ROLE_AGENT",
) -> dict[str, Any]:
    st: dict[str, Any] = {"state": _state(state)}
    if parts:
        st["message"] = {"messageId": mid, "role": role, "parts": list(parts)}
    return {"statusUpdate": {"taskId": tid, "contextId": ctx, "status": st}}


def artifact(
    aid: str, *parts: dict[str, Any], append: bool = False, last: bool = False, tid: str = "T1"
) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "taskId": tid,
        "contextId": "C1",
        "artifact": {"artifactId": aid, "parts": list(parts)},
    }
    if append:
        ev["append"] = True
    if last:
        ev["lastChunk"] = True
    return {"artifactUpdate": ev}


def message(*parts: dict[str, Any], mid: str = "am1", role: str = "ROLE_AGENT") -> dict[str, Any]:
    return {"message": {"messageId": mid, "role": role, "contextId": "C1", "parts": list(parts)}}


def text(value: str) -> dict[str, Any]:
    return {"text": value}


def _state(name: str) -> str:
    return "TASK_STATE_" + name.upper().replace("-", "_")


# ---- A2UI messages ----------------------------------------------------------------------------------


def create(sid: str, version: str = "v1.0") -> dict[str, Any]:
    return {"version": version, "createSurface": {"surfaceId": sid, "catalogId": "https://a2ui.org/basic"}}


def update(sid: str, version: str = "v1.0", n: int = 1) -> dict[str, Any]:
    return {"version": version, "updateComponents": {"surfaceId": sid, "components": [{"id": f"c{n}"}]}}


def delete(sid: str, version: str = "v1.0") -> dict[str, Any]:
    return {"version": version, "deleteSurface": {"surfaceId": sid}}


def ui(
    *messages: dict[str, Any], mime: str | None = a2ui.MIME, as_list: bool = False, where: str = "mediaType"
) -> dict[str, Any]:
    part: dict[str, Any] = {"data": list(messages) if as_list or len(messages) != 1 else messages[0]}
    if mime is not None:
        if where == "metadata":
            part["metadata"] = {"mimeType": mime}
        else:
            part[where] = mime
    return part
