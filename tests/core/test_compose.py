"""core.compose: the task records, the caller's scope, ListTasks' query, filters, order and cursor paging,
the listed task's shape, the subscription refusals and the push config pick."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.core.compose import (
    ListQuery,
    TaskRecord,
    awaited,
    caller_scope,
    just_submitted,
    list_page,
    list_query,
    listed_task,
    pick_config,
    push_refusal,
    records_in,
    settle_params,
    settled,
    status_change,
    subscribe_refusal,
    subscription_over,
    task_state,
    timestamp_key,
    waits,
)
from gateway.core.errors import TaskNotFound, TranslationError, UnsupportedOperation
from gateway.core.quirks import Quirks
from gateway.core.types import Dialect

TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-02T03:04:05Z"},
        "history": [{"messageId": f"m{i}"} for i in range(4)], "artifacts": [{"artifactId": "a"}]}


def test_scope_is_a_digest_of_the_credential_headers_only() -> None:
    alice = caller_scope([("Authorization", "Bearer alice"), ("User-Agent", "x")])
    # an authenticated subject is the scope, whatever its credentials (a refreshed token keeps its tasks)
    assert caller_scope([("Authorization", "Bearer t1")], "alice") == caller_scope([("Authorization", "Bearer t2")],
                                                                                   "alice")
    assert caller_scope([], "alice") != caller_scope([], "bob")
    assert caller_scope([], "alice") not in (alice, caller_scope([]))
    assert alice == caller_scope([("authorization", "Bearer alice")])
    assert alice != caller_scope([("Authorization", "Bearer bob")])
    assert alice != caller_scope([])
    assert "alice" not in alice and len(alice) == 32
    both = caller_scope([("X-API-Key", "k"), ("Cookie", "s=1")])
    assert both == caller_scope([("cookie", "s=1"), ("x-api-key", "k")])


@pytest.mark.parametrize(("text", "epoch"), [
    ("2026-01-02T03:04:05Z", 1767323045.0),
    ("2026-01-02T03:04:05.123456789Z", 1767323045.123456),
    ("2026-01-02T04:04:05+01:00", 1767323045.0),
    ("2026-01-02T03:04:05", 1767323045.0),
])
def test_timestamps(text: str, epoch: float) -> None:
    assert timestamp_key(text) == pytest.approx(epoch)


@pytest.mark.parametrize("bad", ["", "yesterday", 5, None])
def test_bad_timestamps_are_none(bad: Any) -> None:
    assert timestamp_key(bad) is None


def test_records_from_results_and_stream_items() -> None:
    (rec,) = records_in({"task": TASK}, scope="s", seen_at=1.0)
    assert rec == TaskRecord("t1", "c1", "TASK_STATE_WORKING", 1767323045.0, "s")
    assert records_in(TASK, scope="s", seen_at=1.0) == [rec]
    update = {"statusUpdate": {"taskId": "t2", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}
    assert records_in(update, scope="s", seen_at=9.0) == [TaskRecord("t2", "c", "TASK_STATE_COMPLETED", 9.0, "s",
                                                                     observed=True)]
    assert records_in({"message": {"messageId": "m"}}, scope="s", seen_at=1.0) == []
    assert records_in({"artifactUpdate": {"taskId": "t"}}, scope="s", seen_at=1.0) == []
    assert records_in({"task": {"id": "", "status": {}}}, scope="s", seen_at=1.0) == []


def test_record_json_round_trip_and_foreign_values() -> None:
    rec = TaskRecord("t", "c", "TASK_STATE_WORKING", 2.5, "s")
    assert TaskRecord.from_json(rec.to_json()) == rec
    observed = TaskRecord("t", "c", "TASK_STATE_WORKING", 2.5, "s", observed=True)
    assert TaskRecord.from_json(observed.to_json()) == observed and "observed" not in rec.to_json()
    assert TaskRecord.from_json({"id": "t"}) is None
    assert TaskRecord.from_json([1]) is None


def test_a_state_seen_again_without_a_timestamp_keeps_its_first_moment() -> None:
    first = TaskRecord("t", "c", "TASK_STATE_WORKING", 2.0, "s", observed=True)
    again = TaskRecord("t", "c", "TASK_STATE_WORKING", 5.0, "s", observed=True)
    assert again.after(first) == first and again.after(None) == again
    stamped = TaskRecord("t", "c", "TASK_STATE_WORKING", 1.0, "s")   # the agent's own timestamp came first
    assert again.after(stamped) == stamped
    done = TaskRecord("t", "c", "TASK_STATE_COMPLETED", 6.0, "s", observed=True)
    assert done.after(first) == done   # a new state is stamped when it is seen
    assert TaskRecord("t", "c", "TASK_STATE_WORKING", 9.0, "s").after(first).timestamp == 9.0   # the agent's wins


def test_query_defaults_and_proto_spellings() -> None:
    assert list_query(None) == ListQuery()
    q = list_query({"context_id": "c", "status": 3, "page_size": "5", "history_length": 0, "include_artifacts": True,
                    "status_timestamp_after": "2026-01-02T03:04:05Z"})
    assert q == ListQuery("c", "TASK_STATE_COMPLETED", 1767323045.0, 5, None, 0, True)
    assert list_query({"status": "TASK_STATE_UNSPECIFIED"}).status == ""
    assert list_query({"status": "UNRECOGNIZED"}).status == ""   # a2a-js 1.x's spelling of an unset status


@pytest.mark.parametrize(("params", "where"), [
    ({"pageSize": 0}, "pageSize"), ({"pageSize": 101}, "pageSize"), ({"pageSize": "x"}, "pageSize"),
    ({"historyLength": -1}, "historyLength"), ({"status": "DONE"}, "status"), ({"pageToken": "!!"}, "pageToken"),
    ({"pageToken": "WzFd"}, "pageToken"), ({"statusTimestampAfter": "soon"}, "statusTimestampAfter"),
    ({"includeArtifacts": "yes"}, "includeArtifacts"), ({"contextId": 3}, "contextId"),
])
def test_bad_queries_are_invalid_params(params: dict[str, Any], where: str) -> None:
    with pytest.raises(TranslationError) as err:
        list_query(params)
    assert err.value.jsonrpc_code == -32602 and where in err.value.path


def _records(n: int, scope: str = "s") -> list[TaskRecord]:
    return [TaskRecord(f"t{i}", f"c{i % 2}", "TASK_STATE_COMPLETED" if i % 3 else "TASK_STATE_WORKING",
                       float(i // 2), scope) for i in range(n)]


def test_filters_order_and_scope() -> None:
    records = _records(10) + _records(3, scope="other")
    page, token, total = list_page(records, list_query({}), "s")
    assert token == "" and total == 10
    assert [(r.timestamp, r.id) for r in page] == sorted(((r.timestamp, r.id) for r in page), reverse=True)
    assert [r.id for r in list_page(records, list_query({"contextId": "c1"}), "s")[0]] == ["t9", "t7", "t5", "t3", "t1"]
    assert {r.id for r in list_page(records, list_query({"status": "TASK_STATE_WORKING"}), "s")[0]} == {"t0", "t3",
                                                                                                          "t6", "t9"}
    assert {r.id for r in list_page(records, list_query({"statusTimestampAfter": "1970-01-01T00:00:04Z"}), "s")[0]} \
        == {"t8", "t9"}
    assert list_page(records, list_query({}), "nobody") == ([], "", 0)


@given(st.integers(0, 40), st.integers(1, 7))
def test_paging_visits_every_record_once_in_order(n: int, size: int) -> None:
    records, seen, token = _records(n), [], ""
    while True:
        page, token, total = list_page(records, list_query({"pageSize": size, "pageToken": token}), "s")
        assert total == n and len(page) <= size
        seen.extend(page)
        if not token:
            break
    assert seen == sorted(records, key=lambda r: (r.timestamp, r.id), reverse=True)


def test_listed_task_shape() -> None:
    out = listed_task(TASK, ListQuery(history_length=2))
    assert out is not None and "artifacts" not in out and [m["messageId"] for m in out["history"]] == ["m2", "m3"]
    assert "history" not in (listed_task(TASK, ListQuery(history_length=0)) or {})
    full = listed_task(TASK, ListQuery(include_artifacts=True))
    assert full is not None and full["artifacts"] == TASK["artifacts"] and len(full["history"]) == 4
    assert listed_task(TASK, ListQuery(status="TASK_STATE_COMPLETED")) is None   # changed since it was recorded
    assert TASK["artifacts"] and len(TASK["history"]) == 4   # the input is not mutated


def test_subscribe_refusals() -> None:
    assert subscribe_refusal(TASK, "t1") is None
    assert subscribe_refusal({**TASK, "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}, "t1") is None
    for state in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"):
        assert isinstance(subscribe_refusal({**TASK, "status": {"state": state}}, "t1"), UnsupportedOperation)
    assert isinstance(subscribe_refusal(None, "t1"), TaskNotFound)


def test_pick_config_never_returns_another() -> None:
    configs = [{"id": "a", "url": "u1"}, {"id": "b", "url": "u2"}, "junk"]
    assert pick_config(configs, "b") == {"id": "b", "url": "u2"}
    assert pick_config(configs, "c") is None


def test_status_changes_of_a_followed_task() -> None:
    working = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    assert task_state(working) == task_state({"task": working}) == "TASK_STATE_WORKING"
    assert status_change(working, "TASK_STATE_WORKING") is None
    change = status_change(working, "TASK_STATE_INPUT_REQUIRED")
    assert change == {"statusUpdate": {"taskId": "t", "contextId": "c", "status": working["status"]}}
    assert task_state(change) == "TASK_STATE_WORKING" and task_state({"message": {}}) is None
    assert not subscription_over("TASK_STATE_INPUT_REQUIRED") and subscription_over("TASK_STATE_REJECTED")


def test_push_refusal_follows_the_card() -> None:
    assert push_refusal("get_task", {}) is None
    assert push_refusal("create_push_config", {"capabilities": {"pushNotifications": True}}) is None
    for card in ({}, {"capabilities": {"pushNotifications": False}}, {"capabilities": {}}):
        refusal = push_refusal("list_push_configs", card)
        assert refusal is not None and refusal.jsonrpc_code == -32003


# ---- SendMessage, blocking ----------------------------------------------------------------------------

Q = Quirks()


@pytest.mark.parametrize(("params", "dialect", "quirks", "expected"), [
    ({"message": {}}, Dialect.V10, Q, True),                                           # v1.0: blocks by default
    ({"configuration": {"returnImmediately": False}}, Dialect.V10, Q, True),
    ({"configuration": {"returnImmediately": True}}, Dialect.V10, Q, False),
    ({"configuration": {"blocking": False}}, Dialect.V10, Q, True),                     # not a v1.0 member
    ({}, Dialect.V03RPC, Q, True),                                                     # JSON-RPC servers blocked
    ({}, Dialect.V03REST, Q, False),                                                   # a2a-sdk 0.3 REST did not
    ({"configuration": {"blocking": True}}, Dialect.V03REST, Q, True),
    ({"configuration": {"blocking": False}}, Dialect.V03RPC, Q, False),
    ({"configuration": {"blocking": False}}, Dialect.V03RPC, Quirks(ignore_blocking_false=True), True),
    ({"configuration": {"blocking": "yes"}}, Dialect.V03RPC, Q, True),                 # not a boolean: the default
    (None, Dialect.V03RPC, Quirks(rpc_blocking_default=False), False),
])
def test_who_waits_for_a_send_to_settle(params: Any, dialect: Dialect, quirks: Quirks, expected: bool) -> None:
    assert waits(params, dialect, quirks) is expected


_SUBMITTED_V10 = b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_SUBMITTED"}}}}'


@pytest.mark.parametrize(("body", "jsonrpc", "expected"), [
    (_SUBMITTED_V10, True, "t1"),
    (b'{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t2","status":{"state": "submitted"}}}', True, "t2"),
    (b'{"task":{"id":"t3","status":{"state":"TASK_STATE_SUBMITTED"}}}', False, "t3"),
    (b'{"task":{"id":"t3","status":{"state":1}}}', False, "t3"),                      # v1.0's enum number
    # under way, but the agent's own choice (a2a-sdk returns it when its executor leaves the task working)
    (b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}}', True, None),
    (b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}}}', True, None),
    (b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"input-required"}}}}', True, None),
    # a settled task whose metadata mentions a submitted state: parsed, and left alone
    (b'{"task":{"id":"t1","status":{"state":"completed"},"metadata":{"state":"submitted"}}}', False, None),
    (b'{"task":{"id":"t1","status":{"state":"completed"},"metadata":{"state":10}}}', False, None),
    (b'{"message":{"messageId":"m","parts":[{"text":"\\"state\\": \\"submitted\\""}]}}', False, None),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"data":{"state":"submitted"}}}', True, None),
    (b'{"task":{"id":"","status":{"state":"submitted"}}}', False, None),              # no id to read it by
    (b'{"task":{"status":{"state":"submitted"}', False, None),                        # not JSON: read as usual
    (b'{"task":{"id":"t1","status":{"state":"submitted"}}}', True, None),             # not a JSON-RPC response
])
def test_a_reply_just_submitted_names_its_task(body: bytes, jsonrpc: bool, expected: str | None) -> None:
    assert just_submitted(body, jsonrpc=jsonrpc) == expected


def test_awaited_only_for_a_caller_that_waits() -> None:
    assert awaited({}, Dialect.V10, Q, _SUBMITTED_V10, jsonrpc=True) == "t1"
    assert awaited({"configuration": {"returnImmediately": True}}, Dialect.V10, Q, _SUBMITTED_V10, jsonrpc=True) is None


@pytest.mark.parametrize(("task", "expected"), [
    ({"status": {"state": "TASK_STATE_WORKING"}}, False),
    ({"status": {"state": "working"}}, False),
    ({"status": {"state": 1}}, False),
    ({"status": {"state": "TASK_STATE_INPUT_REQUIRED"}}, True),
    ({"status": {"state": "auth-required"}}, True),
    ({"status": {"state": "canceled"}}, True),
    ({"status": {"state": "TASK_STATE_UNSPECIFIED"}}, True),   # nothing to wait on
    ({"status": {}}, None),
    ({}, None),
])
def test_settled(task: Any, expected: bool | None) -> None:
    assert settled(task) is expected


@pytest.mark.parametrize(("params", "dialect", "expected"), [
    ({}, Dialect.V10, {"id": "t"}),
    ({"configuration": {"historyLength": 0}}, Dialect.V10, {"id": "t", "historyLength": 0}),   # v1.0: none
    ({"configuration": {"historyLength": 0}}, Dialect.V03RPC, {"id": "t"}),                    # v0.3: no limit
    ({"configuration": {"historyLength": 3}}, Dialect.V03REST, {"id": "t", "historyLength": 3}),
    ({"configuration": {"historyLength": "3"}}, Dialect.V10, {"id": "t"}),
])
def test_settle_reads_the_history_the_caller_asked_for(params: Any, dialect: Dialect, expected: Any) -> None:
    assert settle_params("t", params, dialect) == expected
