"""Owns what the four peer scripts share across SDK generations (stdlib only, imported inside both
venvs): paths, the scripted-command grammar, the rich test payload, serving, and the JSON-line output."""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

CARD_PATH = "/.well-known/agent-card.json"
JSONRPC_PATH = "/jsonrpc"
REST_PATH = "/rest"

AGENT_NAME = "a2a-gateway test peer"
AGENT_DESCRIPTION = "Scripted agent: echo, message, stream N, ask/answer X, slow, fail, reject."
AGENT_VERSION = "1.0.0"
SKILLS = [
    {"id": "echo", "name": "Echo", "description": "Echoes every part back", "tags": ["echo"]},
    {"id": "script", "name": "Scripted", "description": "stream N, ask, slow, fail", "tags": ["test"]},
]
EXTENDED_SKILL = {"id": "secret", "name": "Secret", "description": "Only on the extended card", "tags": ["x"]}

SCENARIOS = (
    "send_text",
    "send_rich",
    "send_message_reply",
    "get_task",
    "cancel_task",
    "cancel_finished",
    "stream",
    "stream_rich",
    "ask_continue",
    "resubscribe",
    "push_crud",
    "get_task_not_found",
    "get_extended_card",
)
# v1.0 behaviour a v0.3 agent gets from the gateway (composed): scenarios of the 1.x client only
V10_SCENARIOS = ("list_tasks", "list_only", "subscribe_finished", "get_task_history", "push_get_by_id")
# a framework's client (google-adk, strands-agents) runs each of its scenarios in one process: its interpreter
# start (~2 s of imports) dominates a scenario, so one run answers {"scenarios": {name: {ok, ...}}}
EACH = "each"
# fasta2a's own client reads a task again until it settles (fasta2a answers message/send at once)
UNDER_WAY = frozenset({"submitted", "working"})
SETTLE_POLL_S, SETTLE_TIMEOUT_S = 0.05, 10.0
TERMINAL_STATES = frozenset({"completed", "canceled", "failed", "rejected"})
SCENARIO_TIMEOUT_S = 20.0
STREAM_CHUNKS = 3
SLOW_STEPS, SLOW_INTERVAL_S = 2, 2.0
MISSING_TASK_ID = "no-such-task-00000000"
DEFAULT_WEBHOOK = "http://127.0.0.1:9/webhook"  # discard port: nothing listens, delivery just fails

# send_rich: one part of every kind; the agent must hand each one back unchanged.
RICH_TEXT = "echo rich"
RICH_DATA: dict[str, Any] = {"answer": 42, "nested": {"list": [1, "two", True, None]}, "pi": 3.5}
RICH_BYTES = b"hello \x00\xff bytes"
RICH_BYTES_NAME, RICH_BYTES_MIME = "hello.bin", "application/octet-stream"
RICH_URI = "https://example.com/files/picture.png"
RICH_URI_NAME, RICH_URI_MIME = "picture.png", "image/png"


def parse_command(text: str) -> tuple[str, list[str]]:
    """`"stream 3"` -> ("stream", ["3"]); the command picks the executor's scripted behaviour."""
    words = text.split()
    return (words[0].lower(), words[1:]) if words else ("", [])


def int_arg(args: list[str], index: int, default: int) -> int:
    try:
        return int(args[index])
    except (IndexError, ValueError):
        return default


def float_arg(args: list[str], index: int, default: float) -> float:
    try:
        return float(args[index])
    except (IndexError, ValueError):
        return default


# ---- agents -------------------------------------------------------------------------------------


def agent_argparser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0, help="0 = pick a free port (printed on READY)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--rest", action="store_true", help="advertise HTTP+JSON as the preferred binding")
    parser.add_argument("--grpc", action="store_true", help="also serve gRPC on a port of its own (in the card)")
    parser.add_argument("--lie", action="store_true", help="serve a card claiming the other protocol version "
                        "(the agent still speaks its own): a v0.3 agent's card is a v1.0 one, and the reverse")
    return parser


def lying_card(base: str, speaks: str) -> dict[str, Any]:
    """The card of an agent that speaks `speaks` ("0.3" or "1.0") but claims the other version, in the other
    version's shape, with the same JSON-RPC and HTTP+JSON URLs (as LiteLLM and some samples serve them)."""
    common: dict[str, Any] = {
        "name": AGENT_NAME, "description": AGENT_DESCRIPTION, "version": AGENT_VERSION,
        "capabilities": {"streaming": True, "pushNotifications": True},
        "defaultInputModes": ["text/plain", "application/json", "application/octet-stream", "image/png"],
        "defaultOutputModes": ["text/plain", "application/json", "application/octet-stream", "image/png"],
        "skills": SKILLS,
    }
    rpc, rest = base + JSONRPC_PATH, base + REST_PATH
    if speaks == "0.3":
        return {**common, "supportedInterfaces": [
            {"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": rest, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}
    return {**common, "protocolVersion": "0.3.0", "url": rpc, "preferredTransport": "JSONRPC",
            "additionalInterfaces": [{"transport": "JSONRPC", "url": rpc}, {"transport": "HTTP+JSON", "url": rest}]}


def lying_card_route(base: str, speaks: str) -> Any:
    """A Starlette route serving lying_card() at CARD_PATH (mounted before the SDK's own)."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    card = lying_card(base, speaks)

    async def endpoint(request: Any) -> Any:
        return JSONResponse(card)

    return Route(CARD_PATH, endpoint, methods=["GET"])


def bind(host: str, port: int) -> socket.socket:
    """Bind before building the app so the card can carry the real port (no free-port race)."""
    # IPPROTO_TCP explicitly: asyncio enables TCP_NODELAY only on sockets whose proto says TCP; without it
    # every keep-alive request after the first stalls ~40 ms on delayed ACKs
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def serve(app: Any, sock: socket.socket) -> None:
    """Run `app` with uvicorn on `sock`; print `READY <port>` once it accepts connections."""

    async def ready() -> Any:
        return app

    serve_started(ready, sock)


def serve_started(start: Callable[[], Awaitable[Any]], sock: socket.socket) -> None:
    """`start()` runs first, inside the event loop (it may start other servers there, e.g. gRPC, and
    returns the app); then as `serve`. Servers `start` registered with `on_stop` stop after uvicorn."""
    import uvicorn  # type: ignore[import-not-found,unused-ignore]  # agents only; absent from the main venv

    async def main() -> None:
        app = await start()
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, lifespan="off")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            while not server.started:
                if task.done():
                    await task  # startup failed: surface the error
                    return
                await asyncio.sleep(0.02)
            print(f"READY {sock.getsockname()[1]}", flush=True)
            await task
        finally:
            for stop in reversed(_STOPS):
                await stop()

    asyncio.run(main())


_STOPS: list[Callable[[], Awaitable[Any]]] = []


def on_stop(stop: Callable[[], Awaitable[Any]]) -> None:
    _STOPS.append(stop)


async def start_grpc_server(host: str, add_services: Callable[[Any, str], None]) -> str:
    """A grpc.aio server on a free port of `host`: `add_services(server, "host:port")` registers the
    servicers (the URL is what the card advertises, as both SDKs spell gRPC URLs); returns the URL."""
    import grpc  # type: ignore[import-not-found,unused-ignore]  # agents only; absent from the main venv

    server = grpc.aio.server()
    port = server.add_insecure_port(f"{host}:0")
    url = f"{host}:{port}"
    add_services(server, url)
    await server.start()
    on_stop(lambda: server.stop(0.5))
    return url


# ---- clients ------------------------------------------------------------------------------------


def client_argparser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--url", required=True, help="agent base URL; the card is read from BASE" + CARD_PATH)
    parser.add_argument("--scenario", required=True,
                        choices=SCENARIOS + V10_SCENARIOS + (EACH,))
    parser.add_argument("--transport", choices=("jsonrpc", "rest", "grpc"), default="jsonrpc")
    parser.add_argument("--webhook", default=DEFAULT_WEBHOOK, help="push_crud: webhook URL to register")
    parser.add_argument("--context", default="", help="list_only: the contextId to list")
    parser.add_argument("--header", action="append", default=[], metavar="NAME=VALUE",
                        help="a header sent with every request (credentials for a gateway's [auth])")
    return parser


async def settled(task: Any, state: Callable[[Any], str], get: Callable[[Any], Awaitable[Any]]) -> Any:
    """`task` read again (`get(task)`) until its `state` is no longer under way (fasta2a's client)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT_S
    while state(task) in UNDER_WAY and loop.time() < deadline:
        await asyncio.sleep(SETTLE_POLL_S)
        task = await get(task)
    return task


def headers_of(args: argparse.Namespace) -> dict[str, str]:
    """The --header NAME=VALUE options as a dict."""
    return dict(item.split("=", 1) for item in args.header)


def grpc_channel_factory(args: argparse.Namespace) -> Callable[[str], Any]:
    """grpc.aio.insecure_channel sending the --header options as metadata on every call (lower case): the
    SDKs' gRPC transports carry no HTTP headers, so this is how a gRPC client shows a gateway its credentials."""
    import grpc  # type: ignore[import-not-found,unused-ignore]  # clients only

    pairs = [(name.lower(), value) for name, value in headers_of(args).items()]

    def with_metadata(details: Any) -> Any:
        return details._replace(metadata=[*(details.metadata or ()), *pairs])

    class Credentials(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc,unused-ignore]
        async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
            return await continuation(with_metadata(details), request)

        async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
            return await continuation(with_metadata(details), request)

    def channel(target: str) -> Any:
        return grpc.aio.insecure_channel(target, interceptors=[Credentials()] if pairs else None)
    return channel


ErrorMapper = Callable[[BaseException], dict[str, Any] | None]


def run_scenario(
    args: argparse.Namespace,
    generation: str,
    scenario: Callable[[], Awaitable[dict[str, Any]]],
    map_error: ErrorMapper,
) -> int:
    """Run one scenario under the time bound and print exactly one JSON line describing it.

    `map_error` turns an exception into {type, code, message, http_status} when it is a protocol-level
    error the SDK raised (-> ok: false, exit 0); anything else is a harness crash (exit 2)."""
    head = {"scenario": args.scenario, "generation": generation, "transport": args.transport}
    exit_code = 0
    mapped: dict[str, Any] | None
    try:
        body = asyncio.run(asyncio.wait_for(scenario(), SCENARIO_TIMEOUT_S))
        out = {**head, "ok": True, **body}
    except Exception as exc:
        if isinstance(exc, TimeoutError):  # our own bound (asyncio.wait_for), not an SDK timeout
            mapped = {"type": "Timeout", "code": None, "message": f"scenario exceeded {SCENARIO_TIMEOUT_S}s"}
        else:
            mapped = map_error(exc)
        if mapped is None:
            traceback.print_exc()
            mapped = {"type": type(exc).__name__, "code": None, "message": str(exc)}
            exit_code = 2
        out = {**head, "ok": False, "error": mapped}
    print(json.dumps(out, sort_keys=True, default=str), flush=True)
    return exit_code


def chosen(name: str, scenarios: dict[str, Callable[[], Awaitable[dict[str, Any]]]],
           map_error: ErrorMapper) -> Callable[[], Awaitable[dict[str, Any]]]:
    """The scenario `name` of `scenarios`, or for EACH all of them in turn (`each`)."""
    if name == EACH:
        return lambda: each(scenarios, map_error)
    return scenarios[name]


async def each(scenarios: dict[str, Callable[[], Awaitable[dict[str, Any]]]], map_error: ErrorMapper) -> dict[str, Any]:
    """The EACH scenario: every one of `scenarios` in turn, each {ok: true, ...} or {ok: false, error}."""
    out: dict[str, Any] = {}
    for name, scenario in scenarios.items():
        try:
            out[name] = {"ok": True, **await scenario()}
        except Exception as exc:
            mapped = map_error(exc)
            if mapped is None:
                raise
            out[name] = {"ok": False, "error": mapped}
    return {"scenarios": out}


class Steps:
    """The record of a multi-step scenario (push_crud): each step is {ok, result} or {ok: false, error}."""

    def __init__(self, map_error: ErrorMapper) -> None:
        self.steps: dict[str, dict[str, Any]] = {}
        self._map_error = map_error

    async def run(self, name: str, call: Awaitable[Any]) -> Any:
        """Await one SDK call; an A2A error is recorded (not raised) so later steps still run."""
        try:
            result = await call
        except Exception as exc:
            mapped = self._map_error(exc)
            if mapped is None:
                raise
            self.steps[name] = {"ok": False, "error": mapped}
            return None
        self.steps[name] = {"ok": True, "result": result}
        return result

    def outcome(self) -> dict[str, Any]:
        """`steps`, plus ok: false and an error naming the failed steps when any failed."""
        failed = [name for name, step in self.steps.items() if not step["ok"]]
        out: dict[str, Any] = {"steps": self.steps}
        if failed:
            out.update(ok=False, error={"type": "StepsFailed", "code": None, "message": ", ".join(failed)})
        return out
