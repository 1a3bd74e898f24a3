"""One proxied JSON-RPC call, planned purely: the request to send upstream, the reply for the client
(results and A2A errors translated, paging for v0.3 lists, history limits the agent may not honour),
and the gateway's own faults in the client's version. No I/O: the shell sends and receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gateway.core import jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.card import UpstreamCard, served_card
from gateway.core.errors import GatewayError, as_agent_error
from gateway.core.notes import Cx, Note
from gateway.core.operations import Operation
from gateway.core.quirks import Quirks
from gateway.core.stream import StreamRelay
from gateway.core.translate.errors import jsonrpc_error
from gateway.core.translate.registry import translate
from gateway.core.types import Binding, Dialect, JsonObj, Version

RPC_DIALECT = {Version.V03: Dialect.V03RPC, Version.V10: Dialect.V10}


@dataclass(frozen=True, slots=True)
class Done:
    """The reply for the client is ready."""

    body: bytes


@dataclass(frozen=True, slots=True)
class Again:
    """Send this request upstream too and hand its reply back (a v0.3 client's unpaged list)."""

    body: bytes


@dataclass(slots=True)
class RpcExchange:
    """A translated JSON-RPC exchange between a client of one version and an agent of the other."""

    request: jsonrpc.RpcRequest
    op: Operation
    client: Version
    upstream: Version
    quirks: Quirks = field(default_factory=Quirks)
    tenant: str = ""
    # for the extended card: the gateway's own interfaces replace the agent's
    base_url: str = ""
    bindings: tuple[Binding, ...] = (Binding.JSONRPC,)
    cx: Cx = field(init=False)
    _history: int | None = field(init=False, default=None)
    _up_params: Any = field(init=False, default=None)
    _configs: list[Any] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.cx = Cx(quirks=self.quirks, tenant=self.tenant)

    @property
    def notes(self) -> list[Note]:
        return self.cx.notes

    @property
    def src(self) -> Dialect:
        return RPC_DIALECT[self.client]

    @property
    def dst(self) -> Dialect:
        return RPC_DIALECT[self.upstream]

    def upstream_request(self) -> bytes:
        """The JSON-RPC request for the agent. Raises GatewayError for invalid or untranslatable params."""
        params = self.request.params if self.request.params is not None else {}
        up = translate(self.op.params_family, params, src=self.src, dst=self.dst, cx=self.cx, at="$.params")
        self._up_params = up
        if self.client is Version.V10 and isinstance(params, dict):
            # v1.0 promises at most historyLength messages (0: none); a v0.3 agent cannot be trusted
            hist = params.get("historyLength", (params.get("configuration") or {}).get("historyLength"))
            self._history = hist if type(hist) is int else None
        return jsoncodec.dumpb(jsonrpc.request_envelope(self.request.id, self.op.method(self.upstream), up))

    def client_reply(self, body: bytes) -> Done | Again:
        """Translate the agent's JSON-RPC reply (any HTTP status) for the client."""
        try:
            reply = jsonrpc.parse_response(body)
        except GatewayError as err:
            return Done(self.error_reply(err))
        if reply.error is not None:
            error = translate("error", reply.error, src=self.dst, dst=self.src, cx=self.cx, at="$.error")
            return Done(jsoncodec.dumpb(jsonrpc.error_envelope(self.request.id, error)))
        try:
            result = self._result(reply.result)
        except GatewayError as err:
            return Done(self.error_reply(as_agent_error(err)))
        if isinstance(result, Again):
            return result
        return Done(jsoncodec.dumpb(jsonrpc.result_envelope(self.request.id, result)))

    def error_reply(self, err: GatewayError) -> bytes:
        """The gateway's own fault as a JSON-RPC error in the client's version, with its id."""
        return jsoncodec.dumpb(jsonrpc.error_envelope(self.request.id, jsonrpc_error(err, self.src)))

    def stream(self, *, max_event_bytes: int) -> StreamRelay:
        return StreamRelay(client=self.src, client_binding=Binding.JSONRPC, upstream=self.dst,
                           upstream_binding=Binding.JSONRPC, rpc_id=self.request.id, cx=self.cx,
                           max_event_bytes=max_event_bytes, history_length=self._history)

    def _result(self, result: Any) -> Any:
        name = self.op.name
        if name == "list_push_configs" and self.client is Version.V03 and self.upstream is Version.V10:
            return self._page(result)
        if name == "get_extended_card":
            card = translate("agent_card", result, src=self.dst, dst=Dialect.V10, cx=self.cx, at="$.result")
            upstream = UpstreamCard(card, ())
            return served_card(upstream, client=self.client, base_url=self.base_url,
                               bindings=self.bindings, cx=self.cx)
        out = translate(self.op.result_family, result, src=self.dst, dst=self.src, cx=self.cx, at="$.result")
        if self._history is not None:
            _truncate_history(out.get("task", out) if isinstance(out, dict) else None, self._history)
        return out

    def _page(self, result: Any) -> Any:
        """v0.3 has no paging: follow nextPageToken upstream and concatenate (wire-mapping §3.8)."""
        page = result if isinstance(result, dict) else {}
        token = page.get("nextPageToken")
        self._configs.extend(translate("result.list_push_configs", {"configs": page.get("configs", [])},
                                       src=Dialect.V10, dst=Dialect.V03RPC, cx=self.cx, at="$.result"))
        if token and len(self._configs) < 10_000:
            params = {**self._up_params, "pageToken": token}
            return Again(jsoncodec.dumpb(jsonrpc.request_envelope(
                self.request.id, self.op.method(self.upstream), params)))
        return self._configs


def _truncate_history(task: JsonObj | None, limit: int) -> None:
    if not isinstance(task, dict) or "history" not in task:
        return
    if limit == 0:
        del task["history"]
    elif len(task["history"]) > limit:
        task["history"] = task["history"][-limit:]
