"""Caller authentication and limits with real a2a-sdk clients of both generations through a gateway in front
of a real a2a-sdk 1.x agent: an API key admits the caller (its subject is the caller the limits count), no
key is refused 401, and the subject's burst spent is refused 429, each as the SDK reads the error."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client

pytestmark = pytest.mark.peers

agent_v10 = agent_fixture("v10", compat=True)   # it speaks both versions: each client passes through
KEY = {"X-API-Key": "k-alice"}


@pytest.fixture(scope="module")
def gateway(agent_v10: Agent) -> Iterator[Gateway]:
    env = {"A2A_GATEWAY_AUTH_API_KEYS": "alice:k-alice",   # the feature under test, off by default
           "A2A_GATEWAY_CALLERS_REQUESTS_PER_SECOND": "0.01", "A2A_GATEWAY_CALLERS_BURST": "2"}
    with run_gateway(agent_v10.base_url, env=env) as gateway:
        yield gateway


def test_sdk_clients_allowed_refused_and_limited(gateway: Gateway) -> None:
    refused = run_client("v10", gateway.base_url, "send_text")   # the card is public: the send is refused
    assert refused["ok"] is False and ("401" in json.dumps(refused) or "-32098" in json.dumps(refused)), refused
    assert run_client("v10", gateway.base_url, "send_text", headers=KEY)["ok"] is True
    assert run_client("v03", gateway.base_url, "send_text", headers=KEY)["ok"] is True
    limited = run_client("v03", gateway.base_url, "send_text", headers=KEY)   # alice's burst of two is spent
    assert limited["ok"] is False and ("429" in json.dumps(limited) or "-32096" in json.dumps(limited)), limited
    log = gateway.log()
    assert '"subject":"alice"' in log.replace(" ", "")
