"""TLS toward agents ([upstream.tls], gateway/config/tls.py, the link's TLS failures in
gateway/shell/agent/stream_link.py and the gRPC channels' in gateway/shell/agent/channels.py): a private CA
made here, an
agent behind it that demands a client certificate, reached over HTTP (through the gateway) and gRPC (its
channels) with [upstream.tls] set, and by the gateway as users start it (check-config accepting the file);
without it a clear certificate error at once, never retried; the files read again on reload (a rotated
client certificate); check-config refusing files that do not load."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from gateway.config import ConfigError, load
from gateway.core.errors import UpstreamUnavailable
from gateway.shell.agent.channels import Channels
from gateway.shell.agent.stream_link import TlsHandshakeFailed, TlsVerificationFailed
from gateway.shell.agent.upstream import Upstream
from gateway.shell.process.app import build_app
from tests.fakes.agents import FakeAgent
from tests.peers.gateway import ROOT, run_gateway

NAME = "agent.internal"   # the only name in the agent's certificate: reached at 127.0.0.1 with server_name
SEND = {"jsonrpc": "2.0", "id": "t", "method": "SendMessage",
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
TASK = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}
V10 = {"A2A-Version": "1.0"}


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _cert(subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey]
          | None, *, ca: bool = False, server: bool = False) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(subject))
               .issuer_name(issuer[0].subject if issuer else _name(subject))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                      content_commitment=False, key_encipherment=False,
                                                      data_encipherment=False, key_agreement=False,
                                                      encipher_only=False, decipher_only=False), critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    else:
        assert issuer is not None
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
            issuer[1].public_key()), critical=False)
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@dataclass(frozen=True)
class Pki:
    """A private CA's files: its certificate, the agent's certificate and key, the gateway's client certificate
    and key, and a client certificate of another CA (one the agent does not trust)."""

    ca: Path
    server: Path
    server_key: Path
    client: Path
    client_key: Path
    rogue: Path
    rogue_key: Path

    def tls(self, **keys: object) -> dict[str, object]:
        """[upstream.tls] overrides for gateway_factory: every key of a complete mutual-TLS setting, as given."""
        return {f"upstream__tls__{k}": v for k, v in keys.items()}

    def full(self) -> dict[str, object]:
        return self.tls(ca_file=str(self.ca), cert_file=str(self.client), key_file=str(self.client_key),
                        server_name=NAME)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    root = tmp_path_factory.mktemp("pki")
    ca_key, other_key = _key(), _key()
    ca = _cert("test private CA", ca_key, None, ca=True)
    other = _cert("another CA", other_key, None, ca=True)
    server_key, client_key, rogue_key = _key(), _key(), _key()
    files = {"ca": _pem(ca), "server": _pem(_cert(NAME, server_key, (ca, ca_key), server=True)),
             "server_key": _key_pem(server_key), "client": _pem(_cert("gateway", client_key, (ca, ca_key))),
             "client_key": _key_pem(client_key), "rogue": _pem(_cert("gateway", rogue_key, (other, other_key))),
             "rogue_key": _key_pem(rogue_key)}
    for name, data in files.items():
        (root / f"{name}.pem").write_bytes(data)
    return Pki(**{name: root / f"{name}.pem" for name in files})


def _server_context(pki: Pki) -> ssl.SSLContext:
    """The agent's side: its certificate, and a client certificate of the private CA required."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.ca))
    context.load_cert_chain(str(pki.server), str(pki.server_key))
    context.verify_mode = ssl.CERT_REQUIRED
    return context


@pytest.fixture
async def tls_agent(pki: Pki) -> AsyncIterator[FakeAgent]:
    """A v1.0 JSON-RPC agent on https://127.0.0.1:<port> behind the private CA, demanding a client certificate."""
    fake = FakeAgent("1.0").reply_json("SendMessage", TASK)
    runner = web.AppRunner(fake.app())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=_server_context(pki))
    await site.start()
    port = runner.addresses[0][1]
    fake.url = f"https://127.0.0.1:{port}"
    yield fake
    await runner.cleanup()


async def _send(gw: Any) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    async with gw.post("/", json=SEND, headers=V10) as resp:
        assert resp.status == 200
        body: dict[str, Any] = await resp.json()
    return body, time.monotonic() - started


async def test_an_agent_behind_a_private_ca_demanding_a_client_certificate_is_reached(
        pki: Pki, tls_agent: FakeAgent, gateway_factory: Callable[..., Awaitable[Any]]) -> None:
    gw = await gateway_factory(tls_agent.url, **pki.full())
    body, _ = await _send(gw)
    assert body["result"] == TASK, body
    assert [r.rpc_method for r in tls_agent.requests if r.method == "POST"] == ["SendMessage"]


async def test_a_route_reaches_its_agent_with_its_own_tls(pki: Pki, tls_agent: FakeAgent, tmp_path: Path,
                                                          aiohttp_client: Any) -> None:
    """[routes.upstream.tls]: a route's own settings; the top level's agent needs none."""
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[upstream]\nurl = "http://127.0.0.1:9"\n[log]\nformat = "console"\n'
        f'[[routes]]\nname = "secure"\npath_prefix = "/secure"\n[routes.upstream]\nurl = "{tls_agent.url}"\n'
        f'[routes.upstream.tls]\nca_file = "{pki.ca}"\ncert_file = "{pki.client}"\nkey_file = "{pki.client_key}"\n'
        f'server_name = "{NAME}"\n')
    settings = load(config, {})
    assert not settings.upstream.tls.configured and settings.routes[0].upstream.tls.server_name == NAME
    gw = await aiohttp_client(build_app(settings))
    async with gw.post("/secure/", json=SEND, headers=V10) as resp:
        body = await resp.json()
    assert body["result"] == TASK, body


@pytest.mark.parametrize(("keys", "error"), [
    ({}, "presented a certificate the gateway does not trust: self-signed certificate in certificate chain"),
    ({"ca_file": "ca"}, "presented a certificate the gateway does not trust: IP address mismatch"),
    ({"ca_file": "ca", "server_name": NAME}, "asked for a client certificate and closed the connection: it wants "
                                             "one it trusts (upstream.tls.cert_file and key_file)"),
    ({"ca_file": "ca", "server_name": NAME, "cert_file": "rogue", "key_file": "rogue_key"},
     "asked for a client certificate and closed the connection: it does not accept the gateway's"),
], ids=["no ca", "no server name", "no client certificate", "a client certificate of another CA"])
async def test_without_the_settings_a_tls_error_names_the_agent_and_the_setting_at_once(
        pki: Pki, tls_agent: FakeAgent, gateway_factory: Callable[..., Awaitable[Any]], keys: dict[str, str],
        error: str) -> None:
    settings = {k: (v if k == "server_name" else str(getattr(pki, v))) for k, v in keys.items()}
    gw = await gateway_factory(tls_agent.url, **pki.tls(**settings))
    body, took = await _send(gw)
    message = body["error"]["message"]
    assert error in message and tls_agent.url in message, message
    assert "upstream.tls." in message, message
    assert took < 2.0   # never retried as a connect failure (the retries' budget is ~10 s)
    assert tls_agent.requests == []


async def test_insecure_skips_verification_and_warns(pki: Pki, tls_agent: FakeAgent,
                                                     gateway_factory: Callable[..., Awaitable[Any]],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    gw = await gateway_factory(tls_agent.url, **pki.tls(insecure=True, cert_file=str(pki.client),
                                                         key_file=str(pki.client_key)))
    body, _ = await _send(gw)
    assert body["result"] == TASK, body
    assert "upstream_tls_insecure" in capsys.readouterr().out


async def test_certificates_are_read_again_on_reload(pki: Pki, tls_agent: FakeAgent, tmp_path: Path) -> None:
    """cert-manager rotates the client certificate in place: the next connection after SIGHUP's reconfigure
    presents the new one."""
    cert, key = tmp_path / "client.pem", tmp_path / "client-key.pem"
    cert.write_bytes(pki.rogue.read_bytes())
    key.write_bytes(pki.rogue_key.read_bytes())
    settings = load(None, {}, {"upstream.url": tls_agent.url, "upstream.version": "1.0",
                               **{k.replace("__", "."): v for k, v in pki.tls(
                                   ca_file=str(pki.ca), server_name=NAME, cert_file=str(cert),
                                   key_file=str(key)).items()}})
    upstream = Upstream(settings.upstream, settings.limits)
    await upstream.start()
    url = tls_agent.url + "/.well-known/agent-card.json"
    try:
        with pytest.raises(TlsHandshakeFailed):
            await upstream.request("GET", url, headers={})
        cert.write_bytes(pki.client.read_bytes())
        key.write_bytes(pki.client_key.read_bytes())
        assert upstream.reconfigure(settings.upstream, settings.limits) == []
        reply = await upstream.request("GET", url, headers={})
        assert reply.status == 200
        assert upstream.tls is not None   # the handshakes' watch is off once none is under way (a cost per record)
        assert getattr(upstream.tls.context, "_msg_callback") is None  # noqa: B009
    finally:
        await upstream.close()


# ---- gRPC ------------------------------------------------------------------------------------------------

async def _echo(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    return b"echo:" + request


@pytest.fixture
async def grpc_agent(pki: Pki) -> AsyncIterator[str]:
    """A gRPC server behind the private CA requiring a client certificate; its one method echoes bytes."""
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("test.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(
        _echo)})
    server.add_generic_rpc_handlers((handler,))
    credentials = grpc.ssl_server_credentials([(pki.server_key.read_bytes(), pki.server.read_bytes())],
                                              root_certificates=pki.ca.read_bytes(), require_client_auth=True)
    port = server.add_secure_port("127.0.0.1:0", credentials)
    await server.start()
    yield f"grpcs://127.0.0.1:{port}"
    await server.stop(None)


def _agent_tls(pki: Pki, **keys: object) -> Any:
    settings = load(None, {}, {"upstream.url": "http://127.0.0.1:9", **{
        k.replace("__", "."): v for k, v in pki.tls(**keys).items()}})
    return Upstream(settings.upstream, settings.limits).tls


async def test_a_grpcs_agent_demanding_a_client_certificate_is_reached(pki: Pki, grpc_agent: str) -> None:
    channels = Channels(1 << 20, _agent_tls(pki, ca_file=str(pki.ca), cert_file=str(pki.client),
                                            key_file=str(pki.client_key), server_name=NAME))
    try:
        reply = await channels.unary(grpc_agent, "/test.Echo/Echo", b"hi", [], timeout=10)
        assert reply.status is None and reply.message == b"echo:hi"
    finally:
        await channels.close()


async def test_a_grpcs_agent_of_an_unknown_ca_is_a_tls_error_at_once(grpc_agent: str) -> None:
    channels = Channels(1 << 20)
    started = time.monotonic()
    try:
        with pytest.raises(TlsVerificationFailed) as caught:
            await channels.unary(grpc_agent, "/test.Echo/Echo", b"hi", [], timeout=10)
    finally:
        await channels.close()
    assert time.monotonic() - started < 5.0
    assert grpc_agent in str(caught.value) and "upstream.tls.ca_file" in str(caught.value)


# ---- check-config ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("keys", "key", "reason"), [
    ({"ca_file": "/nonexistent/ca.pem"}, "upstream.tls.ca_file", "cannot read /nonexistent/ca.pem"),
    ({"ca_file": "client_key"}, "upstream.tls.ca_file", "holds no PEM certificate"),
    ({"key_file": "client_key"}, "upstream.tls.key_file", "needs cert_file"),
    ({"cert_file": "client", "key_file": "rogue_key"}, "upstream.tls.key_file", "do not load together"),
    ({"cert_file": "client"}, "upstream.tls.cert_file", "do not load together"),
], ids=["missing", "not a certificate", "key alone", "another key", "no key"])
def test_check_config_refuses_tls_files_that_do_not_load(pki: Pki, keys: dict[str, str], key: str,
                                                         reason: str) -> None:
    values = {f"upstream.tls.{k}": (v if v.startswith("/") else str(getattr(pki, v))) for k, v in keys.items()}
    with pytest.raises(ConfigError) as caught:
        load(None, {}, {"upstream.url": "https://agent.example", **values})
    assert caught.value.key == key and reason in str(caught.value), str(caught.value)


def test_a_routes_tls_files_are_checked_too(pki: Pki, tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text('[[routes]]\nname = "a"\npath_prefix = "/a"\n[routes.upstream]\nurl = "https://a.example"\n'
                      '[routes.upstream.tls]\nca_file = "/nonexistent/ca.pem"\n')
    with pytest.raises(ConfigError) as caught:
        load(config, {})
    assert caught.value.key == "routes[0].upstream.tls.ca_file"


def test_complete_tls_settings_load(pki: Pki) -> None:
    settings = load(None, {}, {"upstream.url": "https://agent.example", **{
        k.replace("__", "."): v for k, v in pki.full().items()}})
    assert settings.upstream.tls.configured and settings.upstream.tls.server_name == NAME


async def test_unset_tls_keeps_the_system_defaults() -> None:
    settings = load(None, {}, {"upstream.url": "https://agent.example"})
    assert not settings.upstream.tls.configured
    assert Upstream(settings.upstream, settings.limits).tls is None
    await asyncio.sleep(0)


async def test_an_https_url_to_a_plain_http_port_is_a_handshake_error_at_once() -> None:
    async def plain(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(plain, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = load(None, {}, {"upstream.url": f"https://127.0.0.1:{port}", "upstream.version": "1.0"})
    upstream = Upstream(settings.upstream, settings.limits)
    await upstream.start()
    try:
        with pytest.raises(TlsHandshakeFailed, match="is the agent serving plain HTTP"):
            await upstream.request("GET", settings.upstream.url + "/", headers={})
    finally:
        await upstream.close()
        server.close()


async def test_a_grpcs_agent_refusing_the_lack_of_a_client_certificate_names_the_setting(pki: Pki,
                                                                                         grpc_agent: str) -> None:
    """grpcio says no more than "Socket closed" then (its TLS 1.3 handshake ended before the refusal)."""
    channels = Channels(1 << 20, _agent_tls(pki, ca_file=str(pki.ca), server_name=NAME))
    try:
        with pytest.raises(UpstreamUnavailable) as caught:
            await channels.unary(grpc_agent, "/test.Echo/Echo", b"hi", [], timeout=10)
    finally:
        await channels.close()
    assert "upstream.tls.cert_file" in str(caught.value), str(caught.value)


async def test_a_reload_gives_grpcs_channels_the_certificates_read_again(pki: Pki, grpc_agent: str) -> None:
    channels = Channels(1 << 20)
    plain = channels.channel("127.0.0.1:9")
    try:
        with pytest.raises(TlsVerificationFailed):
            await channels.unary(grpc_agent, "/test.Echo/Echo", b"hi", [], timeout=10)
        channels.use_tls(_agent_tls(pki, ca_file=str(pki.ca), cert_file=str(pki.client),
                                    key_file=str(pki.client_key), server_name=NAME))
        reply = await channels.unary(grpc_agent, "/test.Echo/Echo", b"hi", [], timeout=10)
        assert reply.message == b"echo:hi"
        assert channels.channel("127.0.0.1:9") is plain   # a plaintext channel is kept
    finally:
        await channels.close()


# ---- the gateway as users start it (its own process, its default event loop) -----------------------------

class ThreadedAgent:
    """`tls_agent` in a thread of its own (its own event loop), for a gateway in another process to reach."""

    def __init__(self, pki: Pki) -> None:
        self.pki = pki
        self.fake = FakeAgent("1.0").reply_json("SendMessage", TASK)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        runner = web.AppRunner(self.fake.app())
        self.loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=_server_context(self.pki))
        self.loop.run_until_complete(site.start())
        self.fake.url = f"https://127.0.0.1:{runner.addresses[0][1]}"
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(runner.cleanup())
        self.loop.close()

    def __enter__(self) -> FakeAgent:
        self.thread.start()
        assert self.ready.wait(10)
        return self.fake

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _post(url: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    request = urllib.request.Request(url, data=json.dumps(SEND).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **V10})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return json.loads(resp.read()), time.monotonic() - started


@pytest.mark.parametrize("mutual", [True, False], ids=["with upstream.tls", "without a client certificate"])
def test_the_gateway_as_users_start_it_reaches_the_agent_with_upstream_tls(pki: Pki, tmp_path: Path,
                                                                            mutual: bool) -> None:
    keys = {"ca_file": str(pki.ca), "server_name": NAME}
    if mutual:
        keys |= {"cert_file": str(pki.client), "key_file": str(pki.client_key)}
    with ThreadedAgent(pki) as agent:
        config = tmp_path / "gateway.toml"
        config.write_text(f'[upstream]\nurl = "{agent.url}"\n[upstream.tls]\n'
                          + "".join(f'{k} = "{v}"\n' for k, v in keys.items()))
        checked = subprocess.run([sys.executable, "-m", "gateway", "check-config", str(config)],
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 cwd=ROOT)
        assert checked.returncode == 0, checked.stderr
        env = {f"A2A_GATEWAY_UPSTREAM_TLS_{k.upper()}": v for k, v in keys.items()}
        # without the certificate the agent is known down at once (a TLS failure is no passing fault): 503
        with run_gateway(agent.url, env=env, card_status=200 if mutual else 503) as gateway:
            body, took = _post(gateway.base_url + "/")
    if mutual:
        assert body["result"] == TASK, body
    else:
        message = body["error"]["message"]
        assert "asked for a client certificate and closed the connection" in message, message
        assert took < 2.0
