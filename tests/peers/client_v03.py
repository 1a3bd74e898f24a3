"""Owns the real a2a-sdk 0.3.x test client: resolves the card, builds the SDK's Client for one binding and
runs one named scenario, printing one JSON line of what it saw. Run with the v03 venv's python."""

from __future__ import annotations

import argparse
import base64
import sys
import uuid
from collections.abc import Awaitable
from typing import Any

import grpc
import httpx
import peer_common as common
from a2a import types as a2a_types
from a2a.client import A2ACardResolver, BaseClient, Client, ClientConfig, ClientEvent, ClientFactory
from a2a.client.errors import A2AClientError, A2AClientHTTPError, A2AClientJSONRPCError
from a2a.client.transports.base import ClientTransport
from a2a.client.transports.grpc import GrpcTransport
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.client.transports.rest import RestTransport
from a2a.grpc import a2a_pb2
from a2a.types import (
    AgentCard,
    DataPart,
    DeleteTaskPushNotificationConfigParams,
    DeleteTaskPushNotificationConfigRequest,
    FilePart,
    FileWithBytes,
    FileWithUri,
    GetTaskPushNotificationConfigParams,
    JSONRPCErrorResponse,
    ListTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigResponse,
    Message,
    Part,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskStatusUpdateEvent,
    TextPart,
    TransportProtocol,
)
from a2a.utils import proto_utils
from google.protobuf.json_format import ParseDict
from pydantic import BaseModel

GENERATION = "v03"
PUSH_TOKEN = "push-token-1"
_TRANSPORTS = {
    "jsonrpc": TransportProtocol.jsonrpc,
    "rest": TransportProtocol.http_json,
    "grpc": TransportProtocol.grpc,
}

# ---- normalisation: SDK objects -> the generation-neutral summary the tests assert on -------------


def dump(model: BaseModel) -> dict[str, Any]:
    """The SDK's own JSON serialisation of one of its objects."""
    return model.model_dump(mode="json", exclude_none=True, by_alias=True)


def norm_part(part: Part) -> dict[str, Any]:
    root = part.root
    if isinstance(root, TextPart):
        return {"kind": "text", "text": root.text}
    if isinstance(root, DataPart):
        return {"kind": "data", "data": root.data}
    file = root.file
    out: dict[str, Any] = {"kind": "file", "mime_type": file.mime_type, "name": file.name}
    if isinstance(file, FileWithBytes):
        out["bytes"] = file.bytes
    else:
        out["uri"] = file.uri
    return out


def text_of(message: Message | None) -> str | None:
    if message is None or not message.parts:  # the 0.3.x REST client turns "no message" into an empty one
        return None
    return "".join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


def task_summary(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": task.status.state.value,
        "status_text": text_of(task.status.message),
        "artifacts": [
            {"artifact_id": a.artifact_id, "name": a.name, "parts": [norm_part(p) for p in a.parts]}
            for a in task.artifacts or []
        ],
    }


def norm_event(event: ClientEvent | Message) -> dict[str, Any]:
    """One received event: kind plus the fields a stream test cares about (`final` exists in v0.3 only)."""
    if isinstance(event, Message):
        return {"kind": "message", "text": text_of(event), "raw": dump(event)}
    task, update = event
    if update is None:
        return {"kind": "task", "state": task.status.state.value, "task_id": task.id, "raw": dump(task)}
    if isinstance(update, TaskStatusUpdateEvent):
        return {
            "kind": "status-update",
            "state": update.status.state.value,
            "final": update.final,
            "text": text_of(update.status.message),
            "task_id": update.task_id,
            "raw": dump(update),
        }
    assert isinstance(update, TaskArtifactUpdateEvent)
    return {
        "kind": "artifact-update",
        "artifact_id": update.artifact.artifact_id,
        "append": update.append,
        "last_chunk": update.last_chunk,
        "text": "".join(p.root.text for p in update.artifact.parts if isinstance(p.root, TextPart)),
        "task_id": update.task_id,
        "raw": dump(update),
    }


def map_error(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, A2AClientJSONRPCError):
        return {"type": type(exc.error).__name__, "code": exc.error.code, "message": exc.error.message}
    if isinstance(exc, A2AClientHTTPError):
        return {
            "type": type(exc).__name__,
            "code": None,
            "http_status": exc.status_code,
            "message": exc.message,
        }
    if isinstance(exc, A2AClientError):
        return {"type": type(exc).__name__, "code": None, "message": str(exc)}
    if isinstance(exc, grpc.aio.AioRpcError):
        return grpc_error(exc)
    return None


def grpc_error(exc: grpc.aio.AioRpcError) -> dict[str, Any]:
    """The 0.3.x gRPC client raises the call's error as is: its status and its details string, which the
    0.3.x server writes as "<ErrorClass>: <message>" (the class read back here, as a2a-sdk 1.x does)."""
    details = exc.details() or ""
    name, sep, message = details.partition(": ")
    error_class = getattr(a2a_types, name, None) if sep else None
    code_field = getattr(error_class, "model_fields", {}).get("code")
    return {
        "type": name if code_field else "AioRpcError",
        "code": code_field.default if code_field else None,
        "grpc_status": exc.code().name,
        "message": message if code_field else details,
    }


# ---- the peer: one card, SDK clients built from it ---------------------------------------------------


def user_message(parts: list[Part], task_id: str | None = None, context_id: str | None = None) -> Message:
    return Message(
        role=Role.user, message_id=str(uuid.uuid4()), parts=parts, task_id=task_id, context_id=context_id
    )


def text_message(text: str, task_id: str | None = None, context_id: str | None = None) -> Message:
    return user_message([Part(root=TextPart(text=text))], task_id, context_id)


class Peer:
    def __init__(self, args: argparse.Namespace, http: httpx.AsyncClient, card: AgentCard) -> None:
        self.args, self.http, self.card = args, http, card

    def client(self, *, streaming: bool = False, polling: bool = False) -> Client:
        config = ClientConfig(
            streaming=streaming,
            polling=polling,
            httpx_client=self.http,
            supported_transports=[_TRANSPORTS[self.args.transport]],
            use_client_preference=True,
            grpc_channel_factory=common.grpc_channel_factory(self.args),
        )
        return ClientFactory(config).create(self.card)

    def transport(self) -> ClientTransport:
        """The SDK transport under a fresh client (for the calls the 0.3.x Client lacks)."""
        client = self.client()
        assert isinstance(client, BaseClient)
        return client._transport

    async def send(self, message: Message, *, streaming: bool = False, polling: bool = False) -> list[Any]:
        """Every event the SDK client yields for one message, normalised as it arrives."""
        client = self.client(streaming=streaming, polling=polling)
        return [norm_event(event) async for event in client.send_message(message)]

    async def send_task(self, message: Message, *, polling: bool = False) -> Task:
        """Non-streaming send that must answer with a Task."""
        client = self.client(polling=polling)
        async for event in client.send_message(message):
            if isinstance(event, Message):
                raise A2AClientError(f"expected a Task, got a Message: {text_of(event)!r}")
            return event[0]
        raise A2AClientError("no response")

    # The 0.3.x SDK client has set/get push config only; list/delete go through its transport's own HTTP
    # plumbing and request/response models.
    async def list_push(self, task_id: str) -> list[dict[str, Any]]:
        transport = self.transport()
        if isinstance(transport, GrpcTransport):  # the 0.3.x gRPC server does not implement it
            grpc_listing = await transport.stub.ListTaskPushNotificationConfig(
                a2a_pb2.ListTaskPushNotificationConfigRequest(parent=f"tasks/{task_id}")
            )
            return [dump(proto_utils.FromProto.task_push_notification_config(c)) for c in grpc_listing.configs]
        if isinstance(transport, RestTransport):
            data = await transport._send_get_request(f"/v1/tasks/{task_id}/pushNotificationConfigs", {})
            listing = ParseDict(data, a2a_pb2.ListTaskPushNotificationConfigResponse())
            return [dump(proto_utils.FromProto.task_push_notification_config(c)) for c in listing.configs]
        assert isinstance(transport, JsonRpcTransport)
        request = ListTaskPushNotificationConfigRequest(
            id=str(uuid.uuid4()), params=ListTaskPushNotificationConfigParams(id=task_id)
        )
        raw = await transport._send_request(dump(request))
        response = ListTaskPushNotificationConfigResponse.model_validate(raw).root
        if isinstance(response, JSONRPCErrorResponse):
            raise A2AClientJSONRPCError(response)
        return [dump(config) for config in response.result]

    async def delete_push(self, task_id: str, config_id: str) -> dict[str, Any]:
        transport = self.transport()
        if isinstance(transport, GrpcTransport):  # the 0.3.x gRPC server does not implement it
            name = f"tasks/{task_id}/pushNotificationConfigs/{config_id}"
            await transport.stub.DeleteTaskPushNotificationConfig(
                a2a_pb2.DeleteTaskPushNotificationConfigRequest(name=name)
            )
            return {}
        if isinstance(transport, RestTransport):
            url = f"{transport.url}/v1/tasks/{task_id}/pushNotificationConfigs/{config_id}"
            return await transport._send_request(transport.httpx_client.build_request("DELETE", url))
        assert isinstance(transport, JsonRpcTransport)
        request = DeleteTaskPushNotificationConfigRequest(
            id=str(uuid.uuid4()),
            params=DeleteTaskPushNotificationConfigParams(id=task_id, push_notification_config_id=config_id),
        )
        raw = await transport._send_request(dump(request))
        if "error" in raw:
            raise A2AClientJSONRPCError(JSONRPCErrorResponse.model_validate(raw))
        # The 0.3.x server drops `"result": null` (exclude_none), so its own response model rejects the
        # success reply; report what came back instead of validating it.
        return {"raw_response": raw}


# ---- scenarios ---------------------------------------------------------------------------------------


async def send_text(peer: Peer) -> dict[str, Any]:
    task = await peer.send_task(text_message("echo hello world"))
    return {"result_kind": "task", "summary": task_summary(task), "task": dump(task)}


def rich_parts() -> list[Part]:
    return [
        Part(root=TextPart(text=common.RICH_TEXT)),
        Part(root=DataPart(data=common.RICH_DATA)),
        Part(
            root=FilePart(
                file=FileWithBytes(
                    bytes=base64.b64encode(common.RICH_BYTES).decode(),
                    mime_type=common.RICH_BYTES_MIME,
                    name=common.RICH_BYTES_NAME,
                )
            )
        ),
        Part(
            root=FilePart(
                file=FileWithUri(
                    uri=common.RICH_URI, mime_type=common.RICH_URI_MIME, name=common.RICH_URI_NAME
                )
            )
        ),
    ]


async def send_rich(peer: Peer) -> dict[str, Any]:
    sent = [norm_part(p) for p in rich_parts()]
    task = await peer.send_task(user_message(rich_parts()))
    status_parts = [norm_part(p) for p in task.status.message.parts] if task.status.message else []
    artifact_parts = [norm_part(p) for p in task.artifacts[0].parts] if task.artifacts else []
    return {
        "summary": task_summary(task),
        "sent_parts": sent,
        "status_parts": status_parts,
        "artifact_parts": artifact_parts,
        "parts_match": sent == status_parts == artifact_parts,
        "task": dump(task),
    }


async def send_message_reply(peer: Peer) -> dict[str, Any]:
    events = await peer.send(text_message("message hi there"))
    first = events[0]
    return {"result_kind": first["kind"], "text": first.get("text"), "message": first["raw"]}


async def get_task(peer: Peer) -> dict[str, Any]:
    created = await peer.send_task(text_message("echo for get"))
    task = await peer.client().get_task(TaskQueryParams(id=created.id))
    return {"summary": task_summary(task), "same_id": task.id == created.id, "task": dump(task)}


async def cancel_task(peer: Peer) -> dict[str, Any]:
    started = await peer.send_task(text_message("slow"), polling=True)
    canceled = await peer.client().cancel_task(TaskIdParams(id=started.id))
    after = await peer.client().get_task(TaskQueryParams(id=started.id))
    return {
        "initial_state": started.status.state.value,
        "summary": task_summary(canceled),
        "state_after_get": after.status.state.value,
        "task": dump(canceled),
    }


async def cancel_finished(peer: Peer) -> dict[str, Any]:
    done = await peer.send_task(text_message("echo finished"))
    task = await peer.client().cancel_task(TaskIdParams(id=done.id))  # expected to raise
    return {"summary": task_summary(task), "task": dump(task)}


async def stream(peer: Peer) -> dict[str, Any]:
    events = await peer.send(text_message(f"stream {common.STREAM_CHUNKS}"), streaming=True)
    return {"events": events, "final_state": events[-1].get("state")}


async def stream_rich(peer: Peer) -> dict[str, Any]:
    """The rich message sent as a stream: every event, and the parts its artifact updates carry."""
    events, artifact_parts = [], []
    async for event in peer.client(streaming=True).send_message(user_message(rich_parts())):
        events.append(norm_event(event))
        update = event[1] if isinstance(event, tuple) else None
        if isinstance(update, TaskArtifactUpdateEvent):
            artifact_parts.extend(norm_part(p) for p in update.artifact.parts)
    return {"events": events, "final_state": events[-1].get("state") if events else None,
            "sent_parts": [norm_part(p) for p in rich_parts()], "artifact_parts": artifact_parts}


async def ask_continue(peer: Peer) -> dict[str, Any]:
    first = await peer.send_task(text_message("ask"))
    first_summary = task_summary(first)
    final = await peer.send_task(text_message("answer 42", task_id=first.id, context_id=first.context_id))
    return {
        "first_state": first_summary["state"],
        "question": first_summary["status_text"],
        "final_state": final.status.state.value,
        "final_text": text_of(final.status.message),
        "same_task": final.id == first.id,
        "same_context": final.context_id == first.context_id,
        "first": dump(first),
        "final": dump(final),
    }


async def resubscribe(peer: Peer) -> dict[str, Any]:
    started = await peer.send_task(text_message("slow"), polling=True)
    client = peer.client(streaming=True)
    events = [norm_event(event) async for event in client.resubscribe(TaskIdParams(id=started.id))]
    return {
        "task_id": started.id,
        "initial_state": started.status.state.value,
        "events": events,
        "final_state": events[-1].get("state") if events else None,
    }


async def push_crud(peer: Peer) -> dict[str, Any]:
    """ask -> set/get/list -> answer (the agent pushes to the webhook) -> delete -> list."""
    task = await peer.send_task(text_message("ask"))
    config_id, url = "push-cfg-1", peer.args.webhook
    push = PushNotificationConfig(id=config_id, url=url, token=PUSH_TOKEN)
    config = TaskPushNotificationConfig(task_id=task.id, push_notification_config=push)
    by_id = GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id=config_id)
    client, steps = peer.client(), common.Steps(map_error)
    await steps.run("set", _dumped(client.set_task_callback(config)))
    await steps.run("get", _dumped(client.get_task_callback(by_id)))
    await steps.run("list", peer.list_push(task.id))
    final = await peer.send_task(text_message("answer push", task_id=task.id, context_id=task.context_id))
    await steps.run("continue", _state(final))
    await steps.run("delete", peer.delete_push(task.id, config_id))
    await steps.run("list_after_delete", peer.list_push(task.id))
    return {"task_id": task.id, "config_id": config_id, "webhook": url, **steps.outcome()}


async def _dumped(call: Awaitable[BaseModel]) -> dict[str, Any]:
    return dump(await call)


async def _state(task: Task) -> dict[str, Any]:
    return {"state": task.status.state.value}


async def get_task_not_found(peer: Peer) -> dict[str, Any]:
    task = await peer.client().get_task(TaskQueryParams(id=common.MISSING_TASK_ID))  # expected to raise
    return {"summary": task_summary(task)}


async def get_extended_card(peer: Peer) -> dict[str, Any]:
    card = await peer.client().get_card()
    return {"skills": [s.id for s in card.skills], "card": dump(card)}


SCENARIOS = {name: globals()[name] for name in common.SCENARIOS}


def main() -> int:
    args = common.client_argparser("a2a-sdk 0.3.x test client").parse_args()

    async def scenario() -> dict[str, Any]:
        headers = common.headers_of(args)
        async with httpx.AsyncClient(timeout=common.SCENARIO_TIMEOUT_S, headers=headers) as http:
            card = await A2ACardResolver(http, args.url).get_agent_card()
            return await SCENARIOS[args.scenario](Peer(args, http, card))

    return common.run_scenario(args, GENERATION, scenario, map_error)


if __name__ == "__main__":
    sys.exit(main())
