"""Owns the real a2a-sdk 0.3.x test agent: JSON-RPC at /jsonrpc and HTTP+JSON at /rest/v1/..., with --grpc
gRPC on a port of its own; in-memory tasks, push (in-memory config store + the SDK's HTTP sender),
scripted executor. Run with the v03 venv."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import peer_common as common
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    TaskState,
    TextPart,
    TransportProtocol,
)
from a2a.utils import new_task
from fastapi import FastAPI


def _text(text: str) -> Part:
    return Part(root=TextPart(text=text))


def _first_text(message: Message | None) -> str:
    for part in message.parts if message else []:
        if isinstance(part.root, TextPart):
            return part.root.text
    return ""


class ScriptedExecutor(AgentExecutor):
    """Picks a behaviour from the first text part of the user's message (see peer_common)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        command, args = common.parse_command(_first_text(message))
        if command == "message":
            reply = Message(
                role=Role.agent,
                message_id=str(uuid.uuid4()),
                context_id=context.context_id,
                parts=[_text("reply: " + " ".join(args))],
            )
            await event_queue.enqueue_event(reply)
            return
        task = context.current_task
        if task is None:
            task = new_task(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        def say(text: str) -> Message:
            return updater.new_agent_message([_text(text)])

        if command == "stream":
            await updater.start_work()
            count = common.int_arg(args, 0, common.STREAM_CHUNKS)
            for i in range(count):
                await updater.add_artifact(
                    [_text(f"chunk {i}")],
                    artifact_id="stream-artifact",
                    name="stream",
                    append=i > 0,
                    last_chunk=i == count - 1,
                )
                await asyncio.sleep(0.02)
            await updater.complete(say(f"streamed {count} chunks"))
        elif command == "ask":
            await updater.requires_input(say("What is the answer?"), final=True)
        elif command == "answer":
            if context.current_task is None:  # a fresh task: no question is pending
                await updater.failed(say("nothing was asked"))
            else:
                await updater.start_work()
                await updater.complete(say("got " + " ".join(args)))
        elif command == "slow":
            await updater.start_work(say("starting"))
            steps = common.int_arg(args, 0, common.SLOW_STEPS)
            interval = common.float_arg(args, 1, common.SLOW_INTERVAL_S)
            for i in range(1, steps + 1):
                await asyncio.sleep(interval)
                await updater.update_status(TaskState.working, say(f"step {i}/{steps}"))
            await updater.complete(say("slow done"))
        elif command == "fail":
            await updater.failed(say("failure requested"))
        elif command == "reject":
            await updater.reject(say("rejected on request"))
        else:  # "echo" and anything unknown
            parts = [Part(root=part.root.model_copy(deep=True)) for part in message.parts]
            await updater.add_artifact(parts, name="echo")
            await updater.complete(updater.new_agent_message(parts))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([_text("canceled on request")]))


def build_cards(base: str, rest_preferred: bool, grpc_url: str | None = None) -> tuple[AgentCard, AgentCard]:
    jsonrpc = AgentInterface(transport=TransportProtocol.jsonrpc, url=base + common.JSONRPC_PATH)
    rest = AgentInterface(transport=TransportProtocol.http_json, url=base + common.REST_PATH)
    preferred = rest if rest_preferred else jsonrpc
    # gRPC as the 0.3 SDK advertises it: one more additional interface, its url `host:port`
    grpc = [AgentInterface(transport=TransportProtocol.grpc, url=grpc_url)] if grpc_url else []
    skills = [AgentSkill(**skill) for skill in common.SKILLS]
    card = AgentCard(
        name=common.AGENT_NAME,
        description=common.AGENT_DESCRIPTION,
        version=common.AGENT_VERSION,
        protocol_version="0.3.0",
        url=preferred.url,
        preferred_transport=preferred.transport,
        additional_interfaces=[jsonrpc, rest, *grpc],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain", "application/json", "application/octet-stream", "image/png"],
        default_output_modes=["text/plain", "application/json", "application/octet-stream", "image/png"],
        skills=skills,
        supports_authenticated_extended_card=True,
    )
    extended = card.model_copy(update={"skills": [*skills, AgentSkill(**common.EXTENDED_SKILL)]}, deep=True)
    return card, extended


def build_app(base: str, rest_preferred: bool, grpc_server: Any = None, grpc_url: str | None = None,
              lie: bool = False) -> FastAPI:
    card, extended = build_cards(base, rest_preferred, grpc_url)
    push_store = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(httpx.AsyncClient(timeout=5.0), push_store),
    )
    # One app, two bindings: the REST app owns <REST_PATH>/v1/*, the JSON-RPC routes add <JSONRPC_PATH>,
    # the card at /.well-known/agent-card.json and the extended card at /agent/authenticatedExtendedCard.
    app = A2ARESTFastAPIApplication(
        agent_card=card, http_handler=handler, extended_agent_card=extended
    ).build(rpc_url=common.REST_PATH)
    A2AStarletteApplication(
        agent_card=card, http_handler=handler, extended_agent_card=extended
    ).add_routes_to_app(app, rpc_url=common.JSONRPC_PATH)
    if lie:  # a card claiming v1.0, matched before the SDK's own
        app.router.routes.insert(0, common.lying_card_route(base, "0.3"))
    if grpc_server is not None:
        # the 0.3 gRPC handler knows no extended card: GetAgentCard answers with the public one
        from a2a.grpc import a2a_pb2_grpc
        from a2a.server.request_handlers import GrpcHandler

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(card, handler), grpc_server)
    return app


def main() -> None:
    args = common.agent_argparser("a2a-sdk 0.3.x test agent").parse_args()
    sock = common.bind(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    if not args.grpc:
        common.serve(build_app(base, args.rest, lie=args.lie), sock)
        return

    async def start() -> FastAPI:
        apps: list[FastAPI] = []
        await common.start_grpc_server(
            args.host, lambda server, url: apps.append(build_app(base, args.rest, server, url, args.lie))
        )
        return apps[0]

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
