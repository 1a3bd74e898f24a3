"""Agent health in gateway/shell/agent/health.py, through the Upstream that keeps it: a call that finds the
agent unreachable marks it down, later calls are answered at once (AgentUnavailable, with a Retry-After), a
background check serves the agent again within moments of its coming up; card fetches share it. With them,
the unary deadlines: first_byte bounds the reply's head, total_unary the whole."""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar

import pytest
from aiohttp import web

from gateway.config import load
from gateway.core.errors import AgentUnavailable, UpstreamTimeout, UpstreamUnavailable
from gateway.shell.agent.health import AgentHealth
from gateway.shell.agent.link_failures import CLASSES, Failure
from gateway.shell.agent.upstream import Upstream
from gateway.shell.process.metrics import Metrics
from tests.shell.test_metrics import parse, value


def _upstream(url: str, **keys: object) -> tuple[Upstream, Metrics]:
    settings = load(None, {}, {"upstream.url": url, **keys})
    metrics = Metrics()
    return Upstream(settings.upstream, settings.limits, metrics=metrics), metrics


async def _serve(app: web.Application, port: int) -> web.AppRunner:
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


def _agent() -> web.Application:
    async def send(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", send)
    return app


async def test_a_down_agent_is_answered_at_once_then_served_when_it_comes_up(unused_tcp_port: int) -> None:
    url = f"http://127.0.0.1:{unused_tcp_port}/"
    upstream, metrics = _upstream(url, **{"upstream.version": "1.0"})
    await upstream.start()
    runner = None
    try:
        started = time.monotonic()
        with pytest.raises(UpstreamUnavailable, match="refused") as first:   # the call that finds it so
            await upstream.request("POST", url, headers={}, body=b"x")
        assert time.monotonic() - started < 5.0 and not isinstance(first.value, AgentUnavailable)
        assert list(upstream.health.state()) == [f"http://127.0.0.1:{unused_tcp_port}"]
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises(AgentUnavailable, match="unavailable: the connection was refused") as later:
                await upstream.request("POST", url, headers={}, body=b"x")
            assert time.monotonic() - started < 0.05 and later.value.retry_after >= 1
            assert later.value.http_status == 503
            with pytest.raises(AgentUnavailable):   # streams too
                await upstream.open("POST", url, headers={}, body=b"x")
        m = parse(metrics.render().decode())
        assert value(m, "a2a_gateway_upstream_failures_total", failure="refused") == 1
        assert value(m, "a2a_gateway_upstream_failures_total", failure="agent_down") == 6
        assert value(m, "a2a_gateway_upstream_agents_down") == 1

        runner = await _serve(_agent(), unused_tcp_port)
        up = time.monotonic()
        while upstream.health.state():
            assert time.monotonic() - up < 3.0, "the background check did not notice the agent"
            await asyncio.sleep(0.05)
        assert (await upstream.request("POST", url, headers={}, body=b"x")).status == 200
        assert value(parse(metrics.render().decode()), "a2a_gateway_upstream_agents_down") == 0
    finally:
        await upstream.close()
        if runner is not None:
            await runner.cleanup()


async def test_card_callers_share_one_fetch_and_one_path(unused_tcp_port: int) -> None:
    """Nothing listens: concurrent callers wait for one fetch of agent-card.json, not for agent.json after it,
    nor for fetches of their own."""
    upstream, _ = _upstream(f"http://127.0.0.1:{unused_tcp_port}")
    await upstream.start()
    try:
        started = time.monotonic()
        results = await asyncio.gather(*(upstream.card() for _ in range(5)), return_exceptions=True)
        took = time.monotonic() - started
        assert all(isinstance(r, UpstreamUnavailable) for r in results), results
        assert took < 5.0, took   # one retry budget (about 2.7-3.6 s on defaults), not five, not two paths
        assert "refused" in str(results[0]) and "agent-card.json" not in str(results[0])
        started = time.monotonic()
        with pytest.raises(AgentUnavailable):   # known down now: at once
            await upstream.card()
        assert time.monotonic() - started < 0.05
    finally:
        await upstream.close()


async def test_a_card_at_the_older_path_is_still_found(aiohttp_server) -> None:  # type: ignore[no-untyped-def]
    card = {"name": "a", "url": "http://127.0.0.1:1/", "protocolVersion": "0.3", "version": "1", "description": "",
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []}
    hits: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        hits.append(request.path)
        if request.path == "/.well-known/agent.json":
            return web.json_response(card)
        return web.Response(status=404)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    server = await aiohttp_server(app)
    upstream, _ = _upstream(str(server.make_url("")))
    await upstream.start()
    try:
        await upstream.card()
        assert hits[:2] == ["/.well-known/agent-card.json", "/.well-known/agent.json"]
    finally:
        await upstream.close()


async def test_first_byte_bounds_a_unary_reply_head_and_total_unary_the_whole(aiohttp_server) -> None:  # type: ignore[no-untyped-def]
    async def handle(request: web.Request) -> web.StreamResponse:
        if request.path == "/silent":
            await asyncio.sleep(5)
        response = web.StreamResponse()
        await response.prepare(request)   # the head at once, the body later
        await asyncio.sleep(0.6 if request.path == "/slow-body" else 5)
        await response.write(b"{}")
        return response
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    server = await aiohttp_server(app)
    base = str(server.make_url("")).rstrip("/")
    upstream, metrics = _upstream(base, **{"upstream.version": "1.0", "upstream.timeout.first_byte": 0.3,
                                           "upstream.timeout.total_unary": 1.5})
    await upstream.start()
    try:
        started = time.monotonic()
        with pytest.raises(UpstreamTimeout, match=r"no reply within upstream\.timeout\.first_byte"):
            await upstream.request("POST", base + "/silent", headers={}, body=b"x")
        assert 0.25 < time.monotonic() - started < 1.0
        reply = await upstream.request("POST", base + "/slow-body", headers={}, body=b"x")   # head in time
        assert reply.status == 200 and reply.body == b"{}"
        started = time.monotonic()
        with pytest.raises(UpstreamTimeout, match=r"longer than upstream\.timeout\.total_unary"):
            await upstream.request("POST", base + "/stuck-body", headers={}, body=b"x")
        assert 1.2 < time.monotonic() - started < 2.5
        assert not upstream.health.state()   # a slow agent is not a down one
        m = parse(metrics.render().decode())
        assert value(m, "a2a_gateway_upstream_failures_total", failure="head_deadline") == 1
        assert value(m, "a2a_gateway_upstream_failures_total", failure="total_deadline") == 1
    finally:
        await upstream.close()


async def test_the_check_goes_on_past_its_own_fault_and_knows_nothing_of_the_call() -> None:
    """A check that fails on its own (not the agent's failure) keeps the agent down and checks again; the
    check runs in a context of its own (nothing of the call that found the agent down)."""
    seen: ContextVar[str] = ContextVar("seen", default="")
    calls: list[str] = []
    back: list[bool] = []

    async def check(url: str) -> Failure | None:
        calls.append(seen.get())
        if len(calls) == 1:
            raise ValueError("the check's own fault")
        return None
    health = AgentHealth(check, lambda: back.append(True))
    seen.set("the call's")
    health.failed(Failure(CLASSES["refused"], "http://127.0.0.1:9/x"))
    health.failed(Failure(CLASSES["refused"], "http://127.0.0.1:9/y"))   # already down: nothing new
    assert list(health.state()) == ["http://127.0.0.1:9"]
    refusal = health.refusal("http://127.0.0.1:9/z")
    assert refusal is not None and health.refusal("http://127.0.0.1:10/") is None
    for _ in range(40):
        if back:
            break
        await asyncio.sleep(0.05)
    assert back == [True] and calls == ["", ""] and not health.state()
    health.failed(Failure(CLASSES["head_deadline"], "http://127.0.0.1:9/x"))   # slow is not down
    assert not health.state()
    await health.close()


async def test_another_agent_configured_forgets_the_one_known_down(unused_tcp_port: int) -> None:
    url = f"http://127.0.0.1:{unused_tcp_port}/"
    upstream, metrics = _upstream(url, **{"upstream.version": "1.0", "upstream.retry_attempts": 0})
    await upstream.start()
    try:
        with pytest.raises(UpstreamUnavailable, match="refused"):
            await upstream.request("POST", url, headers={}, body=b"x")
        assert upstream.health.state()
        settings = load(None, {}, {"upstream.url": "http://127.0.0.1:1/", "upstream.version": "1.0"})
        upstream.reconfigure(settings.upstream, settings.limits)
        assert not upstream.health.state()
        assert value(parse(metrics.render().decode()), "a2a_gateway_upstream_agents_down") == 0
    finally:
        await upstream.close()
