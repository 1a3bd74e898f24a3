"""Push notifications across versions with real SDK peers: a v0.3 client registers a webhook through the
gateway on a real 1.x agent and receives v0.3 Task bodies with its token; the reverse direction; and a
second gateway process (same key) delivering what the first registered (wire-mapping §7)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.webhook import Notification, WebhookReceiver

pytestmark = pytest.mark.peers

agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")

TOKEN = "push-token-1"  # what both SDK clients register (client_v03.py, client_v10.py)
KEY = base64.b64encode(bytes(range(32))).decode()
PUSH_ENV = {"A2A_GATEWAY_PUSH_KEYS": KEY, "A2A_GATEWAY_PUSH_ALLOW_NETWORKS": "127.0.0.0/8,::1/128"}


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


def _crud(client: str, gateway: Gateway, webhook: WebhookReceiver) -> dict[str, Any]:
    """Run push_crud through `gateway`; the client reads back its own config, never the gateway's."""
    r: dict[str, Any] = run_client(client, gateway.base_url, "push_crud", transport="jsonrpc",  # type: ignore[arg-type]
                                   webhook=webhook.url)
    steps = r["steps"]
    assert r["ok"], (r, gateway.log()[-6000:])
    config = steps["set"]["result"]
    assert steps["get"]["result"] == config and steps["list"]["result"] == [config], r
    text = str(config)
    assert webhook.url in text and TOKEN in text and "/a2a-push/" not in text, config
    assert steps["continue"]["result"]["state"] == "completed", r
    return r


def _about(task_id: str) -> Any:
    def match(n: Notification) -> bool:
        return task_id in n.raw

    return match


def _v03_completed(task_id: str) -> Any:
    def match(n: Notification) -> bool:
        body = n.body
        return (isinstance(body, dict) and body.get("kind") == "task" and body.get("id") == task_id
                and body.get("status", {}).get("state") == "completed")

    return match


def _v10_completed(task_id: str) -> Any:
    def match(n: Notification) -> bool:
        body = n.body
        task = body.get("task") if isinstance(body, dict) else None
        return (isinstance(task, dict) and task.get("id") == task_id
                and task.get("status", {}).get("state") == "TASK_STATE_COMPLETED")

    return match


def _log_tail(*gateways: Gateway) -> str:
    return "\n".join(f"--- gateway {g.base_url} ---\n{g.log()[-4000:]}" for g in gateways)


def _delivered(client: str, gateway: Gateway, webhook: WebhookReceiver, completed: Any,
               *others: Gateway) -> list[Notification]:
    """push_crud as a `client` client through `gateway`, then wait for `completed(task_id)`; the
    notifications about that task (`others`: more gateways whose logs explain a timeout)."""
    task_id = _crud(client, gateway, webhook)["task_id"]
    assert webhook.wait_for(completed(task_id)), ([n.raw for n in webhook.received],
                                                  _log_tail(gateway, *others))
    return [n for n in webhook.received if _about(task_id)(n)]


def test_v03_client_gets_v03_tasks_from_v10_agent(agent_v10: Agent, webhook: WebhookReceiver) -> None:
    """Mode A: every POST the v0.3 webhook gets is a whole v0.3 Task with the client's token."""
    with run_gateway(agent_v10.base_url, env=PUSH_ENV) as gateway:
        mine = _delivered("v03", gateway, webhook, _v03_completed)
        assert mine and all(n.body.get("kind") == "task" for n in mine), [n.raw for n in mine]
        assert {n.headers.get("X-A2A-Notification-Token") for n in mine} == {TOKEN}
        assert all(n.headers.get("Content-Type", "").startswith("application/json") for n in mine)
        assert '"push_delivered"' in gateway.log()


def test_v10_client_gets_stream_responses_from_v03_agent(agent_v03: Agent, webhook: WebhookReceiver) -> None:
    """Mode B: the v0.3 agent's bare Task reaches the v1.0 webhook as a StreamResponse {"task": …}."""
    with run_gateway(agent_v03.base_url, env=PUSH_ENV) as gateway:
        mine = _delivered("v10", gateway, webhook, _v10_completed)
        stream_responses = [isinstance(n.body, dict) and len(n.body) == 1 and "kind" not in n.body
                            for n in mine]
        assert mine and all(stream_responses), [n.raw for n in mine]
        assert {n.headers.get("X-A2A-Notification-Token") for n in mine} == {TOKEN}


def test_second_gateway_delivers_what_the_first_registered(agent_v10: Agent,
                                                           webhook: WebhookReceiver) -> None:
    """Two replicas, one key: the first registers (pointing the agent at the second's webhook), the
    second opens the seal and delivers; nothing about the route is kept in either process."""
    with run_gateway(agent_v10.base_url, env=PUSH_ENV) as second:
        env = {**PUSH_ENV, "A2A_GATEWAY_PUSH_WEBHOOK_BASE_URL": second.base_url}
        with run_gateway(agent_v10.base_url, env=env) as first:
            _delivered("v03", first, webhook, _v03_completed, second)
            assert '"push_delivered"' in second.log()
            assert '"push_delivered"' not in first.log()
