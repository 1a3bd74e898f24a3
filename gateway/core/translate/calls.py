"""Every operation's payloads in every dialect: its params (`params.*`: SendMessage against a `DialectSpec`
with its configuration fast paths, the other v0.3 params objects and proto requests) and its result
(`result.*`: most are objects of another family, `ALIASES`). No envelopes, no paths."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import gateway.core.translate.messages as messages
import gateway.core.translate.push_config as push_config
from gateway.core.dialects import V03_SPECS, DialectSpec
from gateway.core.errors import Inexpressible, TranslationError, UnsupportedOperation
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, FastPath, Table, Translator
from gateway.core.translate.shape import absent, arr, drop_unknown, obj, strings
from gateway.core.types import V03REST, V03RPC, V10, Dialect, JsonObj

R, S, V = V03RPC, V03REST, V10


@functools.cache
def k(*names: str) -> frozenset[str]:
    """The member names a request may carry, as a frozenset built once per distinct list."""
    return frozenset(names)


# ---- rules every request shares ----------------------------------------------------------------------

def required_id(src: JsonObj, key: str, at: str) -> str:
    value = src.get(key)
    if type(value) is not str:
        raise TranslationError(f"{at}.{key}", "required string member is missing or not a string")
    return value


def tenant_in(out: JsonObj, cx: Cx) -> JsonObj:
    """v1.0 requests carry the tenant of the upstream interface they are sent to."""
    if cx.tenant:
        out["tenant"] = cx.tenant
    return out


def tenant_out(src: JsonObj, cx: Cx, at: str) -> None:
    if src.get("tenant"):
        cx.note("field_dropped", f"{at}.tenant", "v0.3 has no tenants")


def metadata_dropped(src: JsonObj, cx: Cx, at: str) -> None:
    if "metadata" in src:
        cx.note("field_dropped", f"{at}.metadata", "no slot in the v1.0 request")


def history_to_v10(value: Any, cx: Cx, at: str) -> int | None:
    """v0.3 `historyLength: 0` means "all" (v1.0: "none"): it is omitted upstream."""
    return _history(value, cx, at, "v0.3 0 = unlimited; omitted")


def history_from_v10(value: Any, cx: Cx, at: str) -> int | None:
    """v1.0 `historyLength: 0` means "none", which a v0.3 agent cannot express: the exchange strips
    history from the result; upstream gets no limit."""
    return _history(value, cx, at, "v1.0 0 = none; history stripped by the gateway")


def _history(value: Any, cx: Cx, at: str, zero: str) -> int | None:
    """A non-negative `historyLength`; 0 (whose meaning the versions disagree on) is noted and omitted."""
    if type(value) is not int or value < 0:
        raise TranslationError(at, "expected a non-negative integer")
    if value == 0:
        cx.note("history_length_zero", at, zero)
        return None
    return value


def _copy_history(params: JsonObj, out: JsonObj, cx: Cx, at: str, fn: Callable[[Any, Cx, str], int | None]) -> None:
    if params.get("historyLength") is not None:
        history = fn(params["historyLength"], cx, f"{at}.historyLength")
        if history is not None:
            out["historyLength"] = history


def push_ids_from_v10(params: Any, cx: Cx, at: str) -> tuple[str, str]:
    """(taskId, id) of a v1.0 request that names one push config (get, delete), in every v0.3 dialect."""
    params = obj(params, at)
    drop_unknown(params, k("taskId", "id", "tenant"), cx, at)
    tenant_out(params, cx, at)
    return required_id(params, "taskId", at), required_id(params, "id", at)


def _plain_modes(modes: Any) -> list[str] | None:
    """A copy of acceptedOutputModes when it is a list of strings; None sends the caller to the full path."""
    if type(modes) is not list:
        return None
    for mode in modes:
        if type(mode) is not str:
            return None
    return list(modes)


# ---- SendMessage --------------------------------------------------------------------------------------
# The configuration translators take the params' path (`at`) and build the configuration's own only
# when they need it; blocking ⇄ returnImmediately, and absent `blocking` defaults per dialect (a quirk).

_NO_CONF: JsonObj = {}
_V10_CONF = frozenset(("acceptedOutputModes", "historyLength", "taskPushNotificationConfig", "returnImmediately"))
_SEND_V10 = frozenset(("message", "configuration", "metadata", "tenant"))


def conf_to_v10(spec: DialectSpec) -> Translator:
    """A v0.3 MessageSendConfiguration of `spec` as v1.0 (the full path)."""
    push_key, blocking_quirk = spec.push_config_member, spec.blocking_quirk or ""
    known = frozenset(("acceptedOutputModes", "historyLength", push_key, "blocking"))

    def convert(conf: Any, cx: Cx, params_at: str) -> JsonObj:
        at = params_at + ".configuration"
        conf = obj(conf, at)
        drop_unknown(conf, known, cx, at)
        out: JsonObj = {}
        if "acceptedOutputModes" in conf:
            out["acceptedOutputModes"] = strings(conf["acceptedOutputModes"], f"{at}.acceptedOutputModes")
        if conf.get(push_key) is not None:
            out["taskPushNotificationConfig"] = push_config.inline_to_v10(conf[push_key], cx, f"{at}.{push_key}")
        _copy_history(conf, out, cx, at, history_to_v10)
        blocking = conf.get("blocking")
        if blocking is not None and type(blocking) is not bool:
            raise TranslationError(f"{at}.blocking", "expected a boolean")
        if blocking is False and cx.quirks.ignore_blocking_false:
            cx.note("blocking_ignored", f"{at}.blocking", "quirk ignore_blocking_false")
            blocking = None
        if blocking is None:
            blocking = bool(getattr(cx.quirks, blocking_quirk))
            cx.note("blocking_defaulted", f"{at}.blocking", str(blocking).lower())
        if not blocking:
            out["returnImmediately"] = True
        return out

    return convert


def conf_from_v10(spec: DialectSpec) -> Translator:
    """A v1.0 SendMessageConfiguration as v0.3 of `spec` (the full path); `blocking` always explicit."""
    push_key = spec.push_config_member

    def convert(conf: Any, cx: Cx, params_at: str) -> JsonObj:
        at = params_at + ".configuration"
        conf = obj(conf, at)
        drop_unknown(conf, _V10_CONF, cx, at)
        out: JsonObj = {}
        if not conf:
            out["blocking"] = True
            return out
        modes = conf.get("acceptedOutputModes")
        if modes is not None:
            out["acceptedOutputModes"] = strings(modes, f"{at}.acceptedOutputModes")
        if conf.get("taskPushNotificationConfig") is not None:
            out[push_key] = push_config.inline_from_v10(conf["taskPushNotificationConfig"], cx,
                                                        f"{at}.taskPushNotificationConfig")
        _copy_history(conf, out, cx, at, history_from_v10)
        immediate = conf.get("returnImmediately", False)
        if type(immediate) is not bool:
            raise TranslationError(f"{at}.returnImmediately", "expected a boolean")
        out["blocking"] = not immediate
        return out

    return convert


def _fast_conf_to_v10(full: Translator) -> Translator:
    """The commonest configuration (output modes, blocking) inline, anything else the full path."""
    def convert(conf: Any, cx: Cx, at: str) -> Any:
        if type(conf) is dict and len(conf) == 2 and conf.get("blocking") is True \
                and (modes := _plain_modes(conf.get("acceptedOutputModes"))) is not None:
            return {"acceptedOutputModes": modes}
        return full(conf, cx, at)
    return convert


def _fast_conf_from_v10(full: Translator) -> Translator:
    """The commonest configuration (output modes only) inline, anything else the full path."""
    def convert(conf: Any, cx: Cx, at: str) -> Any:
        if type(conf) is dict and len(conf) == 1 \
                and (modes := _plain_modes(conf.get("acceptedOutputModes"))) is not None:
            return {"acceptedOutputModes": modes, "blocking": True}
        return full(conf, cx, at)
    return convert


CONF_TO_V10: dict[Dialect, Translator] = {spec.dialect: conf_to_v10(spec) for spec in V03_SPECS}
CONF_FROM_V10: dict[Dialect, Translator] = {spec.dialect: conf_from_v10(spec) for spec in V03_SPECS}
# both v0.3 dialects spell the common configurations alike: one fast path each way serves both
_CONF_FAST = {
    **{(d, V10): FastPath("send_configuration", d, V10, _fast_conf_to_v10(full), full)
       for d, full in CONF_TO_V10.items()},
    **{(V10, d): FastPath("send_configuration", V10, d, _fast_conf_from_v10(full), full)
       for d, full in CONF_FROM_V10.items()},
}


def send_to_v10(spec: DialectSpec) -> Translator:
    """v0.3 MessageSendParams (JSON-RPC) or the P03 SendMessageRequest (REST) as the v1.0 request."""
    msg_fn, conf_fn = messages.TO_V10[spec.dialect], _CONF_FAST[(spec.dialect, V10)].fast
    msg_key, *other_keys = spec.send_message_members
    known = frozenset((msg_key, *other_keys, "configuration", "metadata"))
    default_conf = spec.protojson   # an absent message field is the proto's default message

    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        if type(params) is not dict:
            params = obj(params, at)
        key = msg_key if msg_key in params or not other_keys else \
            next((k for k in other_keys if k in params), other_keys[-1])
        if not known.issuperset(params):
            drop_unknown(params, known, cx, at)
        message = params.get(key)
        out: JsonObj = {"tenant": cx.tenant} if cx.tenant else {}  # the upstream interface's tenant
        if message is None:
            absent(cx, f"{at}.message")
        else:
            out["message"] = msg_fn(message, cx, at + "." + key)
        conf = params.get("configuration")
        if conf is not None or default_conf:
            out["configuration"] = conf_fn(conf if conf is not None else _NO_CONF, cx, at)
        metadata = params.get("metadata")
        if metadata is not None:
            out["metadata"] = metadata if type(metadata) is dict else obj(metadata, f"{at}.metadata")
        return out

    return convert


def send_from_v10(spec: DialectSpec) -> Translator:
    msg_fn, conf_fn = messages.FROM_V10[spec.dialect], _CONF_FAST[(V10, spec.dialect)].fast

    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        if type(params) is not dict:
            params = obj(params, at)
        if not _SEND_V10.issuperset(params):
            drop_unknown(params, _SEND_V10, cx, at)
        if "tenant" in params:
            tenant_out(params, cx, at)
        message = params.get("message")
        if message is None:
            raise TranslationError(f"{at}.message", "required member is missing")
        conf = params.get("configuration")
        out: JsonObj = {"message": msg_fn(message, cx, at + ".message"),
                        "configuration": conf_fn(conf if conf is not None else _NO_CONF, cx, at)}
        metadata = params.get("metadata")
        if metadata is not None:
            out["metadata"] = metadata if type(metadata) is dict else obj(metadata, f"{at}.metadata")
        return out

    return convert


# ---- task-addressed operations: v0.3 JSON-RPC params objects -------------------------------------------

def _get_task_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "historyLength", "metadata"), cx, at)
    metadata_dropped(params, cx, at)
    out = tenant_in({"id": required_id(params, "id", at)}, cx)
    _copy_history(params, out, cx, at, history_to_v10)
    return out


def _get_task_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "historyLength", "tenant"), cx, at)
    tenant_out(params, cx, at)
    out: JsonObj = {"id": required_id(params, "id", at)}
    _copy_history(params, out, cx, at, history_from_v10)
    return out


def _task_id_to_v10(v10_metadata: bool) -> Translator:
    """TaskIdParams; `v10_metadata`: the v1.0 request has a metadata slot (CancelTask does)."""
    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("id", "metadata"), cx, at)
        out = tenant_in({"id": required_id(params, "id", at)}, cx)
        if v10_metadata and params.get("metadata") is not None:
            out["metadata"] = obj(params["metadata"], f"{at}.metadata")
        elif not v10_metadata:
            metadata_dropped(params, cx, at)
        return out
    return convert


def _task_id_from_v10(v10_metadata: bool) -> Translator:
    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("id", "metadata", "tenant") if v10_metadata else k("id", "tenant"), cx, at)
        tenant_out(params, cx, at)
        out: JsonObj = {"id": required_id(params, "id", at)}
        if v10_metadata and params.get("metadata") is not None:
            out["metadata"] = obj(params["metadata"], f"{at}.metadata")
        return out
    return convert


# ---- push configs: the v0.3 JSON-RPC params name the task `id`, v1.0 names it `taskId` -----------------

def _create_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    return tenant_in(push_config.TASK_TO_V10[R](params, cx, at), cx)


def _get_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "pushNotificationConfigId", "metadata"), cx, at)
    metadata_dropped(params, cx, at)
    task_id = required_id(params, "id", at)
    config_id = params.get("pushNotificationConfigId")
    if config_id is None:  # deprecated TaskIdParams form: SDKs default the config id to the task id
        cx.note("filled_required", f"{at}.pushNotificationConfigId", "config id defaults to the task id")
        config_id = task_id
    elif type(config_id) is not str:
        raise TranslationError(f"{at}.pushNotificationConfigId", "expected a string")
    return tenant_in({"taskId": task_id, "id": config_id}, cx)


def _get_push_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    if cx.lenient and type(params) is dict and "id" not in params:   # v0.3's own form without a config id
        absent(cx, f"{at}.id")
        return {"id": required_id(params, "taskId", at)}
    task_id, config_id = push_ids_from_v10(params, cx, at)
    return {"id": task_id, "pushNotificationConfigId": config_id}


def _delete_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "pushNotificationConfigId", "metadata"), cx, at)
    metadata_dropped(params, cx, at)
    task_id, config_id = required_id(params, "id", at), required_id(params, "pushNotificationConfigId", at)
    return tenant_in({"taskId": task_id, "id": config_id}, cx)


def _list_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "metadata"), cx, at)
    metadata_dropped(params, cx, at)
    return tenant_in({"taskId": required_id(params, "id", at)}, cx)


def _list_push_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("taskId", "pageSize", "pageToken", "tenant"), cx, at)
    tenant_out(params, cx, at)
    for key in ("pageSize", "pageToken"):
        if params.get(key):
            cx.note("field_dropped", f"{at}.{key}", "v0.3 lists are not paged; the gateway pages")
    return {"id": required_id(params, "taskId", at)}


# ---- v0.3 REST: the proto request messages, tasks and configs named `tasks/{id}/…` ---------------------

def _named_task_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    """`{name: "tasks/{id}", …}` as the v1.0 `{id, …}` requests (get, cancel, subscribe)."""
    params = obj(params, at)
    drop_unknown(params, k("name", "historyLength"), cx, at)
    out = tenant_in({"id": push_config.parse_task_name(params.get("name"), f"{at}.name")}, cx)
    if params.get("historyLength"):  # proto int32: 0 is "unset" and "unlimited" alike
        out["historyLength"] = params["historyLength"]
    return out


def _named_task_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "historyLength", "tenant", "metadata"), cx, at)
    tenant_out(params, cx, at)
    if params.get("metadata"):
        cx.note("field_dropped", f"{at}.metadata", "no slot in the v0.3 proto request")
    task_id = required_id(params, "id", at)
    if "/" in task_id:
        raise Inexpressible(f"{at}.id", "a task id in a v0.3 resource name may not contain '/'")
    out: JsonObj = {"name": f"tasks/{task_id}"}
    _copy_history(params, out, cx, at, history_from_v10)
    return out


def _rest_create_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    """Both bodies real v0.3 REST clients send: the P03 config or PY03's whole create request."""
    params = obj(params, at)
    to_v10 = push_config.TASK_TO_V10[S]
    if "config" in params or "parent" in params:
        drop_unknown(params, k("parent", "configId", "config"), cx, at)
        cfg = to_v10(params.get("config") or {}, cx, f"{at}.config")
        if params.get("parent"):
            cfg["taskId"] = push_config.parse_task_name(params["parent"], f"{at}.parent")
        if params.get("configId") and "id" not in cfg:
            cfg = {"id": params["configId"], **cfg}
    else:
        cfg = to_v10(params, cx, at)
    if "taskId" not in cfg:
        raise TranslationError(f"{at}.parent", "the task of the config is not named")
    return tenant_in(cfg, cx)


def _rest_create_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    """The body the quirk rest_push_create_body names: the P03 config or PY03's create request."""
    cfg: JsonObj = push_config.TASK_FROM_V10[S](params, cx, at)
    if cx.quirks.rest_push_create_body != "request":  # "auto" not made for an agent: the proto's shape
        return cfg
    task_id, config_id = push_config.parse_config_name(cfg["name"], at)
    return {"parent": f"tasks/{task_id}", "configId": config_id, "config": cfg}


def _rest_push_named_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("name",), cx, at)
    task_id, config_id = push_config.parse_config_name(params.get("name"), f"{at}.name")
    return tenant_in({"taskId": task_id, "id": config_id}, cx)


def _rest_push_named_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    task_id, config_id = push_ids_from_v10(params, cx, at)
    return {"name": push_config.config_name(task_id, config_id, at)}


def _rest_list_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("parent", "pageSize", "pageToken"), cx, at)
    out = tenant_in({"taskId": push_config.parse_task_name(params.get("parent"), f"{at}.parent")}, cx)
    for key in ("pageSize", "pageToken"):
        if params.get(key):
            out[key] = params[key]
    return out


def _rest_list_push_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("taskId", "pageSize", "pageToken", "tenant"), cx, at)
    tenant_out(params, cx, at)
    task_id = required_id(params, "taskId", at)
    if "/" in task_id:
        raise Inexpressible(f"{at}.taskId", "a task id in a v0.3 resource name may not contain '/'")
    out: JsonObj = {"parent": f"tasks/{task_id}"}
    for key in ("pageSize", "pageToken"):
        if params.get(key):
            out[key] = params[key]
    return out


# ---- operations without params or without a v0.3 counterpart -------------------------------------------

def _card_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    if params not in (None, {}):
        obj(params, at)
        drop_unknown(params, k(), cx, at)
    return tenant_in({}, cx)


def _card_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params if params is not None else {}, at)
    drop_unknown(params, k("tenant",), cx, at)
    tenant_out(params, cx, at)
    return {}


def list_tasks_down(value: Any, cx: Cx, at: str) -> Any:
    raise UnsupportedOperation("ListTasks has no v0.3 equivalent")


def _pairs(rpc_to: Translator, rpc_from: Translator, rest_to: Translator,
           rest_from: Translator) -> dict[tuple[Dialect, Dialect], Translator]:
    return {(R, V): rpc_to, (V, R): rpc_from, (S, V): rest_to, (V, S): rest_from}


_NAMED_TASK = (_named_task_to_v10, _named_task_from_v10)


_PARAMS: Table = {
    Family.PARAMS_SEND_MESSAGE: {**{(s.dialect, V): send_to_v10(s) for s in V03_SPECS},
                                 **{(V, s.dialect): send_from_v10(s) for s in V03_SPECS}},
    Family.PARAMS_GET_TASK: _pairs(_get_task_to_v10, _get_task_from_v10, *_NAMED_TASK),
    Family.PARAMS_CANCEL_TASK: _pairs(_task_id_to_v10(True), _task_id_from_v10(True), *_NAMED_TASK),
    Family.PARAMS_SUBSCRIBE_TO_TASK: _pairs(_task_id_to_v10(False), _task_id_from_v10(False), *_NAMED_TASK),
    Family.PARAMS_CREATE_PUSH_CONFIG: _pairs(_create_push_to_v10, push_config.TASK_FROM_V10[R],
                                             _rest_create_to_v10, _rest_create_from_v10),
    Family.PARAMS_GET_PUSH_CONFIG: _pairs(_get_push_to_v10, _get_push_from_v10,
                                          _rest_push_named_to_v10, _rest_push_named_from_v10),
    Family.PARAMS_DELETE_PUSH_CONFIG: _pairs(_delete_push_to_v10, _get_push_from_v10,
                                             _rest_push_named_to_v10, _rest_push_named_from_v10),
    Family.PARAMS_LIST_PUSH_CONFIGS: _pairs(_list_push_to_v10, _list_push_from_v10,
                                            _rest_list_push_to_v10, _rest_list_push_from_v10),
    Family.PARAMS_GET_EXTENDED_CARD: _pairs(_card_to_v10, _card_from_v10, _card_to_v10, _card_from_v10),
    Family.PARAMS_LIST_TASKS: {(V, R): list_tasks_down, (V, S): list_tasks_down},
}
FAST_PATHS = tuple(_CONF_FAST.values())


# ---- results ----------------------------------------------------------------------------------------

ALIASES: Mapping[str, str] = {
    Family.RESULT_SEND_MESSAGE: Family.SEND_RESULT,
    Family.RESULT_GET_TASK: Family.TASK,
    Family.RESULT_CANCEL_TASK: Family.TASK,
    Family.RESULT_CREATE_PUSH_CONFIG: Family.TASK_PUSH_CONFIG,
    Family.RESULT_GET_PUSH_CONFIG: Family.TASK_PUSH_CONFIG,
    Family.RESULT_GET_EXTENDED_CARD: Family.AGENT_CARD,
}


def _configs(items: Any, fn: Translator, cx: Cx, at: str) -> list[JsonObj]:
    return [fn(c, cx, f"{at}[{i}]") for i, c in enumerate(arr(items, at))]


def list_to_v10(spec: DialectSpec) -> Translator:
    """v0.3 JSON-RPC answers a bare array; the v0.3 proto a page `{configs, nextPageToken}`, as v1.0."""
    fn, paged = push_config.TASK_TO_V10[spec.dialect], spec.protojson

    def convert(result: Any, cx: Cx, at: str) -> JsonObj:
        if not paged:
            return {"configs": _configs(result, fn, cx, at)}
        result = obj(result, at)
        out: JsonObj = {"configs": _configs(result.get("configs", []), fn, cx, f"{at}.configs")}
        if result.get("nextPageToken"):
            out["nextPageToken"] = result["nextPageToken"]
        return out

    return convert


def list_from_v10(spec: DialectSpec) -> Translator:
    fn, paged = push_config.TASK_FROM_V10[spec.dialect], spec.protojson

    def convert(result: Any, cx: Cx, at: str) -> Any:
        result = obj(result, at)
        if not paged and result.get("nextPageToken"):
            cx.note("page_truncated", f"{at}.nextPageToken", "v0.3 lists have no pages; the exchange pages")
        configs = _configs(result.get("configs", []), fn, cx, f"{at}.configs")
        if not paged:
            return configs
        out: JsonObj = {"configs": configs}
        if result.get("nextPageToken"):
            out["nextPageToken"] = result["nextPageToken"]
        return out

    return convert


def _empty_as(empty: Any) -> Translator:
    def convert(result: Any, cx: Cx, at: str) -> Any:
        if result not in (None, {}):
            raise TranslationError(at, "expected an empty result")
        return empty
    return convert


_RESULTS: Table = {
    Family.RESULT_LIST_PUSH_CONFIGS: {**{(s.dialect, V10): list_to_v10(s) for s in V03_SPECS},
                                      **{(V10, s.dialect): list_from_v10(s) for s in V03_SPECS}},
    # JSON-RPC v0.3 answers null; v1.0 servers answer null (JSON-RPC) or {} (REST Empty)
    Family.RESULT_DELETE_PUSH_CONFIG: {(V03RPC, V10): _empty_as(None), (V10, V03RPC): _empty_as(None),
                                       (V03REST, V10): _empty_as(None), (V10, V03REST): _empty_as({})},
    Family.RESULT_LIST_TASKS: {(V10, V03RPC): list_tasks_down, (V10, V03REST): list_tasks_down},
}

TRANSLATORS: Table = {**_PARAMS, **_RESULTS}
