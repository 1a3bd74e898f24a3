"""Owns the real google-adk test client: ADK's RemoteA2aAgent run by an ADK Runner (in-memory sessions), on
whichever a2a-sdk line its venv has (adk10, adk03); each scenario printed as one JSON line of what the ADK
events carried (texts, parts, partial, long-running calls, errors), without ids, so runs compare equal."""

from __future__ import annotations

import base64
import sys
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import peer_common as common
from a2a.client import ClientConfig, ClientFactory
from google.adk.agents.remote_a2a_agent import A2AClientError, AgentCardResolutionError, RemoteA2aAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

APP, USER = "adk_test_client", "user"
GENERATION = "adk"


def map_error(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, (A2AClientError, AgentCardResolutionError)):
        return {"type": type(exc).__name__, "code": None, "message": str(exc)}
    return None


def _part(part: types.Part) -> dict[str, Any]:
    """A GenAI part as plain JSON: what ADK made of the A2A part it received."""
    if part.function_call:
        return {"function_call": part.function_call.name, "args": part.function_call.args}
    if part.inline_data:
        blob = part.inline_data
        return {"inline_data": base64.b64encode(blob.data or b"").decode(), "mime_type": blob.mime_type,
                "display_name": blob.display_name}
    if part.file_data:
        return {"file_uri": part.file_data.file_uri, "mime_type": part.file_data.mime_type,
                "display_name": part.file_data.display_name}
    return {"text": part.text}


class Peer:
    """One RemoteA2aAgent behind a Runner, one session: every `say` is one turn of the same conversation."""

    def __init__(self, url: str, *, streaming: bool) -> None:
        self.http = httpx.AsyncClient(timeout=common.SCENARIO_TIMEOUT_S)
        factory = ClientFactory(ClientConfig(streaming=streaming, httpx_client=self.http))
        remote = RemoteA2aAgent(name="remote", agent_card=url.rstrip("/") + common.CARD_PATH,
                                httpx_client=self.http, a2a_client_factory=factory)
        self.sessions = InMemorySessionService()
        self.runner = Runner(app_name=APP, agent=remote, session_service=self.sessions)
        self.session_id = ""

    async def say(self, *parts: types.Part) -> list[dict[str, Any]]:
        """One turn: the ADK events the remote agent's answer became, each {author, partial, parts, ...}."""
        if not self.session_id:
            self.session_id = (await self.sessions.create_session(app_name=APP, user_id=USER)).id
        events = []
        async for event in self.runner.run_async(user_id=USER, session_id=self.session_id,
                                                 new_message=types.Content(role="user", parts=list(parts))):
            row: dict[str, Any] = {"partial": bool(event.partial),
                                   "parts": [_part(p) for p in (event.content.parts or [])] if event.content else []}
            if event.long_running_tool_ids:
                row["long_running"] = True
            if event.error_code or event.error_message:
                row["error"] = event.error_message
            events.append(row)
        return events

    async def close(self) -> None:
        await self.runner.close()
        await self.http.aclose()


def _texts(events: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for e in events for p in e["parts"] if "text" in p]


RICH = [
    types.Part(text=common.RICH_TEXT),
    types.Part(inline_data=types.Blob(data=common.RICH_BYTES, mime_type=common.RICH_BYTES_MIME,
                                      display_name=common.RICH_BYTES_NAME)),
    types.Part(file_data=types.FileData(file_uri=common.RICH_URI, mime_type=common.RICH_URI_MIME,
                                        display_name=common.RICH_URI_NAME)),
]


async def send_text(peer: Peer) -> dict[str, Any]:
    events = await peer.say(types.Part(text="echo hello world"))
    return {"events": events, "texts": _texts(events)}


async def send_rich(peer: Peer) -> dict[str, Any]:
    events = await peer.say(*RICH)
    final = [e for e in events if not e["partial"]]
    sent = [_part(p) for p in RICH]
    return {"events": events, "parts_match": bool(final) and final[-1]["parts"] == sent}


async def stream(peer: Peer) -> dict[str, Any]:
    events = await peer.say(types.Part(text=f"stream {common.STREAM_CHUNKS}"))
    return {"events": events, "texts": _texts(events)}


async def ask_continue(peer: Peer) -> dict[str, Any]:
    first = await peer.say(types.Part(text="ask"))
    final = await peer.say(types.Part(text="answer 42"))
    return {"first": first, "final": final, "asked": any(e.get("long_running") for e in first),
            "final_texts": _texts(final)}


async def fail(peer: Peer) -> dict[str, Any]:
    return {"events": await peer.say(types.Part(text="fail"))}


# `fail` is not among peer_common's scenario names: it runs within EACH only
SCENARIOS = {"send_text": send_text, "send_rich": send_rich, "stream": stream, "ask_continue": ask_continue,
             "fail": fail}


def main() -> int:
    warnings.filterwarnings("ignore", category=UserWarning)  # ADK's [EXPERIMENTAL] notice on every A2A class
    args = common.client_argparser("google-adk test client (RemoteA2aAgent)").parse_args()

    def run(name: str) -> Callable[[], Awaitable[dict[str, Any]]]:
        async def scenario() -> dict[str, Any]:
            peer = Peer(args.url, streaming=name == "stream")  # RemoteA2aAgent's default client does not stream
            try:
                return await SCENARIOS[name](peer)
            finally:
                await peer.close()
        return scenario

    scenario = common.chosen(args.scenario, {name: run(name) for name in SCENARIOS}, map_error)
    return common.run_scenario(args, GENERATION, scenario, map_error)


if __name__ == "__main__":
    sys.exit(main())
