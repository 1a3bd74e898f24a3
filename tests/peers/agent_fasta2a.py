"""Owns the real fasta2a test agent (pydantic's fasta2a, its own A2A implementation, no a2a-sdk): FastA2A on
its defaults (JSON-RPC at /, a v1.0 card, in-memory storage and broker) with a deterministic worker of its own
kind following the scripted grammar of peer_common (echo, stream N, ask/answer X, fail); no LLM."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack
from typing import Any

import peer_common as common
from fasta2a import FastA2A, Worker
from fasta2a.broker import InMemoryBroker
from fasta2a.schema import Artifact, Message, Part, TaskIdParams, TaskSendParams
from fasta2a.storage import InMemoryStorage


def _first_text(message: Message) -> str:
    return next((part["text"] for part in message.get("parts", []) if "text" in part), "")


class ScriptedWorker(Worker[Any]):
    """Picks a behaviour from the first text part of the task's message (peer_common's grammar)."""

    def _say(self, parts: list[Part]) -> Message:
        return Message(role="agent", parts=parts, message_id=str(uuid.uuid4()))

    async def _finish(self, params: TaskSendParams, state: Any, parts: list[Part], artifact: bool) -> None:
        """Store the final state with the reply as its status message (and an artifact of the same parts)."""
        reply = self._say(parts)
        artifacts = [Artifact(artifact_id=str(uuid.uuid4()), parts=parts)] if artifact else None
        for made in artifacts or ():  # on the stream too, for a message/stream caller
            await self.publish_artifact(params["id"], params["context_id"], made)
        task = await self.storage.update_task(params["id"], state=state, new_artifacts=artifacts,
                                              new_messages=[reply])
        task["status"]["message"] = reply  # the storage keeps no status message of its own

    async def run_task(self, params: TaskSendParams) -> None:
        message = params["message"]
        command, args = common.parse_command(_first_text(message))
        task_id, context_id = params["id"], params["context_id"]
        await self.storage.update_task(task_id, state="working")
        await self.publish_status(task_id, context_id, "working")
        if command == "stream":
            count = common.int_arg(args, 0, common.STREAM_CHUNKS)
            for i in range(count):
                await self.publish_artifact(task_id, context_id, Artifact(
                    artifact_id="stream-artifact", parts=[Part(text=f"chunk {i}")]),
                    append=i > 0, last_chunk=i == count - 1)
            await self.storage.update_task(task_id, state="completed")
        elif command == "ask":
            await self._finish(params, "input-required", [Part(text="What is the answer?")], artifact=False)
        elif command == "answer":
            await self._finish(params, "completed", [Part(text="got " + " ".join(args))], artifact=False)
        elif command == "fail":
            raise RuntimeError("scripted failure")
        else:  # echo (and anything else): every part back, in the status message and an artifact
            await self._finish(params, "completed", [dict(part) for part in message["parts"]], artifact=True)

    async def cancel_task(self, params: TaskIdParams) -> None:
        await self.storage.update_task(params["id"], state="canceled")

    def build_message_history(self, history: list[Message]) -> list[Any]:
        return list(history)

    def build_artifacts(self, result: Any) -> list[Artifact]:
        return []


def main() -> None:
    args = common.agent_argparser("fasta2a test agent").parse_args()
    sock = common.bind(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    storage: InMemoryStorage[Any] = InMemoryStorage()
    broker = InMemoryBroker()
    worker = ScriptedWorker(broker=broker, storage=storage)
    app = FastA2A(storage=storage, broker=broker, name=common.AGENT_NAME, url=base + "/",
                  description=common.AGENT_DESCRIPTION, version=common.AGENT_VERSION,
                  skills=[{**skill, "input_modes": ["text/plain"], "output_modes": ["text/plain"]}  # type: ignore[misc]
                          for skill in common.SKILLS],
                  default_input_modes=["text/plain", "application/json", "application/octet-stream", "image/png"],
                  default_output_modes=["text/plain", "application/json", "application/octet-stream", "image/png"])

    async def start() -> Any:
        stack = AsyncExitStack()  # what FastA2A's lifespan and a worker's owner enter (uvicorn runs no lifespan)
        await stack.enter_async_context(app.task_manager)
        await stack.enter_async_context(worker.run())
        common.on_stop(stack.aclose)
        return app

    common.serve_started(start, sock)


if __name__ == "__main__":
    main()
