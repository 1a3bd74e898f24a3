"""Parts beyond the goldens: invalid files, agent-side faults, the double-base64 quirk of v0.3 REST."""

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
from gateway.core.translate import translate
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


def test_case_36_double_base64_quirk_both_ways() -> None:
    raw = base64.b64encode(b"\x00\xffhello").decode()
    wire = base64.b64encode(raw.encode()).decode()  # what a2a-sdk 0.3 puts in fileWithBytes
    cx = Cx(quirks=Quirks(rest_double_base64=True))
    assert translate("part", {"file": {"fileWithBytes": wire}}, src=S, dst=V, cx=cx) == {"raw": raw}
    assert translate("part", {"raw": raw}, src=V, dst=S, cx=cx) == {"file": {"fileWithBytes": wire}}
    single = translate("part", {"raw": raw}, src=V, dst=S, cx=Cx())
    assert single == {"file": {"fileWithBytes": raw}}
