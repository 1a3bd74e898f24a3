"""OPERATIONS, one row per A2A operation: its JSON-RPC names and HTTP+JSON shape per version, its params and
result families, and every per-operation behaviour the rest of the gateway reads. No translation code.

Adding an operation is adding a row here (plus its translators and goldens): nothing else dispatches on an
operation's name. The rows are transcribed from the v0.3 proto, the v0.3 JSON schema and the v1.0 proto
(their `service A2AService` RPCs and `google.api.http` annotations). v0.3's GetAgentCard RPC is the extended
card: the a2a-sdk 0.3 client calls it only when the card says `supportsAuthenticatedExtendedCard`, and the
v0.3 layer of a2a-sdk 1.x answers it with the extended card."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from gateway.core.errors import UnknownOperation, UnsupportedOperation
from gateway.core.tables import bijection
from gateway.core.types import Dialect, Version

Route = tuple[str, str]
"""(HTTP verb, path template). Templates carry no `/{tenant}` prefix (the REST binding adds it)."""

QueryType = Literal["string", "int32", "bool", "task_state", "timestamp"]
BodyForm = Literal["merge", "none", "create_request"]
"""How a POST body and the path's members become the params: `merge` (body members, the path's win, as
google.api.http transcoding does), `none` (servers ignore the body), `create_request` (the v0.3 push-config
create body, which real clients send in two forms; see core/bindings/rest.py)."""

_NO_QUERY: Mapping[str, QueryType] = MappingProxyType({})
_PAGE: Mapping[str, QueryType] = MappingProxyType({"pageSize": "int32", "pageToken": "string"})


@dataclass(frozen=True, slots=True)
class RestShape:
    """How one operation travels over HTTP+JSON in one version."""

    routes: tuple[Route, ...]            # the first route is the one emitted toward agents
    resource: tuple[str, str] | None = None
    """v0.3 only: the request member holding the proto resource name and its pattern (`("name",
    "tasks/{id}")`); the pattern's `{vars}` are the route's path variables (checked at import)."""
    query: Mapping[str, QueryType] = field(default_factory=lambda: _NO_QUERY)  # typed query-string fields
    body: BodyForm = "merge"
    keep_in_body: frozenset[str] = frozenset()   # path-bound members still sent in the body, as real clients do
    verb_quirk: str | None = None         # a Quirks field naming the verb to emit toward agents
    js_status: int = 200                  # the success status with quirk rest_success_codes = "js"
    empty_result: bool = False            # google.protobuf.Empty: no body or `{}`
    rename_result: bool = True            # read proto field names of a reply as json names (the card reads its own)


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    v03_method: str | None                # None: no v0.3 JSON-RPC method (ListTasks)
    v10_method: str
    params_family: str
    result_family: str
    streaming: bool
    rest: Mapping[Version, RestShape]     # a version missing here has no HTTP+JSON route for it
    grpc: Mapping[Version, str]           # the RPC of each version's A2AService; a version missing has none
    v03_aliases: tuple[str, ...] = ()     # extra v0.3 spellings accepted on input, never emitted
    read_only: bool = False               # changes nothing upstream: safe to send again
    webhook: tuple[str, ...] | None = None
    """Where a client's webhook config sits in the v1.0 params (a member path; `()` is the params themselves);
    the push relay registers its own webhook there instead. None: the operation registers none."""
    webhook_task: tuple[str, ...] = ()    # where that config's task id sits in the v1.0 params
    push_results: bool = False            # results carry push configs: the relay's are unsealed for the client
    history: tuple[str, ...] | None = None  # where a v1.0 request carries `historyLength`
    unary_member: str | None = None
    """The StreamResponse member a unary result becomes when it is read as a stream item (the AG-UI door
    reads every result so); None when the result is already a `{task | message}` wrapper."""
    card_result: bool = False             # the result is an agent card: served as the gateway's own
    settles: bool = False
    """A blocking call of it is answered once its task is terminal or interrupted: an agent that answers it at
    once with the task under way has the task read again for the caller (core.compose.under_way)."""
    v03_rpc_paged: bool = False
    """v0.3 JSON-RPC has no paging for this list: a v0.3 JSON-RPC caller gets every page of a v1.0 agent."""
    v03_rest_gap: bool = False
    """a2a-sdk 0.3's REST servers do not serve it (list raises NotImplementedError, there is no DELETE route):
    the agent's other interfaces are tried first."""
    sse_errors: frozenset[Dialect] = field(default_factory=frozenset)
    """Callers of these dialects read this streaming operation only as SSE, even a refusal (a2a-js 0.3's
    `tasks/resubscribe` client): its errors before the first event go out as one SSE error event."""

    def method(self, version: Version) -> str:
        """The JSON-RPC method to emit in `version`; UnsupportedOperation when it has none."""
        method = self.v10_method if version is Version.V10 else self.v03_method
        if method is None:
            raise UnsupportedOperation(f"{self.v10_method} has no A2A {version.value} equivalent")
        return method

    def routes(self, version: Version) -> tuple[Route, ...]:
        shape = self.rest.get(version)
        return shape.routes if shape is not None else ()

    @property
    def v03_routes(self) -> tuple[Route, ...]:
        return self.routes(Version.V03)

    @property
    def v10_routes(self) -> tuple[Route, ...]:
        return self.routes(Version.V10)


_TASK = ("name", "tasks/{id}")
_CONFIG = ("name", "tasks/{id}/pushNotificationConfigs/{configId}")
V03, V10 = Version.V03, Version.V10

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "send_message", "message/send", "SendMessage",
        "params.send_message", "result.send_message", False,
        {V03: RestShape((("POST", "/v1/message:send"),), js_status=201),
         V10: RestShape((("POST", "/message:send"),))},
        {V03: "SendMessage", V10: "SendMessage"},
        webhook=("configuration", "taskPushNotificationConfig"), webhook_task=("message", "taskId"),
        history=("configuration", "historyLength"), settles=True,
    ),
    Operation(
        "send_streaming_message", "message/stream", "SendStreamingMessage",
        "params.send_message", "stream_response", True,
        {V03: RestShape((("POST", "/v1/message:stream"),)),
         V10: RestShape((("POST", "/message:stream"),))},
        {V03: "SendStreamingMessage", V10: "SendStreamingMessage"},
        webhook=("configuration", "taskPushNotificationConfig"), webhook_task=("message", "taskId"),
        history=("configuration", "historyLength"),
    ),
    Operation(
        "get_task", "tasks/get", "GetTask",
        "params.get_task", "result.get_task", False,
        {V03: RestShape((("GET", "/v1/tasks/{id}"),), resource=_TASK, query={"historyLength": "int32"}),
         V10: RestShape((("GET", "/tasks/{id}"),), query={"historyLength": "int32"})},
        {V03: "GetTask", V10: "GetTask"},
        read_only=True, history=("historyLength",), unary_member="task",
    ),
    Operation(
        "list_tasks", None, "ListTasks",
        "params.list_tasks", "result.list_tasks", False,
        # the v0.3 proto has no ListTasks; the v0.3 spec's `GET /v1/tasks` was never served by the SDKs
        {V10: RestShape((("GET", "/tasks"),), query={
            "contextId": "string", "status": "task_state", **_PAGE, "historyLength": "int32",
            "statusTimestampAfter": "timestamp", "includeArtifacts": "bool"})},
        {V10: "ListTasks"},
        read_only=True, history=("historyLength",),
    ),
    Operation(
        "cancel_task", "tasks/cancel", "CancelTask",
        "params.cancel_task", "result.cancel_task", False,
        # the PY03 client posts {"name": "tasks/{id}"}; servers ignore the v0.3 body
        {V03: RestShape((("POST", "/v1/tasks/{id}:cancel"),), resource=_TASK, body="none",
                        keep_in_body=frozenset({"name"})),
         V10: RestShape((("POST", "/tasks/{id}:cancel"),))},
        {V03: "CancelTask", V10: "CancelTask"},
        unary_member="task",
    ),
    Operation(
        "subscribe_to_task", "tasks/resubscribe", "SubscribeToTask",
        "params.subscribe_to_task", "stream_response", True,
        # both protos annotate GET, both prose specs say POST; real servers accept both
        {V03: RestShape((("GET", "/v1/tasks/{id}:subscribe"), ("POST", "/v1/tasks/{id}:subscribe")),
                        resource=_TASK, body="none", keep_in_body=frozenset({"name"}),
                        verb_quirk="rest_subscribe_verb"),
         V10: RestShape((("GET", "/tasks/{id}:subscribe"), ("POST", "/tasks/{id}:subscribe")), body="none")},
        {V03: "TaskSubscription", V10: "SubscribeToTask"},
        read_only=True, sse_errors=frozenset({Dialect.V03RPC}),
    ),
    Operation(
        "create_push_config", "tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig",
        "params.create_push_config", "result.create_push_config", False,
        {V03: RestShape((("POST", "/v1/tasks/{id}/pushNotificationConfigs"),), resource=("parent", "tasks/{id}"),
                        body="create_request", keep_in_body=frozenset({"parent"}), js_status=201),
         # a2a-python accepts the task id in the body too
         V10: RestShape((("POST", "/tasks/{taskId}/pushNotificationConfigs"),), keep_in_body=frozenset({"taskId"}))},
        {V03: "CreateTaskPushNotificationConfig", V10: "CreateTaskPushNotificationConfig"},
        webhook=(), webhook_task=("taskId",), push_results=True,
    ),
    Operation(
        "get_push_config", "tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig",
        "params.get_push_config", "result.get_push_config", False,
        {V03: RestShape((("GET", "/v1/tasks/{id}/pushNotificationConfigs/{configId}"),), resource=_CONFIG),
         V10: RestShape((("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}"),))},
        {V03: "GetTaskPushNotificationConfig", V10: "GetTaskPushNotificationConfig"},
        read_only=True, push_results=True,
    ),
    Operation(
        "list_push_configs", "tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs",
        "params.list_push_configs", "result.list_push_configs", False,
        {V03: RestShape((("GET", "/v1/tasks/{id}/pushNotificationConfigs"),), resource=("parent", "tasks/{id}"),
                        query=_PAGE),
         V10: RestShape((("GET", "/tasks/{taskId}/pushNotificationConfigs"),), query=_PAGE)},
        {V03: "ListTaskPushNotificationConfig", V10: "ListTaskPushNotificationConfigs"},
        read_only=True, push_results=True, v03_rpc_paged=True, v03_rest_gap=True,
    ),
    Operation(
        "delete_push_config", "tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig",
        "params.delete_push_config", "result.delete_push_config", False,
        {V03: RestShape((("DELETE", "/v1/tasks/{id}/pushNotificationConfigs/{configId}"),), resource=_CONFIG,
                        js_status=204, empty_result=True),
         V10: RestShape((("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"),), empty_result=True)},
        {V03: "DeleteTaskPushNotificationConfig", V10: "DeleteTaskPushNotificationConfig"},
        v03_rest_gap=True,
    ),
    Operation(
        "get_extended_card", "agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard",
        "params.get_extended_card", "result.get_extended_card", False,
        {V03: RestShape((("GET", "/v1/card"),), rename_result=False),
         V10: RestShape((("GET", "/extendedAgentCard"),), rename_result=False)},
        {V03: "GetAgentCard", V10: "GetExtendedAgentCard"},
        v03_aliases=("agent/authenticatedExtendedCard",),  # a typo of the v0.3 spec, accepted
        read_only=True, card_result=True,
    ),
)


def _index() -> tuple[dict[str, Operation], dict[str, Operation], dict[str, Operation]]:
    by_name = {op.name: op for op in OPERATIONS}
    if len(by_name) != len(OPERATIONS):
        raise ValueError("OPERATIONS: duplicate operation name")
    # bijection() rejects a method spelled twice in either version
    bijection({op.v03_method: op.v10_method for op in OPERATIONS if op.v03_method is not None})
    v10, _ = bijection({op.v10_method: op.name for op in OPERATIONS})
    v03: dict[str, str] = {}
    for op in OPERATIONS:
        for method in (op.v03_method, *op.v03_aliases):
            if method is None:
                continue
            if method in v03 or method in v10:
                raise ValueError(f"OPERATIONS: method {method!r} listed twice")
            v03[method] = op.name
    return (by_name, {m: by_name[n] for m, n in v03.items()}, {m: by_name[n] for m, n in v10.items()})


BY_NAME, BY_V03_METHOD, BY_V10_METHOD = (MappingProxyType(table) for table in _index())
"""Operations by name, by v0.3 JSON-RPC method (aliases included) and by v1.0 JSON-RPC method."""
BY_METHOD: Mapping[str, tuple[Operation, Version]] = MappingProxyType({
    **{m: (op, Version.V03) for m, op in BY_V03_METHOD.items()},
    **{m: (op, Version.V10) for m, op in BY_V10_METHOD.items()},
})


def by_method(method: str) -> tuple[Operation, Version]:
    """The operation a JSON-RPC method names and the version its spelling belongs to (the spelling decides
    the dialect of the params, whatever `A2A-Version` says)."""
    try:
        return BY_METHOD[method]
    except (KeyError, TypeError):
        raise UnknownOperation(f"Method not found: {method!r}") from None


def by_name(name: str) -> Operation:
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownOperation(f"unknown operation {name!r}") from None
