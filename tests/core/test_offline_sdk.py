"""`a2a-gateway translate` on every payload of a2a-sdk's own v0.3 <-> v1.0 conversion tests
(tests/core/sdk_conversions.json): each is translated, its kind detected or, when the payload is too bare to
tell, named with --kind as the command asks, and the output is valid in the other version by the official
types (tests/oracle.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway.core.errors import GatewayError
from gateway.core.offline import NotA2A, Result, translate_payload
from gateway.core.operations import by_method
from gateway.core.types import Version
from tests import oracle

PAYLOADS = json.loads(Path(__file__).with_name("sdk_conversions.json").read_text())["payloads"]
# the SDK converter -> the payload kind it converts (a v0.3 request or response is a whole JSON-RPC message)
KIND = {"part": "part", "message": "message", "task": "task", "task_status": "task_status", "artifact": "artifact",
        "task_status_update_event": "status_update", "task_artifact_update_event": "artifact_update",
        "agent_card": "agent_card", "push_notification_config": "push_config",
        "task_push_notification_config": "task_push_config", "send_message_request": "params.send_message",
        "get_task_request": "params.get_task", "cancel_task_request": "params.cancel_task",
        "subscribe_to_task_request": "params.subscribe_to_task",
        "create_task_push_notification_config_request": "params.create_push_config",
        "get_task_push_notification_config_request": "params.get_push_config",
        "delete_task_push_notification_config_request": "params.delete_push_config",
        "list_task_push_notification_config_request": "params.list_push_configs",
        "get_extended_agent_card_request": "params.get_extended_card",
        "list_task_push_notification_config_response": "result.list_push_configs",
        "send_message_response": "send_result", "stream_response": "stream_response"}
# the operation a v0.3 JSON-RPC response answers (translate's --method)
METHOD = {"send_message_response": "message/send", "stream_response": "message/stream",
          "list_task_push_notification_config_response": "tasks/pushNotificationConfig/list"}
# Converted pieces of a card or of params, with no payload of their own (each is inside a card or a
# request among the payloads above).
PIECES = {"agent_capabilities", "agent_card_signature", "agent_extension", "agent_interface", "agent_provider",
          "agent_skill", "authentication_info", "oauth_flows", "security_scheme", "security_requirement",
          "send_message_configuration"}
# What translate refuses (exit 2) and why: the SDK refuses the first two itself (pytest.raises in its tests);
# the third is a JSON-RPC response with neither result nor error (built with model_construct(), bypassing the
# SDK's own validation), which the SDK turns into an empty stream response no v1.0 client could read. The
# other objects its tests build that way, without a member their version requires, are translated with a
# note (required_member_absent / required_member_defaulted / state_defaulted / null_part).
REFUSED = {
    "test_to_compat_part_unknown_content": "a part with no content: the SDK raises too",
    "test_to_compat_stream_response_unknown": "a stream response with no event: the SDK raises too",
    "test_to_core_stream_response_unknown_result": "a response with neither result nor error (model_construct)",
}


def _name(record: dict[str, Any]) -> str:
    return str(record["function"]).removeprefix("to_core_").removeprefix("to_compat_")


def _translate(record: dict[str, Any]) -> tuple[Result, str]:
    """As a user would: the payload's version named (the SDK side it came from), its kind detected; named
    with --kind (and --method) only when the command says it cannot tell."""
    name, version = _name(record), Version.V03 if record["version"] == "0.3" else Version.V10
    data = json.dumps(record["payload"]).encode()
    rpc = version is Version.V03 and name.endswith(("_request", "_response"))
    method = METHOD.get(name) if rpc else None
    try:
        return translate_payload(data, source=version, method=method), "detected"
    except NotA2A as exc:
        if "--kind" not in str(exc) and "--method" not in str(exc):   # it says what it needs, or refuses
            raise
        return translate_payload(data, source=version, kind=None if rpc else KIND[name], method=method), "named"


def _check(result: Result) -> None:
    out = json.loads(result.output)
    if result.kind == "jsonrpc-request":
        oracle.check(by_method(out["method"])[0].params_family, result.dst, out.get("params", {}))
    elif result.kind == "jsonrpc-response":
        assert "error" in out or "result" in out
    else:
        oracle.check(result.kind, result.dst, out)


CASES = [r for r in PAYLOADS if _name(r) not in PIECES]


def test_the_payloads_cover_every_converter() -> None:
    assert {_name(r) for r in PAYLOADS} == set(KIND) | PIECES
    assert len(CASES) >= 120


@pytest.mark.parametrize("record", CASES, ids=lambda r: f"{r['test']}-{r['function']}")
def test_every_sdk_payload_translates_and_parses_as_the_other_version(record: dict[str, Any]) -> None:
    if record["test"] in REFUSED:
        with pytest.raises((GatewayError, NotA2A)) as info:
            _translate(record)
        error = info.value
        assert not isinstance(error, GatewayError) or error.path, "a refusal names its JSON path"
        return
    result, _ = _translate(record)
    _check(result)


def test_lenient_inputs_are_translated_with_a_note() -> None:
    role_less = next(r for r in PAYLOADS if r["test"] == "test_to_core_message_unspecified_role")
    result, _ = _translate(role_less)
    assert [n.code for n in result.notes] == ["role_defaulted", "empty_parts_filled"]
    assert json.loads(result.output)["role"] == "ROLE_UNSPECIFIED"


@pytest.mark.parametrize(("test", "code"), [
    ("test_to_core_send_message_request_no_configuration", "required_member_absent"),
    ("test_to_core_task_artifact_update_event_missing_artifact", "required_member_absent"),
    ("test_to_core_task_push_notification_config_missing_config", "required_member_absent"),
    ("test_to_core_task_status_missing_state", "state_defaulted"),
    ("test_task_status_update_event_conversion_minimal", "required_member_defaulted"),
    ("test_to_core_part_file_part_invalid_file_type", "null_part"),
])
def test_members_the_sdk_tests_leave_out_are_noted(test: str, code: str) -> None:
    [record] = [r for r in CASES if r["test"] == test]
    result, _ = _translate(record)
    assert code in [n.code for n in result.notes]


def test_the_gateway_itself_stays_strict() -> None:
    """The same payloads in the gateway's own (strict) reading: refused with their path, as a client's
    invalid params."""
    from gateway.core.notes import Cx
    from gateway.core.translate import translate
    from gateway.core.types import Dialect

    for test, family, at in (("test_to_core_message_unspecified_role", "message", "$.role"),
                             ("test_to_core_task_artifact_update_event_missing_artifact", "artifact_update",
                              "$.artifact")):
        [record] = [r for r in CASES if r["test"] == test]
        with pytest.raises(GatewayError) as info:
            translate(family, record["payload"], src=Dialect.V03RPC, dst=Dialect.V10, cx=Cx(), at="$")
        assert info.value.path == at
