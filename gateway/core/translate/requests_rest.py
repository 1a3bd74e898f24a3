"""Request params in the v0.3 REST dialect: the v0.3 proto request messages with resource names
(`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{cid}`) ⇄ the v1.0 requests. The bodies and
paths they come from are core/bindings/rest.py's business."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import push_config
from gateway.core.translate.requests_common import (
    history_from_v10,
    k,
    push_ids_from_v10,
    required_id,
    tenant_in,
    tenant_out,
)
from gateway.core.translate.shape import drop_unknown, obj
from gateway.core.types import JsonObj

Fn = Callable[[Any, Cx, str], JsonObj]


# ---- v0.3 REST: the proto request messages (resource names) ---------------------------------------

def rest_named(to_rpc_key: str = "id") -> tuple[Fn, Fn]:
    """`{name: "tasks/{id}", …}` ⇄ the v1.0 `{id, …}` requests (get, cancel, subscribe)."""
    def to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("name", "historyLength"), cx, at)
        out = tenant_in({"id": push_config.parse_task_name(params.get("name"), f"{at}.name")}, cx)
        if params.get("historyLength"):  # proto int32: 0 is "unset" and "unlimited" alike
            out["historyLength"] = params["historyLength"]
        return out

    def from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("id", "historyLength", "tenant", "metadata"), cx, at)
        tenant_out(params, cx, at)
        if params.get("metadata"):
            cx.note("field_dropped", f"{at}.metadata", "no slot in the v0.3 proto request")
        task_id = required_id(params, "id", at)
        if "/" in task_id:
            raise TranslationError(f"{at}.id", "a task id in a v0.3 resource name may not contain '/'")
        out: JsonObj = {"name": f"tasks/{task_id}"}
        if params.get("historyLength") is not None:
            history = history_from_v10(params["historyLength"], cx, f"{at}.historyLength")
            if history is not None:
                out["historyLength"] = history
        return out

    return to_v10, from_v10


def rest_create_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    """Both bodies real v0.3 REST clients send: the P03 config or PY03's whole create request."""
    params = obj(params, at)
    if "config" in params or "parent" in params:
        drop_unknown(params, k("parent", "configId", "config"), cx, at)
        cfg = push_config.task_rest_to_v10(params.get("config") or {}, cx, f"{at}.config")
        if params.get("parent"):
            cfg["taskId"] = push_config.parse_task_name(params["parent"], f"{at}.parent")
        if params.get("configId") and "id" not in cfg:
            cfg = {"id": params["configId"], **cfg}
    else:
        cfg = push_config.task_rest_to_v10(params, cx, at)
    if "taskId" not in cfg:
        raise TranslationError(f"{at}.parent", "the task of the config is not named")
    return tenant_in(cfg, cx)


def rest_create_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    cfg = push_config.task_rest_from_v10(params, cx, at)
    if cx.quirks.rest_push_create_body == "config":
        return cfg
    task_id, config_id = push_config.parse_config_name(cfg["name"], at)
    return {"parent": f"tasks/{task_id}", "configId": config_id, "config": cfg}


def rest_push_named_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("name",), cx, at)
    task_id, config_id = push_config.parse_config_name(params.get("name"), f"{at}.name")
    return tenant_in({"taskId": task_id, "id": config_id}, cx)


def rest_push_named_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    task_id, config_id = push_ids_from_v10(params, cx, at)
    return {"name": push_config.config_name(task_id, config_id, at)}


def rest_list_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("parent", "pageSize", "pageToken"), cx, at)
    out = tenant_in({"taskId": push_config.parse_task_name(params.get("parent"), f"{at}.parent")}, cx)
    for key in ("pageSize", "pageToken"):
        if params.get(key):
            out[key] = params[key]
    return out


def rest_list_push_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("taskId", "pageSize", "pageToken", "tenant"), cx, at)
    tenant_out(params, cx, at)
    task_id = required_id(params, "taskId", at)
    if "/" in task_id:
        raise TranslationError(f"{at}.taskId", "a task id in a v0.3 resource name may not contain '/'")
    out: JsonObj = {"parent": f"tasks/{task_id}"}
    for key in ("pageSize", "pageToken"):
        if params.get(key):
            out[key] = params[key]
    return out


rest_task = rest_named()
