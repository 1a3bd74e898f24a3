"""What the parts of an agent's messages and artifacts become besides streamed text and A2UI: the joined
text of a status message, and namespaced CUSTOM events for data (`a2a.data`) and files (`a2a.file`)."""

from __future__ import annotations

from typing import Any

import gateway.core.agui.a2ui as a2ui
import gateway.core.agui.events as ev
from gateway.core.types import JsonObj


def joined_text(parts: Any) -> str:
    if type(parts) is not list:
        return ""
    return "\n".join(p["text"] for p in parts if type(p) is dict and type(p.get("text")) is str and p["text"])


def custom_part(part: JsonObj, owner: JsonObj) -> JsonObj:
    """A data or file part as a CUSTOM event naming the message or artifact it came from (file bytes
    are left out; their size is given)."""
    ref = {k: owner[k] for k in ("messageId", "artifactId") if type(owner.get(k)) is str}
    if "data" in part:
        value: JsonObj = {"data": part["data"], **ref}
        mime = a2ui.part_mime(part)
        if mime:
            value["mediaType"] = mime
        return ev.custom("a2a.data", value)
    value = {k: part[k] for k in ("url", "mediaType", "filename") if k in part}
    if "raw" in part:
        value["size"] = len(part["raw"]) * 3 // 4 if type(part["raw"]) is str else 0
    return ev.custom("a2a.file", {**value, **ref})
