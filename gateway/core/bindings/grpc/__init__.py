"""The gRPC binding of both versions, sans-IO: `codec` (the RPC table and protobuf bytes ⇄ the dialects'
dicts), `status` (gRPC status and google.rpc.Status details ⇄ A2A error objects), `metadata` (version,
extension and hop-by-hop keys), `frames` (a relayed stream as a gRPC caller's messages). The protos
and their generated modules live in `proto`."""

from gateway.core.bindings.grpc.codec import (
    BY_PATH,
    DIALECTS,
    NO_RPC,
    RPCS,
    SERVICES,
    Rpc,
    by_path,
    decode,
    decode_request,
    decode_response,
    encode,
    encode_request,
    encode_response,
    for_operation,
    message_class,
    service_version,
)
from gateway.core.bindings.grpc.frames import GrpcFrames
from gateway.core.bindings.grpc.status import DETAILS_KEY, GrpcStatus, from_error, from_fault, from_hub_error, to_error

__all__ = [
    "BY_PATH",
    "DETAILS_KEY",
    "DIALECTS",
    "NO_RPC",
    "RPCS",
    "SERVICES",
    "GrpcFrames",
    "GrpcStatus",
    "Rpc",
    "by_path",
    "decode",
    "decode_request",
    "decode_response",
    "encode",
    "encode_request",
    "encode_response",
    "for_operation",
    "from_error",
    "from_fault",
    "from_hub_error",
    "message_class",
    "service_version",
    "to_error",
]
