"""Card signatures end to end with real a2a-sdk 1.x peers: an agent card signed by the SDK's signer is
verified by the gateway (and a tampered one reported in readiness and the log); the card the gateway
serves, re-signed with its own key, is accepted by the SDK's verifier against the gateway's JWKS."""

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

from tests.peers.gateway import free_port, run_gateway
from tests.peers.harness import PEERS_DIR, start_agent
from tests.peers.venvs import ensure_venv

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


def _sdk_verifies(url: str, version: str = "1.0") -> dict[str, Any]:
    proc = subprocess.run([str(ensure_venv("v10")), str(PEERS_DIR / "verify_card_v10.py"), "--url", url,
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
                assert verdict == {"ok": True, "name": verdict["name"], "signatures": 1 if version else 2}, verdict
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
            assert _sdk_verifies(gateway.base_url)["ok"] is True   # the gateway's own signature still holds
        env, admin = _edge_env(tmp_path, agent_pub, require=True)
        with run_gateway(agent.base_url, env=env):
            deadline = time.monotonic() + 10
            while (found := _readyz(admin))[0] != 503 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert found[0] == 503 and "not verified" in found[1]["reason"], found
    finally:
        agent.stop()
