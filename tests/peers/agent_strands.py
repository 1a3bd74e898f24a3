"""Owns the real strands-agents test agent: a strands Agent whose Model is our own deterministic one (no provider,
no credentials) following peer_common's grammar, served by strands' A2AServer (a2a-sdk 0.3) with its
spec-conformant streaming (each text delta an artifact chunk) or, with --legacy-streaming, its default one."""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator
from typing import Any

import peer_common as common
from strands import Agent
from strands.models.model import Model
from strands.multiagent.a2a import A2AServer


def _last_user_text(messages: Any) -> str:
    user = [m for m in messages if m.get("role") == "user"]
    return "".join(block.get("text", "") for block in (user[-1]["content"] if user else []))


class ScriptedModel(Model):
    """A Model of strands' own interface streaming scripted replies: `stream N` as N text deltas, `fail` as an
    error, anything else the user's text back as one delta."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, output_model: Any, prompt: Any, system_prompt: str | None = None,
                          **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model has no structured output")

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None,
                     **kwargs: Any) -> AsyncGenerator[Any, None]:
        text = _last_user_text(messages)
        command, args = common.parse_command(text)
        if command == "fail":
            raise RuntimeError("scripted failure")
        deltas = ([f"chunk {i}" for i in range(common.int_arg(args, 0, common.STREAM_CHUNKS))]
                  if command == "stream" else [text])
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        for delta in deltas:
            yield {"contentBlockDelta": {"delta": {"text": delta}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def make_agent(context_id: str) -> Agent:
    return Agent(model=ScriptedModel(), name="strands_test_peer", description=common.AGENT_DESCRIPTION,
                 callback_handler=None)


def main() -> None:
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = common.agent_argparser("strands-agents test agent")
    parser.add_argument("--legacy-streaming", action="store_true",
                        help="A2AServer's default: each text delta a `working` status update, not an artifact chunk")
    args = parser.parse_args()
    sock = common.bind(args.host, args.port)
    server = A2AServer(agent_factory=make_agent, host=args.host, port=sock.getsockname()[1],
                       enable_a2a_compliant_streaming=not args.legacy_streaming)
    common.serve(server.to_starlette_app(), sock)


if __name__ == "__main__":
    main()
