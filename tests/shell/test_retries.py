"""Safe retries in gateway/shell/agent/upstream.py: a call that provably never reached the agent (refused) is
sent again with backoff until the agent is up, within the call's deadline; read-only calls are also sent
again on 502/503/504 and on a connection lost after sending, others never; retries are counted."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import load
from gateway.core.errors import UpstreamUnavailable
from gateway.shell.agent.upstream import Upstream
from gateway.shell.process.metrics import Metrics
from tests.shell.test_metrics import parse, value


def _upstream(url: str, **keys: object) -> tuple[Upstream, Metrics]:
    settings = load(None, {}, {"upstream.url": url, **keys})
    metrics = Metrics()
    return Upstream(settings.upstream, settings.limits, metrics=metrics), metrics


def _retries(metrics: Metrics, reason: str) -> float:
    return value(parse(metrics.render().decode()), "a2a_gateway_upstream_retries_total", reason=reason)


async def _serve(app: web.Application, port: int, after: float) -> web.AppRunner:
    await asyncio.sleep(after)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def test_a_send_to_an_agent_not_up_yet_waits_for_it(unused_tcp_port: int) -> None:
    hits: list[bytes] = []

    async def send(request: web.Request) -> web.Response:
        hits.append(await request.read())
        return web.json_response({"ok": True})
    app = web.Application()
    app.router.add_post("/", send)
    upstream, metrics = _upstream(f"http://127.0.0.1:{unused_tcp_port}")
    await upstream.start()
    later = asyncio.create_task(_serve(app, unused_tcp_port, after=0.4))
    try:
        reply = await upstream.request("POST", f"http://127.0.0.1:{unused_tcp_port}/", headers={}, body=b"send")
        assert reply.status == 200 and hits == [b"send"]   # sent once, when the agent was there
        assert _retries(metrics, "refused") >= 1
    finally:
        await upstream.close()
        await (await later).cleanup()


async def test_retries_stop_at_the_deadline_and_the_attempts(unused_tcp_port: int) -> None:
    url = f"http://127.0.0.1:{unused_tcp_port}/"
    upstream, metrics = _upstream(url, **{"upstream.timeout.total_unary": 0.5})
    await upstream.start()
    try:
        started = time.monotonic()
        with pytest.raises(UpstreamUnavailable, match="unreachable"):   # the refusal, not a timeout
            await upstream.request("POST", url, headers={}, body=b"x")
        assert time.monotonic() - started < 0.5
    finally:
        await upstream.close()
    upstream, metrics = _upstream(url, **{"upstream.retry_attempts": 3, "upstream.retry_backoff_seconds": 0.001})
    await upstream.start()
    try:
        with pytest.raises(UpstreamUnavailable):
            await upstream.request("POST", url, headers={}, body=b"x")
        assert _retries(metrics, "refused") == 3
    finally:
        await upstream.close()


@pytest.fixture
async def flaky(aiohttp_server):  # type: ignore[no-untyped-def]
    """An agent answering 503 to the first two calls of each path, then 200; /drop closes the connection
    without a reply each time."""
    hits: dict[str, int] = {}

    async def handle(request: web.Request) -> web.StreamResponse:
        await request.read()
        n = hits[request.path] = hits.get(request.path, 0) + 1
        if request.path == "/drop":
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        return web.json_response({"n": n}, status=503 if n <= 2 else 200)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    server = await aiohttp_server(app)
    return str(server.make_url("")).rstrip("/"), hits


async def test_reads_are_retried_on_503_and_lost_connections_sends_are_not(flaky) -> None:  # type: ignore[no-untyped-def]
    base, hits = flaky
    upstream, metrics = _upstream(base, **{"upstream.retry_backoff_seconds": 0.001})
    await upstream.start()
    try:
        assert (await upstream.request("GET", base + "/read", headers={}, read_only=True)).status == 200
        assert hits["/read"] == 3 and _retries(metrics, "http_503") == 2
        assert (await upstream.request("POST", base + "/send", headers={}, body=b"x")).status == 503
        assert hits["/send"] == 1
        with pytest.raises(UpstreamUnavailable):
            await upstream.request("POST", base + "/drop", headers={}, body=b"x")
        assert hits["/drop"] == 1   # it reached the agent: never sent again
        with pytest.raises(UpstreamUnavailable):
            await upstream.request("GET", base + "/drop", headers={}, read_only=True)
        assert hits["/drop"] >= 1 + 1 + 7 and _retries(metrics, "closed_early") == 7   # aiohttp adds its own
        resp = await upstream.open("GET", base + "/stream", headers=CIMultiDict(), body=None, read_only=True)
        assert resp.status == 200 and hits["/stream"] == 3   # a read-only stream (SubscribeToTask) too
        resp.release()
    finally:
        await upstream.close()
