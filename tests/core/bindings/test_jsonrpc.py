"""JSON-RPC 2.0 envelopes: ids echoed verbatim (wire-mapping.md §9 case 16), batches rejected, malformed
input, upstream responses; fuzz: arbitrary bytes parse or raise our error."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.core import jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.bindings.jsonrpc import (
    EnvelopeTooDeep,
    InvalidEnvelope,
    RpcRequest,
    RpcResponse,
    error_envelope,
    parse_request,
    parse_response,
    request_envelope,
    response_from_json,
    result_envelope,
    rpc_id_of,
    rpc_method_of,
)
from gateway.core.errors import GatewayError, InvalidAgentResponse, LimitExceeded, MalformedEnvelope
from tests import strategies

IDS: list[Any] = ["abc", "", "ü/ç", 0, 1, -7, 2**63 + 5, None]


def _req(**members: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **members}).encode()


@pytest.mark.parametrize("rpc_id", IDS, ids=repr)
def test_ids_of_every_type_are_echoed(rpc_id: Any) -> None:
    req = parse_request(_req(id=rpc_id, method="message/send", params={"message": {}}))
    assert req == RpcRequest(rpc_id, "message/send", {"message": {}}, True)
    assert type(req.id) is type(rpc_id)
    for envelope in (result_envelope(req.id, {"x": 1}), error_envelope(req.id, {"code": -1, "message": "m"})):
        wire = jsoncodec.dumps(envelope)
        assert json.loads(wire)["id"] == rpc_id
        assert type(json.loads(wire)["id"]) is type(rpc_id)


def test_notification_and_params_forms() -> None:
    assert parse_request(_req(method="SendMessage")) == RpcRequest(None, "SendMessage", None, False)
    assert parse_request(_req(id=1, method="m", params=None)).params is None
    assert parse_request(_req(id=1, method="m", params=[1, 2])).params == [1, 2]
    assert parse_request(_req(id=1, method="m", params={})).params == {}
    assert parse_request('{"jsonrpc":"2.0","id":"é","method":"m"}').id == "é"


def test_batch_rejected() -> None:
    with pytest.raises(InvalidEnvelope) as exc:
        parse_request(b'[{"jsonrpc":"2.0","id":1,"method":"message/send"}]')
    assert exc.value.jsonrpc_code == -32600
    assert rpc_id_of(exc.value) is None


@pytest.mark.parametrize("body", [b"", b"{", b"not json", b'{"a":1} trailing', b"\xff\xfe", b"[" * 2000])
def test_malformed(body: bytes) -> None:
    with pytest.raises((MalformedEnvelope, LimitExceeded)) as exc:
        parse_request(body)
    assert rpc_id_of(exc.value) is None


def test_parse_error_code() -> None:
    with pytest.raises(MalformedEnvelope) as exc:
        parse_request(b"{oops")
    assert exc.value.jsonrpc_code == -32700


@pytest.mark.parametrize(("members", "rpc_id", "method"), [
    ({"jsonrpc": "1.0", "id": 5, "method": "tasks/get"}, 5, "tasks/get"),
    ({"id": "a", "method": "tasks/get"}, "a", "tasks/get"),                   # jsonrpc missing
    ({"jsonrpc": "2.0", "id": 5}, 5, None),                                   # method missing
    ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5, None),
    ({"jsonrpc": "2.0", "id": None, "method": "GetTask", "params": "x"}, None, "GetTask"),
    ({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": 3}, 5, "GetTask"),
    ({"jsonrpc": "2.0", "id": True, "method": "GetTask"}, None, "GetTask"),   # bool is not an id
    ({"jsonrpc": "2.0", "id": 1.5, "method": "GetTask"}, None, "GetTask"),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}, None, "GetTask"),
    ({"jsonrpc": "2.0", "id": [1], "method": 3}, None, None),
])
def test_invalid_request_carries_what_was_readable(members: dict[str, Any], rpc_id: Any,
                                                   method: str | None) -> None:
    with pytest.raises(InvalidEnvelope) as exc:
        parse_request(json.dumps(members).encode())
    assert exc.value.jsonrpc_code == -32600
    assert rpc_id_of(exc.value) == rpc_id
    assert rpc_method_of(exc.value) == method


@pytest.mark.parametrize("body", [b'"str"', b"1", b"null", b"true"])
def test_non_object(body: bytes) -> None:
    with pytest.raises(InvalidEnvelope):
        parse_request(body)


def test_depth_limit() -> None:
    deep: Any = {}
    for _ in range(12):
        deep = {"a": [deep]}
    body = _req(id="d", method="message/send", params={"metadata": deep})
    assert parse_request(body, max_depth=100).params == {"metadata": deep}
    with pytest.raises(EnvelopeTooDeep) as exc:
        parse_request(body, max_depth=10)
    assert isinstance(exc.value, LimitExceeded)
    assert (rpc_id_of(exc.value), rpc_method_of(exc.value)) == ("d", "message/send")
    assert parse_request(_req(id=1, method="m"), max_depth=1).method == "m"


def test_envelope_builders() -> None:
    assert request_envelope(3, "GetTask", {"id": "t"}) == {
        "jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "t"}}
    assert request_envelope("x", "agent/getAuthenticatedExtendedCard") == {
        "jsonrpc": "2.0", "id": "x", "method": "agent/getAuthenticatedExtendedCard"}
    assert result_envelope(None, None) == {"jsonrpc": "2.0", "id": None, "result": None}
    assert error_envelope(1, {"code": -32001, "message": "m"}) == {
        "jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "m"}}


@pytest.mark.parametrize("rpc_id", IDS, ids=repr)
def test_parse_response(rpc_id: Any) -> None:
    ok = parse_response(json.dumps({"jsonrpc": "2.0", "id": rpc_id, "result": None}).encode())
    assert ok == RpcResponse(rpc_id, None, None) and not ok.is_error
    err = {"code": -32001, "message": "Task not found", "data": [{"x": 1}]}
    bad = parse_response(json.dumps({"jsonrpc": "2.0", "id": rpc_id, "error": err}).encode())
    assert bad.is_error and bad.error == err and bad.id == rpc_id


@pytest.mark.parametrize("body", [
    b"<html>502 Bad Gateway</html>", b"", b"[]",
    b'[{"jsonrpc":"2.0","id":1,"result":1}]',
    b'{"id":1,"result":1}',
    b'{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}',
    b'{"jsonrpc":"2.0","id":true,"result":1}',
    b'{"jsonrpc":"2.0","id":1,"error":"boom"}',
    b'{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
    b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001}}',
    b"[" * 3000,
])
def test_parse_response_rejects(body: bytes) -> None:
    with pytest.raises(InvalidAgentResponse) as exc:
        parse_response(body)
    assert exc.value.jsonrpc_code == -32006


def test_response_from_json_missing_id_is_null() -> None:
    assert response_from_json({"jsonrpc": "2.0", "result": {"a": 1}}) == RpcResponse(None, {"a": 1})


@given(st.binary(max_size=200))
def test_arbitrary_bytes_parse_or_raise_our_error(body: bytes) -> None:
    with contextlib.suppress(GatewayError):
        assert isinstance(parse_request(body), RpcRequest)
    with contextlib.suppress(InvalidAgentResponse):
        assert isinstance(parse_response(body), RpcResponse)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
_envelope = st.fixed_dictionaries({}, optional={
    "jsonrpc": st.sampled_from(["2.0", "1.0"]) | _json, "id": _json, "method": st.text(max_size=8) | _json,
    "params": _json, "result": _json, "error": _json,
})


@given(st.one_of(_json, _envelope))
def test_arbitrary_json_parse_or_raise_our_error(value: Any) -> None:
    body = json.dumps(value).encode()
    try:
        req = parse_request(body)
    except GatewayError as exc:
        rid = rpc_id_of(exc)
        assert rid is None or type(rid) in (str, int)
    else:
        assert req.method == value["method"]
        assert req.id == value.get("id")
    with contextlib.suppress(InvalidAgentResponse):
        parse_response(body)


def test_parse_response_reads_a_missing_result_as_null() -> None:
    # a2a-sdk 0.3's push-config delete reply drops `"result": null` (pydantic exclude_none)
    assert parse_response(b'{"jsonrpc":"2.0","id":1}') == RpcResponse(1, None)


@given(value=strategies.json_values, limit=st.integers(0, 6))
def test_the_bracket_count_bounds_the_depth(value: Any, limit: int) -> None:
    """The cheap pre-check never spares the walk of a body that is too deep (requests are objects)."""
    value = {"params": value}
    body = jsoncodec.dumpb(value)
    assert jsonrpc._may_nest(body, limit) or not jsonrpc._deeper_than(value, limit)
    assert jsonrpc._may_nest(body.decode(), limit) == jsonrpc._may_nest(body, limit)
