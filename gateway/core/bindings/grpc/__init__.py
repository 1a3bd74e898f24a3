"""The gRPC binding of both versions, sans-IO: `codec` (the RPC table and protobuf bytes ⇄ the dialects'
dicts), `status` (gRPC status and google.rpc.Status details ⇄ A2A error objects), `metadata` (version,
extension and hop-by-hop keys). The protos and their generated modules live in `proto`."""

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
from gateway.core.bindings.grpc.status import DETAILS_KEY, GrpcStatus, from_error, from_fault, to_error

__all__ = [
    "BY_PATH",
    "DETAILS_KEY",
    "DIALECTS",
    "NO_RPC",
    "RPCS",
    "SERVICES",
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
    "message_class",
    "service_version",
    "to_error",
]
