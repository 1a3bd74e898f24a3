"""Owns the real google-adk test agent: a BaseAgent of our own (no model, no credentials) following peer_common's
grammar in ADK events, served by ADK's own `to_a2a` on whichever a2a-sdk line its venv has (adk10, adk03)."""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack
from typing import Any

import peer_common as common
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.genai import types

QUESTION = "What is the answer?"
ASK_CALL_ID = "ask-user-1"


def _first_text(content: types.Content | None) -> str:
    return next((part.text for part in (content.parts or []) if part.text), "") if content else ""


class ScriptedAgent(BaseAgent):
    """Picks a behaviour from the first text part of the user's message (peer_common's grammar): each reply
    is an ADK event, which ADK's A2A executor turns into a `working` status update with its parts."""

    def _event(self, ctx: InvocationContext, *parts: types.Part, **fields: Any) -> Event:
        return Event(author=self.name, invocation_id=ctx.invocation_id, branch=ctx.branch,
                     content=types.Content(role="model", parts=list(parts)), **fields)

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        command, args = common.parse_command(_first_text(ctx.user_content))
        if command == "stream":  # partial events, each a status update; ADK sends the last one as the artifact
            for i in range(common.int_arg(args, 0, common.STREAM_CHUNKS)):
                yield self._event(ctx, types.Part(text=f"chunk {i}"), partial=True)
        elif command == "ask":  # a long-running tool call: ADK's A2A executor answers input-required
            call = types.FunctionCall(id=ASK_CALL_ID, name="ask_user", args={"question": QUESTION})
            yield self._event(ctx, types.Part(text=QUESTION), types.Part(function_call=call),
                              long_running_tool_ids={ASK_CALL_ID})
        elif command == "answer":
            yield self._event(ctx, types.Part(text="got " + " ".join(args)))
        elif command == "fail":  # an error event: ADK's A2A executor answers failed with its message
            yield Event(author=self.name, invocation_id=ctx.invocation_id, error_code="SCRIPTED",
                        error_message="scripted failure")
        else:  # echo (and anything else): every part back
            user = ctx.user_content
            yield self._event(ctx, *[part.model_copy() for part in (user.parts or [])] if user else [])


def main() -> None:
    warnings.filterwarnings("ignore", category=UserWarning)  # ADK's [EXPERIMENTAL] notice on every A2A class
    args = common.agent_argparser("google-adk test agent").parse_args()
    sock = common.bind(args.host, args.port)
    port = sock.getsockname()[1]
    agent = ScriptedAgent(name="adk_test_peer", description=common.AGENT_DESCRIPTION)
    app = to_a2a(agent, host=args.host, port=port)

    async def start() -> Any:
        stack = AsyncExitStack()  # to_a2a builds its card and routes in the app's lifespan (uvicorn runs none)
        await stack.enter_async_context(app.router.lifespan_context(app))
        common.on_stop(stack.aclose)
        return app

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
