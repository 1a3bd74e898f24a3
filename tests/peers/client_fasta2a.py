"""Owns the real fasta2a test client (fasta2a's own A2AClient: v0.3 method names, v1.0-shaped messages in
v0.3's enum spellings): the scenarios it can run, each printed as one JSON line without ids or timestamps, so
that a run through the gateway compares equal to a direct one."""

from __future__ import annotations

import base64
import sys
import uuid
from typing import Any

import peer_common as common
import pydantic
from fasta2a.client import A2AClient, UnexpectedResponseError
from fasta2a.schema import Message, Part

GENERATION = "fasta2a"


class ScenarioError(Exception):
    """An A2A error the agent answered (a JSON-RPC error object)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error


def map_error(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, ScenarioError):
        return {"type": "JSONRPCError", "code": exc.error.get("code"), "message": exc.error.get("message")}
    if isinstance(exc, pydantic.ValidationError):  # an answer fasta2a's client cannot read
        return {"type": "ValidationError", "code": None, "message": str(exc).splitlines()[0]}
    if isinstance(exc, UnexpectedResponseError):
        return {"type": "UnexpectedResponseError", "code": None, "message": exc.content,
                "http_status": exc.status_code}
    return None


def _message(*parts: Part, context_id: str | None = None, task_id: str | None = None) -> Message:
    message = Message(role="user", parts=list(parts), message_id=str(uuid.uuid4()))
    if context_id:
        message["context_id"] = context_id
    if task_id:
        message["task_id"] = task_id
    return message


def _result(response: Any) -> Any:
    if "error" in response:
        raise ScenarioError(dict(response["error"]))
    return response["result"]


def _text(message: Any) -> str | None:
    parts = (message or {}).get("parts") or []
    return next((p["text"] for p in parts if "text" in p), None)


def _summary(task: Any) -> dict[str, Any]:
    status = task["status"]
    return {"state": status["state"], "status_text": _text(status.get("message")),
            "artifacts": [list(a["parts"]) for a in task.get("artifacts", [])],
            "timestamp_utc": str(status.get("timestamp", "")).endswith(("Z", "+00:00"))}


class Peer:
    def __init__(self, client: A2AClient) -> None:
        self.client = client

    async def send(self, message: Message) -> Any:
        """message/send, then tasks/get until the task is no longer under way (fasta2a answers at once)."""
        task = _result(await self.client.send_message(message))["task"]
        return await common.settled(task, lambda t: t["status"]["state"],
                                    lambda t: self.get(t["id"]))

    async def get(self, task_id: str) -> Any:
        return _result(await self.client.get_task(task_id))

    async def stream(self, message: Message) -> list[dict[str, Any]]:
        events = []
        async for response in self.client.stream_message(message):
            item = _result(response)
            (kind, payload), = ((k, v) for k, v in item.items())
            event: dict[str, Any] = {"kind": kind}
            if kind in ("task", "status_update"):
                event["state"] = payload["status"]["state"]
            if kind == "artifact_update":
                event.update(parts=list(payload["artifact"]["parts"]), append=bool(payload.get("append")),
                             last_chunk=bool(payload.get("last_chunk")))
            events.append(event)
        return events


RICH: list[Part] = [
    Part(text=common.RICH_TEXT),
    Part(data=common.RICH_DATA),
    Part(raw=base64.b64encode(common.RICH_BYTES).decode(), filename=common.RICH_BYTES_NAME,
         media_type=common.RICH_BYTES_MIME),
    Part(url=common.RICH_URI, filename=common.RICH_URI_NAME, media_type=common.RICH_URI_MIME),
]


async def send_text(peer: Peer) -> dict[str, Any]:
    return {"summary": _summary(await peer.send(_message(Part(text="echo hello world"))))}


async def send_rich(peer: Peer) -> dict[str, Any]:
    events = await peer.stream(_message(*RICH))
    parts = [part for e in events if e["kind"] == "artifact_update" for part in e["parts"]]
    return {"states": [e["state"] for e in events if "state" in e], "parts": parts,
            "parts_match": parts == [dict(p) for p in RICH]}


async def stream(peer: Peer) -> dict[str, Any]:
    return {"events": await peer.stream(_message(Part(text=f"stream {common.STREAM_CHUNKS}")))}


async def ask_continue(peer: Peer) -> dict[str, Any]:
    first = await peer.send(_message(Part(text="ask")))
    final = await peer.send(_message(Part(text="answer 42"), context_id=first["context_id"], task_id=first["id"]))
    return {"first": _summary(first), "final": _summary(final),
            "same_context": final["context_id"] == first["context_id"]}


async def get_task_not_found(peer: Peer) -> dict[str, Any]:
    return {"task": await peer.get(common.MISSING_TASK_ID)}


SCENARIOS = {"send_text": send_text, "send_rich": send_rich, "stream": stream, "ask_continue": ask_continue,
             "get_task_not_found": get_task_not_found}


def main() -> int:
    args = common.client_argparser("fasta2a test client").parse_args()

    async def scenario() -> dict[str, Any]:
        client = A2AClient(args.url.rstrip("/") + "/")
        try:
            return await SCENARIOS[args.scenario](Peer(client))
        finally:
            await client.http_client.aclose()

    return common.run_scenario(args, GENERATION, scenario, map_error)


if __name__ == "__main__":
    sys.exit(main())
