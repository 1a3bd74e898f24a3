"""OPERATIONS: every row consistent, methods map both ways (wire-mapping.md §1.1, §9 case 12), routes
(§1.2.1)."""

from __future__ import annotations

import re

import pytest

from gateway.core.errors import UnknownOperation, UnsupportedOperation
from gateway.core.operations import (
    BY_NAME,
    BY_V03_METHOD,
    BY_V10_METHOD,
    OPERATIONS,
    Operation,
    by_method,
    by_name,
)
from gateway.core.types import Version

# wire-mapping.md §1.1, transcribed independently of the module
V03_TO_V10 = {
    "message/send": "SendMessage",
    "message/stream": "SendStreamingMessage",
    "tasks/get": "GetTask",
    "tasks/cancel": "CancelTask",
    "tasks/resubscribe": "SubscribeToTask",
    "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
    "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
    "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
}

NAMES = {
    "send_message", "send_streaming_message", "get_task", "list_tasks", "cancel_task",
    "subscribe_to_task", "create_push_config", "get_push_config", "list_push_configs",
    "delete_push_config", "get_extended_card",
}


def test_one_row_per_operation() -> None:
    assert {op.name for op in OPERATIONS} == NAMES
    assert len(OPERATIONS) == len(NAMES)
    assert set(BY_NAME) == NAMES


def test_methods_unique_across_both_versions() -> None:
    spellings = [m for op in OPERATIONS for m in (op.v03_method, op.v10_method, *op.v03_aliases) if m]
    assert len(spellings) == len(set(spellings))


@pytest.mark.parametrize(("v03", "v10"), sorted(V03_TO_V10.items()))
def test_v03_method_maps_to_v10_and_back(v03: str, v10: str) -> None:
    op, version = by_method(v03)
    assert version is Version.V03
    assert op.method(Version.V10) == v10
    op10, version10 = by_method(v10)
    assert version10 is Version.V10
    assert op10 is op
    assert op10.method(Version.V03) == v03


def test_every_row_is_covered_by_the_table() -> None:
    assert {op.v03_method for op in OPERATIONS if op.v03_method} == set(V03_TO_V10)
    assert {op.v10_method for op in OPERATIONS} == {*V03_TO_V10.values(), "ListTasks"}


def test_list_tasks_has_no_v03_method() -> None:
    op, version = by_method("ListTasks")
    assert version is Version.V10
    assert op.v03_method is None
    assert op.v03_routes == ()
    with pytest.raises(UnsupportedOperation) as exc:
        op.method(Version.V03)
    assert exc.value.jsonrpc_code == -32004


def test_card_alias_accepted_never_emitted() -> None:
    op, version = by_method("agent/authenticatedExtendedCard")
    assert (op.name, version) == ("get_extended_card", Version.V03)
    assert op.method(Version.V03) == "agent/getAuthenticatedExtendedCard"
    assert BY_V03_METHOD["agent/authenticatedExtendedCard"] is op


@pytest.mark.parametrize("method", ["tasks/list", "sendMessage", "", "message/Send", "SendMessage "])
def test_unknown_method(method: str) -> None:
    with pytest.raises(UnknownOperation) as exc:
        by_method(method)
    assert exc.value.jsonrpc_code == -32601


def test_by_name() -> None:
    assert by_name("get_task").v10_method == "GetTask"
    with pytest.raises(UnknownOperation):
        by_name("nope")


def test_lookup_tables_agree_with_rows() -> None:
    for op in OPERATIONS:
        assert BY_V10_METHOD[op.v10_method] is op
        for m in (op.v03_method, *op.v03_aliases):
            if m is not None:
                assert BY_V03_METHOD[m] is op


def test_families() -> None:
    for op in OPERATIONS:
        assert op.params_family.startswith("params.")
        if op.streaming:
            assert op.result_family == "stream_response"
        else:
            assert op.result_family == f"result.{op.name}"
    stream = {op.name: op for op in OPERATIONS if op.streaming}
    assert set(stream) == {"send_streaming_message", "subscribe_to_task"}
    assert stream["send_streaming_message"].params_family == "params.send_message"
    assert stream["subscribe_to_task"].params_family == "params.subscribe_to_task"
    expected = {f"params.{n}" for n in NAMES - {"send_streaming_message"}}
    assert {op.params_family for op in OPERATIONS} == expected


_VERBS = {"GET", "POST", "DELETE"}
_TEMPLATE = re.compile(r"(/([A-Za-z0-9]+|\{[A-Za-z]+\})(:[a-z]+)?)+")


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_routes_are_well_formed(op: Operation) -> None:
    for verb, path in op.v03_routes:
        assert verb in _VERBS
        assert path.startswith("/v1/") and _TEMPLATE.fullmatch(path), path
    assert op.v10_routes, "every operation has a v1.0 route"
    for verb, path in op.v10_routes:
        assert verb in _VERBS
        assert not path.startswith("/v1/") and _TEMPLATE.fullmatch(path), path
        assert "{tenant}" not in path
    assert op.routes(Version.V03) == op.v03_routes
    assert op.routes(Version.V10) == op.v10_routes


def test_routes_unique_per_version() -> None:
    for version in Version:
        routes = [r for op in OPERATIONS for r in op.routes(version)]
        assert len(routes) == len(set(routes))


def test_v03_routes_are_v10_routes_with_prefix_except_push_ids() -> None:
    """§1.2.1: →1.0 strips `/v1`; push-config paths also rename {id}/{configId} to {taskId}/{id}; the
    card moved from /v1/card to /extendedAgentCard."""
    rename = {"/card": "/extendedAgentCard", "{configId}": "{id}",
              "{id}/pushNotificationConfigs": "{taskId}/pushNotificationConfigs"}
    for op in OPERATIONS:
        for verb, path in op.v03_routes:
            stripped = path.removeprefix("/v1")
            for old, new in rename.items():
                stripped = stripped.replace(old, new)
            assert (verb, stripped) in op.v10_routes, (op.name, path)


def test_known_routes() -> None:
    assert BY_NAME["send_message"].v03_routes == (("POST", "/v1/message:send"),)
    assert BY_NAME["get_task"].v10_routes == (("GET", "/tasks/{id}"),)
    assert BY_NAME["list_tasks"].v10_routes == (("GET", "/tasks"),)
    assert BY_NAME["get_extended_card"].v03_routes == (("GET", "/v1/card"),)
    assert BY_NAME["get_extended_card"].v10_routes == (("GET", "/extendedAgentCard"),)
    assert {v for v, _ in BY_NAME["subscribe_to_task"].v03_routes} == {"GET", "POST"}
    assert {v for v, _ in BY_NAME["subscribe_to_task"].v10_routes} == {"GET", "POST"}
    assert BY_NAME["get_push_config"].v03_routes == (
        ("GET", "/v1/tasks/{id}/pushNotificationConfigs/{configId}"),)
    assert BY_NAME["delete_push_config"].v10_routes == (
        ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"),)


def test_rows_are_frozen() -> None:
    with pytest.raises(AttributeError):
        OPERATIONS[0].name = "x"  # type: ignore[misc]
