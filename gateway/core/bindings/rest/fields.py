"""Where HTTP+JSON request fields live besides the body: typed query parameters and v0.3 resource names
(`tasks/{id}`), both read from the OPERATIONS rows, and the ProtoJSON proto-name → json-name rewrite of
bodies (free-form values untouched). No routes (routes.py) and no translation."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from gateway.core.dialects import V10_STATE_BY_NUMBER, V10_STATE_NUMBER
from gateway.core.errors import TranslationError
from gateway.core.operations import OPERATIONS, QueryType
from gateway.core.types import Version

QueryParser = Callable[[str, str], Any]  # (raw value, JSON path) -> typed value

_INT = re.compile(r"[+-]?[0-9]{1,11}")
_INT32 = range(-(2**31), 2**31)
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
                        r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?")
_BOOLS = {"true": True, "false": False, "1": True, "0": False}


def _string(raw: str, at: str) -> str:
    return raw


def _int32(raw: str, at: str) -> int:
    if _INT.fullmatch(raw) is None or int(raw) not in _INT32:
        raise TranslationError(at, f"expected a 32-bit integer, got {raw!r}")
    return int(raw)


def _boolean(raw: str, at: str) -> bool:
    try:
        return _BOOLS[raw.lower()]
    except KeyError:
        raise TranslationError(at, f"expected true or false, got {raw!r}") from None


def _task_state(raw: str, at: str) -> str:
    """A v1.0 TaskState by name or number; the params carry the name."""
    if raw in V10_STATE_NUMBER:
        return raw
    if _INT.fullmatch(raw) is not None and int(raw) in V10_STATE_BY_NUMBER:
        return V10_STATE_BY_NUMBER[int(raw)]
    raise TranslationError(at, f"expected a TaskState name or number, got {raw!r}")


def _timestamp(raw: str, at: str) -> str:
    """An RFC 3339 timestamp (naive ones too, as Python peers send them), passed on as sent."""
    if _TIMESTAMP.fullmatch(raw) is None:
        raise TranslationError(at, f"expected an RFC 3339 timestamp, got {raw!r}")
    return raw


PARSERS: Mapping[QueryType, QueryParser] = {
    "string": _string, "int32": _int32, "bool": _boolean, "task_state": _task_state, "timestamp": _timestamp,
}

# query fields by (operation, version), typed as each operation's RestShape says
QUERY: Mapping[tuple[str, Version], Mapping[str, QueryParser]] = {
    (op.name, version): {name: PARSERS[kind] for name, kind in shape.query.items()}
    for op in OPERATIONS for version, shape in op.rest.items() if shape.query
}


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "_" + m[0].lower(), name)


# every accepted spelling (lowerCamelCase json name or snake_case proto name) -> the json name
QUERY_NAMES: Mapping[tuple[str, Version], Mapping[str, str]] = {
    key: {**{_snake(name): name for name in spec}, **{name: name for name in spec}}
    for key, spec in QUERY.items()
}


def query_params(op: str, version: Version, query: Any) -> dict[str, Any]:
    """The typed query fields of an operation; unknown parameters are ignored, the last repeat wins."""
    names = QUERY_NAMES.get((op, version))
    if not names:
        return {}
    spec = QUERY[(op, version)]
    out: dict[str, Any] = {}
    for key, raw in query:
        name = names.get(key)
        if name is not None:
            out[name] = spec[name](raw, f"$.query.{key}")
    return out


def query_value(value: Any, at: str) -> str:
    """A scalar params field as a query-string value (ProtoJSON spelling)."""
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int or type(value) is str:
        return str(value)
    raise TranslationError(at, "only strings, integers and booleans can travel in a query string")


# ---- v0.3 resource names --------------------------------------------------------------------------

# v0.3 proto request messages: the member holding the resource name and its pattern, per operation
V03_NAMES: Mapping[str, tuple[str, str]] = {
    op.name: shape.resource for op in OPERATIONS
    if (shape := op.rest.get(Version.V03)) is not None and shape.resource is not None
}
CREATE_REQUEST = ("parent", "configId", "config")  # the members of a v0.3 CreateTaskPushNotificationConfigRequest
_CONFIG_NAME = "tasks/{id}/pushNotificationConfigs/{configId}"
_VAR = re.compile(r"\{(\w+)\}")


@functools.cache
def _name_regex(template: str) -> re.Pattern[str]:
    parts = _VAR.split(template)  # literal, var, literal, var, …
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)" for i, p in enumerate(parts)))


def name_vars(template: str) -> tuple[str, ...]:
    return tuple(_VAR.findall(template))


def format_name(template: str, values: Mapping[str, str]) -> str:
    return _VAR.sub(lambda m: values[m[1]], template)


def parse_name(template: str, name: Any, at: str) -> dict[str, str]:
    m = _name_regex(template).fullmatch(name) if type(name) is str else None
    if m is None:
        raise TranslationError(at, f"expected a resource name {template!r}")
    return m.groupdict()


# ---- ProtoJSON: proto field names -> json names ------------------------------------------------------

# Members whose value is free-form JSON (Struct/Value, map<string,string>): nothing below them is renamed.
# v0.3 REST nests data parts as {"data": {"data": …}}: stopping at the outer `data` covers both.
FREE_FORM = frozenset({"metadata", "data", "params", "header", "scopes"})
# map<string, message> members: their keys are data, their values are messages again.
MAPS = frozenset({"securitySchemes", "schemes"})
_ROOT, _MAP_VALUE = "", "\x00map"  # parent markers of the walk
# proto field names whose json_name is not their lowerCamelCase (P03 only), by parent member
_V03_JSON_NAMES: dict[str, dict[str, str]] = {
    _ROOT: {"request": "message", "msg": "message"},  # SendMessageRequest.request, SendMessageResponse.msg
    "status": {"update": "message"},                  # TaskStatus.update
}
_JSON_NAMES: dict[Version, dict[str, dict[str, str]]] = {Version.V03: _V03_JSON_NAMES, Version.V10: {}}
# raw-body tokens without which there is nothing to rename (the walk is skipped)
_TRIGGERS: dict[Version, tuple[bytes, ...]] = {
    Version.V03: (b"_", b'"request"', b'"msg"', b'"update"'),
    Version.V10: (b"_",),
}
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


@functools.lru_cache(maxsize=1024)
def _camel(key: str) -> str | None:
    if _SNAKE.fullmatch(key) is None:
        return None
    first, *rest = key.split("_")
    return first + "".join(p[:1].upper() + p[1:] for p in rest)


def may_need_json_names(raw: bytes, version: Version) -> bool:
    return any(token in raw for token in _TRIGGERS[version])


def _rename(node: dict[str, Any], extra: Mapping[str, str]) -> None:
    renamed: dict[str, str] = {}
    for key in node:
        new = extra.get(key) or _camel(key)
        if new is not None and new not in node and new not in renamed.values():
            renamed[key] = new
    if renamed:
        items = list(node.items())
        node.clear()
        node.update((renamed.get(k, k), v) for k, v in items)


def to_json_names(value: Any, version: Version) -> Any:
    """Rename proto field names (snake_case; P03's `request`/`msg`/`update`) to json names, in place,
    never below free-form members; a name whose json spelling is also present is left alone."""
    extras = _JSON_NAMES[version]
    stack: list[tuple[Any, str]] = [(value, _ROOT)]
    while stack:
        node, parent = stack.pop()
        if type(node) is list:
            stack.extend((item, parent) for item in node if type(item) is dict or type(item) is list)
        elif type(node) is dict:
            if parent in MAPS:
                stack.extend((item, _MAP_VALUE) for item in node.values())
                continue
            _rename(node, extras.get(parent, {}))
            stack.extend((item, key) for key, item in node.items()
                         if key not in FREE_FORM and (type(item) is dict or type(item) is list))
    return value


def v03_create_request(params: Any) -> Any:
    """A v0.3 push-config create in the proto's request form: PY03 sends the whole
    CreateTaskPushNotificationConfigRequest, P03/JS (and the translators) the bare TaskPushNotificationConfig
    (`{name?, pushNotificationConfig}`), whose `parent` and `configId` are then read from its resource name."""
    if type(params) is not dict:
        return params
    request = dict(params) if any(k in params for k in CREATE_REQUEST) else {"config": params}
    config = request.get("config")
    if "parent" not in request and type(config) is dict and "name" in config:
        ids = parse_name(_CONFIG_NAME, config["name"], "$.config.name")
        request = {"parent": f"tasks/{ids['id']}", "configId": ids["configId"], **request}
    return request
