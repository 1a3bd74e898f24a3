"""Owns the client side of a relayed stream: items and errors framed as SSE in the client's dialect and
binding, and the v0.3 `final` flag. It must not read upstream bytes or decide when the stream ends."""

from __future__ import annotations

from typing import Any, Final

from gateway.core import jsoncodec
from gateway.core.bindings.jsonrpc import error_envelope, result_envelope
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.sse import encode_data
from gateway.core.translate import translate
from gateway.core.translate.errors import StatusTable, jsonrpc_error, rest_body, rest_error
from gateway.core.types import Binding, Dialect, JsonObj

ERROR_EVENT: Final = "error"  # the SSE event name of every error the relay writes (v0.3 clients ignore it)

# enum members as module constants: Enum class attribute lookups are slow on the per-event path
_JSONRPC = Binding.JSONRPC
_REST = Binding.REST
_V03RPC = Dialect.V03RPC
_V10 = Dialect.V10


class ClientFrames:
    """The SSE frames of one client stream, whose dialect, binding and JSON-RPC id are fixed at its start."""

    __slots__ = ("binding", "cx", "dialect", "rpc_id", "status_table")

    def __init__(self, dialect: Dialect, binding: Binding, rpc_id: Any, cx: Cx, status_table: StatusTable) -> None:
        self.dialect = dialect
        self.binding = binding
        self.rpc_id = rpc_id
        self.cx = cx
        self.status_table = status_table

    def set_final(self, item: JsonObj, final: bool) -> None:
        """Mark a client status-update item final or not (v0.3 JSON-RPC `final`, REST `statusUpdate.final`)."""
        if self.dialect is _V03RPC:
            item["final"] = final
        elif final:
            item["statusUpdate"]["final"] = True
        else:
            item["statusUpdate"].pop("final", None)  # ProtoJSON omits a false bool

    def item(self, item: JsonObj) -> bytes:
        """One translated item, in a JSON-RPC result envelope when the client speaks JSON-RPC."""
        body = result_envelope(self.rpc_id, item) if self.binding is _JSONRPC else item
        return b"data: " + jsoncodec.dumpb(body) + b"\n\n"   # JSON text holds no raw line break: one line

    def upstream_error(self, hub: JsonObj, at: str) -> bytes:
        """An upstream A2A error (hub: a v1.0 JSON-RPC error object) in the client's shape, code kept."""
        body: JsonObj
        if self.binding is _REST:
            body = rest_body(hub, self.dialect, self.cx, self.status_table, at)[1]
        elif self.dialect is _V10:
            body = error_envelope(self.rpc_id, hub)
        else:
            body = error_envelope(self.rpc_id, translate("error", hub, src=_V10, dst=self.dialect,
                                                         cx=self.cx, at=f"{at}.error"))
        return encode_data(jsoncodec.dumps(body), ERROR_EVENT)

    def gateway_error(self, error: GatewayError) -> bytes:
        """The gateway's own error in the client's shape."""
        if self.binding is _JSONRPC:
            body = error_envelope(self.rpc_id, jsonrpc_error(error, self.dialect))
        else:
            body = rest_error(error, self.dialect, self.status_table)[1]
        return encode_data(jsoncodec.dumps(body), ERROR_EVENT)
