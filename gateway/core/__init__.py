"""The translation core's front door: its public API, pure (sans-IO: dicts and bytes in, dicts and bytes out;
no asyncio, sockets, clocks or random ids). Everything the shell and a library user need is named here.

    from gateway.core import Cx, Dialect, translate
    cx = Cx()
    task = translate("task", v03_task, src=Dialect.V03RPC, dst=Dialect.V10, cx=cx)
    cx.notes   # what the translation dropped, coerced or defaulted (code, JSON path, detail)

Sources the comments cite, by abbreviation (the specifications at github.com/a2aproject/A2A, the SDKs at
github.com/a2aproject/a2a-python, a2a-js and a2a-go):
    S03     the A2A v0.3.0 specification (docs/specification.md at tag v0.3.0)
    S10     the A2A v1.0.1 specification (docs/specification.md at tag v1.0.1)
    J03     the v0.3.0 JSON Schema (specification/json/a2a.json at v0.3.0)
    P03     the v0.3.0 gRPC proto, package a2a.v1 (specification/grpc/a2a.proto at v0.3.0), which also
            defines the v0.3 HTTP+JSON routes and bodies (ProtoJSON)
    P10     the v1.0.1 proto, package lf.a2a.v1 (specification/a2a.proto at v1.0.1)
    PY03    a2a-python 0.3.x (a2a-sdk 0.3.26): what real v0.3 Python clients and servers do
    PY      a2a-python 1.x's v0.3 compatibility layer (src/a2a/compat/v0_3)
    PYcore  a2a-python 1.x itself (its v1.0 server, client and utils)
    JS03    a2a-js 0.3.x (@a2a-js/sdk 0.3.14)
    JS      a2a-js 1.x's v0.3 compatibility layer
    GO      a2a-go's v0.3 compatibility layer (a2acompat/a2av0)
"""

from gateway.core import jsoncodec
from gateway.core.dialects import DIALECTS, SPECS, DialectSpec
from gateway.core.errors import (
    AgentUnavailable,
    GatewayError,
    InvalidAgentResponse,
    InvalidRequest,
    LimitExceeded,
    MalformedEnvelope,
    StreamError,
    TranslationError,
    UnknownFamily,
    UnknownOperation,
    UnsupportedOperation,
    UnsupportedVersion,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from gateway.core.exchange import Call, Exchange, Reply, Result
from gateway.core.notes import Cx, Note
from gateway.core.operations import OPERATIONS, Operation, by_method, by_name
from gateway.core.quirks import Quirks
from gateway.core.sse import SseComment, SseEvent, SseParser, encode
from gateway.core.stream import HubItem, StreamRelay, sse_relay
from gateway.core.translate import Family, families, translate
from gateway.core.types import Binding, Dialect, Json, JsonObj, Version

__all__ = [
    "DIALECTS",
    "OPERATIONS",
    "SPECS",
    "AgentUnavailable",
    "Binding",
    "Call",
    "Cx",
    "Dialect",
    "DialectSpec",
    "Exchange",
    "Family",
    "GatewayError",
    "HubItem",
    "InvalidAgentResponse",
    "InvalidRequest",
    "Json",
    "JsonObj",
    "LimitExceeded",
    "MalformedEnvelope",
    "Note",
    "Operation",
    "Quirks",
    "Reply",
    "Result",
    "SseComment",
    "SseEvent",
    "SseParser",
    "StreamError",
    "StreamRelay",
    "TranslationError",
    "UnknownFamily",
    "UnknownOperation",
    "UnsupportedOperation",
    "UnsupportedVersion",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "Version",
    "by_method",
    "by_name",
    "encode",
    "families",
    "jsoncodec",
    "sse_relay",
    "translate",
]
