"""OPERATIONS, one row per A2A operation: JSON-RPC names and REST routes per version, the params and
result families, the streaming flag. The only place method names and routes live; no translation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from gateway.core.errors import UnknownOperation, UnsupportedOperation
from gateway.core.tables import bijection
from gateway.core.types import Version

Route = tuple[str, str]
"""(HTTP verb, path template). Templates carry no `/{tenant}` prefix (the REST binding adds it)."""


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    v03_method: str | None  # None: no v0.3 JSON-RPC method (ListTasks)
    v10_method: str
    v03_aliases: tuple[str, ...]  # extra v0.3 spellings accepted on input, never emitted
    params_family: str
    result_family: str
    streaming: bool
    v03_routes: tuple[Route, ...]  # first route is the one emitted toward v0.3 agents
    v10_routes: tuple[Route, ...]  # first route is the one emitted toward v1.0 agents

    def method(self, version: Version) -> str:
        """The JSON-RPC method to emit in `version`; UnsupportedOperation when it has none."""
        method = self.v10_method if version is Version.V10 else self.v03_method
        if method is None:
            raise UnsupportedOperation(f"{self.v10_method} has no A2A {version.value} equivalent")
        return method

    def routes(self, version: Version) -> tuple[Route, ...]:
        return self.v10_routes if version is Version.V10 else self.v03_routes


# Sources: wire-mapping.md §1.1 (methods) and §1.2.1 (paths); P03sdk / P10 http annotations.
OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "send_message", "message/send", "SendMessage", (),
        "params.send_message", "result.send_message", False,
        (("POST", "/v1/message:send"),),
        (("POST", "/message:send"),),
    ),
    Operation(
        "send_streaming_message", "message/stream", "SendStreamingMessage", (),
        "params.send_message", "stream_response", True,
        (("POST", "/v1/message:stream"),),
        (("POST", "/message:stream"),),
    ),
    Operation(
        "get_task", "tasks/get", "GetTask", (),
        "params.get_task", "result.get_task", False,
        (("GET", "/v1/tasks/{id}"),),
        (("GET", "/tasks/{id}"),),
    ),
    Operation(
        "list_tasks", None, "ListTasks", (),
        "params.list_tasks", "result.list_tasks", False,
        (),  # P03 has no ListTasks; S03's `GET /v1/tasks` was never served by PY03/PY/JS
        (("GET", "/tasks"),),
    ),
    Operation(
        "cancel_task", "tasks/cancel", "CancelTask", (),
        "params.cancel_task", "result.cancel_task", False,
        (("POST", "/v1/tasks/{id}:cancel"),),
        (("POST", "/tasks/{id}:cancel"),),
    ),
    Operation(
        "subscribe_to_task", "tasks/resubscribe", "SubscribeToTask", (),
        "params.subscribe_to_task", "stream_response", True,
        # P03/P10 annotate GET, the prose specs say POST; real servers accept both (§1.2.1)
        (("GET", "/v1/tasks/{id}:subscribe"), ("POST", "/v1/tasks/{id}:subscribe")),
        (("GET", "/tasks/{id}:subscribe"), ("POST", "/tasks/{id}:subscribe")),
    ),
    Operation(
        "create_push_config", "tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig", (),
        "params.create_push_config", "result.create_push_config", False,
        (("POST", "/v1/tasks/{id}/pushNotificationConfigs"),),
        (("POST", "/tasks/{taskId}/pushNotificationConfigs"),),
    ),
    Operation(
        "get_push_config", "tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig", (),
        "params.get_push_config", "result.get_push_config", False,
        (("GET", "/v1/tasks/{id}/pushNotificationConfigs/{configId}"),),
        (("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}"),),
    ),
    Operation(
        "list_push_configs", "tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs", (),
        "params.list_push_configs", "result.list_push_configs", False,
        (("GET", "/v1/tasks/{id}/pushNotificationConfigs"),),
        (("GET", "/tasks/{taskId}/pushNotificationConfigs"),),
    ),
    Operation(
        "delete_push_config", "tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig", (),
        "params.delete_push_config", "result.delete_push_config", False,
        (("DELETE", "/v1/tasks/{id}/pushNotificationConfigs/{configId}"),),
        (("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"),),
    ),
    Operation(
        "get_extended_card", "agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard",
        ("agent/authenticatedExtendedCard",),  # S03 §11.1.3 typo
        "params.get_extended_card", "result.get_extended_card", False,
        (("GET", "/v1/card"),),
        (("GET", "/extendedAgentCard"),),
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


_BY_NAME, _BY_V03, _BY_V10 = _index()
BY_NAME: Mapping[str, Operation] = MappingProxyType(_BY_NAME)
BY_V03_METHOD: Mapping[str, Operation] = MappingProxyType(_BY_V03)  # aliases included
BY_V10_METHOD: Mapping[str, Operation] = MappingProxyType(_BY_V10)
_BY_METHOD: Mapping[str, tuple[Operation, Version]] = MappingProxyType({
    **{m: (op, Version.V03) for m, op in _BY_V03.items()},
    **{m: (op, Version.V10) for m, op in _BY_V10.items()},
})


def by_method(method: str) -> tuple[Operation, Version]:
    """The operation a JSON-RPC method names and the version its spelling belongs to (§2.4 rule 1)."""
    try:
        return _BY_METHOD[method]
    except (KeyError, TypeError):
        raise UnknownOperation(f"Method not found: {method!r}") from None


def by_name(name: str) -> Operation:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownOperation(f"unknown operation {name!r}") from None
