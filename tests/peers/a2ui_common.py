"""Owns the A2UI scenario both A2UI test agents play (stdlib only, imported inside both peer venvs): the
surfaces they paint, the action they expect back and how they check it, the replies to it."""

from __future__ import annotations

from typing import Any

EXTENSION = "https://a2ui.org/a2a-extension/a2ui/"
CATALOG = "https://a2ui.org/specification/v0_9/basic_catalog.json"
# per A2UI version: its extension, its media type, the version member of its messages
PROFILES = {
    "v1.0": {"uri": EXTENSION + "v1.0", "mime": "application/a2ui+json", "version": "v1.0"},
    "v0.9": {"uri": EXTENSION + "v0.9", "mime": "application/json+a2ui", "version": "v0.9"},
}
# per agent generation: the A2UI versions its card lists (the 1.x agent, as a current agent would, both the
# version front ends draw and the newest); it speaks the one the gateway requests
LISTED = {"v10": ("v1.0", "v0.9"), "v03": ("v0.9",)}


def requested(generation: str, extensions: Any) -> dict[str, str] | None:
    """The profile of the first A2UI version the agent lists whose extension the request asks for."""
    return next((PROFILES[v] for v in LISTED[generation] if PROFILES[v]["uri"] in extensions), None)
SURFACES = ("tables", "promo")
ACTION_FIELDS = ("name", "surfaceId", "sourceComponentId", "timestamp", "context")
FAILURE_TEXT = "quota exceeded"


def _msg(version: str, op: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"version": version, op: body}


def paint(version: str) -> list[dict[str, Any]]:
    """The first turn's A2UI messages: two surfaces, each created then given components."""
    out = []
    for sid, label in (("tables", "Book table 4"), ("promo", "Today: free dessert")):
        out.append(_msg(version, "createSurface", {"surfaceId": sid, "catalogId": CATALOG}))
        out.append(
            _msg(
                version,
                "updateComponents",
                {
                    "surfaceId": sid,
                    "components": [
                        {"id": "root", "component": "Column", "children": ["label", "go"]},
                        {"id": "label", "component": "Text", "text": label},
                        {
                            "id": "go",
                            "component": "Button",
                            "child": "label",
                            "action": {"event": {"name": "book"}},
                        },
                    ],
                },
            )
        )
    return out


def answer(version: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    """The reply to the action: update the surface acted on, delete the other one."""
    seats = int(action.get("context", {}).get("seats", 0))  # protobuf Struct numbers are floats
    return [
        _msg(
            version, "updateDataModel", {"surfaceId": "tables", "path": "/booking", "value": {"seats": seats}}
        ),
        _msg(
            version,
            "updateComponents",
            {
                "surfaceId": "tables",
                "components": [{"id": "label", "component": "Text", "text": f"Booked for {seats}"}],
            },
        ),
        _msg(version, "deleteSurface", {"surfaceId": "promo"}),
    ]


def check_action(profile: dict[str, str], data: Any, mime: str) -> tuple[dict[str, Any] | None, str]:
    """The action a user message's A2UI DataPart carries, or None and why it is not schema-complete."""
    if mime != profile["mime"]:
        return None, f"action media type {mime!r}, expected {profile['mime']!r}"
    if not isinstance(data, dict) or data.get("version") != profile["version"]:
        return None, f"action data {data!r} does not carry version {profile['version']!r}"
    action = data.get("action")
    if not isinstance(action, dict):
        return None, f"no action object in {data!r}"
    missing = [k for k in ACTION_FIELDS if k not in action]
    if missing:
        return None, f"action lacks {missing}"
    if action["name"] != "book" or action["surfaceId"] != "tables" or not isinstance(action["context"], dict):
        return None, f"unexpected action {action!r}"
    if not isinstance(action["timestamp"], str) or "T" not in action["timestamp"]:
        return None, f"timestamp {action['timestamp']!r} is not RFC 3339"
    return action, ""
