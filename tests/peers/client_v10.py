"""Owns the real a2a-sdk 1.x test client, pure v1.0 (legacy interfaces are dropped from the card, so the SDK
can never fall back to its v0.3 transports): runs one named scenario and prints one JSON line."""

from __future__ import annotations

import argparse
import base64
import sys
import uuid
from collections.abc import Awaitable
from typing import Any

import httpx
import peer_common as common
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.constants import TransportProtocol
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP, A2AError
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.message import Message as ProtoMessage
from google.protobuf.struct_pb2 import Value
from packaging.version import InvalidVersion, Version

GENERATION = "v10"
PUSH_TOKEN = "push-token-1"
_BINDINGS = {
    "jsonrpc": TransportProtocol.JSONRPC.value,
    "rest": TransportProtocol.HTTP_JSON.value,
    "grpc": TransportProtocol.GRPC.value,
}


class NoV10InterfaceError(A2AClientError):
    """The card offers no interface with protocolVersion 1.x, and this client refuses to fall back."""


# ---- normalisation: SDK objects -> the generation-neutral summary the tests assert on -------------


def dump(message: ProtoMessage) -> dict[str, Any]:
    """The SDK's own JSON serialisation (ProtoJSON) of one of its objects."""
    return MessageToDict(message)


def state_name(state: int) -> str:
    """TASK_STATE_INPUT_REQUIRED -> "input-required": the v0.3 spelling, so summaries compare across SDKs."""
    return str(TaskState.Name(state)).removeprefix("TASK_STATE_").lower().replace("_", "-")


def norm_part(part: Part) -> dict[str, Any]:
    kind = part.WhichOneof("content")
    if kind == "text":
        return {"kind": "text", "text": part.text}
    if kind == "data":
        return {"kind": "data", "data": MessageToDict(part.data)}
    out: dict[str, Any] = {
        "kind": "file",
        "mime_type": part.media_type or None,
        "name": part.filename or None,
    }
    if kind == "raw":
        out["bytes"] = base64.b64encode(part.raw).decode()
    else:
        out["uri"] = part.url
    return out


def text_of(message: Message | None) -> str | None:
    if message is None or not message.parts:
        return None
    return "".join(p.text for p in message.parts if p.HasField("text"))


def task_summary(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": state_name(task.status.state),
        "status_text": text_of(task.status.message) if task.status.HasField("message") else None,
        "artifacts": [
            {"artifact_id": a.artifact_id, "name": a.name, "parts": [norm_part(p) for p in a.parts]}
            for a in task.artifacts
        ],
    }


def norm_event(event: StreamResponse) -> dict[str, Any]:
    """One received StreamResponse: its kind plus what a stream test cares about (no `final` in v1.0)."""
    kind = event.WhichOneof("payload")
    if kind == "message":
        return {"kind": "message", "text": text_of(event.message), "raw": dump(event)}
    if kind == "task":
        return {
            "kind": "task",
            "state": state_name(event.task.status.state),
            "task_id": event.task.id,
            "raw": dump(event),
        }
    if kind == "status_update":
        update = event.status_update
        return {
            "kind": "status-update",
            "state": state_name(update.status.state),
            "text": text_of(update.status.message) if update.status.HasField("message") else None,
            "task_id": update.task_id,
            "raw": dump(event),
        }
    artifact = event.artifact_update
    return {
        "kind": "artifact-update",
        "artifact_id": artifact.artifact.artifact_id,
        "append": artifact.append,
        "last_chunk": artifact.last_chunk,
        "text": "".join(p.text for p in artifact.artifact.parts if p.HasField("text")),
        "task_id": artifact.task_id,
        "raw": dump(event),
    }


def map_error(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, A2AError):
        return {
            "type": type(exc).__name__,
            "code": JSON_RPC_ERROR_CODE_MAP.get(type(exc)),
            "message": exc.message,
        }
    return None


# ---- the peer: one (v1.0-only) card, SDK clients built from it ------------------------------------


def only_v10(card: AgentCard) -> AgentCard:
    """A copy of `card` without legacy interfaces; raises if nothing v1.x is left."""

    def is_v1(version: str) -> bool:
        try:
            return Version(version).major == 1
        except InvalidVersion:
            return False

    pure = AgentCard()
    pure.CopyFrom(card)
    del pure.supported_interfaces[:]
    pure.supported_interfaces.extend(i for i in card.supported_interfaces if is_v1(i.protocol_version))
    if not pure.supported_interfaces:
        raise NoV10InterfaceError("the agent card lists no interface with protocolVersion 1.x")
    return pure


def user_message(parts: list[Part], task_id: str = "", context_id: str = "") -> Message:
    return Message(
        role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts, task_id=task_id, context_id=context_id
    )


def text_message(text: str, task_id: str = "", context_id: str = "") -> Message:
    return user_message([Part(text=text)], task_id, context_id)


class Peer:
    def __init__(self, args: argparse.Namespace, http: httpx.AsyncClient, card: AgentCard) -> None:
        self.args, self.http, self.card = args, http, card

    def client(self, *, streaming: bool = False, polling: bool = False) -> Client:
        config = ClientConfig(
            streaming=streaming,
            polling=polling,
            httpx_client=self.http,
            supported_protocol_bindings=[_BINDINGS[self.args.transport]],
            use_client_preference=True,
            grpc_channel_factory=common.grpc_channel_factory(self.args),
        )
        return ClientFactory(config).create(self.card)

    async def send(self, message: Message, *, streaming: bool = False, polling: bool = False) -> list[Any]:
        """Every StreamResponse the SDK client yields for one message, normalised as it arrives."""
        client = self.client(streaming=streaming, polling=polling)
        return [norm_event(event) async for event in client.send_message(SendMessageRequest(message=message))]

    async def send_task(self, message: Message, *, polling: bool = False) -> Task:
        """Non-streaming send that must answer with a Task."""
        client = self.client(polling=polling)
        async for event in client.send_message(SendMessageRequest(message=message)):
            if not event.HasField("task"):
                raise A2AClientError(f"expected a Task, got {event.WhichOneof('payload')}")
            return event.task
        raise A2AClientError("no response")


# ---- scenarios ---------------------------------------------------------------------------------------


async def send_text(peer: Peer) -> dict[str, Any]:
    task = await peer.send_task(text_message("echo hello world"))
    return {"result_kind": "task", "summary": task_summary(task), "task": dump(task)}


def rich_parts() -> list[Part]:
    return [
        Part(text=common.RICH_TEXT),
        Part(data=ParseDict(common.RICH_DATA, Value())),
        Part(raw=common.RICH_BYTES, media_type=common.RICH_BYTES_MIME, filename=common.RICH_BYTES_NAME),
        Part(url=common.RICH_URI, media_type=common.RICH_URI_MIME, filename=common.RICH_URI_NAME),
    ]


async def send_rich(peer: Peer) -> dict[str, Any]:
    sent = [norm_part(p) for p in rich_parts()]
    task = await peer.send_task(user_message(rich_parts()))
    status_parts = [norm_part(p) for p in task.status.message.parts]
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
    return {"result_kind": first["kind"], "text": first.get("text"), "message": first["raw"].get("message")}


async def get_task(peer: Peer) -> dict[str, Any]:
    created = await peer.send_task(text_message("echo for get"))
    task = await peer.client().get_task(GetTaskRequest(id=created.id))
    return {"summary": task_summary(task), "same_id": task.id == created.id, "task": dump(task)}


async def cancel_task(peer: Peer) -> dict[str, Any]:
    started = await peer.send_task(text_message("slow"), polling=True)
    canceled = await peer.client().cancel_task(CancelTaskRequest(id=started.id))
    after = await peer.client().get_task(GetTaskRequest(id=started.id))
    return {
        "initial_state": state_name(started.status.state),
        "summary": task_summary(canceled),
        "state_after_get": state_name(after.status.state),
        "task": dump(canceled),
    }


async def cancel_finished(peer: Peer) -> dict[str, Any]:
    done = await peer.send_task(text_message("echo finished"))
    task = await peer.client().cancel_task(CancelTaskRequest(id=done.id))  # expected to raise
    return {"summary": task_summary(task), "task": dump(task)}


async def stream(peer: Peer) -> dict[str, Any]:
    events = await peer.send(text_message(f"stream {common.STREAM_CHUNKS}"), streaming=True)
    return {"events": events, "final_state": events[-1].get("state")}


async def stream_rich(peer: Peer) -> dict[str, Any]:
    """The rich message sent as a stream: every event, and the parts its artifact updates carry."""
    events, artifact_parts = [], []
    async for event in peer.client(streaming=True).send_message(SendMessageRequest(message=user_message(rich_parts()))):
        events.append(norm_event(event))
        if event.WhichOneof("payload") == "artifact_update":
            artifact_parts.extend(norm_part(p) for p in event.artifact_update.artifact.parts)
    return {"events": events, "final_state": events[-1].get("state") if events else None,
            "sent_parts": [norm_part(p) for p in rich_parts()], "artifact_parts": artifact_parts}


async def ask_continue(peer: Peer) -> dict[str, Any]:
    first = await peer.send_task(text_message("ask"))
    first_summary = task_summary(first)
    final = await peer.send_task(text_message("answer 42", task_id=first.id, context_id=first.context_id))
    return {
        "first_state": first_summary["state"],
        "question": first_summary["status_text"],
        "final_state": state_name(final.status.state),
        "final_text": text_of(final.status.message),
        "same_task": final.id == first.id,
        "same_context": final.context_id == first.context_id,
        "first": dump(first),
        "final": dump(final),
    }


async def resubscribe(peer: Peer) -> dict[str, Any]:
    started = await peer.send_task(text_message("slow"), polling=True)
    client = peer.client(streaming=True)
    events = [norm_event(event) async for event in client.subscribe(SubscribeToTaskRequest(id=started.id))]
    return {
        "task_id": started.id,
        "initial_state": state_name(started.status.state),
        "events": events,
        "final_state": events[-1].get("state") if events else None,
    }


async def push_crud(peer: Peer) -> dict[str, Any]:
    """ask -> set/get/list -> answer (the agent pushes to the webhook) -> delete -> list."""
    task = await peer.send_task(text_message("ask"))
    config_id, url = "push-cfg-1", peer.args.webhook
    config = TaskPushNotificationConfig(task_id=task.id, id=config_id, url=url, token=PUSH_TOKEN)
    by_id = GetTaskPushNotificationConfigRequest(task_id=task.id, id=config_id)
    listing = ListTaskPushNotificationConfigsRequest(task_id=task.id)
    deletion = DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=config_id)
    client, steps = peer.client(), common.Steps(map_error)
    await steps.run("set", _dumped(client.create_task_push_notification_config(config)))
    await steps.run("get", _dumped(client.get_task_push_notification_config(by_id)))
    await steps.run("list", _configs(client.list_task_push_notification_configs(listing)))
    final = await peer.send_task(text_message("answer push", task_id=task.id, context_id=task.context_id))
    await steps.run("continue", _state(final))
    await steps.run("delete", client.delete_task_push_notification_config(deletion))
    await steps.run("list_after_delete", _configs(client.list_task_push_notification_configs(listing)))
    return {"task_id": task.id, "config_id": config_id, "webhook": url, **steps.outcome()}


async def _dumped(call: Awaitable[ProtoMessage]) -> dict[str, Any]:
    return dump(await call)


async def _configs(call: Awaitable[ListTaskPushNotificationConfigsResponse]) -> list[dict[str, Any]]:
    return [dump(config) for config in (await call).configs]


async def _state(task: Task) -> dict[str, Any]:
    return {"state": state_name(task.status.state)}


async def get_task_not_found(peer: Peer) -> dict[str, Any]:
    task = await peer.client().get_task(GetTaskRequest(id=common.MISSING_TASK_ID))  # expected to raise
    return {"summary": task_summary(task)}


async def get_extended_card(peer: Peer) -> dict[str, Any]:
    card = await peer.client().get_extended_agent_card(GetExtendedAgentCardRequest())
    return {"skills": [s.id for s in card.skills], "card": dump(card)}


async def list_tasks(peer: Peer) -> dict[str, Any]:
    """Two tasks in a fresh context, then ListTasks: all, paged by one, filtered by state, with limits."""
    context = f"ctx-{uuid.uuid4()}"
    created = [await peer.send_task(text_message(f"echo {n}", context_id=context)) for n in ("one", "two")]
    client = peer.client()
    listed = await client.list_tasks(ListTasksRequest(context_id=context))
    page1 = await client.list_tasks(ListTasksRequest(context_id=context, page_size=1))
    page2 = await client.list_tasks(ListTasksRequest(context_id=context, page_size=1,
                                                     page_token=page1.next_page_token))
    done = await client.list_tasks(ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_COMPLETED,
                                                    history_length=1, include_artifacts=True))
    working = await client.list_tasks(ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_WORKING))
    return {
        "context": context,
        "created": [t.id for t in created],
        "listed": [t.id for t in listed.tasks],
        "total": listed.total_size,
        "page_size": listed.page_size,
        "next_token": listed.next_page_token,
        "artifacts_unasked": [len(t.artifacts) for t in listed.tasks],
        "pages": [[t.id for t in page1.tasks], [t.id for t in page2.tasks]],
        "last_token": page2.next_page_token,
        "completed": [t.id for t in done.tasks],
        "history_lengths": [len(t.history) for t in done.tasks],
        "artifacts_asked": [len(t.artifacts) for t in done.tasks],
        "working": [t.id for t in working.tasks],
    }


async def list_only(peer: Peer) -> dict[str, Any]:
    listed = await peer.client().list_tasks(ListTasksRequest(context_id=peer.args.context))
    return {"listed": [t.id for t in listed.tasks], "states": [state_name(t.status.state) for t in listed.tasks]}


async def subscribe_finished(peer: Peer) -> dict[str, Any]:
    done = await peer.send_task(text_message("echo finished"))
    client = peer.client(streaming=True)
    events = [norm_event(e) async for e in client.subscribe(SubscribeToTaskRequest(id=done.id))]  # expected to raise
    return {"events": events}


async def get_task_history(peer: Peer) -> dict[str, Any]:
    first = await peer.send_task(text_message("ask"))
    await peer.send_task(text_message("answer 7", task_id=first.id, context_id=first.context_id))
    client = peer.client()
    counts = {}
    for limit in (None, 0, 1):
        request = GetTaskRequest(id=first.id) if limit is None else GetTaskRequest(id=first.id, history_length=limit)
        counts[str(limit)] = len((await client.get_task(request)).history)
    return {"history": counts}


async def push_get_by_id(peer: Peer) -> dict[str, Any]:
    task = await peer.send_task(text_message("ask"))
    client, got = peer.client(), {}
    for config_id in ("cfg-a", "cfg-b"):
        await client.create_task_push_notification_config(TaskPushNotificationConfig(
            task_id=task.id, id=config_id, url=peer.args.webhook, token=PUSH_TOKEN))
    for config_id in ("cfg-b", "cfg-a"):
        config = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task.id, id=config_id))
        got[config_id] = config.id
    await peer.send_task(text_message("answer done", task_id=task.id, context_id=task.context_id))
    return {"got": got}


SCENARIOS = {name: globals()[name] for name in common.SCENARIOS + common.V10_SCENARIOS}


def main() -> int:
    args = common.client_argparser("a2a-sdk 1.x test client (pure v1.0)").parse_args()

    async def scenario() -> dict[str, Any]:
        headers = common.headers_of(args)
        async with httpx.AsyncClient(timeout=common.SCENARIO_TIMEOUT_S, headers=headers) as http:
            card = only_v10(await A2ACardResolver(http, args.url).get_agent_card())
            return await SCENARIOS[args.scenario](Peer(args, http, card))

    return common.run_scenario(args, GENERATION, scenario, map_error)


if __name__ == "__main__":
    sys.exit(main())
