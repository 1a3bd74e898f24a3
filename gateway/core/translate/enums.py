"""Enum tables of every dialect: task states and roles (wire-mapping.md §4.2, §4.3), StreamResponse member
spellings. Tables only: v0.3 JSON-RPC kebab strings, v0.3 REST proto names, v1.0 proto names and numbers."""

from __future__ import annotations

from gateway.core.tables import bijection

# v0.3 JSON-RPC <-> v1.0
STATE_TO_V10, STATE_FROM_V10 = bijection({
    "unknown": "TASK_STATE_UNSPECIFIED",
    "submitted": "TASK_STATE_SUBMITTED",
    "working": "TASK_STATE_WORKING",
    "completed": "TASK_STATE_COMPLETED",
    "failed": "TASK_STATE_FAILED",
    "canceled": "TASK_STATE_CANCELED",
    "input-required": "TASK_STATE_INPUT_REQUIRED",
    "rejected": "TASK_STATE_REJECTED",
    "auth-required": "TASK_STATE_AUTH_REQUIRED",
})

# v0.3 REST (P03 enum names) <-> v1.0; only `canceled` is spelled differently
REST_STATE_TO_V10, REST_STATE_FROM_V10 = bijection({
    ("TASK_STATE_CANCELLED" if v10 == "TASK_STATE_CANCELED" else v10): v10 for v10 in STATE_FROM_V10
})

# ProtoJSON parsers accept enum numbers; P10 and P03 share the numbering
V10_STATE_NUMBER, V10_STATE_BY_NUMBER = bijection({
    "TASK_STATE_UNSPECIFIED": 0,
    "TASK_STATE_SUBMITTED": 1,
    "TASK_STATE_WORKING": 2,
    "TASK_STATE_COMPLETED": 3,
    "TASK_STATE_FAILED": 4,
    "TASK_STATE_CANCELED": 5,
    "TASK_STATE_INPUT_REQUIRED": 6,
    "TASK_STATE_REJECTED": 7,
    "TASK_STATE_AUTH_REQUIRED": 8,
})

# Spellings seen from non-conformant peers, read leniently (each read records a note)
STATE_ALIASES_V10 = {
    "TASK_STATE_UNKNOWN": "TASK_STATE_UNSPECIFIED",   # a2a-elixir
    "TASK_STATE_CANCELLED": "TASK_STATE_CANCELED",    # v0.3 proto spelling on a v1.0 wire
}

TERMINAL_V10 = frozenset({
    "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED",
})
INTERRUPTED_V10 = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})

ROLE_TO_V10, ROLE_FROM_V10 = bijection({"user": "ROLE_USER", "agent": "ROLE_AGENT"})
V10_ROLE_NUMBER, V10_ROLE_BY_NUMBER = bijection({"ROLE_UNSPECIFIED": 0, "ROLE_USER": 1, "ROLE_AGENT": 2})

# v1.0 StreamResponse members: ProtoJSON parsers also accept the proto field names
STREAM_MEMBER_ALIASES_V10: dict[str, str] = {"status_update": "statusUpdate", "artifact_update": "artifactUpdate"}
STREAM_MEMBERS_V10: dict[str, str] = {  # every accepted spelling -> the JSON name
    **{m: m for m in ("task", "message", "statusUpdate", "artifactUpdate")}, **STREAM_MEMBER_ALIASES_V10,
}
