"""A2UI over A2A and AG-UI: recognising A2UI DataParts, message versions and surfaces, the extension
negotiated from an agent card, and user actions encoded per A2UI version. Pure tables; no AG-UI events."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.types import JsonObj

EXTENSION_PREFIX = "https://a2ui.org/a2a-extension/a2ui/"
MIME_LEGACY = "application/json+a2ui"   # v0.8, v0.9
MIME = "application/a2ui+json"          # v0.9.1 and later
MIME_TYPES = frozenset({MIME_LEGACY, MIME})
ACTIVITY_TYPE = "a2ui-surface"
OPERATIONS_KEY = "a2ui_operations"
SURFACE_ID_PREFIX = "a2ui-surface-"


@dataclass(frozen=True, slots=True)
class Profile:
    """One A2UI version as the gateway speaks it toward an agent."""

    version: str        # the extension's version, e.g. "v0.9.1"
    message_version: str | None  # the `version` member its messages carry (None: v0.8, no member)
    mime: str
    action_key: str     # the member holding a user action


# every version the gateway speaks, oldest first
PROFILES: dict[str, Profile] = {p.version: p for p in (
    Profile("v0.8", None, MIME_LEGACY, "userAction"),
    Profile("v0.9", "v0.9", MIME_LEGACY, "action"),
    Profile("v0.9.1", "v0.9", MIME, "action"),
    Profile("v0.10", "v0.10", MIME, "action"),
    Profile("v1.0", "v1.0", MIME, "action"),
)}
# What front ends draw decides the version, as AG-UI carries no renderer capabilities. The renderers
# people run draw v0.9 messages (`"version": "v0.9"`, so v0.9 and v0.9.1): CopilotKit's A2UI renderer
# from 1.55 on (it imports only @a2ui/web_core/v0_9; 1.50-1.54 drew v0.8 through @a2ui/lit), the
# @a2ui/react and @a2ui/lit renderers (v0.8 and v0.9 only), and assistant-ui's AG-UI adapter (v0.9 and
# v1.0). So the preference, best first, is the newest v0.9, then v0.8; v0.10 and v1.0, which few or no
# renderers draw, only when a configuration asks for them (agui.a2ui_versions).
RENDERED: tuple[str, ...] = ("v0.9.1", "v0.9", "v0.8")
# a message's `version` member → the profile to answer it with (when nothing was negotiated)
_BY_MESSAGE_VERSION = {"v0.9": "v0.9", "v0.10": "v0.10", "v1.0": "v1.0"}

# every surface-scoped operation of every version; v0.9+ `createSurface` starts a surface anew
SURFACE_OPS = frozenset({
    "beginRendering", "surfaceUpdate", "dataModelUpdate",            # v0.8
    "createSurface", "updateComponents", "updateDataModel",          # v0.9+
    "deleteSurface",
})
SURFACELESS_OPS = frozenset({"callFunction", "actionResponse", "callRendererFunction",
                             "agentFunctionResponse", "functionResponse"})
V08_OPS = frozenset({"beginRendering", "surfaceUpdate", "dataModelUpdate"})
CREATE_OP = "createSurface"
DELETE_OP = "deleteSurface"
_ALL_OPS = SURFACE_OPS | SURFACELESS_OPS


def negotiate(card: JsonObj | None, preference: tuple[str, ...] = RENDERED) -> Profile | None:
    """The first version of `preference` (best first) that the agent card lists among its extensions
    (`capabilities.extensions[].uri`); None when it lists none of them."""
    caps = card.get("capabilities") if type(card) is dict else None
    exts = caps.get("extensions") if type(caps) is dict else None
    listed: set[str] = set()
    for ext in exts if type(exts) is list else ():
        uri = ext.get("uri") if type(ext) is dict else None
        if type(uri) is str and uri.startswith(EXTENSION_PREFIX):
            listed.add(uri[len(EXTENSION_PREFIX):].strip("/"))
    return next((PROFILES[v] for v in preference if v in listed and v in PROFILES), None)


def extension_uri(profile: Profile) -> str:
    return EXTENSION_PREFIX + profile.version


# ---- recognising A2UI in parts ---------------------------------------------------------------------

def part_mime(part: JsonObj) -> str | None:
    """The media type of a v1.0 part: `mediaType`, else `metadata.mimeType`, else a top-level `mimeType`."""
    md = part.get("metadata")
    nested = md.get("mimeType") if type(md) is dict else None
    for value in (part.get("mediaType"), nested, part.get("mimeType")):
        if type(value) is str and value:
            return value
    return None


def op_of(message: Any) -> str | None:
    """The operation a message performs: its one known A2UI member (beside `version`)."""
    if type(message) is not dict:
        return None
    ops = [k for k in message if k in _ALL_OPS]
    return ops[0] if len(ops) == 1 and type(message[ops[0]]) is dict else None


def messages_of(part: JsonObj, *, sniff: bool) -> list[JsonObj] | None:
    """The A2UI messages a v1.0 DataPart carries (object or list `data`), or None when it is not A2UI:
    it is when its media type says so, or (sniffing) when every message has exactly one A2UI operation."""
    if "data" not in part:
        return None
    data = part["data"]
    items = data if type(data) is list else [data]
    if part_mime(part) in MIME_TYPES:
        return [m for m in items if type(m) is dict]
    if sniff and items and all(op_of(m) is not None for m in items):
        return list(items)
    return None


def surface_of(message: JsonObj) -> str | None:
    op = op_of(message)
    if op is None or op not in SURFACE_OPS:
        return None
    sid = message[op].get("surfaceId")
    return sid if type(sid) is str else None


def profile_of_message(message: JsonObj, mime: str | None) -> Profile:
    """The profile a surface's messages imply: their `version` member (v0.8 has none), refined by the
    media type they came with (v0.9 messages in `application/a2ui+json` are v0.9.1)."""
    op = op_of(message)
    version = message.get("version")
    if version is None and op in V08_OPS:
        return PROFILES["v0.8"]
    name = _BY_MESSAGE_VERSION.get(version if type(version) is str else "", "v1.0")
    if name == "v0.9" and mime == MIME:
        name = "v0.9.1"
    return PROFILES[name]


# ---- user actions ----------------------------------------------------------------------------------

class InvalidAction(ValueError):
    """`forwardedProps.a2uiAction` is not a usable user action (→ 422 a2ui.invalid_action)."""


def read_action(forwarded: Any) -> JsonObj | None:
    """The `userAction` of `forwardedProps.a2uiAction`, normalised (`actionName` → `name`); None when the
    run carries no action; InvalidAction when it carries a broken one."""
    if type(forwarded) is not dict or "a2uiAction" not in forwarded:
        return None
    wrapper = forwarded["a2uiAction"]
    action = wrapper.get("userAction") if type(wrapper) is dict else None
    if type(action) is not dict:
        raise InvalidAction("forwardedProps.a2uiAction.userAction must be an object")
    out = dict(action)
    if "name" not in out and "actionName" in out:
        out["name"] = out["actionName"]
    out.pop("actionName", None)
    for key in ("name", "surfaceId"):
        if type(out.get(key)) is not str or not out[key]:
            raise InvalidAction(f"forwardedProps.a2uiAction.userAction.{key} must be a non-empty string")
    if "context" in out and type(out["context"]) is not dict:
        raise InvalidAction("forwardedProps.a2uiAction.userAction.context must be an object")
    if "sourceComponentId" in out and type(out["sourceComponentId"]) is not str:
        raise InvalidAction("forwardedProps.a2uiAction.userAction.sourceComponentId must be a string")
    return out


def rfc3339(epoch_seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(epoch_seconds, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def complete_action(action: JsonObj, now: float) -> JsonObj:
    """The action with every member the schemas require (v0.8 `userAction`, v0.9+/v1.0 `action`)."""
    stamp = action.get("timestamp")
    out: JsonObj = {"name": action["name"], "surfaceId": action["surfaceId"],
                    "sourceComponentId": action.get("sourceComponentId") or "unknown",
                    "timestamp": stamp if type(stamp) is str and stamp else rfc3339(now),
                    "context": action.get("context") or {}}
    out.update({k: v for k, v in action.items() if k in ("wantResponse", "actionId")})
    return out


# encoding name → how the action's DataPart `data` is built from (profile, completed action)
def _wrapped(profile: Profile, action: JsonObj) -> JsonObj:
    if profile.message_version is None:
        return {profile.action_key: action}
    return {"version": profile.message_version, profile.action_key: action}


ENCODINGS = ("auto", "v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0", "bare")
_RESPONSE_AWARE = frozenset({"v0.10", "v1.0"})  # versions whose actions carry wantResponse/actionId


def action_part(action: JsonObj, profile: Profile, encoding: str = "auto") -> JsonObj:
    """One v1.0 DataPart holding `action` (already completed) for an agent speaking `profile`."""
    target = PROFILES.get(encoding, profile)
    body = action if target.version in _RESPONSE_AWARE else {k: v for k, v in action.items()
                                                             if k not in ("wantResponse", "actionId")}
    data = body if encoding == "bare" else _wrapped(target, body)
    return {"data": data, "mediaType": profile.mime, "metadata": {"mimeType": profile.mime}}


def action_text(action: JsonObj) -> str:
    """The a2ui-middleware wording, for agents without the A2UI extension."""
    return (f'User performed action "{action["name"]}" on surface "{action["surfaceId"]}". '
            f"Context: {jsoncodec.dumps(action.get('context') or {})}")


def client_capabilities(profile: Profile, context: Any) -> JsonObj | None:
    """`a2uiClientCapabilities` from the CopilotKit context entry describing the A2UI catalog, if any."""
    catalogs: list[str] = []
    for entry in context if type(context) is list else ():
        desc = entry.get("description") if type(entry) is dict else None
        if type(desc) is not str or not desc.startswith("A2UI Component Schema"):
            continue
        try:
            value = jsoncodec.loads(entry.get("value") or "")
        except GatewayError:
            continue
        catalog = value.get("catalogId") if type(value) is dict else None
        if type(catalog) is str and catalog not in catalogs:
            catalogs.append(catalog)
    if not catalogs:
        return None
    caps: JsonObj = {"supportedCatalogIds": catalogs}
    return caps if profile.message_version is None else {profile.message_version: caps}
