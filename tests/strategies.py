"""hypothesis strategies for A2A objects: v1.0 (ProtoJSON) and v0.3 JSON-RPC shapes of every data
family, plus arbitrary JSON for the "result or our own error" properties."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

ids = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=8)
texts = st.text(max_size=20)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | texts
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(texts, inner, max_size=3), max_leaves=8)
objects = st.dictionaries(texts, json_values, max_size=3)
metadata = st.none() | objects
b64 = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode())
urls = ids.map(lambda s: f"https://files.example/{s}")
mimes = st.sampled_from(["text/plain", "image/png", "application/json"])
timestamps = st.builds(lambda d, f: f"2025-0{d}-0{d}T1{d}:00:0{d}{f}Z", st.integers(1, 9),
                       st.sampled_from(["", ".5", ".123", ".123456"]))
V10_STATES = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
              "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED",
              "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_UNSPECIFIED"]


def _with(base: dict[str, Any], **optional: Any) -> dict[str, Any]:
    return {**base, **{k: v for k, v in optional.items() if v is not None}}


@st.composite
def v10_part(draw: st.DrawFn) -> dict[str, Any]:
    content = draw(st.sampled_from(["text", "raw", "url", "data"]))
    value = {"text": texts, "raw": b64, "url": urls, "data": json_values}[content]
    part = {content: draw(value)}
    if content in ("raw", "url"):
        part = _with(part, mediaType=draw(st.none() | mimes), filename=draw(st.none() | ids))
    elif draw(st.booleans()):
        part["mediaType"] = draw(mimes)
    return _with(part, metadata=draw(metadata))


@st.composite
def v10_message(draw: st.DrawFn) -> dict[str, Any]:
    msg = {"messageId": draw(ids), "role": draw(st.sampled_from(["ROLE_USER", "ROLE_AGENT"])),
           "parts": draw(st.lists(v10_part(), min_size=1, max_size=3))}
    return _with(msg, contextId=draw(st.none() | ids), taskId=draw(st.none() | ids), metadata=draw(metadata),
                 extensions=draw(st.none() | st.lists(urls, max_size=2)),
                 referenceTaskIds=draw(st.none() | st.lists(ids, max_size=2)))


@st.composite
def v10_artifact(draw: st.DrawFn) -> dict[str, Any]:
    art = {"artifactId": draw(ids), "parts": draw(st.lists(v10_part(), min_size=1, max_size=3))}
    return _with(art, name=draw(st.none() | texts), description=draw(st.none() | texts),
                 metadata=draw(metadata), extensions=draw(st.none() | st.lists(urls, max_size=2)))


@st.composite
def v10_status(draw: st.DrawFn) -> dict[str, Any]:
    return _with({"state": draw(st.sampled_from(V10_STATES))},
                 message=draw(st.none() | v10_message()), timestamp=draw(st.none() | timestamps))


@st.composite
def v10_task(draw: st.DrawFn) -> dict[str, Any]:
    task = {"id": draw(ids), "contextId": draw(ids), "status": draw(v10_status())}
    return _with(task, history=draw(st.none() | st.lists(v10_message(), max_size=2)),
                 artifacts=draw(st.none() | st.lists(v10_artifact(), max_size=2)), metadata=draw(metadata))


@st.composite
def v10_status_update(draw: st.DrawFn) -> dict[str, Any]:
    return _with({"taskId": draw(ids), "contextId": draw(ids), "status": draw(v10_status())},
                 metadata=draw(metadata))


@st.composite
def v10_artifact_update(draw: st.DrawFn) -> dict[str, Any]:
    return _with({"taskId": draw(ids), "contextId": draw(ids), "artifact": draw(v10_artifact())},
                 append=draw(st.none() | st.booleans()), lastChunk=draw(st.none() | st.booleans()),
                 metadata=draw(metadata))


@st.composite
def v10_stream_response(draw: st.DrawFn) -> dict[str, Any]:
    key, strategy = draw(st.sampled_from([("task", v10_task()), ("message", v10_message()),
                                          ("statusUpdate", v10_status_update()),
                                          ("artifactUpdate", v10_artifact_update())]))
    return {key: draw(strategy)}


V10 = {
    "part": v10_part(), "message": v10_message(), "artifact": v10_artifact(), "task_status": v10_status(),
    "task": v10_task(), "status_update": v10_status_update(), "artifact_update": v10_artifact_update(),
    "stream_response": v10_stream_response(),
}
