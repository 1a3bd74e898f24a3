"""Owns the demo agent's behaviour on plain ProtoJSON dicts: a bounded in-memory task store, the echo/ask
script as v1.0 StreamResponse events, cancel, subscribe fan-out, history trimming and ListTasks paging."""

from __future__ import annotations

import asyncio
import copy
import itertools
import math
import re
from collections import OrderedDict
from datetime import UTC, datetime

from gateway.core.types import JsonObj
from gateway.demo.proto import RpcError, invalid_params, parse_timestamp, task_not_found, unsupported

__all__ = ["INTERRUPTED", "MAX_TASKS", "TERMINAL", "DemoTasks", "check_history_length", "snapshot"]

MAX_TASKS = 1000
MAX_CHUNKS = 64  # a long text is streamed in at most this many artifact chunks
TERMINAL = frozenset({"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED",
                      "TASK_STATE_REJECTED"})
INTERRUPTED = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})
_WORD = re.compile(r"\s*\S+\s*")


def _now() -> str:
    """UTC with millisecond precision, printed as protobuf prints a Timestamp (no fraction when zero)."""
    now = datetime.now(UTC)
    millis = now.microsecond // 1000
    return now.strftime("%Y-%m-%dT%H:%M:%S") + (f".{millis:03d}Z" if millis else "Z")


def _text_of(message: JsonObj) -> str:
    return " ".join(part["text"] for part in message["parts"] if "text" in part)


def _chunks(parts: list[JsonObj]) -> list[JsonObj]:
    """One part per chunk; a text part is split word by word (at most MAX_CHUNKS pieces, which join back
    to the original text); other parts are kept whole."""
    out: list[JsonObj] = []
    for part in parts:
        words = _WORD.findall(part["text"]) if part.get("text") else []
        if not words:
            out.append(part)
            continue
        size = math.ceil(len(words) / MAX_CHUNKS)
        out.extend({**part, "text": "".join(words[i:i + size])} for i in range(0, len(words), size))
    return out


def _archive_status_message(task: JsonObj) -> None:
    """A status message moves into the history once the status changes (as a2a-python does)."""
    message = task["status"].pop("message", None)
    if message is not None:
        task["history"].append(message)


def check_history_length(history_length: int | None) -> None:
    if history_length is not None and history_length < 0:
        raise invalid_params("history length must be non-negative")


def snapshot(task: JsonObj, history_length: int | None = None, artifacts: bool = True) -> JsonObj:
    """A copy of `task` as ProtoJSON emits it (empty lists omitted). historyLength: None = all, 0 = none."""
    check_history_length(history_length)
    history = task["history"] if history_length is None else task["history"][-history_length:]
    if history_length == 0:
        history = []
    out: JsonObj = {"id": task["id"], "contextId": task["contextId"], "status": task["status"]}
    if artifacts and task.get("artifacts"):
        out["artifacts"] = task["artifacts"]
    if history:
        out["history"] = history
    return copy.deepcopy(out)


class DemoTasks:
    """The demo agent's tasks, at most `max_tasks` of them (the least recently updated is dropped)."""

    def __init__(self, max_tasks: int = MAX_TASKS) -> None:
        self.max_tasks = max_tasks
        self._tasks: OrderedDict[str, JsonObj] = OrderedDict()
        self._ids: dict[str, itertools.count[int]] = {}
        self._busy: set[str] = set()  # tasks a stream is still working on
        self._watchers: dict[str, list[asyncio.Queue[JsonObj | None]]] = {}

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids.setdefault(prefix, itertools.count(1)))}"

    def get(self, task_id: str) -> JsonObj:
        task = self._tasks.get(task_id)
        if task is None:
            raise task_not_found(task_id)
        return task

    def _store(self, task: JsonObj) -> None:
        self._tasks[task["id"]] = task
        self._tasks.move_to_end(task["id"])
        while len(self._tasks) > self.max_tasks:
            self._tasks.popitem(last=False)

    # --- a turn: begin, then apply its events one by one --------------------------------------------

    def begin(self, message: JsonObj, *, chunked: bool) -> tuple[JsonObj, list[JsonObj]]:
        """Take a user message: store the task as it stands now (a new SUBMITTED task, or the resumed
        input-required one with the message in its history) and return it with the StreamResponse events
        that finish this turn. `chunked` streams the echo artifact word by word."""
        task = self._resume(message) if message.get("taskId") else self._new(message)
        self._store(task)
        text = _text_of(message)
        events = [self._status(task, "TASK_STATE_WORKING")]
        if text.lstrip().lower().startswith("ask"):
            reply = f'You said "{text}". Send another message with taskId {task["id"]} to finish.'
            events.append(self._status(task, "TASK_STATE_INPUT_REQUIRED", reply))
            return task, events
        pieces = _chunks(message["parts"]) if chunked else [message["parts"]]
        for i, piece in enumerate(pieces):
            update: JsonObj = {"taskId": task["id"], "contextId": task["contextId"],
                               "artifact": {"artifactId": "echo", "name": "echo",
                                            "parts": [piece] if chunked else piece}}
            if i:
                update["append"] = True
            if i == len(pieces) - 1:
                update["lastChunk"] = True
            events.append({"artifactUpdate": update})
        events.append(self._status(task, "TASK_STATE_COMPLETED", f"echo: {text}"))
        return task, events

    def _new(self, message: JsonObj) -> JsonObj:
        """A SUBMITTED task for a message without a taskId (in the message's context, or a new one)."""
        task_id = self.new_id("task")
        context_id = message.get("contextId") or self.new_id("ctx")
        user = {**message, "taskId": task_id, "contextId": context_id}
        return {"id": task_id, "contextId": context_id,
                "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": _now()}, "history": [user]}

    def _resume(self, message: JsonObj) -> JsonObj:
        """The task a follow-up message names, with the message in its history; it must be idle and open."""
        task_id = message["taskId"]
        task = self.get(task_id)
        state = task["status"]["state"]
        if state in TERMINAL:
            raise unsupported(f"Task {task_id} is in terminal state: {state}")
        if task_id in self._busy:
            raise unsupported(f"Task {task_id} is still working on the previous message")
        if message.get("contextId") not in (None, "", task["contextId"]):
            raise invalid_params("message.contextId does not match the task's contextId")
        _archive_status_message(task)
        task["history"].append({**message, "contextId": task["contextId"]})
        return task

    def _status(self, task: JsonObj, state: str, text: str | None = None) -> JsonObj:
        status: JsonObj = {"state": state}
        if text is not None:
            status["message"] = {"messageId": self.new_id("msg"), "contextId": task["contextId"],
                                 "taskId": task["id"], "role": "ROLE_AGENT", "parts": [{"text": text}]}
        return {"statusUpdate": {"taskId": task["id"], "contextId": task["contextId"], "status": status}}

    def apply(self, task_id: str, event: JsonObj) -> None:
        """Fold one statusUpdate/artifactUpdate into the task (stamping status times) and pass it to the
        task's subscribers."""
        if (status_update := event.get("statusUpdate")) is not None:
            status_update["status"]["timestamp"] = _now()
        task = self._tasks.get(task_id)
        if task is not None:
            if status_update is not None:
                _archive_status_message(task)
                task["status"] = copy.deepcopy(status_update["status"])
            else:
                update = event["artifactUpdate"]
                artifact = copy.deepcopy(update["artifact"])
                artifacts: list[JsonObj] = task.setdefault("artifacts", [])
                for i, old in enumerate(artifacts):
                    if old["artifactId"] == artifact["artifactId"]:
                        if update.get("append"):
                            old["parts"].extend(artifact["parts"])
                        else:
                            artifacts[i] = artifact
                        break
                else:
                    artifacts.append(artifact)
            self._tasks.move_to_end(task_id)
        for queue in self._watchers.get(task_id, ()):
            queue.put_nowait(event)

    def start_stream(self, task_id: str) -> None:
        self._busy.add(task_id)

    def next_event(self, task_id: str, pending: list[JsonObj]) -> JsonObj | None:
        """The next event of a streamed turn, applied; None when the turn is over. If the task was
        canceled meanwhile, that status update is the last event."""
        if not pending:
            return None
        task = self._tasks.get(task_id)
        if task is not None and task["status"]["state"] in TERMINAL:
            pending.clear()
            return {"statusUpdate": {"taskId": task_id, "contextId": task["contextId"],
                                     "status": copy.deepcopy(task["status"])}}
        event = pending.pop(0)
        self.apply(task_id, event)
        return event

    def end_stream(self, task_id: str, pending: list[JsonObj]) -> None:
        """Finish a turn whose client left early (the task still reaches its end state), then release
        the task's subscribers."""
        while self.next_event(task_id, pending) is not None:
            pass
        self._busy.discard(task_id)
        for queue in self._watchers.get(task_id, ()):
            queue.put_nowait(None)

    # --- the other operations -----------------------------------------------------------------------

    def cancel(self, task_id: str) -> JsonObj:
        task = self.get(task_id)
        if task["status"]["state"] in TERMINAL:
            raise RpcError(-32002, "TASK_NOT_CANCELABLE", "Task cannot be canceled", taskId=task_id)
        self.apply(task_id, self._status(task, "TASK_STATE_CANCELED"))
        return snapshot(task)

    def subscribe(self, task_id: str) -> tuple[JsonObj, asyncio.Queue[JsonObj | None] | None]:
        """The current Task and, while a stream is still working on it, a queue of its next events (ended
        by None); call `unsubscribe` with the queue when done."""
        task = self.get(task_id)
        if task["status"]["state"] in TERMINAL:
            raise unsupported(f"Task {task_id} is in terminal state: {task['status']['state']}")
        queue: asyncio.Queue[JsonObj | None] | None = None
        if task_id in self._busy:
            queue = asyncio.Queue()
            self._watchers.setdefault(task_id, []).append(queue)
        return snapshot(task), queue

    def unsubscribe(self, task_id: str, queue: asyncio.Queue[JsonObj | None]) -> None:
        watchers = self._watchers.get(task_id, [])
        if queue in watchers:
            watchers.remove(queue)
        if not watchers:
            self._watchers.pop(task_id, None)

    def list(self, params: JsonObj) -> JsonObj:
        """ListTasks: most recently updated first, filtered by contextId/status/statusTimestampAfter;
        pageToken is an offset; artifacts only with includeArtifacts."""
        size = params.get("pageSize", 50)
        if not 1 <= size <= 100:
            raise invalid_params("pageSize must be between 1 and 100")
        token = params.get("pageToken", "")
        if not re.fullmatch(r"[0-9]{0,9}", token):
            raise invalid_params("invalid pageToken")
        start = int(token or 0)
        after = params.get("statusTimestampAfter")
        since = parse_timestamp(after, "params.statusTimestampAfter") if after else None
        context_id = params.get("contextId")
        state = params.get("status", "TASK_STATE_UNSPECIFIED")
        history_length = params.get("historyLength")
        check_history_length(history_length)
        found = [task for task in reversed(self._tasks.values())
                 if context_id in (None, "", task["contextId"])
                 and state in ("TASK_STATE_UNSPECIFIED", task["status"]["state"])
                 and (since is None or parse_timestamp(task["status"]["timestamp"], "") > since)]
        page = found[start:start + size]
        out: JsonObj = {}
        if page:
            out["tasks"] = [snapshot(task, history_length, params.get("includeArtifacts", False))
                            for task in page]
        if start + size < len(found):
            out["nextPageToken"] = str(start + size)
        out["pageSize"] = size
        if found:
            out["totalSize"] = len(found)
        return out
