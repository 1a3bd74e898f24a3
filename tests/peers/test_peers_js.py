"""Real @a2a-js/sdk 0.3 clients through the gateway: its HTTP+JSON transport puts base64(content) in
`fileWithBytes` (what the proto says), a2a-sdk 0.3 (Python) base64(base64(content)); one gateway on its
defaults, in front of one v1.0 agent, gives both clients their own file bytes back."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.node import ensure_installed, run_script
from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.test_peers_direct import CHECKS

pytestmark = pytest.mark.peers

JS_DIR = Path(__file__).resolve().parents[1] / "js_peers"
JS_SDK = JS_DIR / "sdk-0.3.14"
WHAT = "the real @a2a-js/sdk 0.3 client"
CONTENT = b"%PDF-1.7 \x00\xff\xfe binary \x89PNG\r\n\x1a\n" * 3  # not text, so no decoding can pass for it

agent_v10 = agent_fixture("v10")


@pytest.fixture(scope="module")
def gateway(agent_v10: Agent) -> Iterator[Gateway]:
    with run_gateway(agent_v10.base_url) as gw:
        yield gw


def run_js(gw: Gateway) -> dict[str, Any]:
    scenario = {"cardUrl": f"{gw.base_url}/.well-known/agent-card.json", "bytes": base64.b64encode(CONTENT).decode(),
                "mimeType": "application/pdf", "name": "doc.pdf"}
    return run_script(JS_DIR / "driver.mjs", ensure_installed(JS_SDK, "js-peers", WHAT), scenario, WHAT)


def assert_own_bytes(result: dict[str, Any], call: str, gw: Gateway) -> None:
    outcome = result[call]
    assert "error" not in outcome, f"{call}: {outcome}\n--- gateway log ---\n{gw.log()[-4000:]}"
    assert outcome["files"], outcome
    for file in outcome["files"]:
        assert base64.b64decode(file["bytes"], validate=True) == CONTENT, (call, file)
        # the v0.3 proto's FilePart has no name, so over HTTP+JSON the client keeps only the media type
        assert file["mimeType"] == "application/pdf", file


def test_js_and_python_rest_clients_share_one_gateway(gateway: Gateway) -> None:
    # interleaved, so what the gateway learns from one client cannot decide for the other
    for _ in range(2):
        js = run_js(gateway)
        assert js["sdkVersion"] == "0.3.14" and js["restUrl"].startswith(gateway.base_url), js
        assert_own_bytes(js, "send", gateway)
        assert_own_bytes(js, "stream", gateway)
        assert "artifact-update" in js["stream"]["kinds"] or "task" in js["stream"]["kinds"], js
        python = run_client("v03", gateway.base_url, "send_rich", transport="rest")
        CHECKS["send_rich"](python, "v03", "rest")
