"""The failure classes of gateway/shell/agent/link_failures.py, each provoked for real on loopback where it can be
(a refused port, a self-signed TLS agent, an agent closing before its reply, one answering garbage): the class,
its retry rule, and a message that names the agent and the cause in plain words, never a library's."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp.client_reqrep import ConnectionKey
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gateway.core.errors import GatewayError, UpstreamUnavailable
from gateway.shell.agent.channels import Channels
from gateway.shell.agent.link_failures import CLASSES, Failure, Retry, classify, classify_grpc, origin, timed_out
from gateway.shell.agent.stream_link import Links
from tests.shell.conftest import self_signed

LIBRARY_WORDS = ("ssl:default", "ClientConnectorError", "ServerDisconnectedError", "ClientOSError",
                 "ClientPayloadError", "Errno", "Cannot connect to host")


async def _fail(url: str) -> BaseException:
    """What a call to `url` on a fresh link raises."""
    links = Links(connect_timeout=5.0)
    try:
        reply = await links.request("POST", url, {}, b"x", (), None)
        reply.close()
    except (aiohttp.ClientError, TimeoutError, GatewayError) as exc:   # the link words TLS failures itself
        return exc
    finally:
        links.close()
    raise AssertionError(f"{url} answered")


@pytest.fixture
async def agent() -> AsyncIterator[Callable[[bytes | None, ssl.SSLContext | None], str]]:
    """A raw agent on loopback answering every connection with `reply` (None: closing at once)."""
    servers: list[asyncio.Server] = []

    async def start(reply: bytes | None, context: ssl.SSLContext | None) -> str:
        async def serve(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                await r.readuntil(b"\r\n\r\n")
                if reply is not None:
                    w.write(reply)
                    await w.drain()
            except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
                pass
            finally:
                w.close()
        server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
        servers.append(server)
        return f"{'https' if context else 'http'}://127.0.0.1:{server.sockets[0].getsockname()[1]}/"

    yield start  # type: ignore[misc]
    for server in servers:
        server.close()


def _check(failure: Failure, name: str, url: str) -> None:
    assert failure.cls is CLASSES[name], failure
    message = failure.message
    assert message.startswith(f"agent {origin(url)} "), message
    assert not any(word in message for word in LIBRARY_WORDS), message


async def test_a_refused_connection(unused_tcp_port: int) -> None:
    url = f"http://127.0.0.1:{unused_tcp_port}/"
    failure = classify(await _fail(url), url)
    _check(failure, "refused", url)
    assert failure.message == (f"agent http://127.0.0.1:{unused_tcp_port} unreachable: the connection was "
                               f"refused (nothing listens on 127.0.0.1:{unused_tcp_port})")
    assert failure.cls.down and failure.retried(read_only=False)


async def test_an_agent_closing_before_its_reply_and_one_answering_garbage(agent) -> None:  # type: ignore[no-untyped-def]
    url = await agent(None, None)
    failure = classify(await _fail(url), url)
    _check(failure, "closed_early", url)
    assert not failure.cls.down and failure.retried(read_only=True) and not failure.retried(read_only=False)
    url = await agent(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", None)
    failure = classify(await _fail(url), url)
    _check(failure, "malformed_reply", url)
    assert not failure.retried(read_only=True)


async def test_an_untrusted_certificate(agent, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    key = ec.generate_private_key(ec.SECP256R1())
    cert = self_signed(key, "127.0.0.1")
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    url = await agent(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", context)
    failure = classify(await _fail(url), url)
    _check(failure, "tls_verification", url)
    assert "certificate" in failure.message and failure.cls.down and not failure.retried(read_only=True)


def test_the_classes_a_loopback_cannot_show() -> None:
    """A name that does not resolve, a connect deadline and an unreachable network, as the link reports them."""
    url = "http://agent.example:8080/"
    key = ConnectionKey("agent.example", 8080, False, True, None, None, None)
    cases = {"name_not_resolved": socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
             "connect_deadline": TimeoutError(), "unreachable": OSError(113, "No route to host"),
             "tls_handshake": ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")}
    for name, cause in cases.items():
        failure = classify(aiohttp.ClientConnectorError(key, cause), url)
        _check(failure, name, url)
        assert failure.cls.down
    assert "agent.example" in classify(aiohttp.ClientConnectorError(key, cases["name_not_resolved"]), url).message
    assert timed_out("head_deadline", url).message == \
        "agent http://agent.example:8080 timed out: no reply within upstream.timeout.first_byte"


def test_the_table() -> None:
    """One metric label per class; only what never reached the agent (or only reads) is sent again; only
    what shows the agent unreachable marks it down; every message formats."""
    assert len({c.name for c in CLASSES.values()}) == len(CLASSES)
    for cls in CLASSES.values():
        assert cls.kind in ("connect", "timeout", "bad_reply")
        assert not (cls.down and cls.retry is Retry.READ)
        Failure(cls, "https://agent:1/x", "detail").message  # noqa: B018
    assert {c.name for c in CLASSES.values() if c.retry is Retry.UNSENT} == {
        "refused", "unreachable", "name_not_resolved", "dead_connection", "reset"}
    assert origin("https://user:pw@agent:8443/a2a") == "https://agent:8443"


async def test_a_grpc_agent_that_is_not_there(unused_tcp_port: int) -> None:
    """grpcio's words ("failed to connect to all addresses; last error: UNKNOWN: ipv4:…") become the class's."""
    channels = Channels(1 << 20)
    try:
        with pytest.raises(UpstreamUnavailable) as caught:
            await channels.unary(f"127.0.0.1:{unused_tcp_port}", "/t.S/Echo", b"x", [], timeout=5)
    finally:
        await channels.close()
    assert caught.value.message == (f"agent grpc://127.0.0.1:{unused_tcp_port} unreachable: the connection was "
                                    f"refused (nothing listens on 127.0.0.1:{unused_tcp_port})")
    failure = classify_grpc("failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.9:443: "
                            "Ssl handshake failed: SSL_ERROR_SSL: CERTIFICATE_VERIFY_FAILED", "grpcs://agent:443")
    _check(failure, "tls_verification", "grpcs://agent:443")
