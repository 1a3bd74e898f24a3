"""Shell fixtures: scripted fake agents on loopback (tests/fakes) and the gateway in front of them,
both real aiohttp servers (the gateway runs with handler cancellation as in production), or the gateway's
gRPC listener with a real grpc.aio channel to it and the request messages to send."""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from aiohttp.test_utils import TestClient
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.protobuf import json_format

from gateway.config import load
from gateway.core.bindings.grpc import message_class
from gateway.core.types import Version
from gateway.shell.doors.grpc import GrpcListener
from gateway.shell.process.app import build_app
from tests.fakes.agents import FakeAgent, fake_agent_factory

__all__ = ["GrpcGateway", "fake_agent_factory", "gateway_factory", "grpc_gateway", "parse_message",
           "send_request"]

GatewayFactory = Callable[..., Awaitable[TestClient[Any, Any]]]
GrpcGateway = tuple[TestClient[Any, Any], GrpcListener, grpc.aio.Channel]


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


@pytest.fixture
async def grpc_gateway(aiohttp_client: Any) -> AsyncIterator[Callable[..., Awaitable[GrpcGateway]]]:
    """`await grpc_gateway(fake, **dotted_overrides)` → the gateway's HTTP test client, its gRPC
    listener on a free loopback port and a channel to it (closed and stopped after the test)."""
    made: list[tuple[GrpcListener, grpc.aio.Channel]] = []

    async def make(fake: FakeAgent, **overrides: object) -> GrpcGateway:
        values = {"upstream.url": fake.url, "log.format": "console", "grpc.listen": "127.0.0.1:0",
                  **{k.replace("__", "."): v for k, v in overrides.items()}}
        settings = load(None, {}, values)
        client: TestClient[Any, Any] = await aiohttp_client(build_app(settings))
        listener = GrpcListener(client.server.app, settings)
        port = await listener.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        made.append((listener, channel))
        return client, listener, channel

    yield make
    for listener, channel in made:
        await channel.close()
        await listener.stop(0)


def send_request(version: Version, text: str = "hi") -> bytes:
    """A SendMessageRequest (also the streaming RPC's) of `version`'s proto with one text part."""
    cls = message_class(version, "SendMessageRequest")
    if version is Version.V10:
        message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}
    else:
        message = {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": text}]}
    return bytes(cls(**{"message" if version is Version.V10 else "request": parse_message(version, "Message", message)})
                 .SerializeToString())


def parse_message(version: Version, name: str, value: dict[str, Any]) -> Any:
    return json_format.ParseDict(value, message_class(version, name)())


def self_signed(key: ec.EllipticCurvePrivateKey, common_name: str) -> x509.Certificate:
    """A certificate for `key`, signed by itself, valid for a day."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
