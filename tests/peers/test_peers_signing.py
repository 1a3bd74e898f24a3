"""Card signatures end to end with real a2a-sdk peers: an agent card signed by the 1.x SDK's signer is
verified by the gateway (and a tampered one reported in readiness and the log, not vouched for, and with
require_verified not served); the cards the gateway serves, re-signed with its own key, are accepted by
both SDK lines' verifiers (1.x: both cards, 0.3.26: the v0.3 card) against the gateway's JWKS; without a key
no served card keeps the agent's signature; the gateway's reading of a card as a2a-sdk 0.3 canonicalises
it is that SDK's own."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gateway.core.signing import sdk03_payload
from tests.peers.gateway import free_port, run_gateway
from tests.peers.harness import PEERS_DIR, start_agent
from tests.peers.venvs import Generation, ensure_venv

pytestmark = pytest.mark.peers


def _keys(folder: Path, name: str) -> tuple[Path, Path]:
    """A fresh P-256 key pair as PEM files: (private, public)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private, public = folder / f"{name}.pem", folder / f"{name}.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def _readyz(port: int) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _card(url: str, version: str) -> tuple[int, str]:
    """The card door's status and body for a caller saying `version` in A2A-Version."""
    request = urllib.request.Request(url + "/.well-known/agent-card.json", headers={"A2A-Version": version})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def _sdk_verifies(url: str, version: str = "1.0", sdk: Generation = "v10") -> dict[str, Any]:
    """The verdict of `sdk`'s own card resolver and verifier on the card `url` serves to a caller saying
    `version` in A2A-Version ('' for none)."""
    proc = subprocess.run([str(ensure_venv(sdk)), str(PEERS_DIR / "verify_card.py"), "--url", url,
                           "--version", version], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _edge_env(tmp_path: Path, trusted: Path, *, require: bool = False) -> tuple[dict[str, str], int]:
    gateway_key, _ = _keys(tmp_path, "gateway")
    admin = free_port()
    return {"A2A_GATEWAY_CARD_VERIFY_KEY_FILES": str(trusted),
            "A2A_GATEWAY_CARD_SIGNING_KEY_FILE": str(gateway_key),
            "A2A_GATEWAY_CARD_SIGNING_KID": "gateway-1",
            "A2A_GATEWAY_CARD_REQUIRE_VERIFIED": "true" if require else "false",
            "A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{admin}"}, admin


def test_signed_upstream_card_verified_and_resigned(tmp_path: Path) -> None:
    agent_key, agent_pub = _keys(tmp_path, "agent")
    agent = start_agent("v10", extra=("--sign-key", str(agent_key), "--sign-kid", "agent-1"))
    try:
        direct = _sdk_verifies(agent.base_url)   # the SDK's own signature, checked by nothing of ours
        assert direct["ok"] is False and "jku" in direct["error"]   # the agent publishes no JWKS
        env, admin = _edge_env(tmp_path, agent_pub, require=True)
        with run_gateway(agent.base_url, env=env) as gateway:
            status, body = _readyz(admin)
            assert status == 200 and body["reason"] == "ready", body
            assert '"result":"valid"' in gateway.log().replace(" ", "")
            for version in ("1.0", ""):   # the v1.0 card, and the card a client saying nothing gets
                verdict = _sdk_verifies(gateway.base_url, version)
                assert verdict["ok"] is True and verdict["signatures"] == (1 if version else 3), verdict
            # a2a-sdk 0.3.26 canonicalises its own way: the v0.3 card's third signature is over that form
            verdict = _sdk_verifies(gateway.base_url, "", sdk="v03")
            assert verdict["ok"] is True and verdict["signatures"] == 3, verdict
            with urllib.request.urlopen(gateway.base_url + "/.well-known/jwks.json", timeout=5) as r:
                jwks = json.loads(r.read())
            assert [k["kid"] for k in jwks["keys"]] == ["gateway-1"] and "d" not in jwks["keys"][0]
    finally:
        agent.stop()


def test_tampered_upstream_signature_reported(tmp_path: Path) -> None:
    agent_key, agent_pub = _keys(tmp_path, "agent")
    agent = start_agent("v10", extra=("--sign-key", str(agent_key), "--sign-kid", "agent-1",
                                      "--tamper-signature"))
    try:
        env, admin = _edge_env(tmp_path, agent_pub)
        with run_gateway(agent.base_url, env=env) as gateway:
            status, body = _readyz(admin)   # reported, still ready: require_verified is off
            assert status == 200 and "not verified" in body["reason"] and "agent-1" in body["reason"], body
            lines = [json.loads(line) for line in gateway.log().splitlines() if "upstream_card_signature" in line]
            assert lines and lines[0]["result"] == "invalid", gateway.log()
            for version in ("1.0", ""):   # served, but the gateway does not vouch for a card it found altered
                assert _card(gateway.base_url, version)[0] == 200
                verdict = _sdk_verifies(gateway.base_url, version)
                assert verdict["ok"] is False and "NoSignatureError" in verdict["error"], verdict
        env, admin = _edge_env(tmp_path, agent_pub, require=True)
        with run_gateway(agent.base_url, env=env, card_status=502) as gateway:
            deadline = time.monotonic() + 10
            while (found := _readyz(admin))[0] != 503 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert found[0] == 503 and "not verified" in found[1]["reason"], found
            for version in ("1.0", "0.3"):   # not served at all, and the caller is told why
                status, body = _card(gateway.base_url, version)
                assert status == 502 and "signature is not verified" in body and "agent-1" in body, body
            for sdk in ("v10", "v03"):
                verdict = _sdk_verifies(gateway.base_url, "", sdk=sdk)
                assert verdict["ok"] is False and "502" in verdict["error"], verdict
    finally:
        agent.stop()


def test_without_a_key_no_served_card_keeps_the_agents_signature(tmp_path: Path) -> None:
    """The agent signs its card with the SDK's signer; the gateway, with no key of its own, rewrites it: neither
    the v1.0 nor the v0.3 card keeps a signature that no longer holds (the SDKs find none to check)."""
    agent_key, _ = _keys(tmp_path, "agent")
    agent = start_agent("v10", extra=("--sign-key", str(agent_key), "--sign-kid", "agent-1"))
    try:
        assert "signatures" in json.loads(_card(agent.base_url, "1.0")[1])
        with run_gateway(agent.base_url) as gateway:
            for version in ("1.0", "0.3"):
                status, body = _card(gateway.base_url, version)
                assert status == 200 and "signatures" not in json.loads(body), body
            for version, sdk in (("1.0", "v10"), ("", "v10"), ("", "v03")):
                verdict = _sdk_verifies(gateway.base_url, version, sdk=sdk)
                assert verdict["ok"] is False and "NoSignatureError" in verdict["error"], verdict
    finally:
        agent.stop()


# a v0.3 card reaching every model a2a-sdk 0.3 reads a card into, with what it leaves out of its canonical form
RICH_V03_CARD: dict[str, Any] = {
    "protocolVersion": "0.3.0", "name": "Agént 🚀", "description": "d", "url": "http://g/",
    "preferredTransport": "JSONRPC", "version": "1", "documentationUrl": "", "iconUrl": "http://i",
    "additionalInterfaces": [{"url": "http://g/", "transport": "JSONRPC"},
                             {"url": "http://g", "transport": "HTTP+JSON", "unknown": 1}],
    "provider": {"organization": "o", "url": "http://o"}, "supportsAuthenticatedExtendedCard": True,
    "capabilities": {"streaming": True, "pushNotifications": False, "stateTransitionHistory": None,
                     "extensions": [{"uri": "u", "required": False,
                                     "params": {"f": 1.0, "n": [], "z": {"a": "ü"}, "big": 12345678901234567890}}]},
    "securitySchemes": {
        "k": {"type": "apiKey", "in": "header", "name": "X"},
        "h": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
        "o": {"type": "oauth2", "oauth2MetadataUrl": "http://m", "flows": {
            "clientCredentials": {"tokenUrl": "http://t", "scopes": {}},
            "authorizationCode": {"authorizationUrl": "a", "tokenUrl": "t", "scopes": {"r": "read"}},
            "implicit": {"authorizationUrl": "a", "scopes": {"r": "read"}, "refreshUrl": "r"},
            "password": {"tokenUrl": "t", "scopes": {}}}},
        "oi": {"type": "openIdConnect", "openIdConnectUrl": "http://oi"},
        "m": {"type": "mutualTLS", "description": "mm"}},
    "security": [{"k": []}, {"o": ["r"]}],
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "S", "description": "sd", "tags": ["t"], "examples": [], "inputModes": ["a"],
                "outputModes": ["b"], "security": [{"h": []}], "unknown": "x"}],
    "supportedInterfaces": [{"url": "http://g/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "signatures": [{"protected": "x", "signature": "y"}]}


def test_the_sdk03_reading_is_that_sdks_own(tmp_path: Path) -> None:
    """gateway.core.signing.sdk03_payload against a2a-sdk 0.3.26's own canonicalize_agent_card, byte for byte."""
    (tmp_path / "card.json").write_text(json.dumps(RICH_V03_CARD), encoding="utf-8")
    proc = subprocess.run([str(ensure_venv("v03")), str(PEERS_DIR / "verify_card.py"), "--canonical",
                           str(tmp_path / "card.json")], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert sdk03_payload(RICH_V03_CARD).decode() == proc.stdout.strip()
