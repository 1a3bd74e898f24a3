"""The demo agent `a2a-gateway demo` runs behind the gateway: a small, strict A2A v1.0 agent (JSON-RPC
binding, ProtoJSON of the v1.0 proto) that echoes messages, so the gateway can be tried alone. It is a
server of its own, beside the gateway's shell: the gateway never imports it."""

from __future__ import annotations

from gateway.demo.agent import AGENT_NAME, agent_card, demo_agent_app
from gateway.demo.run import run_demo

__all__ = ["AGENT_NAME", "agent_card", "demo_agent_app", "run_demo"]
