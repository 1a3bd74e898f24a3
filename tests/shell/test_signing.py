"""gateway.shell.signing: the gateway's signer for every key type, its JWKS, and the verifier against PEM,
certificate, JWK and JWKS key files and a JWKS URL (a real aiohttp server on loopback)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from gateway.config import CardSettings, ConfigError
from gateway.shell.signing import CardSigner, CardVerifier

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
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agent")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
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
