"""The admin endpoints of one gateway process: /healthz while alive, /readyz flipping with the upstream
card and the drain, /metrics as Prometheus text, /workers; none of them on the main listener."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.shell.carrier.migration import MIGRATION
from gateway.shell.process.admin import ProcessStatus, build_admin_app
from gateway.shell.process.lifecycle import LIFECYCLE
from gateway.shell.process.metrics import METRICS

CARD = "GET /.well-known/agent-card.json"


async def admin_for(aiohttp_client: Any, gateway: Any) -> Any:
    app = gateway.app
    lc = app[LIFECYCLE]
    return await aiohttp_client(build_admin_app(ProcessStatus(lc.readiness, app[METRICS].render,
                                                              lambda: lc.handled, app[MIGRATION].snapshot)))


async def test_readiness_follows_the_upstream_card_and_the_drain(fake_agent_factory, gateway_factory,
                                                                  aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json(CARD, status=503, raw=b"starting")  # the agent is not up yet
    fake.reply_json(CARD, fake.card)
    # no retry of the card's 503 within the fetch (upstream.retry_attempts): the refresher's retry is shown
    gateway = await gateway_factory(fake.url, upstream__card_retry_seconds=0.2, upstream__retry_attempts=0)
    admin = await admin_for(aiohttp_client, gateway)

    assert (await admin.get("/healthz")).status == 200
    resp = await admin.get("/readyz")
    assert resp.status == 503
    body = await resp.json()
    assert body["ready"] is False
    assert "card is not known yet" in body["reason"] and "503" in body["reason"]

    for _ in range(100):  # the refresher retries after card_retry_seconds
        resp = await admin.get("/readyz")
        if resp.status == 200:
            break
        await asyncio.sleep(0.05)
    assert resp.status == 200
    body = await resp.json()
    assert (body["ready"], body["reason"]) == (True, "ready")
    # the details: each interface of the card as the version probe found it
    assert [(i["claimed"], i["observed"], i["status"]) for i in body["upstream"]["interfaces"]] == [
        ("1.0", "1.0", "verified")]

    gateway.app[LIFECYCLE].draining = True
    resp = await admin.get("/readyz")
    assert resp.status == 503
    assert (await resp.json())["reason"].startswith("draining")
    assert (await admin.get("/healthz")).status == 200  # alive while it drains


async def test_a_fixed_upstream_version_is_ready_without_a_card(gateway_factory, aiohttp_client,
                                                                unused_tcp_port) -> None:
    gateway = await gateway_factory(f"http://127.0.0.1:{unused_tcp_port}", upstream__version="1.0")
    admin = await admin_for(aiohttp_client, gateway)
    assert (await admin.get("/readyz")).status == 200


async def test_metrics_and_workers_endpoints(fake_agent_factory, gateway_factory, aiohttp_client) -> None:
    fake = await fake_agent_factory("1.0")
    gateway = await gateway_factory(fake.url)
    assert (await gateway.get("/.well-known/agent-card.json")).status == 200
    admin = await admin_for(aiohttp_client, gateway)
    resp = await admin.get("/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = await resp.text()
    assert "# TYPE a2a_gateway_requests_total counter" in text
    assert "_created" not in text
    workers = (await (await admin.get("/workers")).json())["workers"]
    assert len(workers) == 1
    assert workers[0]["requests"] == 1 and workers[0]["alive"] is True


async def test_admin_paths_are_not_served_on_the_main_listener(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    gateway = await gateway_factory(fake.url)
    for path in ("/metrics", "/healthz", "/readyz"):
        resp = await gateway.get(path)
        assert resp.status >= 400
        assert "a2a_gateway" not in await resp.text()


async def test_a_bug_behind_an_endpoint_is_answered_as_json(aiohttp_client: Any) -> None:
    class Broken:
        def readiness(self) -> tuple[bool, str]:
            raise RuntimeError("boom")

        def metrics_text(self) -> bytes:
            return b""

        def workers(self) -> list[dict[str, Any]]:
            return []

        def migration(self) -> dict[str, Any]:
            return {}

    client = await aiohttp_client(build_admin_app(Broken()))
    resp = await client.get("/readyz")
    assert resp.status == 500 and resp.content_type == "application/json"
    assert await resp.json() == {"error": "internal error: RuntimeError"}
    assert (await client.get("/nope")).status == 404
