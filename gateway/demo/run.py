"""Owns `a2a-gateway demo`: the bundled v1.0 demo agent on a loopback port and the gateway in front of
it, in one process, so a v0.3 client (or curl) can try the translation with nothing else installed."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket

from aiohttp import web

from gateway.config import Settings
from gateway.demo.agent import demo_agent_app
from gateway.observability import get_logger
from gateway.shell.process.app import build_app, grpc_listener

log = get_logger("gateway.demo")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _run(settings: Settings) -> None:
    agent_port = _free_port()
    agent_url = f"http://127.0.0.1:{agent_port}"
    agent_runner = web.AppRunner(demo_agent_app(agent_url), access_log=None)
    await agent_runner.setup()
    await web.TCPSite(agent_runner, "127.0.0.1", agent_port).start()
    settings = dataclasses.replace(settings, upstream=dataclasses.replace(settings.upstream, url=agent_url))
    app = build_app(settings)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    host, port = settings.server.host, settings.server.port
    await web.TCPSite(runner, host, port).start()
    # the gRPC listener too (both versions' services; the card lists it): any free port unless given
    grpc = grpc_listener(app, settings) if settings.grpc.listen else None
    grpc_port = await grpc.start() if grpc is not None else None
    log.info("demo_ready", gateway=f"http://{host}:{port}/", agent=agent_url,
             grpc=f"{settings.grpc.host}:{grpc_port}" if grpc_port is not None else None,
             try_=f"curl -s http://{host}:{port}/ -H 'Content-Type: application/json' -d "
                  "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
                  "{\"kind\":\"message\",\"messageId\":\"m1\",\"role\":\"user\",\"parts\":"
                  "[{\"kind\":\"text\",\"text\":\"hello\"}]}}}'")
    try:
        await asyncio.Event().wait()
    finally:
        if grpc is not None:
            await grpc.stop(0)
        await runner.cleanup()
        await agent_runner.cleanup()


def run_demo(settings: Settings) -> None:
    """Blocking: serve until interrupted."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings))
