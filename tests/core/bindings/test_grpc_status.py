"""gRPC errors ⇄ A2A error objects, against the official code on both sides of the wire: a2a-sdk 1.x's own
gRPC servers make the statuses the gateway reads, its own gRPC clients read the statuses it makes."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import grpc
import pytest
from a2a.client.errors import A2AClientError
from a2a.client.transports import grpc as sdk_client10
from a2a.compat.v0_3 import grpc_transport as sdk_client03
from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
from a2a.server.request_handlers.grpc_handler import GrpcHandler
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP, A2AError

from gateway.core import jsoncodec
from gateway.core.bindings.grpc import status
from gateway.core.errors import LimitExceeded, UnknownOperation, UpstreamUnavailable
from gateway.core.notes import Cx
from gateway.core.translate.errors.table import BY_CODE, ERRORS
from gateway.core.types import Dialect, Version
from tests import golden

V03, V10 = Version.V03, Version.V10
SDK_ERRORS = [cls for cls in JSON_RPC_ERROR_CODE_MAP]


class FakeContext:
    """The two calls a2a-sdk's abort_context makes on a grpc.aio.ServicerContext."""

    def __init__(self) -> None:
        self.trailing: tuple[tuple[str, Any], ...] = ()
        self.aborted: tuple[grpc.StatusCode, str] | None = None

    def trailing_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self.trailing

    def set_trailing_metadata(self, metadata: tuple[tuple[str, Any], ...]) -> None:
        self.trailing = metadata

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.aborted = (code, details)


def sdk_status(handler: Any, error: A2AError) -> status.GrpcStatus:
    context = FakeContext()
    asyncio.run(handler.abort_context(error, context))
    assert context.aborted is not None
    code, details = context.aborted
    trailer = dict(context.trailing).get(status.DETAILS_KEY, b"")
    return status.GrpcStatus(code.value[0], details, trailer)


def as_call_error(s: status.GrpcStatus) -> grpc.aio.AioRpcError:
    code = next(c for c in grpc.StatusCode if c.value[0] == s.code)
    trailing = grpc.aio.Metadata(*([(status.DETAILS_KEY, s.details)] if s.details else []))
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, s.message)


# ---- reading what the SDK's servers send ------------------------------------------------------------

@pytest.mark.parametrize("error_class", SDK_ERRORS, ids=lambda c: c.__name__)
def test_reads_the_v10_server(error_class: type[A2AError]) -> None:
    """a2a-sdk 1.x's gRPC server: status code, message, ErrorInfo in grpc-status-details-bin."""
    s = sdk_status(GrpcHandler(request_handler=None), error_class("went wrong"))  # type: ignore[arg-type]
    cx = Cx()
    error = status.to_error(s, V10, cx)
    code = JSON_RPC_ERROR_CODE_MAP[error_class]
    if code == -32700:  # the SDK maps no status for JSONParseError: UNKNOWN, "Unknown error type: …"
        assert s.name == "UNKNOWN" and not s.details
        assert error["code"] == -32603 and [n.code for n in cx.notes] == ["error_reason_unknown"]
        return
    row = BY_CODE[code]
    assert s.name == row.grpc
    assert error == {"code": code, "message": "went wrong", "data": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": row.reason, "domain": "a2a-protocol.org"}]}
    assert cx.notes == []


@pytest.mark.parametrize("error_class", SDK_ERRORS, ids=lambda c: c.__name__)
def test_reads_the_v03_compat_server(error_class: type[A2AError]) -> None:
    """a2a-sdk 1.x's v0.3 gRPC server: the 1.x status codes, "<ErrorClass>: <message>", no details."""
    s = sdk_status(CompatGrpcHandler(request_handler=None), error_class("went wrong"))  # type: ignore[arg-type]
    error = status.to_error(s, V03, Cx())
    code = JSON_RPC_ERROR_CODE_MAP[error_class]
    if code == -32700:
        assert error["code"] == -32603
        return
    assert not s.details and s.message == f"{error_class.__name__}: went wrong"
    assert error == {"code": code, "message": "went wrong"}


@pytest.mark.parametrize("row", [r for r in ERRORS if r.code in status.PY03_STATUS], ids=lambda r: r.v10_name)
def test_reads_the_v03_server(row: Any) -> None:
    """a2a-sdk 0.3's gRPC server (its grpc_handler.abort_context): codes of its own, the class name."""
    s = status.GrpcStatus(status.STATUS_CODES[status.PY03_STATUS[row.code]], f"{row.v03_name}: Boom: really")
    for version in Version:
        error = status.to_error(s, version, Cx())
        assert (error["code"], error["message"]) == (row.code, "Boom: really")


@pytest.mark.parametrize(("name", "code"), [("INVALID_ARGUMENT", -32602), ("NOT_FOUND", -32001),
                                            ("UNIMPLEMENTED", -32004), ("INTERNAL", -32603),
                                            ("UNAVAILABLE", -32603)])
def test_bare_statuses(name: str, code: int) -> None:
    """No ErrorInfo, no class name (the generated servicer's "Method not implemented!"): by code, noted."""
    cx = Cx()
    error = status.to_error(status.GrpcStatus(status.STATUS_CODES[name], "Method not implemented!"), V10, cx)
    assert error == {"code": code, "message": "Method not implemented!"}
    assert [(n.code, n.path) for n in cx.notes] == [("error_reason_unknown", "$.code")]


def test_undecodable_trailer_is_noted() -> None:
    cx = Cx()
    error = status.to_error(status.GrpcStatus(5, "TaskNotFoundError: gone", b"\xff\xff"), V10, cx)
    assert error["code"] == -32001 and [n.code for n in cx.notes] == ["error_details_dropped"]


# ---- what the SDK's clients read from ours -----------------------------------------------------------

@pytest.mark.parametrize("error_class", SDK_ERRORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("version", list(Version), ids=lambda v: v.value)
def test_sdk_clients_read_ours(error_class: type[A2AError], version: Version) -> None:
    """a2a-sdk 1.x's clients raise the same error class from our status: v1.0 by the ErrorInfo reason,
    v0.3 by the class name leading the message."""
    code = JSON_RPC_ERROR_CODE_MAP[error_class]
    s = status.from_error({"code": code, "message": "went wrong"}, version, Cx())
    client = sdk_client10 if version is V10 else sdk_client03
    if version is V10 and code == -32700:  # no reason in the v1.0 spec; the table's PARSE_ERROR is ours
        with pytest.raises(A2AClientError, match="INVALID_ARGUMENT: went wrong"):
            client._map_grpc_error(as_call_error(s))
        return
    with pytest.raises(A2AError) as raised:
        client._map_grpc_error(as_call_error(s))
    assert type(raised.value) is error_class and raised.value.message == "went wrong"
    assert s.name == BY_CODE[code].grpc


# ---- golden error objects through a status and back --------------------------------------------------

EXACT = [f for f in golden.fixtures() if f.family == "error" and not str(f).split("/")[-1].startswith(
    ("bad_request", "foreign", "metadata_object", "no_error_info", "pycore", "stray", "unknown"))]


@pytest.mark.parametrize("fixture", EXACT, ids=str)
def test_golden_errors_round_trip(fixture: golden.Fixture) -> None:
    version = V10 if fixture.dialect is Dialect.V10 else V03
    cx = Cx()
    back = status.to_error(status.from_error(copy.deepcopy(fixture.payload), version, cx), version, cx)
    assert jsoncodec.dumps(back) == jsoncodec.dumps(fixture.payload)
    assert cx.notes == []


def test_unknown_code() -> None:
    """A code without a row has no status of its own: it arrives as UNKNOWN (-32603), noted both ways."""
    cx = Cx()
    s = status.from_error({"code": -32000, "message": "Server error", "data": {"trace": "abc"}}, V03, cx)
    assert (s.name, s.message) == ("UNKNOWN", "Server error")
    assert status.to_error(s, V10, cx) == {"code": -32603, "message": "Server error",
                                           "data": [{"@type": "type.googleapis.com/google.protobuf.Value",
                                                     "value": {"trace": "abc"}}]}
    assert [n.code for n in cx.notes] == ["error_reason_unknown", "error_reason_unknown"]


def test_details_that_cannot_travel_are_noted() -> None:
    """a2a-sdk 1.x puts dicts into ErrorInfo.metadata (a map of strings) and strings into `data`."""
    cx = Cx()
    bad_info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_PARAMS",
                "domain": "a2a-protocol.org", "metadata": {"errors": [{"x": 1}]}}
    s = status.from_error({"code": -32602, "message": "bad", "data": [bad_info]}, V10, cx)
    assert [(n.code, n.path) for n in cx.notes] == [("error_details_dropped", "$.data[0]")]
    assert status.to_error(s, V10, Cx())["data"] == [  # S10: the ErrorInfo is never missing
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_PARAMS", "domain": "a2a-protocol.org"}]
    cx = Cx()
    status.from_error({"code": -32602, "message": "bad", "data": "a string"}, V10, cx)
    assert [n.code for n in cx.notes] == ["error_data_not_array"]


@pytest.mark.parametrize(("fault", "name"), [(UnknownOperation("no such method"), "NOT_FOUND"),
                                             (LimitExceeded(), "RESOURCE_EXHAUSTED"),
                                             (UpstreamUnavailable(), "UNAVAILABLE")])
def test_own_faults(fault: Any, name: str) -> None:
    s = status.from_fault(fault, V10)
    assert s.name == name
    assert status.to_error(s, V10, Cx())["data"][0]["domain"] == "a2a-protocol.org"
    assert status.from_fault(fault, V03).message.endswith(fault.message)


def test_status_tables() -> None:
    assert set(status.PY03_STATUS.values()) | set(status.BARE_STATUS) | set(status.TRANSPORT_STATUS) <= set(
        status.STATUS_CODES)
    assert {row.grpc for row in ERRORS} <= set(status.STATUS_CODES)
    assert set(status.HTTP_STATUS.values()) <= set(status.STATUS_CODES)
