"""Shell fixtures: scripted fake agents on loopback (tests/fakes) and the gateway in front of them,
both real aiohttp servers; the gateway runs with handler cancellation as in production."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from gateway.config import load
from gateway.shell.app import build_app
from tests.fakes.agents import fake_agent_factory

__all__ = ["fake_agent_factory", "gateway_factory"]

GatewayFactory = Callable[..., Awaitable[TestClient[Any, Any]]]


@pytest.fixture
def gateway_factory(aiohttp_client: Any) -> GatewayFactory:
    """`await gateway_factory(upstream_url, **dotted_overrides)` → a test client of a real gateway."""

    async def make(upstream: str, **overrides: object) -> TestClient[Any, Any]:
        values = {"upstream.url": upstream, "log.format": "console",
                  **{k.replace("__", "."): v for k, v in overrides.items()}}
        settings = load(None, {}, values)
        client: TestClient[Any, Any] = await aiohttp_client(build_app(settings),
                                                               server_kwargs={"handler_cancellation": True})
        return client

    return make
