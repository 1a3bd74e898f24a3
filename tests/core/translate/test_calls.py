"""Each operation's params and result beyond the goldens: tenant injection, history limits the agent may not honour,
deep input, the push-config list and delete results, and ListTasks' refusal toward v0.3."""

from __future__ import annotations

import pytest

from gateway.core import jsoncodec
from gateway.core.card import Interface
from gateway.core.errors import InvalidAgentResponse, TranslationError, UnsupportedOperation
from gateway.core.exchange import Call, Done, Exchange
from gateway.core.notes import Cx
from gateway.core.operations import by_name
from gateway.core.translate import translate
from gateway.core.types import V03REST, V03RPC, V10, Binding, Dialect, Version

R, S, V = Dialect.V03RPC, Dialect.V03REST, Dialect.V10


def test_case_31_upstream_tenant_is_injected_into_v10_requests() -> None:
    cx = Cx(tenant="acme")
    out = translate("params.get_task", {"id": "t1"}, src=R, dst=V, cx=cx)
    assert out == {"id": "t1", "tenant": "acme"}


@pytest.mark.parametrize(("limit", "expected"), [(0, None), (2, ["m2", "m3"])])
def test_cases_21_22_v10_history_limits_hold_even_if_the_v03_agent_ignores_them(limit: int,
                                                                                expected: list[str] | None) -> None:
    call = Call(by_name("get_task"), Version.V10, Binding.JSONRPC, {"id": "t1", "historyLength": limit}, 7)
    exchange = Exchange(call, Interface(Version.V03, Binding.JSONRPC, "http://agent/"))
    sent = jsoncodec.loads(exchange.upstream_request().body)
    assert sent["params"] == ({"id": "t1"} if limit == 0 else {"id": "t1", "historyLength": limit})
    history = [{"kind": "message", "messageId": f"m{i}", "role": "user", "parts": [{"kind": "text", "text": "x"}]}
               for i in (1, 2, 3)]
    reply = {"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t1", "contextId": "c",
                                                   "status": {"state": "completed"}, "history": history}}
    step = exchange.client_reply(200, jsoncodec.dumpb(reply))
    assert isinstance(step, Done)
    task = jsoncodec.loads(step.reply.body)["result"]
    got = [m["messageId"] for m in task["history"]] if "history" in task else None
    assert got == expected


def test_deeply_nested_params_are_our_error_not_a_crash() -> None:
    deep: object = "x"
    for _ in range(3000):
        deep = [deep]
    with pytest.raises(TranslationError):
        translate("params.send_message", {"message": deep}, src=R, dst=V, cx=Cx())


# ---- results -----------------------------------------------------------------------------------------


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


@pytest.mark.parametrize(("reply", "error"), [
    # read by the codec's lighter rule for a reply to translate: NaN and lone surrogates are still refused at
    # once; a literal past a double's range is refused where the translated reply is written
    (b'{"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t1", "x": NaN}}', "not JSON"),
    (b'{"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t1", "x": "\\ud800"}}', "not JSON"),
    (b'{"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t1", "contextId": "c", '
     b'"status": {"state": "completed"}, "metadata": {"x": 1e400}}}', "cannot be written again"),
])
def test_an_agent_reply_json_cannot_hold_is_the_agents_fault_in_the_callers_shape(reply: bytes, error: str) -> None:
    call = Call(by_name("get_task"), Version.V10, Binding.JSONRPC, {"id": "t1"}, 7)
    exchange = Exchange(call, Interface(Version.V03, Binding.JSONRPC, "http://agent/"))
    step = exchange.client_reply(200, reply)
    assert isinstance(step, Done) and step.reply.error
    body = jsoncodec.loads(step.reply.body)
    assert body["id"] == 7 and body["error"]["code"] == InvalidAgentResponse.jsonrpc_code, body
    assert error in body["error"]["message"], body


def test_a_repeated_name_in_an_agent_reply_to_translate_is_written_once() -> None:
    call = Call(by_name("get_task"), Version.V10, Binding.JSONRPC, {"id": "t1"}, 7)
    exchange = Exchange(call, Interface(Version.V03, Binding.JSONRPC, "http://agent/"))
    step = exchange.client_reply(200, b'{"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t0", "id": "t1", '
                                      b'"contextId": "c", "status": {"state": "completed"}}}')
    assert isinstance(step, Done) and not step.reply.error
    assert step.reply.body.count(b'"id":"t1"') == 1 and b"t0" not in step.reply.body


@pytest.mark.parametrize(("version", "binding", "expected"), [
    (Version.V10, Binding.JSONRPC, {"task": {"id": "t1", "contextId": "c", "status": {
        "state": "TASK_STATE_COMPLETED"}, "history": [{"messageId": "m3", "role": "ROLE_USER",
                                                       "parts": [{"text": "x"}]}]}}),
    (Version.V03, Binding.JSONRPC, {"kind": "task", "id": "t1", "contextId": "c", "status": {"state": "completed"},
                                    "history": [{"kind": "message", "messageId": m, "role": "user",
                                                 "parts": [{"kind": "text", "text": "x"}]} for m in ("m2", "m3")]}),
])
def test_a_result_the_gateway_read_itself_is_written_as_the_agents_would_be(version: Version, binding: Binding,
                                                                            expected: object) -> None:
    """A blocking send's task, read again by the gateway as v1.0 (Exchange.from_hub): in the caller's dialect,
    within the history it asked for (v1.0: 1; v0.3: 2), counted among the results the task index sees."""
    limit = 1 if version is Version.V10 else 2
    call = Call(by_name("send_message"), version, binding, {
        "message": {"messageId": "m", "role": "ROLE_USER" if version is Version.V10 else "user",
                    "parts": [{"text": "x"} if version is Version.V10 else {"kind": "text", "text": "x"}],
                    **({} if version is Version.V10 else {"kind": "message"})},
        "configuration": {"historyLength": limit}}, 7)
    exchange = Exchange(call, Interface(Version.V10, Binding.JSONRPC, "http://agent/"))
    exchange.upstream_request()
    history = [{"messageId": f"m{i}", "role": "ROLE_USER", "parts": [{"text": "x"}]} for i in (1, 2, 3)]
    got = exchange.from_hub({"task": {"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"},
                                      "history": history}})
    assert got.ok and got.value == expected
    assert exchange.seen == [expected]
    assert jsoncodec.loads(exchange.reply_for(got).body) == {"jsonrpc": "2.0", "id": 7, "result": expected}
