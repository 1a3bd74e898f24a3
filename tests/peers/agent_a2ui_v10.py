"""Owns the real a2a-sdk 1.x A2UI test agent: advertises the A2UI v1.0 and v0.9 extensions and speaks the one
requested, paints two surfaces on `show`, answers a schema-complete `book` action on the same task, fails on
`fail` (a2ui_common.py)."""

from __future__ import annotations

from typing import Any

import a2ui_common as scenario
import peer_common as common
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, Part
from a2a.utils.constants import PROTOCOL_VERSION_1_0, TransportProtocol
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value
from starlette.applications import Starlette

PROFILES = [scenario.PROFILES[v] for v in scenario.LISTED["v10"]]


def _ui(profile: dict[str, str], message: dict[str, object]) -> Part:
    value = Value()
    value.struct_value.update(message)
    return Part(data=value, media_type=profile["mime"], metadata={"mimeType": profile["mime"]})


class A2uiExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        say = lambda *parts: updater.new_agent_message(list(parts))  # noqa: E731
        text = next((p.text for p in message.parts if p.HasField("text")), "").strip().lower()
        data = next((p for p in message.parts if p.HasField("data")), None)
        profile = scenario.requested("v10", context.requested_extensions)
        if profile is None:
            await updater.failed(
                say(Part(text=f"A2UI extension not requested: {context.requested_extensions}"))
            )
            return
        ui = lambda message: _ui(profile, message)  # noqa: E731
        if data is not None:
            if context.current_task is None:
                await updater.failed(say(Part(text="an action must continue the task that showed the UI")))
                return
            mime = data.media_type or MessageToDict(data.metadata).get("mimeType", "")
            action, why = scenario.check_action(profile, MessageToDict(data.data), mime)
            if action is None:
                await updater.failed(say(Part(text=why)))
                return
            await updater.start_work(say(Part(text="Booking…")))
            seats = int(action["context"].get("seats", 0))
            await updater.complete(
                say(
                    Part(text=f"Booked a table for {seats}"),
                    *map(ui, scenario.answer(profile["version"], action)),
                )
            )
        elif text == "fail":
            await updater.failed(say(Part(text=scenario.FAILURE_TEXT)))
        else:
            await updater.start_work(say(Part(text="Looking for tables")))
            await updater.requires_input(
                say(Part(text="Pick a table"), *map(ui, scenario.paint(profile["version"])))
            )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def build_app(base: str, rest_only: bool, grpc_server: Any = None, grpc_url: str | None = None) -> Starlette:
    """JSON-RPC only, (`rest_only`) HTTP+JSON only, or (`grpc_server`) gRPC only, its HTTP port serving the
    card alone: the card lists the one binding served."""
    binding, url = ((TransportProtocol.GRPC.value, grpc_url) if grpc_server is not None
                    else (TransportProtocol.HTTP_JSON.value, base + common.REST_PATH) if rest_only
                    else (TransportProtocol.JSONRPC.value, base + common.JSONRPC_PATH))
    card = AgentCard(
        name="a2ui test peer (a2a-sdk 1.x)",
        description="Paints A2UI surfaces",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=binding, protocol_version=PROTOCOL_VERSION_1_0)
        ],
        capabilities=AgentCapabilities(
            streaming=True,
            extensions=[
                AgentExtension(
                    uri=profile["uri"],
                    required=False,
                    params={"supportedCatalogIds": [scenario.CATALOG], "acceptsInlineCatalogs": False},
                )
                for profile in PROFILES
            ],
        ),
        default_input_modes=["text/plain", *(profile["mime"] for profile in PROFILES)],
        default_output_modes=["text/plain", *(profile["mime"] for profile in PROFILES)],
        skills=[AgentSkill(id="tables", name="Tables", description="Book a table", tags=["a2ui"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=A2uiExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    if grpc_server is not None:
        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        return Starlette(routes=create_agent_card_routes(card))
    routes = (create_rest_routes(handler, path_prefix=common.REST_PATH) if rest_only
              else create_jsonrpc_routes(handler, common.JSONRPC_PATH))
    return Starlette(routes=[*create_agent_card_routes(card), *routes])


def main() -> None:
    parser = common.agent_argparser("a2a-sdk 1.x A2UI test agent (--rest: HTTP+JSON only)")
    parser.add_argument("--grpc-only", action="store_true", help="gRPC only; the HTTP port serves the card alone")
    args = parser.parse_args()
    sock = common.bind(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    if not args.grpc_only:
        common.serve(build_app(base, args.rest), sock)
        return

    async def start() -> Starlette:
        apps: list[Starlette] = []
        await common.start_grpc_server(args.host, lambda server, url: apps.append(build_app(base, False, server, url)))
        return apps[0]

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
