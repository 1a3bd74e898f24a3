"""Owns `a2a-gateway demo`: the bundled v1.0 demo agent on a loopback port and the whole gateway in front
of it (its listeners, admin one included, as `serve` runs them), in one process, and what to try printed."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
import sys
from typing import TextIO

from aiohttp import web

from gateway.config import Settings
from gateway.demo.agent import demo_agent_app
from gateway.observability import get_logger
from gateway.shell.process.app import loop_factory, run_process
from gateway.shell.process.lifecycle import Process

log = get_logger("gateway.demo")

# What the banner offers a v0.3 client and a v1.0 client to send (the README's first curl is the first).
V03_SEND = ('{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",'
            '"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}')
V03_STREAM = ('{"jsonrpc":"2.0","id":2,"method":"message/stream","params":{"message":{"kind":"message",'
              '"messageId":"m2","role":"user","parts":[{"kind":"text","text":"hello world"}]}}}')
V10_SEND = ('{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"messageId":"m3",'
            '"role":"ROLE_USER","parts":[{"text":"hello"}]}}}')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _http(host: str, port: int) -> str:
    host = f"[{host}]" if ":" in host else host
    return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}"


def banner(settings: Settings, port: int, admin_port: int | None, grpc_port: int | None) -> str:
    """What to try against the running demo: the lines printed once every listener is open."""
    base = _http(settings.server.host, port)
    lines = [
        "",
        f"a2a-gateway demo: the gateway on {base}/ in front of a v1.0 echo agent ({settings.upstream.url})",
        "",
        "A v0.3 client (JSON-RPC) talking to the v1.0 agent:",
        f"  curl -s {base}/ -H 'Content-Type: application/json' -d '{V03_SEND}'",
        "Streaming, event by event:",
        f"  curl -sN {base}/ -H 'Content-Type: application/json' -d '{V03_STREAM}'",
        "A v1.0 client (passed through):",
        f"  curl -s {base}/ -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d '{V10_SEND}'",
        "The agent card each version sees:",
        f"  curl -s {base}/.well-known/agent-card.json",
        f"  curl -s {base}/.well-known/agent-card.json -H 'A2A-Version: 1.0'",
    ]
    if grpc_port is not None:
        lines.append(f"gRPC (both versions' services) on {settings.grpc.host}:{grpc_port}")
    if admin_port is not None:
        admin = _http(settings.admin.host, admin_port)
        lines += [
            "",
            "The operator's side (the admin listener):",
            f"  {admin}/            the migration page: who still speaks v0.3, what was translated",
            f"  {admin}/migration   the same as JSON",
            f"  {admin}/metrics     Prometheus metrics",
            f"  {admin}/readyz      readiness (200 once the agent's card is known)",
        ]
    lines += ["", "Ctrl-C stops it.", ""]
    return "\n".join(lines)


async def _run(settings: Settings, out: TextIO) -> int:
    agent_port = _free_port()
    agent_url = f"http://127.0.0.1:{agent_port}"
    agent_runner = web.AppRunner(demo_agent_app(agent_url), access_log=None)
    await agent_runner.setup()
    await web.TCPSite(agent_runner, "127.0.0.1", agent_port).start()
    settings = dataclasses.replace(settings, upstream=dataclasses.replace(settings.upstream, url=agent_url))
    try:
        def ready(process: Process) -> None:
            print(banner(settings, process.port, process.admin_port, process.lifecycle.grpc_port), file=out,
                  flush=True)
        return await run_process(settings, on_ready=ready)
    finally:
        await agent_runner.cleanup()


def run_demo(settings: Settings, out: TextIO | None = None) -> int:
    """Blocking: serve until SIGINT or SIGTERM (the gateway drains, then the agent stops); the exit status."""
    # KeyboardInterrupt: Ctrl-C before the gateway's own SIGINT handler is in place
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(
            loop_factory=loop_factory(settings.server.event_loop)) as runner:
        return runner.run(_run(settings, out or sys.stdout))
    return 0
