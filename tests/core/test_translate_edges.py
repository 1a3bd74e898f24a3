"""wire-mapping §9 payload cases that are about behaviour rather than one fixture pair: invalid
parts, agent-side faults, tenant injection, the double-base64 quirk, history limits, deep input."""

from __future__ import annotations

import base64

import pytest

from gateway.core import jsoncodec
from gateway.core.bindings.jsonrpc import RpcRequest
from gateway.core.card import Interface
from gateway.core.errors import InvalidAgentResponse, TranslationError
from gateway.core.exchange import Call, Done, Exchange
from gateway.core.notes import Cx
from gateway.core.operations import by_name
from gateway.core.quirks import Quirks
from gateway.core.translate.registry import translate
from gateway.core.types import Binding, Dialect, Version

R, S, V = Dialect.V03RPC, Dialect.V03REST, Dialect.V10


@pytest.mark.parametrize("file", [{"bytes": "aGk=", "uri": "https://x.example/f"}, {"mimeType": "text/plain"}])
def test_case_52_file_with_both_or_neither_is_invalid_params(file: dict[str, str]) -> None:
    with pytest.raises(TranslationError) as err:
        translate("part", {"kind": "file", "file": file}, src=R, dst=V, cx=Cx())
    assert err.value.jsonrpc_code == -32602 and err.value.path == "$.file"


def test_case_53_contentless_part_from_an_agent_is_invalid_agent_response() -> None:
    rpc = RpcRequest(1, "tasks/get", {"id": "t1"}, True)
    call = Call(by_name("get_task"), Version.V03, Binding.JSONRPC, rpc.params, rpc.id)
    exchange = Exchange(call, Interface(Version.V10, Binding.JSONRPC, "http://agent/"))
    exchange.upstream_request()
    bad = {"jsonrpc": "2.0", "id": 1, "result": {"id": "t1", "status": {"state": "TASK_STATE_WORKING",
           "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"metadata": {}}]}}}}
    step = exchange.client_reply(200, jsoncodec.dumpb(bad))
    assert isinstance(step, Done)
    error = jsoncodec.loads(step.reply.body)["error"]
    assert error["code"] == InvalidAgentResponse.jsonrpc_code and "status.message.parts[0]" in error["message"]


def test_case_31_upstream_tenant_is_injected_into_v10_requests() -> None:
    cx = Cx(tenant="acme")
    out = translate("params.get_task", {"id": "t1"}, src=R, dst=V, cx=cx)
    assert out == {"id": "t1", "tenant": "acme"}


def test_case_36_double_base64_quirk_both_ways() -> None:
    raw = base64.b64encode(b"\x00\xffhello").decode()
    wire = base64.b64encode(raw.encode()).decode()  # what a2a-sdk 0.3 puts in fileWithBytes
    cx = Cx(quirks=Quirks(rest_double_base64=True))
    assert translate("part", {"file": {"fileWithBytes": wire}}, src=S, dst=V, cx=cx) == {"raw": raw}
    assert translate("part", {"raw": raw}, src=V, dst=S, cx=cx) == {"file": {"fileWithBytes": wire}}
    single = translate("part", {"raw": raw}, src=V, dst=S, cx=Cx())
    assert single == {"file": {"fileWithBytes": raw}}


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
