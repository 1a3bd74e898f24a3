"""Caller authentication and limits with real a2a-sdk clients of both generations through a gateway in front
of a real a2a-sdk 1.x agent, over JSON-RPC and over gRPC: an API key admits the caller (its subject is the
caller the limits count), no key is refused 401 (UNAUTHENTICATED), and the subject's burst spent is refused
429 (RESOURCE_EXHAUSTED), each as the SDK reads the error."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest

from gateway.core.types import Version
from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.shell.conftest import send_request

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


@pytest.fixture(scope="module")
def grpc_gateway(agent_v10: Agent) -> Iterator[Gateway]:
    env = {"A2A_GATEWAY_AUTH_API_KEYS": "alice:k-alice", "A2A_GATEWAY_CALLERS_REQUESTS_PER_SECOND": "0.01",
           "A2A_GATEWAY_CALLERS_BURST": "2"}
    with run_gateway(agent_v10.base_url, "--grpc-listen", f"127.0.0.1:{free_port()}", env=env) as gateway:
        yield gateway


def test_sdk_grpc_clients_allowed_refused_and_limited(grpc_gateway: Gateway) -> None:
    """The same over the gRPC door, the key sent as metadata: UNAUTHENTICATED without it, admitted with it,
    RESOURCE_EXHAUSTED once the subject's burst is spent, as each SDK's gRPC transport reads the status."""
    refused = run_client("v10", grpc_gateway.base_url, "send_text", transport="grpc")
    assert refused["ok"] is False and "UNAUTHENTICATED" in json.dumps(refused), refused
    for client in ("v10", "v03"):
        admitted = run_client(client, grpc_gateway.base_url, "send_text", transport="grpc", headers=KEY)
        assert admitted["ok"] is True and admitted["transport"] == "grpc", admitted
    limited = run_client("v03", grpc_gateway.base_url, "send_text", transport="grpc", headers=KEY)
    assert limited["ok"] is False and "RESOURCE_EXHAUSTED" in json.dumps(limited), limited
    lines = [json.loads(line) for line in grpc_gateway.log().splitlines() if line.startswith("{")]
    grpc_lines = [line for line in lines if line.get("binding") == "GRPC"]
    assert [line.get("grpc_status") for line in grpc_lines][-4:] == \
        ["UNAUTHENTICATED", "OK", "OK", "RESOURCE_EXHAUSTED"], grpc_lines[-4:]
    assert {line.get("subject") for line in grpc_lines if line.get("grpc_status") == "OK"} == {"alice"}


agent_v10_grpc = agent_fixture("v10", grpc=True)


def test_stream_budget_on_a_grpc_pass_through(agent_v10_grpc: Agent) -> None:
    """A v1.0 gRPC caller's stream passed through to the real agent's gRPC interface: one stream slot per
    caller (RESOURCE_EXHAUSTED for a second one), and past max_stream_bytes the stream ends, status OK,
    long before the agent's 40 chunks (the agent's call cancelled, as a drain does)."""
    env = {"A2A_GATEWAY_UPSTREAM_BINDING": "GRPC", "A2A_GATEWAY_CALLERS_MAX_STREAMS": "1",
           "A2A_GATEWAY_CALLERS_MAX_STREAM_BYTES": "400", "A2A_GATEWAY_CALLERS_IDENTITY_HEADER": "x-caller"}
    port = free_port()
    with run_gateway(agent_v10_grpc.base_url, "--grpc-listen", f"127.0.0.1:{port}", env=env) as gateway, \
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stream = channel.unary_stream("/lf.a2a.v1.A2AService/SendStreamingMessage")
        me = (("x-caller", "me"),)
        first = stream(send_request(Version.V10, "stream 40"), metadata=me, timeout=30)
        got = [next(first)]
        with pytest.raises(grpc.RpcError) as caught:
            next(stream(send_request(Version.V10, "stream 2"), metadata=me, timeout=30))
        assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, caught.value
        got += list(first)
        assert first.code() is grpc.StatusCode.OK
        size = sum(len(message) for message in got)
        assert 400 <= size < 800 and len(got) < 40, (size, len(got))
        lines = [json.loads(line) for line in gateway.log().splitlines() if line.startswith("{")]
        assert any(line.get("passthrough") is True and line.get("binding") == "GRPC" for line in lines), lines[-3:]
