"""Request params of every operation in every dialect (`params.<operation>` families): the v0.3
JSON-RPC params objects, the v0.3 proto request messages (REST) and the v1.0 requests. No envelopes,
no paths: the bindings build these from bodies, paths and query strings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError, UnsupportedOperation
from gateway.core.notes import Cx
from gateway.core.translate import push_config
from gateway.core.translate import requests_rest as rr
from gateway.core.translate import requests_send as rs
from gateway.core.translate.registry import register
from gateway.core.translate.requests_common import (
    history_from_v10,
    history_to_v10,
    k,
    metadata_dropped,
    push_ids_from_v10,
    required_id,
    tenant_in,
    tenant_out,
)
from gateway.core.translate.shape import drop_unknown, obj
from gateway.core.types import Dialect, JsonObj

Fn = Callable[[Any, Cx, str], JsonObj]
R, S, V = Dialect.V03RPC, Dialect.V03REST, Dialect.V10


# ---- task-addressed operations --------------------------------------------------------------------

def _get_task_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "historyLength", "metadata"), cx, at)
    metadata_dropped(params, cx, at)
    out = tenant_in({"id": required_id(params, "id", at)}, cx)
    if params.get("historyLength") is not None:
        history = history_to_v10(params["historyLength"], cx, f"{at}.historyLength")
        if history is not None:
            out["historyLength"] = history
    return out


def _get_task_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    params = obj(params, at)
    drop_unknown(params, k("id", "historyLength", "tenant"), cx, at)
    tenant_out(params, cx, at)
    out: JsonObj = {"id": required_id(params, "id", at)}
    if params.get("historyLength") is not None:
        history = history_from_v10(params["historyLength"], cx, f"{at}.historyLength")
        if history is not None:
            out["historyLength"] = history
    return out


def _task_id_to_v10(keep_metadata: bool) -> Fn:
    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("id", "metadata"), cx, at)
        out = tenant_in({"id": required_id(params, "id", at)}, cx)
        if keep_metadata and params.get("metadata") is not None:
            out["metadata"] = obj(params["metadata"], f"{at}.metadata")
        elif not keep_metadata:
            metadata_dropped(params, cx, at)
        return out
    return convert


def _task_id_from_v10(keep_metadata: bool) -> Fn:
    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        params = obj(params, at)
        drop_unknown(params, k("id", "metadata", "tenant") if keep_metadata else k("id", "tenant"), cx, at)
        tenant_out(params, cx, at)
        out: JsonObj = {"id": required_id(params, "id", at)}
        if keep_metadata and params.get("metadata") is not None:
            out["metadata"] = obj(params["metadata"], f"{at}.metadata")
        return out
    return convert


# ---- push configs (the id swap of wire-mapping §3.7) ----------------------------------------------

def _create_push_to_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    return tenant_in(push_config.task_rpc_to_v10(params, cx, at), cx)


def _create_push_from_v10(params: Any, cx: Cx, at: str) -> JsonObj:
    return push_config.task_rpc_from_v10(params, cx, at)


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


def _list_tasks_down(params: Any, cx: Cx, at: str) -> JsonObj:
    raise UnsupportedOperation("ListTasks has no v0.3 equivalent")


def _pairs(rpc_to: Fn, rpc_from: Fn, rest_to: Fn, rest_from: Fn) -> dict[tuple[Dialect, Dialect], Fn]:
    return {(R, V): rpc_to, (V, R): rpc_from, (S, V): rest_to, (V, S): rest_from}


register({
    "params.send_message": _pairs(rs.send_to_v10(False), rs.send_from_v10(False), rs.send_to_v10(True),
                                  rs.send_from_v10(True)),
    "params.get_task": _pairs(_get_task_to_v10, _get_task_from_v10, *rr.rest_task),
    "params.cancel_task": _pairs(_task_id_to_v10(True), _task_id_from_v10(True), *rr.rest_task),
    "params.subscribe_to_task": _pairs(_task_id_to_v10(False), _task_id_from_v10(False), *rr.rest_task),
    "params.create_push_config": _pairs(_create_push_to_v10, _create_push_from_v10,
                                        rr.rest_create_to_v10, rr.rest_create_from_v10),
    "params.get_push_config": _pairs(_get_push_to_v10, _get_push_from_v10,
                                     rr.rest_push_named_to_v10, rr.rest_push_named_from_v10),
    "params.delete_push_config": _pairs(_delete_push_to_v10, _get_push_from_v10,
                                        rr.rest_push_named_to_v10, rr.rest_push_named_from_v10),
    "params.list_push_configs": _pairs(_list_push_to_v10, _list_push_from_v10,
                                       rr.rest_list_push_to_v10, rr.rest_list_push_from_v10),
    "params.get_extended_card": _pairs(_card_to_v10, _card_from_v10, _card_to_v10, _card_from_v10),
    "params.list_tasks": {(V, R): _list_tasks_down, (V, S): _list_tasks_down},
})
