"""gateway.shell.edge.signing: the gateway's signer for every key type, its JWKS, and the verifier against PEM,
certificate, JWK and JWKS key files and a JWKS URL (a real aiohttp server on loopback); the extended card
signed as the public card is, through a gateway in front of a scripted agent; the agent's own signatures never
served; only a verified card signed, and with card.require_verified an unverified one not served at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from google.protobuf import json_format

from gateway.config import CardSettings, ConfigError
from gateway.core.bindings.grpc import message_class
from gateway.core.errors import UpstreamUnavailable
from gateway.core.types import Version
from gateway.shell.edge.signing import CardSigner, CardVerifier, Verdict, vouch
from tests.shell.conftest import GatewayFactory, self_signed

CARD: dict[str, Any] = {"name": "agent", "version": "1.0", "skills": [{"id": "s", "name": "S", "tags": ["t"]}]}
KEYS = {"ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
        "ES384": lambda: ec.generate_private_key(ec.SECP384R1()),
        "RS256": lambda: rsa.generate_private_key(65537, 2048),
        "EdDSA": ed25519.Ed25519PrivateKey.generate}


def _pem(key: Any) -> bytes:
    return bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo))


def _settings(**kw: Any) -> CardSettings:
    base: dict[str, Any] = {"signing_key_file": "", "signing_kid": "", "verify_key_files": (),
                            "verify_jwks_url": "", "require_verified": False}
    return CardSettings(**{**base, **kw})


@pytest.mark.parametrize("alg", sorted(KEYS))
async def test_each_key_type_signs_and_verifies(alg: str, tmp_path: Path) -> None:
    key = KEYS[alg]()
    signer = CardSigner(key, "k1")
    assert signer.alg == alg and signer.jwks["keys"][0]["kid"] == "k1"
    signed = signer.sign(CARD, jku="https://gw/.well-known/jwks.json")
    (tmp_path / "pub.pem").write_bytes(_pem(key))
    verifier = CardVerifier.from_settings(_settings(verify_key_files=(str(tmp_path / "pub.pem"),)))
    assert verifier is not None
    verdict = await verifier.check(signed)
    assert verdict.ok and verdict.kid == "k1", verdict
    tampered = {**signed, "name": "another"}
    assert (await verifier.check(tampered)).result == "invalid"
    assert (await verifier.check(CARD)).result == "unsigned"


async def test_key_files_jwk_jwks_and_certificate(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    signer = CardSigner(key)   # kid: the RFC 7638 thumbprint
    assert len(signer.kid) == 43
    signed = signer.sign(CARD)
    (tmp_path / "set.json").write_text(json.dumps(signer.jwks))
    (tmp_path / "one.json").write_text(json.dumps(signer.jwks["keys"][0]))
    cert = self_signed(key, "agent")
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    for name_ in ("set.json", "one.json", "cert.pem"):
        verifier = CardVerifier.from_settings(_settings(verify_key_files=(str(tmp_path / name_),)))
        assert verifier is not None and (await verifier.check(signed)).ok, name_
    other = CardSigner(ec.generate_private_key(ec.SECP256R1()), signer.kid).sign(CARD)
    verifier = CardVerifier.from_settings(_settings(verify_key_files=(str(tmp_path / "set.json"),)))
    assert verifier is not None
    verdict = await verifier.check(other)
    assert verdict.result == "invalid" and "does not verify" in verdict.detail


async def test_jwks_url(tmp_path: Path) -> None:
    signer = CardSigner(ed25519.Ed25519PrivateKey.generate(), "url-key")
    hits: list[int] = []

    async def jwks(request: web.Request) -> web.Response:
        hits.append(1)
        return web.json_response(signer.jwks)
    app = web.Application()
    app.router.add_get("/jwks", jwks)
    async with TestServer(app) as server:
        verifier = CardVerifier([], str(server.make_url("/jwks")))
        try:
            assert (await verifier.check(signer.sign(CARD))).ok
            assert (await verifier.check(signer.sign(CARD))).ok
            assert len(hits) == 1   # kept, not fetched per check
            unknown = CardSigner(ed25519.Ed25519PrivateKey.generate(), "nobody").sign(CARD)
            assert "no key with kid 'nobody'" in (await verifier.check(unknown)).detail
        finally:
            await verifier.close()


def test_bad_files_are_config_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.pem").write_text("not a key")
    with pytest.raises(ConfigError, match=r"card\.signing_key_file"):
        CardSigner.from_settings(_settings(signing_key_file=str(tmp_path / "bad.pem")))
    with pytest.raises(ConfigError, match=r"card\.verify_key_files"):
        CardVerifier.from_settings(_settings(verify_key_files=(str(tmp_path / "missing.pem"),)))
    assert CardSigner.from_settings(_settings()) is None and CardVerifier.from_settings(_settings()) is None
    dsa_like = ec.generate_private_key(ec.SECP256K1())
    with pytest.raises(ValueError, match="secp256k1"):
        CardSigner(dsa_like)


async def test_the_v03_card_carries_a_signature_of_its_v10_reading() -> None:
    signer = CardSigner(ec.generate_private_key(ec.SECP256R1()), "k")
    signed = signer.sign({**CARD, "protocolVersion": "0.3.0"}, read_as=CARD)
    assert len(signed["signatures"]) == 2


# the extended card as each door asks for it: (method, path, JSON-RPC body, A2A-Version, where the card is)
EXTENDED = {
    "jsonrpc-v1.0": ("POST", "/", {"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": {}},
                     "1.0", "result"),
    "jsonrpc-v0.3": ("POST", "/", {"jsonrpc": "2.0", "id": 1, "method": "agent/getAuthenticatedExtendedCard"},
                     "0.3", "result"),
    "rest-v1.0": ("GET", "/extendedAgentCard", None, "1.0", ""),
}


@pytest.mark.parametrize("door", sorted(EXTENDED))
async def test_the_extended_card_is_signed_as_the_public_card(door: str, tmp_path: Path, fake_agent_factory: Any,
                                                             gateway_factory: GatewayFactory) -> None:
    """The extended card is the gateway's as the public card is: its interfaces point at the gateway (also
    for a caller of the agent's own version and binding, whose calls otherwise pass through) and it carries
    the gateway's signature, which holds against the JWKS the gateway publishes."""
    fake = await fake_agent_factory("1.0")
    extended = {**fake.card, "name": "extended", "signatures": [{"protected": "eyJ9", "signature": "AA"}]}
    fake.reply_json("GetExtendedAgentCard", extended)
    fake.reply_json("GET /extendedAgentCard", extended)
    gw = await gateway_factory(fake.url, card__signing_key_file=_gateway_key(tmp_path), card__signing_kid="gw-1")
    method, path, payload, version, member = EXTENDED[door]
    async with gw.request(method, path, json=payload, headers={"A2A-Version": version}) as resp:
        assert resp.status == 200, await resp.text()
        body = await resp.json()
    card = body[member] if member else body
    assert card["name"] == "extended"
    urls = [i["url"] for i in card.get("supportedInterfaces", [])] + ([card["url"]] if "url" in card else [])
    assert urls and all(u.startswith(str(gw.make_url("/")).rstrip("/")) for u in urls), urls
    assert all(not u.startswith(fake.url) for u in urls)
    await _holds(card, gw, tmp_path)   # the agent's own signature is gone, the gateway's holds


def _gateway_key(folder: Path) -> str:
    """A fresh P-256 key for the gateway, as a PEM file's path."""
    key = ec.generate_private_key(ec.SECP256R1())
    (folder / "gw.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    return str(folder / "gw.pem")


async def _holds(card: dict[str, Any], gw: TestClient[Any, Any], folder: Path) -> None:
    """The card's signature holds against the JWKS the gateway publishes (kid gw-1), and not for another card."""
    (folder / "jwks.json").write_bytes(await (await gw.get("/.well-known/jwks.json")).read())
    verifier = CardVerifier.from_settings(_settings(verify_key_files=(str(folder / "jwks.json"),)))
    assert verifier is not None
    verdict = await verifier.check(card)
    assert verdict.ok and verdict.kid == "gw-1", verdict
    assert (await verifier.check({**card, "name": "forged"})).result == "invalid"


@pytest.mark.parametrize("version", [Version.V10, Version.V03])
async def test_the_extended_card_over_grpc_is_signed(version: Version, tmp_path: Path, fake_agent_factory: Any,
                                                      grpc_gateway: Any) -> None:
    """Over the gRPC door too: the AgentCard message, read as ProtoJSON, holds the gateway's signature."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetExtendedAgentCard", {**fake.card, "name": "extended"})
    gw, _, channel = await grpc_gateway(fake, card__signing_key_file=_gateway_key(tmp_path), card__signing_kid="gw-1")
    name = "GetExtendedAgentCard" if version is Version.V10 else "GetAgentCard"
    service = "lf.a2a.v1.A2AService" if version is Version.V10 else "a2a.v1.A2AService"
    request = message_class(version, "GetExtendedAgentCardRequest" if version is Version.V10 else "GetAgentCardRequest")
    reply = await channel.unary_unary(f"/{service}/{name}")(request().SerializeToString())
    card = json_format.MessageToDict(message_class(version, "AgentCard").FromString(reply))
    assert card["name"] == "extended" and len(card["signatures"]) == (3 if version is Version.V03 else 1)
    await _holds(card, gw, tmp_path)


def _agent_signs(fake: Any, folder: Path, *, tamper: bool) -> str:
    """The fake agent's card signed with a key of its own (kid agent-1), edited after signing when `tamper`;
    the path of the agent's public key."""
    key = ec.generate_private_key(ec.SECP256R1())
    (folder / "agent.pub.pem").write_bytes(_pem(key))
    signed = CardSigner(key, "agent-1").sign(fake.card)
    fake.card_override = {**signed, "name": "edited after signing"} if tamper else signed
    return str(folder / "agent.pub.pem")


async def _card(gw: TestClient[Any, Any], version: str) -> tuple[int, str]:
    async with gw.get("/.well-known/agent-card.json", headers={"A2A-Version": version}) as resp:
        return resp.status, await resp.text()


@pytest.mark.parametrize("agent", ["1.0", "0.3"])
async def test_without_a_key_no_card_keeps_the_agents_signature(agent: str, tmp_path: Path,
                                                                 fake_agent_factory: Any,
                                                                 gateway_factory: GatewayFactory) -> None:
    """The gateway rewrote the card: the agent's signature no longer holds, so neither card keeps it."""
    fake = await fake_agent_factory(agent)
    _agent_signs(fake, tmp_path, tamper=False)
    assert fake.card["signatures"]
    fake.reply_json("GetExtendedAgentCard", fake.card)
    gw = await gateway_factory(fake.url)
    for version in ("1.0", "0.3"):
        status, text = await _card(gw, version)
        assert status == 200 and "signatures" not in json.loads(text), text
    if agent == "1.0":
        async with gw.post("/", json=EXTENDED["jsonrpc-v1.0"][2], headers={"A2A-Version": "1.0"}) as resp:
            extended = (await resp.json())["result"]
        assert extended["name"] == fake.card["name"] and "signatures" not in extended


@pytest.mark.parametrize("tamper", [False, True])
async def test_the_gateway_signs_only_a_verified_card(tamper: bool, tmp_path: Path, fake_agent_factory: Any,
                                                      gateway_factory: GatewayFactory) -> None:
    """With verify keys and require_verified off, a card whose signature does not verify is served unsigned (the
    gateway does not vouch for it); one that verifies is served with the gateway's signatures."""
    fake = await fake_agent_factory("1.0")
    public = _agent_signs(fake, tmp_path, tamper=tamper)
    fake.reply_json("GetExtendedAgentCard", fake.card)
    gw = await gateway_factory(fake.url, card__signing_key_file=_gateway_key(tmp_path), card__signing_kid="gw-1",
                               card__verify_key_files=[public])
    for version, count in (("1.0", 1), ("0.3", 3)):
        status, text = await _card(gw, version)
        assert status == 200, text
        assert len(json.loads(text).get("signatures", [])) == (0 if tamper else count), text
    async with gw.post("/", json=EXTENDED["jsonrpc-v1.0"][2], headers={"A2A-Version": "1.0"}) as resp:
        extended = (await resp.json())["result"]
    assert len(extended.get("signatures", [])) == (0 if tamper else 1)


async def test_require_verified_serves_no_unverified_card(tmp_path: Path, fake_agent_factory: Any,
                                                          gateway_factory: GatewayFactory, grpc_gateway: Any) -> None:
    """With require_verified, a card whose signature does not verify is not served at all: the card door and
    every extended-card call answer an error in the caller's own shape that says why."""
    fake = await fake_agent_factory("1.0")
    public = _agent_signs(fake, tmp_path, tamper=True)
    fake.reply_json("GetExtendedAgentCard", fake.card)
    fake.reply_json("GET /extendedAgentCard", fake.card)
    settings = {"card__signing_key_file": _gateway_key(tmp_path), "card__verify_key_files": [public],
                "card__require_verified": True}
    gw = await gateway_factory(fake.url, **settings)
    for version in ("1.0", "0.3"):
        status, text = await _card(gw, version)
        assert status == 502 and "signature is not verified" in text and "agent-1" in text, text
    for door in sorted(EXTENDED):
        method, path, payload, version, member = EXTENDED[door]
        async with gw.request(method, path, json=payload, headers={"A2A-Version": version}) as resp:
            body = await resp.json()
        if member:   # JSON-RPC: HTTP 200, the error in its envelope
            assert resp.status == 200 and body["error"]["code"] == -32603, body
            assert "signature is not verified" in body["error"]["message"], body
        else:
            assert resp.status == 502 and "signature is not verified" in json.dumps(body), body
    assert not [r for r in fake.requests if b"ExtendedAgentCard" in r.raw or "extended" in r.path.lower()]
    _, _, channel = await grpc_gateway(fake, **settings)
    request = message_class(Version.V10, "GetExtendedAgentCardRequest")
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await channel.unary_unary("/lf.a2a.v1.A2AService/GetExtendedAgentCard")(request().SerializeToString())
    assert "signature is not verified" in (failed.value.details() or ""), failed.value


def test_vouch() -> None:
    """The signer is used for a card not checked at all or verified; none for one not verified, and with
    require_verified such a card, or one not fetched yet, is an error that says why."""
    signer = CardSigner(ec.generate_private_key(ec.SECP256R1()), "k")
    valid, invalid = Verdict("valid", "ok", "agent-1"), Verdict("invalid", "the signature by kid 'a' does not verify")
    assert vouch(signer, None, checked=False, required=True) is signer
    assert vouch(signer, valid, checked=True, required=True) is signer
    assert vouch(signer, invalid, checked=True, required=False) is None
    assert vouch(signer, Verdict("unsigned", "no signature"), checked=True, required=False) is None
    for verdict, why in ((invalid, "kid 'a' does not verify"), (None, "not fetched yet")):
        with pytest.raises(UpstreamUnavailable, match=why):
            vouch(None, verdict, checked=True, required=True)
