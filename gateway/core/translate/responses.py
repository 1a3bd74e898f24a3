"""Results of every operation (`result.<operation>` families). Most are objects of another family
(`ALIASES`); the push-config list, the empty delete result and ListTasks' refusal live here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.core.dialects import V03_SPECS, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import push_config
from gateway.core.translate.registry import Family, Table, Translator
from gateway.core.translate.requests import list_tasks_down
from gateway.core.translate.shape import arr, obj
from gateway.core.types import V03REST, V03RPC, V10, JsonObj

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


TRANSLATORS: Table = {
    Family.RESULT_LIST_PUSH_CONFIGS: {**{(s.dialect, V10): list_to_v10(s) for s in V03_SPECS},
                                      **{(V10, s.dialect): list_from_v10(s) for s in V03_SPECS}},
    # JSON-RPC v0.3 answers null; v1.0 servers answer null (JSON-RPC) or {} (REST Empty)
    Family.RESULT_DELETE_PUSH_CONFIG: {(V03RPC, V10): _empty_as(None), (V10, V03RPC): _empty_as(None),
                                       (V03REST, V10): _empty_as(None), (V10, V03REST): _empty_as({})},
    Family.RESULT_LIST_TASKS: {(V10, V03RPC): list_tasks_down, (V10, V03REST): list_tasks_down},
}
