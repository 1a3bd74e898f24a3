"""A relayed stream framed for gRPC callers (GrpcFrames through StreamRelay), fed as SSE or as already
framed items: messages of the caller's RPC, `final` for v0.3, errors as the status that ends the call;
and the card's gRPC interfaces."""

from __future__ import annotations

from gateway.core import jsoncodec
from gateway.core.bindings.grpc import GrpcFrames, GrpcStatus, for_operation, message_class
from gateway.core.card import Interface, UpstreamCard, gateway_interfaces
from gateway.core.errors import UpstreamTimeout
from gateway.core.notes import Cx
from gateway.core.stream import StreamRelay
from gateway.core.types import Binding, Dialect, Version

V03, V10 = Version.V03, Version.V10
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}
DONE = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}


Frame = bytes | GrpcStatus


def _relay(client: Version, upstream: Dialect, binding: Binding) -> StreamRelay[Frame, list[Frame]]:
    rpc = for_operation("send_streaming_message", client)
    assert rpc is not None
    return StreamRelay(GrpcFrames(rpc, Cx()), upstream=upstream, upstream_binding=binding, cx=Cx())


def _sse(result: object) -> bytes:
    return b"data: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": result}) + b"\n\n"


def test_v10_sse_agent_to_v03_grpc_caller_marks_final() -> None:
    relay = _relay(V03, Dialect.V10, Binding.JSONRPC)
    frames = relay.feed(_sse({"task": TASK}) + _sse(DONE))
    assert relay.done and all(isinstance(f, bytes) for f in frames)
    cls = message_class(V03, "StreamResponse")
    items = [cls.FromString(f) for f in frames if isinstance(f, bytes)]
    assert [i.WhichOneof("payload") for i in items] == ["task", "status_update"]
    assert items[1].status_update.final is True


def test_items_fed_from_a_grpc_agent() -> None:
    relay = _relay(V10, Dialect.V03REST, Binding.GRPC)
    first = relay.feed_item({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}})
    last = relay.feed_item({"statusUpdate": {"taskId": "t1", "contextId": "c1", "final": True,
                                             "status": {"state": "TASK_STATE_COMPLETED"}}})
    assert len(first) == 1 and len(last) == 1 and relay.done
    assert relay.feed_item({"task": TASK}) == []  # nothing after the end


def test_upstream_error_and_fault_are_statuses() -> None:
    relay = _relay(V10, Dialect.V10, Binding.GRPC)
    relay.feed_item({"task": TASK})
    (status,) = relay.error({"code": -32001, "message": "Task not found"})
    assert isinstance(status, GrpcStatus) and status.name == "NOT_FOUND" and relay.done
    relay = _relay(V03, Dialect.V10, Binding.JSONRPC)
    (fault,) = relay.fail(UpstreamTimeout("idle"))
    assert isinstance(fault, GrpcStatus) and fault.name == "UNAVAILABLE"  # the agent's silence, not the deadline


def test_bad_item_is_the_agents_fault() -> None:
    relay = _relay(V10, Dialect.V10, Binding.GRPC)
    (status,) = relay.feed_item({"nonsense": {}})
    assert isinstance(status, GrpcStatus) and status.name == "INTERNAL" and relay.done


def test_gateway_interfaces_list_grpc_only_with_a_target() -> None:
    bindings = (Binding.JSONRPC, Binding.REST, Binding.GRPC)
    listed = gateway_interfaces("http://gw:8080", bindings, "gw:50051")
    grpc = [(i["protocolVersion"], i["url"]) for i in listed if i["protocolBinding"] == "GRPC"]
    assert grpc == [("1.0", "gw:50051"), ("0.3", "gw:50051")]
    assert all(i["protocolBinding"] != "GRPC" for i in gateway_interfaces("http://gw:8080", bindings))


def test_grpc_interfaces_are_taken_last_for_http_callers() -> None:
    grpc10 = Interface(V10, Binding.GRPC, "a:1")
    rpc10 = Interface(V10, Binding.JSONRPC, "http://a/")
    card = UpstreamCard({}, (grpc10, rpc10))
    assert card.candidates(V10, Binding.JSONRPC)[0] is rpc10
    assert card.candidates(V03, Binding.REST)[0] is rpc10
    assert card.candidates(V10, Binding.GRPC)[0] is grpc10
    assert UpstreamCard({}, (grpc10,)).candidates(V03, Binding.JSONRPC) == [grpc10]  # a gRPC-only agent
