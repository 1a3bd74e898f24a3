"""Results of every operation in every dialect (`result.<operation>` families). Most are objects of
another family (aliases); the list wrappers and the empty delete result live here."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import TranslationError, UnsupportedOperation
from gateway.core.notes import Cx
from gateway.core.translate import push_config
from gateway.core.translate.registry import alias, register
from gateway.core.translate.shape import arr, obj
from gateway.core.types import Dialect, JsonObj

R, S, V = Dialect.V03RPC, Dialect.V03REST, Dialect.V10

for _family, _same_as in {
    "result.send_message": "send_result",
    "result.get_task": "task",
    "result.cancel_task": "task",
    "result.create_push_config": "task_push_config",
    "result.get_push_config": "task_push_config",
    "result.get_extended_card": "agent_card",
}.items():
    alias(_family, _same_as)


def _configs(items: Any, fn: Any, cx: Cx, at: str) -> list[JsonObj]:
    return [fn(c, cx, f"{at}[{i}]") for i, c in enumerate(arr(items, at))]


def _page_token(src: JsonObj, cx: Cx, at: str) -> None:
    if src.get("nextPageToken"):
        cx.note("page_truncated", f"{at}.nextPageToken", "v0.3 lists have no pages; the exchange pages")


def list_rpc_to_v10(result: Any, cx: Cx, at: str) -> JsonObj:
    return {"configs": _configs(result, push_config.task_rpc_to_v10, cx, at)}


def list_rpc_from_v10(result: Any, cx: Cx, at: str) -> list[JsonObj]:
    result = obj(result, at)
    _page_token(result, cx, at)
    return _configs(result.get("configs", []), push_config.task_rpc_from_v10, cx, f"{at}.configs")


def list_rest_to_v10(result: Any, cx: Cx, at: str) -> JsonObj:
    result = obj(result, at)
    out: JsonObj = {"configs": _configs(result.get("configs", []), push_config.task_rest_to_v10, cx,
                                        f"{at}.configs")}
    if result.get("nextPageToken"):
        out["nextPageToken"] = result["nextPageToken"]
    return out


def list_rest_from_v10(result: Any, cx: Cx, at: str) -> JsonObj:
    result = obj(result, at)
    out: JsonObj = {"configs": _configs(result.get("configs", []), push_config.task_rest_from_v10, cx,
                                        f"{at}.configs")}
    if result.get("nextPageToken"):
        out["nextPageToken"] = result["nextPageToken"]
    return out


def _empty_to(empty: Any) -> Any:
    def convert(result: Any, cx: Cx, at: str) -> Any:
        if result not in (None, {}):
            raise TranslationError(at, "expected an empty result")
        return empty
    return convert


def _list_tasks_down(result: Any, cx: Cx, at: str) -> Any:
    raise UnsupportedOperation("ListTasks has no v0.3 equivalent")


register({
    "result.list_push_configs": {(R, V): list_rpc_to_v10, (V, R): list_rpc_from_v10,
                                 (S, V): list_rest_to_v10, (V, S): list_rest_from_v10},
    # JSON-RPC v0.3 answers null; v1.0 servers answer null (JSON-RPC) or {} (REST Empty)
    "result.delete_push_config": {(R, V): _empty_to(None), (V, R): _empty_to(None),
                                  (S, V): _empty_to(None), (V, S): _empty_to({})},
    "result.list_tasks": {(V, R): _list_tasks_down, (V, S): _list_tasks_down},
})
