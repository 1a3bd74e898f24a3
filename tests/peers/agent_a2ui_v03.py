"""Owns the real a2a-sdk 0.3.x A2UI test agent: advertises the A2UI v0.9 extension, paints two surfaces on
`show`, answers a schema-complete `book` action on the same task, fails on `fail` (a2ui_common.py)."""

from __future__ import annotations

from typing import Any

import a2ui_common as scenario
import peer_common as common
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentSkill, DataPart, Part, TextPart
from a2a.utils import new_task

PROFILES = [scenario.PROFILES[v] for v in scenario.LISTED["v03"]]


def _ui(profile: dict[str, str], message: dict[str, object]) -> Part:
    return Part(root=DataPart(data=message, metadata={"mimeType": profile["mime"]}))


def _text(text: str) -> Part:
    return Part(root=TextPart(text=text))


class A2uiExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        task = context.current_task
        if task is None:
            task = new_task(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        say = lambda *parts: updater.new_agent_message(list(parts))  # noqa: E731
        text = next((p.root.text for p in message.parts if isinstance(p.root, TextPart)), "").strip().lower()
        data = next((p.root for p in message.parts if isinstance(p.root, DataPart)), None)
        profile = scenario.requested("v03", context.requested_extensions)
        if profile is None:
            await updater.failed(say(_text(f"A2UI extension not requested: {context.requested_extensions}")))
            return
        context.add_activated_extension(profile["uri"])
        ui = lambda message: _ui(profile, message)  # noqa: E731
        if data is not None:
            if context.current_task is None:
                await updater.failed(say(_text("an action must continue the task that showed the UI")))
                return
            action, why = scenario.check_action(profile, data.data, (data.metadata or {}).get("mimeType", ""))
            if action is None:
                await updater.failed(say(_text(why)))
                return
            await updater.start_work(say(_text("Booking…")))
            seats = int(action["context"].get("seats", 0))
            await updater.complete(
                say(
                    _text(f"Booked a table for {seats}"),
                    *map(ui, scenario.answer(profile["version"], action)),
                )
            )
        elif text == "fail":
            await updater.failed(say(_text(scenario.FAILURE_TEXT)))
        else:
            await updater.start_work(say(_text("Looking for tables")))
            # as a2a-sdk 0.3 agents (and the A2UI restaurant sample) do: input-required without final
            await updater.requires_input(
                say(_text("Pick a table"), *map(ui, scenario.paint(profile["version"])))
            )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def build_app(base: str, rest_only: bool, grpc_server: Any = None, grpc_url: str | None = None) -> object:
    """JSON-RPC only, (`rest_only`) HTTP+JSON only, or (`grpc_server`) gRPC only, its HTTP port serving the
    card alone: the card lists the one binding served."""
    url, transport = ((grpc_url, "GRPC") if grpc_server is not None
                      else (base, "HTTP+JSON") if rest_only  # a REST base: /v1/... and the card at the root
                      else (base + common.JSONRPC_PATH, "JSONRPC"))
    card = AgentCard(
        name="a2ui test peer (a2a-sdk 0.3)",
        description="Paints A2UI surfaces",
        version="1.0.0",
        protocol_version="0.3.0",
        url=url,
        preferred_transport=transport,
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
    handler = DefaultRequestHandler(agent_executor=A2uiExecutor(), task_store=InMemoryTaskStore())
    if grpc_server is not None:
        from a2a.grpc import a2a_pb2_grpc
        from a2a.server.request_handlers import GrpcHandler
        from starlette.applications import Starlette
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(card, handler), grpc_server)
        served = card.model_dump(mode="json", by_alias=True, exclude_none=True)
        return Starlette(routes=[Route(common.CARD_PATH, lambda _: JSONResponse(served))])
    if rest_only:
        return A2ARESTFastAPIApplication(agent_card=card, http_handler=handler).build(rpc_url="")
    return A2AStarletteApplication(agent_card=card, http_handler=handler).build(rpc_url=common.JSONRPC_PATH)


def main() -> None:
    parser = common.agent_argparser("a2a-sdk 0.3.x A2UI test agent (--rest: HTTP+JSON only)")
    parser.add_argument("--grpc-only", action="store_true", help="gRPC only; the HTTP port serves the card alone")
    args = parser.parse_args()
    sock = common.bind(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    if not args.grpc_only:
        common.serve(build_app(base, args.rest), sock)
        return

    async def start() -> object:
        apps: list[object] = []
        await common.start_grpc_server(args.host, lambda server, url: apps.append(build_app(base, False, server, url)))
        return apps[0]

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
