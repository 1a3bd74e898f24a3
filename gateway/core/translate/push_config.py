"""Push configs: the inline v0.3 PushNotificationConfig ⇄ v1.0 TaskPushNotificationConfig, and the nested
v0.3 one (task by `taskId` or resource name, as the spec says) ⇄ the flat v1.0 one. No URL rewriting."""

from __future__ import annotations

import re
from typing import Any

from gateway.core.dialects import V03_SPECS, DialectSpec
from gateway.core.errors import Inexpressible, TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, Table, Translator
from gateway.core.translate.shape import absent, drop_unknown, obj, strings
from gateway.core.types import V10, Dialect, JsonObj

_V03_KNOWN = frozenset(("id", "url", "token", "authentication"))
_V10_KNOWN = frozenset(("id", "taskId", "url", "token", "authentication", "tenant"))
_AUTH_V03 = frozenset(("schemes", "credentials"))
_AUTH_V10 = frozenset(("scheme", "credentials"))
_INNER = "pushNotificationConfig"
_NAME = re.compile(r"tasks/([^/]+)/pushNotificationConfigs/([^/]+)")
_TASK_NAME = re.compile(r"tasks/([^/]+)")


def config_name(task_id: str, config_id: str, at: str) -> str:
    """The v0.3 resource name of a config; ids with '/' cannot be carried in it."""
    if "/" in task_id or "/" in config_id:
        raise Inexpressible(at, "task and config ids in a v0.3 resource name may not contain '/'")
    return f"tasks/{task_id}/pushNotificationConfigs/{config_id}"


def parse_config_name(name: Any, at: str) -> tuple[str, str]:
    m = _NAME.fullmatch(name) if type(name) is str else None
    if m is None:
        raise TranslationError(at, "expected 'tasks/{taskId}/pushNotificationConfigs/{configId}'")
    return m.group(1), m.group(2)


def parse_task_name(name: Any, at: str) -> str:
    m = _TASK_NAME.fullmatch(name) if type(name) is str else None
    if m is None:
        raise TranslationError(at, "expected 'tasks/{taskId}'")
    return m.group(1)


def _str(src: JsonObj, key: str, at: str) -> str:
    value = src[key]
    if type(value) is not str:
        raise TranslationError(f"{at}.{key}", "expected a string")
    return value


def _auth_to_v10(auth: Any, cx: Cx, at: str) -> JsonObj:
    auth = obj(auth, at)
    drop_unknown(auth, _AUTH_V03, cx, at)
    schemes = strings(auth.get("schemes", []), f"{at}.schemes")
    out: JsonObj = {}
    if schemes:
        out["scheme"] = schemes[0]
        if len(schemes) > 1:
            cx.note("auth_schemes_truncated", f"{at}.schemes", "v1.0 carries one scheme")
    else:
        cx.note("filled_required", f"{at}.schemes", "no scheme given")
        out["scheme"] = ""
    if "credentials" in auth:
        out["credentials"] = _str(auth, "credentials", at)
    return out


def _auth_from_v10(auth: Any, cx: Cx, at: str) -> JsonObj:
    auth = obj(auth, at)
    drop_unknown(auth, _AUTH_V10, cx, at)
    scheme = auth.get("scheme", "")
    if type(scheme) is not str:
        raise TranslationError(f"{at}.scheme", "expected a string")
    out: JsonObj = {"schemes": [scheme] if scheme else []}
    if "credentials" in auth:
        out["credentials"] = _str(auth, "credentials", at)
    return out


def inline_to_v10(cfg: Any, cx: Cx, at: str) -> JsonObj:
    """v0.3 PushNotificationConfig (both v0.3 dialects share the shape) -> v1.0 flat config."""
    cfg = obj(cfg, at)
    drop_unknown(cfg, _V03_KNOWN, cx, at)
    if "url" not in cfg:
        raise TranslationError(f"{at}.url", "required member is missing")
    out: JsonObj = {}
    if cfg.get("id") is not None:
        out["id"] = _str(cfg, "id", at)
    out["url"] = _str(cfg, "url", at)
    if cfg.get("token") is not None:
        out["token"] = _str(cfg, "token", at)
    if cfg.get("authentication") is not None:
        out["authentication"] = _auth_to_v10(cfg["authentication"], cx, f"{at}.authentication")
    return out


def inline_from_v10(cfg: Any, cx: Cx, at: str) -> JsonObj:
    cfg = obj(cfg, at)
    drop_unknown(cfg, _V10_KNOWN, cx, at)
    if "url" not in cfg:
        raise TranslationError(f"{at}.url", "required member is missing")
    for key in ("taskId", "tenant"):
        if cfg.get(key):
            cx.note("field_dropped", f"{at}.{key}")
    out: JsonObj = {}
    if cfg.get("id") is not None:
        out["id"] = _str(cfg, "id", at)
    out["url"] = _str(cfg, "url", at)
    if cfg.get("token") is not None:
        out["token"] = _str(cfg, "token", at)
    if cfg.get("authentication") is not None:
        out["authentication"] = _auth_from_v10(cfg["authentication"], cx, f"{at}.authentication")
    return out


def _flat(task_id: str | None, inner: JsonObj) -> JsonObj:
    out: JsonObj = {}
    if "id" in inner:
        out["id"] = inner["id"]
    if task_id is not None:
        out["taskId"] = task_id
    out.update((k, v) for k, v in inner.items() if k != "id")
    return out


def _v10_inner(cfg: JsonObj, cx: Cx, at: str) -> tuple[str, JsonObj]:
    cfg = obj(cfg, at)
    task_id = cfg.get("taskId", "")
    if type(task_id) is not str:
        raise TranslationError(f"{at}.taskId", "expected a string")
    if cfg.get("tenant"):
        cx.note("field_dropped", f"{at}.tenant")
    inner = inline_from_v10({k: v for k, v in cfg.items() if k not in ("taskId", "tenant")}, cx, at)
    return task_id, inner


def task_to_v10(spec: DialectSpec) -> Translator:
    """The nested v0.3 config of `spec` as the flat v1.0 one; a resource name's config id must agree
    with the body's."""
    named = spec.resource_names
    known = frozenset(("name" if named else "taskId", _INNER))

    def convert(cfg: Any, cx: Cx, at: str) -> JsonObj:
        cfg = obj(cfg, at)
        drop_unknown(cfg, known, cx, at)
        task_id = None if named else cfg.get("taskId")
        if not named and type(task_id) is not str:
            raise TranslationError(f"{at}.taskId", "required string member is missing or not a string")
        if cfg.get(_INNER) is None:
            absent(cx, f"{at}.{_INNER}")
            return _flat(task_id, {})
        inner = inline_to_v10(cfg[_INNER], cx, f"{at}.{_INNER}")
        if named and cfg.get("name"):
            task_id, config_id = parse_config_name(cfg["name"], f"{at}.name")
            if inner.setdefault("id", config_id) != config_id:
                raise TranslationError(f"{at}.name", "config id in name and body disagree")
        return _flat(task_id, inner)

    return convert


def task_from_v10(spec: DialectSpec) -> Translator:
    named = spec.resource_names

    def convert(cfg: Any, cx: Cx, at: str) -> JsonObj:
        task_id, inner = _v10_inner(cfg, cx, at)
        if not named:
            return {"taskId": task_id, _INNER: inner}
        config_id = inner.get("id")
        if config_id is None:  # v1.0 servers default a missing id to the task id
            cx.note("filled_required", f"{at}.id", "config id defaults to the task id")
            config_id = task_id
        return {"name": config_name(task_id, config_id, at), _INNER: inner}

    return convert


TASK_TO_V10: dict[Dialect, Translator] = {spec.dialect: task_to_v10(spec) for spec in V03_SPECS}
TASK_FROM_V10: dict[Dialect, Translator] = {spec.dialect: task_from_v10(spec) for spec in V03_SPECS}

TRANSLATORS: Table = {
    Family.PUSH_CONFIG: {**{(spec.dialect, V10): inline_to_v10 for spec in V03_SPECS},
                         **{(V10, spec.dialect): inline_from_v10 for spec in V03_SPECS}},
    Family.TASK_PUSH_CONFIG: {**{(d, V10): fn for d, fn in TASK_TO_V10.items()},
                              **{(V10, d): fn for d, fn in TASK_FROM_V10.items()}},
}
