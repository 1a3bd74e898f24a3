"""Oracles nobody here wrote: every golden fixture is checked by the official types. v1.0 by strict
ProtoJSON parsing into a2a-sdk's v1.0 protobuf types, v0.3 JSON-RPC by the official v0.3 JSON Schema
(shipped in tests/oracle/), v0.3 REST by strict ProtoJSON parsing into the SDK's v0.3 protobuf types."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb03
from a2a.types import a2a_pb2 as pb10
from google.protobuf import json_format

from gateway.core.types import Dialect

_SCHEMA_PATH = Path(__file__).parent / "oracle" / "a2a-v0.3.0.schema.json"


def _any_of(*names: str) -> dict[str, Any]:
    return {"anyOf": [{"$ref": f"#/definitions/{n}"} for n in names]}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/definitions/{name}"}


NULL: dict[str, Any] = {"type": "null"}
EMPTY: dict[str, Any] = {"anyOf": [{"type": "null"}, {"type": "object", "maxProperties": 0}]}

# family -> (v1.0 message, v0.3 JSON-RPC schema, v0.3 REST message); None = no such object in that dialect
ORACLES: dict[str, tuple[str | None, dict[str, Any] | None, str | None]] = {
    "part": ("Part", _ref("Part"), "Part"),
    "message": ("Message", _ref("Message"), "Message"),
    "artifact": ("Artifact", _ref("Artifact"), "Artifact"),
    "task_status": ("TaskStatus", _ref("TaskStatus"), "TaskStatus"),
    "task": ("Task", _ref("Task"), "Task"),
    "status_update": ("TaskStatusUpdateEvent", _ref("TaskStatusUpdateEvent"), "TaskStatusUpdateEvent"),
    "artifact_update": ("TaskArtifactUpdateEvent", _ref("TaskArtifactUpdateEvent"), "TaskArtifactUpdateEvent"),
    "stream_response": ("StreamResponse",
                        _any_of("Task", "Message", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent"),
                        "StreamResponse"),
    "send_result": ("SendMessageResponse", _any_of("Task", "Message"), "SendMessageResponse"),
    "push_config": ("TaskPushNotificationConfig", _ref("PushNotificationConfig"), "PushNotificationConfig"),
    "task_push_config": ("TaskPushNotificationConfig", _ref("TaskPushNotificationConfig"),
                         "TaskPushNotificationConfig"),
    "agent_card": ("AgentCard", _ref("AgentCard"), "AgentCard"),
    "params.send_message": ("SendMessageRequest", _ref("MessageSendParams"), "SendMessageRequest"),
    "params.get_task": ("GetTaskRequest", _ref("TaskQueryParams"), "GetTaskRequest"),
    "params.cancel_task": ("CancelTaskRequest", _ref("TaskIdParams"), "CancelTaskRequest"),
    "params.subscribe_to_task": ("SubscribeToTaskRequest", _ref("TaskIdParams"), "TaskSubscriptionRequest"),
    "params.create_push_config": ("TaskPushNotificationConfig", _ref("TaskPushNotificationConfig"),
                                  "TaskPushNotificationConfig"),  # the P03 REST body: `config`
    "params.get_push_config": ("GetTaskPushNotificationConfigRequest",
                               _ref("GetTaskPushNotificationConfigParams"),
                               "GetTaskPushNotificationConfigRequest"),
    "params.list_push_configs": ("ListTaskPushNotificationConfigsRequest",
                                 _ref("ListTaskPushNotificationConfigParams"),
                                 "ListTaskPushNotificationConfigRequest"),
    "params.delete_push_config": ("DeleteTaskPushNotificationConfigRequest",
                                  _ref("DeleteTaskPushNotificationConfigParams"),
                                  "DeleteTaskPushNotificationConfigRequest"),
    "params.get_extended_card": ("GetExtendedAgentCardRequest", EMPTY, "GetAgentCardRequest"),
    "params.list_tasks": ("ListTasksRequest", None, None),
    "result.send_message": ("SendMessageResponse", _any_of("Task", "Message"), "SendMessageResponse"),
    "result.get_task": ("Task", _ref("Task"), "Task"),
    "result.cancel_task": ("Task", _ref("Task"), "Task"),
    "result.create_push_config": ("TaskPushNotificationConfig", _ref("TaskPushNotificationConfig"),
                                  "TaskPushNotificationConfig"),
    "result.get_push_config": ("TaskPushNotificationConfig", _ref("TaskPushNotificationConfig"),
                               "TaskPushNotificationConfig"),
    "result.list_push_configs": ("ListTaskPushNotificationConfigsResponse",
                                 {"type": "array", "items": _ref("TaskPushNotificationConfig")},
                                 "ListTaskPushNotificationConfigResponse"),
    "result.delete_push_config": (None, NULL, None),
    "result.get_extended_card": ("AgentCard", _ref("AgentCard"), "AgentCard"),
    "result.list_tasks": ("ListTasksResponse", None, None),
}


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_SCHEMA_PATH.read_text())
    return loaded


def check(family: str, dialect: Dialect, payload: Any) -> None:
    """Raise if `payload` is not a valid `family` object of `dialect` by the official types."""
    if family not in ORACLES:
        return
    v10, v03rpc, v03rest = ORACLES[family]
    if dialect is Dialect.V10:
        if v10 is None:
            assert payload in (None, {}), f"{family}: v1.0 Empty expected"
            return
        json_format.ParseDict(payload, getattr(pb10, v10)())  # strict: unknown fields raise
    elif dialect is Dialect.V03REST:
        if v03rest is None:
            assert payload in (None, {}), f"{family}: v0.3 REST Empty expected"
            return
        json_format.ParseDict(payload, getattr(pb03, v03rest)())
    else:
        assert v03rpc is not None, f"{family} has no v0.3 JSON-RPC shape"
        schema = dict(v03rpc, definitions=_schema()["definitions"])
        jsonschema.Draft7Validator(schema).validate(payload)
