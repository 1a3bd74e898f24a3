"""Results beyond the goldens: push-config lists (bare and unpaged in v0.3 JSON-RPC, paged in the proto)
and the empty delete result of each dialect."""

from __future__ import annotations

import pytest

from gateway.core.errors import TranslationError, UnsupportedOperation
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.types import V03REST, V03RPC, V10

PAGE = {"configs": [{"taskId": "t", "id": "c", "url": "u"}], "nextPageToken": "p2"}


def test_json_rpc_lists_are_bare_and_unpaged() -> None:
    cx = Cx()
    out = translate("result.list_push_configs", PAGE, src=V10, dst=V03RPC, cx=cx)
    assert out == [{"taskId": "t", "pushNotificationConfig": {"id": "c", "url": "u"}}]
    assert [(n.code, n.path) for n in cx.notes] == [("page_truncated", "$.nextPageToken")]
    assert translate("result.list_push_configs", out, src=V03RPC, dst=V10, cx=Cx()) == {"configs": PAGE["configs"]}


def test_proto_lists_keep_their_page() -> None:
    out = translate("result.list_push_configs", PAGE, src=V10, dst=V03REST, cx=Cx())
    assert out["nextPageToken"] == "p2"
    assert translate("result.list_push_configs", out, src=V03REST, dst=V10, cx=Cx()) == PAGE


def test_empty_results() -> None:
    assert translate("result.delete_push_config", None, src=V10, dst=V03REST, cx=Cx()) == {}
    assert translate("result.delete_push_config", {}, src=V10, dst=V03RPC, cx=Cx()) is None
    with pytest.raises(TranslationError):
        translate("result.delete_push_config", {"x": 1}, src=V03RPC, dst=V10, cx=Cx())
    with pytest.raises(UnsupportedOperation):
        translate("result.list_tasks", {"tasks": []}, src=V10, dst=V03RPC, cx=Cx())
