"""Owns the real strands-agents test client: strands' A2AAgent (a2a-sdk 0.3, always streaming), each scenario
printed as one JSON line of what it made of the answer (the result's text and stop reason, the A2A events'
kinds, states and texts), without ids or timestamps, so that a run through the gateway compares equal."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import peer_common as common
from a2a.client import A2AClientError
from a2a.types import Message, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from strands.agent.a2a_agent import A2AAgent

GENERATION = "strands"


def map_error(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, A2AClientError):
        return {"type": type(exc).__name__, "code": None, "message": str(exc)}
    return None


def _texts(parts: Any) -> list[str]:
    return [part.root.text for part in parts or [] if getattr(part.root, "kind", "") == "text"]


def _event(item: Any) -> dict[str, Any]:
    """One A2A event strands' A2AAgent yielded: a Message, or a (Task, update) pair."""
    if isinstance(item, Message):
        return {"kind": "message", "texts": _texts(item.parts)}
    task, update = item
    if isinstance(update, TaskArtifactUpdateEvent):
        return {"kind": "artifact-update", "texts": _texts(update.artifact.parts), "append": bool(update.append),
                "last_chunk": bool(update.last_chunk)}
    if isinstance(update, TaskStatusUpdateEvent):
        message = update.status.message
        return {"kind": "status-update", "state": update.status.state.value,
                "texts": _texts(message.parts) if message else []}
    return {"kind": "task", "state": task.status.state.value}


async def send_text(agent: A2AAgent) -> dict[str, Any]:
    """invoke_async: what a strands user calls; its AgentResult."""
    result = await agent.invoke_async("echo hello world")
    return {"text": str(result).strip(), "stop_reason": result.stop_reason}


async def stream(agent: A2AAgent) -> dict[str, Any]:
    """stream_async: the A2A events as strands hands them on, then its result."""
    events, text = [], None
    async for event in agent.stream_async(f"stream {common.STREAM_CHUNKS}"):
        if event.get("type") == "a2a_stream":
            events.append(_event(event["event"]))
        elif "result" in event:
            text = str(event["result"]).strip()
    return {"events": events, "text": text}


async def get_extended_card(agent: A2AAgent) -> dict[str, Any]:
    card = await agent.get_agent_card()
    return {"name": card.name, "protocol_version": card.protocol_version,
            "transport": card.preferred_transport, "streaming": bool(card.capabilities.streaming)}


async def fail(agent: A2AAgent) -> dict[str, Any]:
    result = await agent.invoke_async("fail")
    return {"text": str(result).strip(), "stop_reason": result.stop_reason}


# `fail` is not among peer_common's scenario names: it runs within EACH only
SCENARIOS = {"send_text": send_text, "stream": stream, "get_extended_card": get_extended_card, "fail": fail}


def main() -> int:
    warnings.filterwarnings("ignore", category=UserWarning)
    args = common.client_argparser("strands-agents test client (A2AAgent)").parse_args()

    def run(name: str) -> Callable[[], Awaitable[dict[str, Any]]]:
        async def scenario() -> dict[str, Any]:
            return await SCENARIOS[name](A2AAgent(args.url.rstrip("/"), timeout=int(common.SCENARIO_TIMEOUT_S)))
        return scenario

    scenario = common.chosen(args.scenario, {name: run(name) for name in SCENARIOS}, map_error)
    return common.run_scenario(args, GENERATION, scenario, map_error)


if __name__ == "__main__":
    sys.exit(main())
