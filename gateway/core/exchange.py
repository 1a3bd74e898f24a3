"""One proxied call, planned purely, for any client side (version × binding) and any upstream side: the
request to send upstream, the reply for the client (results and A2A errors translated through the v1.0 hub,
paging for v0.3 lists, history limits the agent may not honour, push webhooks sealed and unsealed), and the
gateway's own faults in the client's shape. What differs per operation is read from its OPERATIONS row.
No I/O: the shell sends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import gateway.core.jsoncodec as jsoncodec
from gateway.core.bindings import grpc, jsonrpc, rest
from gateway.core.card import Interface, UpstreamCard, served_card
from gateway.core.compose import NO_HISTORY_LIMIT
from gateway.core.dialects import DIALECTS, SPECS
from gateway.core.errors import (
    GatewayError,
    InvalidAgentResponse,
    MalformedEnvelope,
    TranslationError,
    UnsupportedOperation,
    as_agent_error,
)
from gateway.core.mixed import agent_item
from gateway.core.notes import Cx, Note, RestBytes
from gateway.core.operations import Operation
from gateway.core.quirks import Quirks
from gateway.core.stream import Frames, HubFrames, HubItem, StreamRelay, sse_relay
from gateway.core.timestamps import repair_statuses
from gateway.core.translate import translate
from gateway.core.translate.errors import jsonrpc_error, rest_body, rest_error, rest_error_from_http
from gateway.core.types import Binding, Dialect, JsonObj, Version

if TYPE_CHECKING:
    from gateway.core.push.seal import PushSealer

JSON = "application/json"
UPSTREAM_RPC_ID = "a2a-gateway"  # the id of JSON-RPC requests the gateway makes on its own or for REST clients
MAX_LIST_ITEMS = 10_000          # a v0.3 caller's unpaged list stops following pages here

F = TypeVar("F")      # one stream frame for the client (see core.stream.Frames)
Out = TypeVar("Out")  # the frames of one relay call, joined


@dataclass(frozen=True, slots=True)
class Call:
    """What the client asked: an operation and its params in the client's dialect."""

    op: Operation
    version: Version
    binding: Binding
    params: Any
    rpc_id: Any = None   # JSON-RPC clients only, echoed verbatim


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete reply for the client; `error` says whether it reports a failure (whatever its status)."""

    status: int
    body: bytes
    content_type: str = JSON
    error: bool = False


@dataclass(frozen=True, slots=True)
class Done:
    """The reply for the client is ready."""

    reply: Reply


@dataclass(frozen=True, slots=True)
class Again:
    """Send this request upstream too and hand its reply back (a v0.3 client's unpaged list)."""

    request: rest.Outgoing


@dataclass(frozen=True, slots=True)
class Result:
    """An upstream reply read for the client: the result (`ok`) or an A2A error object, in the client's
    dialect (for a REST client's error: the v1.0 hub error object)."""

    ok: bool
    value: Any


@dataclass(slots=True)
class Exchange:
    """A translated exchange between a client side and an upstream side of different shapes."""

    call: Call
    upstream: Interface
    quirks: Quirks = field(default_factory=Quirks)
    base_url: str = ""                              # the gateway's public base, for the extended card
    bindings: tuple[Binding, ...] = (Binding.JSONRPC,)
    sealer: PushSealer | None = None                # the push relay, when enabled
    rest_bytes: RestBytes | None = None             # the v0.3 REST agent's file-bytes convention, if learned
    rest_bytes_guess: RestBytes | None = None       # a v0.3 REST client's, as its User-Agent suggests
    grpc_target: str = ""                           # the gateway's gRPC `host:port`, for the extended card
    # the gateway's card signature (shell.edge.signing): (card as served, as a v1.0 reader reads it) -> signed card
    sign_card: Callable[[JsonObj, JsonObj | None], JsonObj] | None = None
    cx: Cx = field(init=False)
    # the call's operation, the client's dialect and the agent's (read several times a request)
    op: Operation = field(init=False)
    src: Dialect = field(init=False)
    dst: Dialect = field(init=False)
    webhooks: list[str] = field(init=False, default_factory=list)   # client webhook URLs to vet
    seen: list[Any] = field(init=False, default_factory=list)       # results read for the client (task index)
    relay: StreamRelay[Any, Any] | None = field(init=False, default=None)   # the stream's relay, once made
    spoke_v03: bool = field(init=False, default=False)  # a v0.3-shaped result from an interface said to be v1.0
    _history: int | None = field(init=False, default=None)
    _up_params: Any = field(init=False, default=None)
    _configs: list[Any] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.cx = Cx(quirks=self.quirks, tenant=self.upstream.tenant, rest_bytes=self.rest_bytes,
                     rest_bytes_guess=self.rest_bytes_guess)
        self.op = self.call.op
        self.src = DIALECTS[(self.call.version, self.call.binding)]
        self.dst = DIALECTS[(self.upstream.version, self.upstream.binding)]

    @property
    def notes(self) -> list[Note]:
        return self.cx.notes

    # ---- request ------------------------------------------------------------------------------

    def upstream_request(self) -> rest.Outgoing:
        """The request for the agent. Raises GatewayError for invalid or untranslatable params."""
        params = self.call.params if self.call.params is not None else {}
        family = self.op.params_family
        if self.sealer is not None and self._registers_webhook(params):
            hub = translate(family, params, src=self.src, dst=Dialect.V10, cx=self.cx, at="$.params")
            hub = self._seal(hub)
            up = translate(family, hub, src=Dialect.V10, dst=self.dst, cx=self.cx, at="$.params")
        else:
            up = translate(family, params, src=self.src, dst=self.dst, cx=self.cx, at="$.params")
        if self.src is Dialect.V10 and self.dst is Dialect.V10 and self.upstream.tenant \
                and isinstance(up, dict) and not up.get("tenant"):
            up["tenant"] = self.upstream.tenant  # v1.0 requests carry the interface's tenant (translators add it)
        self._up_params = up
        if self.call.version is Version.V10 and self.op.history is not None and isinstance(params, dict):
            # v1.0 promises at most historyLength messages (0: none); a v0.3 agent cannot be trusted
            hist = _at(params, self.op.history)
            self._history = hist if type(hist) is int else None
            if self._history is None and self.upstream.version is Version.V03 and len(self.op.history) == 1 \
                    and isinstance(up, dict) and self.op.history[0] not in up:
                # an absent limit is "no limit" in v1.0 (S10 §3.2.4); some v0.3 agents send no history unasked
                up[self.op.history[0]] = NO_HISTORY_LIMIT
        elif self.op.history is not None and isinstance(params, dict):
            # a v0.3 caller's positive limit holds too, whatever the agent does (its 0 means "all": no limit)
            hist = _at(params, self.op.history)
            self._history = hist if type(hist) is int and hist > 0 else None
        return self._outgoing(up)

    @property
    def upstream_rpc(self) -> grpc.Rpc | None:
        """The RPC a gRPC agent serves this operation by (None for HTTP agents)."""
        if self.upstream.binding is not Binding.GRPC:
            return None
        rpc = grpc.for_operation(self.op, self.upstream.version)
        if rpc is None:
            raise UnsupportedOperation(f"{self.op.v10_method} has no A2A {self.upstream.version.value} gRPC RPC")
        return rpc

    def _outgoing(self, params: Any) -> rest.Outgoing:
        rpc = self.upstream_rpc
        if rpc is not None:   # a gRPC agent: the RPC's path and its request message
            return rest.Outgoing("POST", rpc.path, (), grpc.encode_request(rpc, params, self.cx))
        if self.upstream.binding is Binding.REST:
            return rest.build(self.op, params, self.upstream.version, tenant=self.upstream.tenant,
                              quirks=self.quirks)
        rpc_id = self.call.rpc_id if self.call.binding is Binding.JSONRPC else UPSTREAM_RPC_ID
        envelope = jsonrpc.request_envelope(rpc_id, self.op.method(self.upstream.version), params)
        return rest.Outgoing("POST", "", (), jsoncodec.dumpb(envelope))

    def _registers_webhook(self, params: Any) -> bool:
        """Whether the client's params carry a webhook config (the row says where, in v1.0 terms)."""
        where = self.op.webhook
        if where is None or not isinstance(params, dict):
            return False
        if not where:
            return True
        conf = params.get(where[0])
        return isinstance(conf, dict) and conf.get(SPECS[self.src].push_config_member) is not None

    def _seal(self, hub: JsonObj) -> JsonObj:
        """The client's webhook config replaced by the relay's own, the client's route sealed inside."""
        assert self.sealer is not None and self.op.webhook is not None
        config = _at(hub, self.op.webhook)
        if not isinstance(config, dict) or type(config.get("url")) is not str:
            raise TranslationError("$.params", "the push notification config has no url")
        self.webhooks.append(config["url"])
        task_id = _at(hub, self.op.webhook_task)
        sealed = self.sealer.seal(config, client=self.call.version, task_id=task_id if type(task_id) is str else "")
        return _put(hub, self.op.webhook, sealed)

    # ---- reply --------------------------------------------------------------------------------

    def client_reply(self, status: int, body: bytes) -> Done | Again:
        """Translate the agent's reply (any HTTP status) for the client."""
        step = self.read_reply(status, body)
        if isinstance(step, Again):
            return step
        if isinstance(step, Reply):
            return Done(step)
        return self._done(step)

    def read_reply(self, status: int, body: bytes) -> Result | Again | Reply:
        """The agent's reply read for the client: its result or A2A error in the client's dialect (a
        Result), one more page to fetch (Again), or the gateway's own fault as the client's Reply."""
        try:
            return self.read_result(status, body)
        except GatewayError as err:
            return self.error_reply(err)

    def read_result(self, status: int, body: bytes) -> Result | Again:
        """read_reply for a caller that frames the gateway's own faults itself (gRPC): they are raised.
        A2A errors are in the client's JSON-RPC dialect; for REST and gRPC clients the v1.0 hub's."""
        return self._read_value(*self._read_upstream(status, body))

    def client_grpc_reply(self, reply: bytes | grpc.GrpcStatus) -> Done | Again:
        """client_reply for a gRPC agent's outcome (its reply message, or its error status)."""
        step = self.read_grpc_reply(reply)
        if isinstance(step, Again):
            return step
        if isinstance(step, Reply):
            return Done(step)
        return self._done(step)

    def read_grpc_reply(self, reply: bytes | grpc.GrpcStatus) -> Result | Again | Reply:
        """read_reply for a gRPC agent's outcome (its reply message, or its error status)."""
        try:
            return self.read_grpc_result(reply)
        except GatewayError as err:
            return self.error_reply(err)

    def read_grpc_result(self, reply: bytes | grpc.GrpcStatus) -> Result | Again:
        """read_result for a gRPC agent's outcome (its reply message, or its error status)."""
        rpc = self.upstream_rpc
        assert rpc is not None, "not a gRPC agent"
        if isinstance(reply, grpc.GrpcStatus):
            return self._read_value(False, grpc.to_error(reply, Version.V10, self.cx))
        return self._read_value(True, grpc.decode_response(rpc, reply, self.cx))

    def grpc_item(self, message: bytes) -> Any:
        """One message of a gRPC agent's stream, as its dialect's StreamResponse (for StreamRelay.feed_item)."""
        rpc = self.upstream_rpc
        assert rpc is not None, "not a gRPC agent"
        return grpc.decode_response(rpc, message, self.cx)

    def grpc_error(self, status: grpc.GrpcStatus) -> JsonObj:
        """A gRPC agent's error status as the v1.0 hub error (for StreamRelay.error)."""
        return grpc.to_error(status, Version.V10, self.cx)

    def _read_value(self, ok: bool, value: Any) -> Result | Again:
        if not ok:
            if self.call.binding is not Binding.JSONRPC or self.src is Dialect.V10:
                return Result(False, value)
            return Result(False, translate("error", value, src=Dialect.V10, dst=self.src, cx=self.cx,
                                           at="$.error"))
        try:
            result = self._result(value)
        except GatewayError as err:
            raise as_agent_error(err) from None
        if isinstance(result, Again):
            return result
        self.seen.append(result)
        return Result(True, result)

    def _read_upstream(self, status: int, body: bytes) -> tuple[bool, Any]:
        """(True, result) or (False, the error as a v1.0 JSON-RPC error object)."""
        if self.upstream.binding is Binding.REST:
            if 200 <= status < 300:
                return True, rest.result_from_body(self.op, self.upstream.version, body)
            parsed = _loads_or_none(body)
            return False, rest_error_from_http(status, parsed, self.cx, "$")
        reply = jsonrpc.parse_response(body)
        if reply.error is None:
            return True, reply.result
        hub = reply.error if self.upstream.version is Version.V10 else translate(
            "error", reply.error, src=Dialect.V03RPC, dst=Dialect.V10, cx=self.cx, at="$.error")
        return False, hub

    def from_hub(self, result: Any) -> Result:
        """A v1.0 result of this exchange's operation that the gateway read itself (a blocking send's task,
        read again until it settled), for the client as the agent's own result would be: in its dialect,
        its history within the limit it asked for, among the results the task index sees."""
        out = self._within_history(translate(self.op.result_family, result, src=Dialect.V10, dst=self.src,
                                             cx=self.cx, at="$.result"))
        self.seen.append(out)
        return Result(True, out)

    def _within_history(self, out: Any) -> Any:
        """A result for the client, its task's history cut to the limit the client asked for (if any)."""
        if self._history is not None:
            _truncate_history(out.get("task", out) if isinstance(out, dict) else None, self._history)
        return out

    def reply_for(self, result: Result) -> Reply:
        """A result or A2A error read for the client (read_reply's, or one the shell composed) as its reply.
        A value the encoder refuses is the agent's fault (InvalidAgentResponse): a number past a double's
        range, which the lighter reading of an agent's reply lets through, or a gRPC agent's NaN."""
        try:
            return self._success(result.value) if result.ok else self._error_reply(result.value)
        except MalformedEnvelope as err:
            raise InvalidAgentResponse(f"agent reply cannot be written again: {err.message}") from None

    def _done(self, result: Result) -> Done:
        """reply_for as the end of the exchange: the agent's fault answered as the client's error."""
        try:
            return Done(self.reply_for(result))
        except InvalidAgentResponse as err:
            return Done(self.error_reply(err))

    def _success(self, result: Any) -> Reply:
        if self.call.binding is Binding.JSONRPC:
            return Reply(200, jsoncodec.dumpb(jsonrpc.result_envelope(self.call.rpc_id, result)))
        status = rest.success_status(self.op, self.call.version, self.quirks)
        return Reply(status, rest.reply_body(self.op, self.call.version, result, status))

    def _error_reply(self, error: JsonObj) -> Reply:
        """An upstream A2A error (read_reply's value) as the client's reply."""
        if self.call.binding is Binding.REST:
            status, body = rest_body(error, self.src, self.cx, self.quirks.rest_v03_status_table)
            return Reply(status, jsoncodec.dumpb(body), error=True)
        return Reply(200, jsoncodec.dumpb(jsonrpc.error_envelope(self.call.rpc_id, error)), error=True)

    def error_reply(self, err: GatewayError) -> Reply:
        """The gateway's own fault in the client's version and binding, with its id."""
        return error_reply(err, self.call.version, self.call.binding, self.call.rpc_id, self.quirks)

    def stream(self, *, max_event_bytes: int) -> StreamRelay[bytes, bytes]:
        """The relay of this call's upstream stream, framed as SSE for the client."""
        relay = self.relay = sse_relay(client=self.src, client_binding=self.call.binding, upstream=self.dst,
                                       upstream_binding=self.upstream.binding, rpc_id=self.call.rpc_id, cx=self.cx,
                                       max_event_bytes=max_event_bytes, history_length=self._history)
        relay.track = self.src is Dialect.V10 and self.upstream.version is Version.V03
        return relay

    def hub_stream(self, *, max_event_bytes: int) -> StreamRelay[HubItem, list[HubItem]]:
        """The relay of this call's upstream stream as v1.0 items, for an in-process v1.0 client."""
        if self.src is not Dialect.V10:
            raise ValueError("hub_stream is for v1.0 callers")
        return self.framed(HubFrames(), max_event_bytes=max_event_bytes)

    def framed(self, frames: Frames[F, Out], *, max_event_bytes: int) -> StreamRelay[F, Out]:
        """The relay of this call's upstream stream, framed by `frames` (in the client's dialect); kept as
        `relay`, tracking tasks for the index as `stream` does."""
        if frames.dialect is not self.src:
            raise ValueError(f"frames in {frames.dialect.value}, the client speaks {self.src.value}")
        relay: StreamRelay[F, Out] = StreamRelay(frames, upstream=self.dst, upstream_binding=self.upstream.binding,
                                                 cx=self.cx, max_event_bytes=max_event_bytes,
                                                 history_length=self._history)
        relay.track = self.src is Dialect.V10 and self.upstream.version is Version.V03
        self.relay = relay
        return relay

    def _result(self, result: Any) -> Any:
        op = self.op
        if op.v03_rpc_paged and self.src is Dialect.V03RPC and self.upstream.version is Version.V10:
            return self._page(result)
        if op.card_result:
            return self._card(result)
        src = self.dst
        if src is Dialect.V10 and self.upstream.binding is Binding.JSONRPC \
                and (item := agent_item(result, self.cx, "$.result")) is not None:
            result, src, self.spoke_v03 = item, Dialect.V03RPC, True  # a 1.0 card, a v0.3 result: read so, learned
        if src is Dialect.V10 and self.src is Dialect.V10:
            # a v1.0 caller reads the hub as the agent wrote it: its timestamps repaired here (toward a v0.3
            # caller the status translator repairs them as it writes them)
            repair_statuses(result, self.cx, "$.result")
        if self.sealer is not None and op.push_results:
            hub = translate(op.result_family, result, src=self.dst, dst=Dialect.V10, cx=self.cx, at="$.result")
            hub = self._unseal(hub)
            return translate(op.result_family, hub, src=Dialect.V10, dst=self.src, cx=self.cx, at="$.result")
        return self._within_history(translate(op.result_family, result, src=src, dst=self.src, cx=self.cx,
                                              at="$.result"))

    def _card(self, result: Any) -> JsonObj:
        """The agent's (extended) card as the gateway serves it: every interface pointing at the gateway,
        signed as the public card is when the gateway has a key."""
        card = UpstreamCard(translate("agent_card", result, src=self.dst, dst=Dialect.V10, cx=self.cx,
                                      at="$.result"), ())
        out = served_card(card, client=self.call.version, base_url=self.base_url, bindings=self.bindings,
                          cx=self.cx, grpc_target=self.grpc_target)
        if self.src is Dialect.V03REST:
            out = translate("agent_card", out, src=Dialect.V03RPC, dst=Dialect.V03REST, cx=self.cx)
        if self.sign_card is None:
            return out
        # a v1.0 reader of the v0.3 card reads the v1.0 card out of it: signed too, as on the card door
        v10 = served_card(card, client=Version.V10, base_url=self.base_url, bindings=self.bindings, cx=Cx(),
                          grpc_target=self.grpc_target) if self.call.version is Version.V03 else None
        return self.sign_card(out, v10)

    def _unseal(self, hub: Any) -> Any:
        assert self.sealer is not None
        if isinstance(hub, dict) and "configs" in hub:
            return {**hub, "configs": [self.sealer.unseal(c) for c in hub["configs"]]}
        return self.sealer.unseal(hub) if isinstance(hub, dict) else hub

    def _page(self, result: Any) -> Any:
        """v0.3 JSON-RPC lists are not paged: follow nextPageToken upstream and concatenate the pages."""
        page = result if isinstance(result, dict) else {}
        token = page.get("nextPageToken")
        hub = {"configs": page.get("configs", [])}
        if self.sealer is not None:
            hub = self._unseal(hub)
        self._configs.extend(translate(self.op.result_family, hub, src=Dialect.V10, dst=Dialect.V03RPC,
                                       cx=self.cx, at="$.result"))
        if token and len(self._configs) < MAX_LIST_ITEMS:
            return Again(self._outgoing({**self._up_params, "pageToken": token}))
        return self._configs


def error_reply(err: GatewayError, version: Version, binding: Binding, rpc_id: Any, quirks: Quirks) -> Reply:
    """A gateway fault for a caller of `version` over `binding` (JSON-RPC: HTTP 200 + error envelope)."""
    dialect = DIALECTS[(version, binding)]
    if binding is Binding.REST:
        status, body = rest_error(err, dialect, quirks.rest_v03_status_table)
        return Reply(status, jsoncodec.dumpb(body), error=True)
    return Reply(200, jsoncodec.dumpb(jsonrpc.error_envelope(rpc_id, jsonrpc_error(err, dialect))), error=True)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    """The member at `path` (None when a step is missing or not an object)."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _put(value: JsonObj, path: tuple[str, ...], new: Any) -> JsonObj:
    """A copy of `value` with the member at `path` replaced (the objects along the path copied, not mutated)."""
    if not path:
        return new if isinstance(new, dict) else value
    head, *rest_ = path
    return {**value, head: _put(value[head], tuple(rest_), new) if rest_ else new}


def _loads_or_none(body: bytes) -> Any:
    try:
        return jsoncodec.loads(body) if body else None
    except GatewayError:
        return body.decode("utf-8", "replace")[:2000]


def _truncate_history(task: JsonObj | None, limit: int) -> None:
    if not isinstance(task, dict) or "history" not in task:
        return
    if limit == 0:
        del task["history"]
    elif len(task["history"]) > limit:
        task["history"] = task["history"][-limit:]
