"""v1.0 behaviour a v0.3 agent lacks, composed from the v0.3 operations it has: the task records the gateway
keeps of what it saw pass (who may list them), ListTasks answered from them, SubscribeToTask's refusals, a
push config picked by id, and a blocking send some agents answer at once (what waits, what has settled).
Pure rules: the shell stores the records and makes the calls."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.dialects import (
    SPECS,
    STATE_ALIASES_V10,
    STATE_TO_V10,
    TERMINAL_V10,
    V10_STATE_BY_NUMBER,
)
from gateway.core.errors import (
    GatewayError,
    MalformedEnvelope,
    PushNotificationNotSupported,
    TaskNotFound,
    TranslationError,
    UnsupportedOperation,
)
from gateway.core.quirks import Quirks
from gateway.core.types import Dialect, JsonObj, Version

__all__ = [
    "CREDENTIAL_HEADERS",
    "NO_HISTORY_LIMIT",
    "ListQuery",
    "TaskRecord",
    "awaited",
    "caller_scope",
    "just_submitted",
    "list_page",
    "list_query",
    "listed_task",
    "pick_config",
    "push_refusal",
    "records_in",
    "settle_params",
    "settled",
    "status_change",
    "subscribe_refusal",
    "subscription_over",
    "task_state",
    "timestamp_key",
    "waits",
]

CREDENTIAL_HEADERS = ("authorization", "x-api-key", "api-key", "cookie")
"""The request headers whose values decide the caller's scope (hashed: the credentials are never kept)."""
NO_HISTORY_LIMIT = 2**31 - 1   # asked of a v0.3 agent for "every message" (some return none when unasked)
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 50, 100   # P10 ListTasksRequest.page_size

_UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
_JS_ABSENT_ENUM = "UNRECOGNIZED"   # a2a-js 1.x's JSON-RPC client writes an unset `status` so (ts-proto's -1)
_FRACTION = re.compile(r"(\.\d{6})\d+")


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """What the gateway remembers of one task it saw: enough to filter, order and scope a listing."""

    id: str
    context_id: str
    state: str           # the v1.0 state name
    timestamp: float     # the status timestamp (or when the gateway saw it), seconds since the epoch
    scope: str           # caller_scope() of the request it came with
    observed: bool = False   # the agent sent no status timestamp: `timestamp` is when the gateway saw the state

    def to_json(self) -> JsonObj:
        out: JsonObj = {"id": self.id, "contextId": self.context_id, "state": self.state, "ts": self.timestamp,
                        "scope": self.scope}
        if self.observed:
            out["observed"] = True
        return out

    def after(self, stored: TaskRecord | None) -> TaskRecord:
        """The record to keep in place of `stored` (the one kept so far, if any): a state seen again without
        the agent's timestamp keeps the moment it was first seen, so that listings keep their order and their
        page tokens while nothing changes (a2a-sdk 0.3's HTTP+JSON binding sends no status timestamp)."""
        if self.observed and stored is not None and stored.state == self.state:
            return replace(self, timestamp=stored.timestamp, observed=stored.observed)
        return self

    @classmethod
    def from_json(cls, value: Any) -> TaskRecord | None:
        """A stored record read back (None when it is not one: a store written by something else)."""
        if not isinstance(value, dict):
            return None
        task_id, context, state, ts, scope = (value.get(k) for k in ("id", "contextId", "state", "ts", "scope"))
        if type(task_id) is not str or type(context) is not str or type(state) is not str \
                or type(scope) is not str or type(ts) not in (int, float):
            return None
        return cls(task_id, context, state, float(ts or 0), scope, value.get("observed") is True)


def caller_scope(headers: Iterable[tuple[str, str]], subject: str | None = None) -> str:
    """Who may list a task: the subject the gateway's own [auth] authenticated, when it did (a refreshed
    token, or another API key of the same subject, keeps its tasks), else a digest of the request's
    credential headers (the same credentials, the same scope; none at all is the anonymous scope). The
    credentials themselves are never kept."""
    digest = hashlib.sha256()
    if subject is not None:
        digest.update(f"subject\0{subject}".encode())
        return digest.hexdigest()[:32]
    for name, value in sorted((n.lower(), v) for n, v in headers if n.lower() in CREDENTIAL_HEADERS):
        digest.update(f"{name}\0{value}\0".encode())
    return digest.hexdigest()[:32]


def timestamp_key(value: Any) -> float | None:
    """An ISO 8601 timestamp (ProtoJSON Timestamp: `Z` or an offset, up to nanoseconds) as epoch seconds."""
    if type(value) is not str or not value:
        return None
    text = _FRACTION.sub(r"\1", value.strip()).replace("z", "Z")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _state(value: Any) -> str | None:
    """A task state as its v1.0 name, however the agent spelled it (a number, an alias, v0.3's lower case)."""
    if type(value) is int:
        return V10_STATE_BY_NUMBER.get(value)
    if type(value) is str:
        return STATE_ALIASES_V10.get(value) or STATE_TO_V10.get(value, value)
    return None


def records_in(value: Any, *, scope: str, seen_at: float) -> list[TaskRecord]:
    """The tasks a v1.0 result or stream item shows: a Task, `{task}` (SendMessage, StreamResponse) or a
    `{statusUpdate}`; a Message or anything else shows none. `seen_at` stands in for a missing timestamp
    (the record is then `observed`)."""
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("task"), dict):
        value = value["task"]
    elif isinstance(value.get("statusUpdate"), dict):
        update = value["statusUpdate"]
        value = {"id": update.get("taskId"), "contextId": update.get("contextId"), "status": update.get("status")}
    task_id, status = value.get("id"), value.get("status")
    if type(task_id) is not str or not task_id or not isinstance(status, dict):
        return []
    state = _state(status.get("state")) or _UNSPECIFIED
    context = value.get("contextId")
    ts = timestamp_key(status.get("timestamp"))
    return [TaskRecord(task_id, context if type(context) is str else "", state, seen_at if ts is None else ts,
                       scope, observed=ts is None)]


# ---- ListTasks --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ListQuery:
    """A v1.0 ListTasksRequest, read and checked."""

    context_id: str = ""
    status: str = ""                   # "" : any state
    after: float | None = None         # statusTimestampAfter (inclusive), epoch seconds
    page_size: int = DEFAULT_PAGE_SIZE
    cursor: tuple[float, str] | None = None
    history_length: int | None = None
    include_artifacts: bool = False


_ALIASES = {"context_id": "contextId", "page_size": "pageSize", "page_token": "pageToken",
            "history_length": "historyLength", "status_timestamp_after": "statusTimestampAfter",
            "include_artifacts": "includeArtifacts"}   # ProtoJSON parsers accept the proto field names


def list_query(params: Any) -> ListQuery:
    """The ListTasks params of a v1.0 caller (JSON names or proto field names, enums by name or number);
    TranslationError (-32602) for a value out of the spec's bounds."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TranslationError("$.params", "expected an object")
    p: JsonObj = {_ALIASES.get(str(k), str(k)): v for k, v in params.items()}
    context = p.get("contextId") or ""
    if type(context) is not str:
        raise TranslationError("$.params.contextId", "expected a string")
    status = _state(p.get("status")) if p.get("status") not in (None, _JS_ABSENT_ENUM) else _UNSPECIFIED
    if status is None or status not in V10_STATE_BY_NUMBER.values():
        raise TranslationError("$.params.status", f"unknown task state {p.get('status')!r}")
    size = _int(p, "pageSize", DEFAULT_PAGE_SIZE)
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise TranslationError("$.params.pageSize", f"pageSize must be between 1 and {MAX_PAGE_SIZE}")
    history = _int(p, "historyLength", None)
    if history is not None and history < 0:
        raise TranslationError("$.params.historyLength", "historyLength must not be negative")
    after = None
    if p.get("statusTimestampAfter") not in (None, ""):
        after = timestamp_key(p["statusTimestampAfter"])
        if after is None:
            raise TranslationError("$.params.statusTimestampAfter", "expected an ISO 8601 timestamp")
    artifacts = p.get("includeArtifacts", False)
    if type(artifacts) is not bool:
        raise TranslationError("$.params.includeArtifacts", "expected a boolean")
    return ListQuery(context, "" if status == _UNSPECIFIED else status, after, size,
                     _cursor(p.get("pageToken")), history, artifacts)


def _int(params: JsonObj, key: str, default: int | None) -> Any:
    value = params.get(key)
    if value is None:
        return default
    if type(value) is str and re.fullmatch(r"-?\d{1,10}", value):   # ProtoJSON int32 may be a string
        value = int(value)
    if type(value) is not int:
        raise TranslationError(f"$.params.{key}", "expected an integer")
    return value


def _token(cursor: tuple[float, str]) -> str:
    return base64.urlsafe_b64encode(jsoncodec.dumpb(list(cursor))).decode().rstrip("=")


def _cursor(token: Any) -> tuple[float, str] | None:
    """A pageToken this gateway issued: the (timestamp, id) of the last task of the previous page."""
    if token in (None, ""):
        return None
    try:
        if type(token) is not str:
            raise ValueError
        value = jsoncodec.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        ts, task_id = value
        if type(ts) not in (int, float) or type(task_id) is not str:
            raise ValueError
        return float(ts), task_id
    except (ValueError, TypeError, binascii.Error, GatewayError):
        raise TranslationError("$.params.pageToken", "invalid pageToken") from None


def list_page(records: Iterable[TaskRecord], query: ListQuery, scope: str) -> tuple[list[TaskRecord], str, int]:
    """The page of the caller's records the query selects, most recently updated first (S10 §3.1.4), with
    the next page's token ("" on the last page) and the number of matching records."""
    found = sorted((r for r in records if r.scope == scope
                    and (not query.context_id or r.context_id == query.context_id)
                    and (not query.status or r.state == query.status)
                    and (query.after is None or r.timestamp >= query.after)),
                   key=lambda r: (r.timestamp, r.id), reverse=True)
    start = 0
    if query.cursor is not None:
        start = next((i for i, r in enumerate(found) if (r.timestamp, r.id) < query.cursor), len(found))
    page = found[start:start + query.page_size]
    more = start + query.page_size < len(found)
    return page, _token((page[-1].timestamp, page[-1].id)) if more and page else "", len(found)


def listed_task(task: JsonObj, query: ListQuery) -> JsonObj | None:
    """A refreshed task as ListTasks returns it (artifacts only when asked, history cut to the limit), or
    None when the refresh shows it no longer matches the query's filters."""
    state = _state(task.get("status", {}).get("state")) if isinstance(task.get("status"), dict) else None
    if query.status and state != query.status:
        return None
    out = dict(task)
    if not query.include_artifacts:
        out.pop("artifacts", None)
    if query.history_length is not None and isinstance(out.get("history"), list):
        if query.history_length == 0:
            del out["history"]
        else:
            out["history"] = out["history"][-query.history_length:]
    return out


# ---- SubscribeToTask, push config get ------------------------------------------------------------------

def subscribe_refusal(task: Any, task_id: str) -> GatewayError | None:
    """The v1.0 error a subscription to this task gets (P10 SubscribeToTask: UnsupportedOperation for a
    terminal task), None when it may go ahead. `task` is the v1.0 Task GetTask answered (None: not found)."""
    if not isinstance(task, dict):
        return TaskNotFound(f"Task {task_id} not found")
    status = task.get("status")
    state = _state(status.get("state")) if isinstance(status, dict) else None
    if state in TERMINAL_V10:
        return UnsupportedOperation(f"Task {task_id} is in a terminal state ({state}): nothing to subscribe to")
    return None


def task_state(task: Any) -> str | None:
    """The v1.0 state of a Task, a `{task}` or a `{statusUpdate}` item (None when it shows none)."""
    if isinstance(task, dict):
        task = task.get("task") or task.get("statusUpdate") or task
    status = task.get("status") if isinstance(task, dict) else None
    return _state(status.get("state")) if isinstance(status, dict) else None


def status_change(task: JsonObj, last_state: str | None) -> JsonObj | None:
    """The status update a subscriber gets when a re-read Task shows a state other than the last one it was
    sent (the agent's own stream being over: a v0.3 agent has none for an interrupted task); None when the
    state is the same. The stream ends once the state is terminal (`subscription_over`)."""
    state = task_state(task)
    if state is None or state == last_state:
        return None
    update: JsonObj = {"taskId": task.get("id", ""), "contextId": task.get("contextId", ""),
                       "status": task["status"]}
    return {"statusUpdate": update}


def subscription_over(state: str | None) -> bool:
    """Whether a subscription is over at this state (S10 §3.1.6: it closes at the terminal state)."""
    return state in TERMINAL_V10


PUSH_CONFIG_OPERATIONS = frozenset({"create_push_config", "get_push_config", "list_push_configs",
                                    "delete_push_config"})


def push_refusal(op_name: str, card: JsonObj) -> GatewayError | None:
    """PushNotificationNotSupported for a push config operation when the agent's (v1.0) card does not declare
    push notifications (S10 §3.3.2; P10 AgentCapabilities.push_notifications); None otherwise."""
    if op_name not in PUSH_CONFIG_OPERATIONS:
        return None
    capabilities = card.get("capabilities")
    if isinstance(capabilities, dict) and capabilities.get("pushNotifications") is True:
        return None
    return PushNotificationNotSupported("Push Notification is not supported: the agent's card does not declare "
                                        "pushNotifications")


def pick_config(configs: Iterable[Any], config_id: str) -> JsonObj | None:
    """The config of a list whose id is the one asked for; None when there is none (never another one)."""
    return next((c for c in configs if isinstance(c, dict) and c.get("id") == config_id), None)


# ---- SendMessage, blocking ---------------------------------------------------------------------------
# A blocking send is answered once its task is terminal or interrupted (v1.0 SendMessageConfiguration:
# `returnImmediately` false, the default; v0.3 `blocking` true). Some agents answer every send at once with
# the task just submitted (fasta2a): for a caller that waits, the shell reads the task again until it settles.
# Only a task still `submitted` shows the agent did not wait at all: one answered `working` may be an agent's
# own choice (its work goes on in the background, told by push notifications), and is relayed as it is.

UNDER_WAY_V10 = frozenset({"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"})
_SUBMITTED_V10 = "TASK_STATE_SUBMITTED"
# the cheap look at a reply's bytes before it is parsed: a submitted state in any version's spelling (most
# replies, a settled task or a message, have none and keep their bytes untouched)
_SUBMITTED_BYTES = re.compile(rb'"state"\s*:\s*(?:"(?:TASK_STATE_SUBMITTED|submitted)"|1\b)')


def waits(params: Any, dialect: Dialect, quirks: Quirks) -> bool:
    """Whether a SendMessage of `dialect` with these params asks to be answered once its task settles: v1.0
    unless `returnImmediately` is true; v0.3 as `blocking` says, an absent one as the dialect's quirk gives it
    (JSON-RPC servers blocked, a2a-sdk 0.3's REST servers did not), a `false` ignored under
    ignore_blocking_false (v0.3 .NET clients always send it)."""
    conf = params.get("configuration") if isinstance(params, dict) else None
    conf = conf if isinstance(conf, dict) else {}
    quirk = SPECS[dialect].blocking_quirk
    if quirk is None:
        return conf.get("returnImmediately") is not True
    blocking = conf.get("blocking")
    if blocking is False and quirks.ignore_blocking_false:
        blocking = None
    return blocking if type(blocking) is bool else bool(getattr(quirks, quirk))


def awaited(params: Any, dialect: Dialect, quirks: Quirks, body: bytes, *, jsonrpc: bool) -> str | None:
    """The task a blocking send (`params` in the caller's `dialect`) should be answered with once it settles:
    the agent's reply (`body`) left it just submitted. None for a caller that does not wait, or any other reply."""
    task_id = just_submitted(body, jsonrpc=jsonrpc)   # the bytes first: nearly every reply ends it here
    return task_id if task_id is not None and waits(params, dialect, quirks) else None


def just_submitted(body: bytes, *, jsonrpc: bool) -> str | None:
    """The id of the task an agent's SendMessage reply (a JSON-RPC response, or an HTTP+JSON body) carries
    while it is still `submitted`, in either version's shape (v0.3 JSON-RPC: the Task with its `kind`; else
    `{"task": …}`); None for a message, a task under way or settled, an error, or what cannot be read."""
    if not _maybe_submitted(body) or _SUBMITTED_BYTES.search(body) is None:
        return None
    try:
        value = jsoncodec.loads(body)
    except MalformedEnvelope:
        return None   # the reply is read (and refused) as it always is
    if jsonrpc:
        value = value.get("result") if isinstance(value, dict) else None
    if isinstance(value, dict) and isinstance(value.get("task"), dict):
        value = value["task"]
    if not isinstance(value, dict) or task_state(value) != _SUBMITTED_V10:
        return None
    task_id = value.get("id")
    return task_id if type(task_id) is str and task_id else None


def _maybe_submitted(body: bytes) -> bool:
    """Whether `body` may hold a submitted state: plain byte searches (memchr speed) before the regex scan,
    which costs more; an enum number is looked for as ProtoJSON writers write it (`"state":1`, `"state": 1`)."""
    return body.find(b"ubmitted") >= 0 or body.find(b"UBMITTED") >= 0 or body.find(b'"state":1') >= 0 \
        or body.find(b'"state": 1') >= 0


def settled(task: Any) -> bool | None:
    """Whether a Task (v1.0 or v0.3) is no longer under way: terminal, interrupted, or in a state the gateway
    does not wait on; None when it shows no state."""
    state = task_state(task)
    return None if state is None else state not in UNDER_WAY_V10


def settle_params(task_id: str, params: Any, dialect: Dialect) -> JsonObj:
    """The v1.0 GetTask params that read the task of a blocking send again: its history as the caller limited
    it (a v0.3 caller's 0 is no limit)."""
    conf = params.get("configuration") if isinstance(params, dict) else None
    limit = conf.get("historyLength") if isinstance(conf, dict) else None
    if type(limit) is not int or (limit == 0 and SPECS[dialect].version is not Version.V10):
        return {"id": task_id}
    return {"id": task_id, "historyLength": limit}
