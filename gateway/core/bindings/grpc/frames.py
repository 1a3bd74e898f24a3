"""A relayed stream as a gRPC caller receives it (core.stream.Frames): each item one encoded response
message of its RPC, an upstream A2A error or the gateway's own fault the status that ends the call."""

from __future__ import annotations

from gateway.core.bindings.grpc.codec import Rpc, encode_response
from gateway.core.bindings.grpc.status import GrpcStatus, from_fault, from_hub_error
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.sse import SseComment
from gateway.core.types import Dialect, JsonObj

Frame = bytes | GrpcStatus  # one response message, or the status ending the call


class GrpcFrames:
    """Frames for a server-streaming RPC: messages in the caller's version, the errors as statuses."""

    __slots__ = ("cx", "rpc")

    def __init__(self, rpc: Rpc, cx: Cx) -> None:
        self.rpc, self.cx = rpc, cx

    @property
    def dialect(self) -> Dialect:
        return self.rpc.dialect

    def set_final(self, item: JsonObj, final: bool) -> None:
        """v0.3's `TaskStatusUpdateEvent.final` (v1.0's proto has none: the end of the call says it)."""
        update = item.get("statusUpdate")
        if type(update) is not dict:
            return
        if final:
            update["final"] = True
        else:
            update.pop("final", None)  # proto3: false is unset

    def item(self, item: JsonObj) -> Frame:
        return encode_response(self.rpc, item, self.cx)

    def comment(self, comment: SseComment) -> None:
        return None  # HTTP/2 keeps the call alive; SSE comments have no gRPC form

    def upstream_error(self, hub: JsonObj, at: str) -> Frame:
        return from_hub_error(hub, self.rpc.version, self.cx)

    def gateway_error(self, error: GatewayError) -> Frame:
        return from_fault(error, self.rpc.version)

    def join(self, frames: list[Frame]) -> list[Frame]:
        return frames
