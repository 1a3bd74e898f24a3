"""Owns the real a2a-sdk 1.x test agent: JSON-RPC at /jsonrpc and HTTP+JSON at /rest/*, with --grpc gRPC on a
port of its own; in-memory tasks, push (in-memory config store + the SDK's HTTP sender), scripted
executor; --compat turns on v0.3 compat (the v0.3 gRPC service too)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import peer_common as common
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
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
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0, TransportProtocol
from starlette.applications import Starlette


def _text(text: str) -> Part:
    return Part(text=text)


def _first_text(message: Message | None) -> str:
    for part in message.parts if message else []:
        if part.HasField("text"):
            return part.text
    return ""


class ScriptedExecutor(AgentExecutor):
    """Picks a behaviour from the first text part of the user's message (see peer_common)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        command, args = common.parse_command(_first_text(message))
        if command == "message":
            reply = Message(
                role=Role.ROLE_AGENT,
                message_id=str(uuid.uuid4()),
                context_id=context.context_id or "",
                parts=[_text("reply: " + " ".join(args))],
            )
            await event_queue.enqueue_event(reply)
            return
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(message)
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
            await updater.requires_input(say("What is the answer?"))
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
                await updater.update_status(TaskState.TASK_STATE_WORKING, say(f"step {i}/{steps}"))
            await updater.complete(say("slow done"))
        elif command == "fail":
            await updater.failed(say("failure requested"))
        elif command == "reject":
            await updater.reject(say("rejected on request"))
        else:  # "echo" and anything unknown
            parts = [Part() for _ in message.parts]
            for copy, part in zip(parts, message.parts, strict=True):
                copy.CopyFrom(part)
            await updater.add_artifact(parts, name="echo")
            await updater.complete(updater.new_agent_message(parts))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([_text("canceled on request")]))


def build_cards(
    base: str, rest_preferred: bool, compat: bool, grpc_url: str | None = None
) -> tuple[AgentCard, AgentCard]:
    bindings = [
        (TransportProtocol.JSONRPC.value, base + common.JSONRPC_PATH),
        (TransportProtocol.HTTP_JSON.value, base + common.REST_PATH),
    ]
    if rest_preferred:
        bindings.reverse()
    if grpc_url:  # as the 1.x SDK advertises gRPC: protocolBinding GRPC, url `host:port`
        bindings.append((TransportProtocol.GRPC.value, grpc_url))
    # Every interface names its version: an interface without one counts as v0.3-compatible and would
    # make the SDK serve a hybrid (v0.3 + v1.0) card. v0.3 interfaces are listed only with --compat.
    versions = [PROTOCOL_VERSION_1_0, PROTOCOL_VERSION_0_3] if compat else [PROTOCOL_VERSION_1_0]
    interfaces = [
        AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
        for version in versions
        for binding, url in bindings
    ]
    skills = [AgentSkill(**skill) for skill in common.SKILLS]
    modes = ["text/plain", "application/json", "application/octet-stream", "image/png"]
    card = AgentCard(
        name=common.AGENT_NAME,
        description=common.AGENT_DESCRIPTION,
        version=common.AGENT_VERSION,
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
        default_input_modes=modes,
        default_output_modes=modes,
        skills=skills,
    )
    extended = AgentCard()
    extended.CopyFrom(card)
    extended.skills.append(AgentSkill(**common.EXTENDED_SKILL))
    return card, extended


def sign_card(card: AgentCard, key_file: str, kid: str, tamper: bool) -> None:
    """Sign the public card with the SDK's own signer (ES256, a PEM private key); `tamper` then alters the
    signature's bytes, as a man in the middle would."""
    from a2a.utils.signing import create_agent_card_signer

    with open(key_file, "rb") as f:
        key = f.read()
    create_agent_card_signer(key, {"alg": "ES256", "kid": kid, "jku": None, "typ": "JOSE"})(card)
    if tamper:
        sig = card.signatures[0].signature
        card.signatures[0].signature = ("B" if sig[0] == "A" else "A") + sig[1:]


def journaled(app: Any, path: str) -> Any:
    """`app` writing every request body it receives to `path` as it arrives (one line each, unbuffered):
    the record of what reached the agent, even if it dies before answering."""
    out = open(path, "ab", buffering=0)  # noqa: SIM115 - open for the process's life

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        async def received() -> Any:
            message = await receive()
            if message.get("type") == "http.request" and message.get("body"):
                out.write(message["body"] + b"\n")
            return message

        await app(scope, received if scope["type"] == "http" else receive, send)

    return wrapped


def build_app(
    base: str, rest_preferred: bool, compat: bool, grpc_server: Any = None, grpc_url: str | None = None,
    lie: bool = False,
    sign: tuple[str, str, bool] | None = None,
) -> Starlette:
    card, extended = build_cards(base, rest_preferred, compat, grpc_url)
    if sign is not None:
        sign_card(card, *sign)
    push_store = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(httpx.AsyncClient(timeout=5.0), push_store),
        extended_agent_card=extended,
    )
    routes = [
        *([common.lying_card_route(base, "1.0")] if lie else []),  # a card claiming v0.3, matched first
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, common.JSONRPC_PATH, enable_v0_3_compat=compat),
        *create_rest_routes(handler, enable_v0_3_compat=compat, path_prefix=common.REST_PATH),
    ]
    if grpc_server is not None:
        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        if compat:  # the v0.3 service (package a2a.v1) beside the v1.0 one, on the same port
            from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
            from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler

            a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), grpc_server)
    return Starlette(routes=routes)


def main() -> None:
    parser = common.agent_argparser("a2a-sdk 1.x test agent")
    parser.add_argument(
        "--compat", action="store_true", help="enable the SDK's v0.3 compat layer (off by default)"
    )
    parser.add_argument("--sign-key", help="sign the public card (ES256) with this PEM private key")
    parser.add_argument("--sign-kid", default="agent-key", help="the signature's kid")
    parser.add_argument("--tamper-signature", action="store_true", help="alter the signature after signing")
    parser.add_argument("--journal", help="append every request body received to this file")
    args = parser.parse_args()
    sock = common.bind(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    if not args.grpc:
        sign = (args.sign_key, args.sign_kid, args.tamper_signature) if args.sign_key else None
        app = build_app(base, args.rest, args.compat, lie=args.lie, sign=sign)
        common.serve(journaled(app, args.journal) if args.journal else app, sock)
        return

    async def start() -> Starlette:
        apps: list[Starlette] = []
        sign = (args.sign_key, args.sign_kid, args.tamper_signature) if args.sign_key else None
        await common.start_grpc_server(
            args.host, lambda server, url: apps.append(build_app(base, args.rest, args.compat, server, url,
                                                                 sign=sign, lie=args.lie))
        )
        return apps[0]

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
