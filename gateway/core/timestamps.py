"""A2A timestamps: the forms RFC 3339 and ProtoJSON accept, the canonical one the gateway writes (UTC, `Z`),
the repair of what agents write instead, and the byte test that tells an agent with that habit."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Final

import gateway.core.jsoncodec as jsoncodec
from gateway.core.errors import GatewayError, TranslationError
from gateway.core.notes import Cx
from gateway.core.sse import RewrittenStream, map_data_lines
from gateway.core.types import JsonObj

__all__ = ["ACCEPTED", "CANONICAL", "RepairingStream", "canonical", "habit_of", "repair", "repair_body",
           "repair_status", "repair_statuses"]

# what every reader takes as it is: RFC 3339 with `T`, 0–9 fraction digits (ProtoJSON's nanoseconds), an offset
ACCEPTED: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)")
CANONICAL: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z")  # what the gateway writes
# what agents write instead: no offset (Python's `datetime.now().isoformat()`), a space or `t` for `T`, a
# lower-case `z`, more than nine fraction digits, an offset without its colon or minutes
_LOOSE: Final = re.compile(r"(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)(?:[.,](\d+))?([Zz]|[+-]\d\d(?::?\d\d)?)?")
_NANO_DIGITS: Final = 9

# the byte test: a `"timestamp"` member's string value (an escape in it makes it fail ACCEPTED: repaired)
_MEMBER: Final = b'"timestamp"'
_MEMBER_VALUE: Final = re.compile(rb'"timestamp"\s*:\s*"([^"]*)"')
_ACCEPTED_BYTES: Final = re.compile(ACCEPTED.pattern.encode())
_accepted: Final = ACCEPTED.fullmatch


def canonical(value: str, cx: Cx, at: str) -> str:
    """`value` in the canonical form: naive values are taken as UTC, offsets converted, other spellings of
    `T` and `Z` normalised, fraction digits past nanoseconds cut (each noted); TranslationError when it is
    no ISO 8601 date-time."""
    if CANONICAL.fullmatch(value):
        return value
    m = _LOOSE.fullmatch(value)
    if m is None:
        raise TranslationError(at, f"not an ISO 8601 date-time: {value!r}")
    date, time, digits, zone = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    if len(digits) > _NANO_DIGITS:
        cx.note("timestamp_normalized", at, "fraction cut to nanoseconds")
        digits = digits[:_NANO_DIGITS]
    frac = f".{digits}" if digits else ""
    try:
        moment = datetime.fromisoformat(f"{date}T{time}")
    except ValueError:
        raise TranslationError(at, f"not an ISO 8601 date-time: {value!r}") from None
    if zone is None or zone in ("Z", "z"):
        if zone is None:
            cx.note("timestamp_normalized", at, "naive, taken as UTC")
        elif value[10] != "T" or zone != "Z" or (m.group(3) and value[19] != "."):
            cx.note("timestamp_normalized", at, "spelling")
        return f"{date}T{time}{frac}Z"
    hours, minutes = int(zone[1:3]), int(zone[-2:]) if len(zone) > 3 else 0
    sign = 1 if zone[0] == "+" else -1
    if hours > 23 or minutes > 59:
        raise TranslationError(at, f"not an ISO 8601 date-time: {value!r}")
    utc = moment - sign * timedelta(hours=hours, minutes=minutes)
    cx.note("timestamp_normalized", at, "offset converted to UTC")
    return f"{utc.strftime('%Y-%m-%dT%H:%M:%S')}{frac}Z"


def repair(value: str, cx: Cx, at: str) -> str:
    """`value` as it is when every reader accepts it (an offset too), else canonical; a value that is no
    date-time at all is left for the client to judge."""
    if ACCEPTED.fullmatch(value):
        return value
    try:
        return canonical(value, cx, at)
    except TranslationError:
        return value


_HOLDERS: Final = ("task", "statusUpdate")  # an item's members that may hold a TaskStatus (the item too)


def repair_status(holder: JsonObj, cx: Cx, at: str, where: str = "") -> bool:
    """Repair, in place, the status timestamp of `holder` (a Task or status update) if a reader would refuse
    it; whether it was (its path: `at` + `where`, joined only then)."""
    status = holder.get("status")
    if status.__class__ is not dict:
        return False
    stamp = status.get("timestamp")
    if stamp.__class__ is not str or _accepted(stamp):
        return False
    fixed = repair(stamp, cx, f"{at}{where}.status.timestamp")
    status["timestamp"] = fixed
    return fixed is not stamp


def repair_statuses(value: Any, cx: Cx, at: str = "$") -> bool:
    """Repair, in place, every status timestamp of `value` (an agent's result or stream item of any dialect,
    freshly read) that a reader would refuse: the item's own (a Task, a v0.3 JSON-RPC status update), its
    `task`'s or `statusUpdate`'s, ListTasks' `tasks`'. Whether one was. (On every translated item from a v1.0
    agent: a few lookups when there is nothing to repair.)"""
    if value.__class__ is not dict:
        return False
    changed = repair_status(value, cx, at, "")
    for key in _HOLDERS:
        inner = value.get(key)
        if inner.__class__ is dict and repair_status(inner, cx, at, f".{key}"):
            changed = True
    tasks = value.get("tasks")
    if tasks.__class__ is list:
        for i, task in enumerate(tasks):
            if task.__class__ is dict and repair_status(task, cx, at, f".tasks[{i}]"):
                changed = True
    return changed


def habit_of(data: bytes) -> bool | None:
    """Whether an agent's bytes show the habit of timestamps a reader refuses: True when one `"timestamp"`
    member's value is not accepted, False when every one is, None when there is none (nothing learned)."""
    if data.find(_MEMBER) < 0:
        return None
    seen = False
    for m in _MEMBER_VALUE.finditer(data):
        if not _ACCEPTED_BYTES.fullmatch(m.group(1)):
            return True
        seen = True
    return False if seen else None


def repair_body(data: bytes, jsonrpc: bool, cx: Cx, at: str = "$") -> bytes:
    """An agent's JSON reply (over JSON-RPC, a response whose `result` is repaired) with its status timestamps
    repaired, written again; `data` itself when nothing needed it or it is no JSON."""
    try:
        value = jsoncodec.loads_relayed(data)
    except GatewayError:
        return data
    if jsonrpc:
        payload, at = (value.get("result"), f"{at}.result") if type(value) is dict else (None, at)
    else:
        payload = value
    return jsoncodec.dumpb(value) if repair_statuses(payload, cx, at) else data


class RepairingStream(RewrittenStream):
    """A same-version stream's relay (core.passthrough.CheckedStream) whose output has its status timestamps
    repaired: each `data:` line naming a `"timestamp"` that a reader refuses is parsed, repaired and written
    again. `habit` is what the stream showed of the agent (habit_of), for the shell to remember per
    interface; once known honest, its bytes are not looked at."""

    __slots__ = ("_jsonrpc", "cx", "habit")

    def __init__(self, inner: Any, *, jsonrpc: bool, cx: Cx, habit: bool | None = None) -> None:
        super().__init__(inner, self._repaired)
        self._jsonrpc = jsonrpc
        self.cx = cx
        self.habit = habit

    def _repaired(self, out: bytes) -> bytes:
        if self.habit is False or not out:  # an honest agent: its bytes as they are
            return out
        found = habit_of(out)
        if found is None or (found is False and self.habit is not None):
            return out
        self.habit = found
        return map_data_lines(out, self._line) if found else out

    def _line(self, data: bytes) -> bytes:
        if data.find(_MEMBER) < 0:
            return data
        return repair_body(data, self._jsonrpc, self.cx, f"$[{self.events_out}]")
