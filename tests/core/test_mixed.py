"""core.mixed: a caller with v0.3 method names and v1.0-shaped objects (fasta2a's client) told by the shapes of
its message, read as the v1.0 call it is, and its replies written back in the enum spellings it used; an agent's
v0.3-shaped items in v1.0's enum spellings behind a 1.0 card (langgraph-api) read as the v0.3 items they are."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core import jsoncodec
from gateway.core.dialects import SPOKE_V03_NOTE
from gateway.core.mixed import (
    MIXED_NOTE,
    agent_item,
    agent_v10_frames,
    agent_v10_reply,
    mixed_call,
    refused_v10_parts,
    refused_v10_stream,
    reply_body,
    reply_frames,
    v10_file_parts,
)
from gateway.core.notes import Cx
from gateway.core.operations import by_method

SEND, STREAM, GET = (by_method(m)[0] for m in ("message/send", "message/stream", "tasks/get"))
FILE = {"raw": "aGk=", "filename": "hi.txt", "mediaType": "text/plain"}


def _message(*parts: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts), "messageId": "m1", **extra}


def test_a_v10_shaped_message_under_a_v03_name_is_read_as_v10() -> None:
    cx = Cx()
    params = {"message": _message({"text": "hi"}, FILE, {"data": [1]}), "configuration": {
        "acceptedOutputModes": [], "blocking": False}}
    mixed = mixed_call(STREAM, "r1", params, cx.notes)
    assert mixed is not None and mixed.v03_enums
    assert mixed.params == {"message": {**_message({"text": "hi"}, FILE, {"data": [1]}), "role": "ROLE_USER"},
                            "configuration": {"acceptedOutputModes": [], "returnImmediately": True}}
    assert jsoncodec.loads(mixed.body) == {"jsonrpc": "2.0", "id": "r1", "method": "SendStreamingMessage",
                                           "params": mixed.params}
    assert params["message"]["role"] == "user"  # the caller's params are not touched
    assert [(n.code, n.path) for n in cx.notes] == [(MIXED_NOTE, "$.params")]


def test_v10_enum_spellings_are_kept() -> None:
    mixed = mixed_call(SEND, 1, {"message": {**_message({"text": "hi"}), "role": "ROLE_USER"}}, [])
    assert mixed is not None and not mixed.v03_enums and mixed.params["message"]["role"] == "ROLE_USER"


@pytest.mark.parametrize(("op", "params"), [
    (SEND, {"message": {**_message({"kind": "text", "text": "hi"}), "kind": "message"}}),  # v0.3
    (SEND, {"message": {**_message({"text": "hi"}), "kind": "message"}}),  # v0.3 message: stays v0.3
    (SEND, {"message": _message({"text": "hi"}, {"kind": "text", "text": "x"})}),  # any kind: v0.3
    (SEND, {"message": _message({"file": {"bytes": "aGk="}})}),  # a v0.3 file member
    (SEND, {"message": _message()}),  # no part: nothing tells
    (SEND, {"message": "x"}),
    (SEND, []),
    (GET, {"id": "t1"}),  # no message: the method's name decides
])
def test_what_is_not_told_by_its_shapes_stays_v03(op: Any, params: Any) -> None:
    cx = Cx()
    assert mixed_call(op, 1, params, cx.notes) is None and cx.notes == []


def test_replies_are_written_back_in_v03_enum_spellings() -> None:
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {
        "role": "ROLE_AGENT", "parts": [{"text": "?"}], "messageId": "a"}},
            "history": [{"role": "ROLE_USER", "parts": [{"data": {"state": "TASK_STATE_WORKING"}}], "messageId": "m",
                         "metadata": {"role": "ROLE_USER"}}]}
    body = jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": {"task": task}})
    out = jsoncodec.loads(reply_body(body))["result"]["task"]
    assert out["status"]["state"] == "input-required" and out["status"]["message"]["role"] == "agent"
    assert out["history"][0]["role"] == "user"
    assert out["history"][0]["parts"] == [{"data": {"state": "TASK_STATE_WORKING"}}]  # the application's data
    assert out["history"][0]["metadata"] == {"role": "ROLE_USER"}
    error = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}'
    assert reply_body(error) is error and reply_body(b"{nope") == b"{nope"
    frames = (b": ping\n\ndata: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {
        "taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}}) + b"\n\n")
    assert b'"state":"completed"' in reply_frames(frames) and reply_frames(frames).startswith(b": ping\n\n")


# langgraph-api's answers to v1.0 method names, as it writes them
LG_TASK = {"kind": "task", "id": "c:r", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"},
           "history": [{"kind": "message", "role": "ROLE_USER", "messageId": "m1", "parts": [{"text": "hi"}, FILE]}]}
LG_STATUS = {"taskId": "c:r", "contextId": "c", "kind": "status-update", "final": False, "status": {
    "state": "TASK_STATE_WORKING", "message": {"kind": "message", "role": "ROLE_AGENT", "messageId": "a1",
                                               "parts": [{"kind": "text", "text": "chunk 0"}]}}}


def test_an_agents_v03_items_in_v10_enum_spellings_are_read_as_v03() -> None:
    cx = Cx([])
    task = agent_item({"task": LG_TASK}, cx, "$.result")  # wrapped in v1.0's member: its SendMessage result
    assert task is not None and task["status"] == {"state": "submitted"}
    assert task["history"][0]["role"] == "user"
    assert task["history"][0]["parts"] == [  # the caller's own v1.0 parts it echoes, in v0.3's shapes
        {"kind": "text", "text": "hi"},
        {"kind": "file", "file": {"bytes": "aGk=", "name": "hi.txt", "mimeType": "text/plain"}}]
    status = agent_item(LG_STATUS, cx, "$[1]")  # flat: its events after the first, its GetTask result
    assert status is not None and status["status"]["state"] == "working"
    assert status["status"]["message"]["role"] == "agent"
    assert [(n.code, n.path) for n in cx.notes] == [(SPOKE_V03_NOTE, "$.result.task"), (SPOKE_V03_NOTE, "$[1]")]
    assert LG_TASK["status"] == {"state": "TASK_STATE_SUBMITTED"}  # the input is not changed


@pytest.mark.parametrize("value", [
    {"task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}},   # v1.0
    {"statusUpdate": {"kind": "task"}},                                  # a kind its member does not hold
    {"kind": "nothing-v03-has"}, {"task": LG_TASK, "x": 1}, [LG_TASK], "task", None,
])
def test_what_names_no_v03_kind_is_no_v03_item(value: Any) -> None:
    cx = Cx([])
    assert agent_item(value, cx, "$") is None and cx.notes == []


def test_a_pass_through_stream_gets_the_v03_items_as_v10() -> None:
    cx = Cx([])
    honest = b"data: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {
        "taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}}) + b"\n\n"
    assert agent_v10_frames(honest, cx) is honest and cx.notes == []
    frames = b": ping\n\ndata: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": LG_STATUS}) + b"\n\n"
    out = agent_v10_frames(frames, cx)
    assert out.startswith(b": ping\n\ndata: ") and out.endswith(b"\n\n")
    event = jsoncodec.loads(out[len(b": ping\n\ndata: "):])
    assert event == {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {
        "taskId": "c:r", "contextId": "c", "status": {"state": "TASK_STATE_WORKING", "message": {
            "role": "ROLE_AGENT", "messageId": "a1", "parts": [{"text": "chunk 0"}]}}}}}
    assert SPOKE_V03_NOTE in [n.code for n in cx.notes]
    error = b'data: {"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Unsupported part type","kind":1}}\n\n'
    assert agent_v10_frames(error, cx) == error


REFUSAL = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Unsupported part type."}}'


def _send(*parts: dict[str, Any], method: str = "SendMessage") -> bytes:
    return jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": {
        "role": "ROLE_USER", "messageId": "m", "parts": list(parts)}}})


def test_a_refused_v10_file_part_may_be_sent_again_in_v03() -> None:
    url = {"url": "https://example.com/a.png", "mediaType": "image/png"}
    assert refused_v10_parts(_send({"text": "hi"}, FILE), REFUSAL)
    assert refused_v10_parts(_send(url, method="SendStreamingMessage"), REFUSAL)
    assert not refused_v10_parts(_send({"text": "hi"}, {"data": {"a": 1}}), REFUSAL)  # no v1.0-only part shape
    assert not refused_v10_parts(_send(FILE), REFUSAL.replace(b"-32005", b"-32602"))  # another error
    assert not refused_v10_parts(_send(FILE), b'{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"-32005"}}}')
    assert not refused_v10_parts(jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                                  "params": {"id": "SendMessage"}}), REFUSAL)
    assert not refused_v10_parts(b"{nope SendMessage", REFUSAL) and not refused_v10_parts(_send(FILE), b"-32005{")


def test_a_stream_refused_as_its_first_event() -> None:
    event = b"data: " + REFUSAL + b"\r\n\r\n"
    assert v10_file_parts(_send(FILE, method="SendStreamingMessage")) and not v10_file_parts(_send({"text": "hi"}))
    assert refused_v10_stream(_send(FILE, method="SendStreamingMessage"), event)
    assert not refused_v10_stream(_send(FILE, method="SendStreamingMessage"), event + b"data: {}\n\n")  # two
    assert not refused_v10_stream(_send({"text": "hi"}), event)   # no v1.0 file part: its own reasons
    assert not refused_v10_stream(_send(FILE), b'data: {"jsonrpc":"2.0","id":1,"result":{"task":{}}}\n\n')
    assert not refused_v10_stream(_send(FILE), b"data: -32005 \xff\n\n")   # not UTF-8: not read


def test_a_relayed_v03_result_is_written_as_v10() -> None:
    cx = Cx([])
    honest = jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t", "metadata": {"kind": 1}}}})
    assert agent_v10_reply(honest, "task", cx) is None and cx.notes == []
    assert agent_v10_reply(b'{"kind": "task"', "task", cx) is None
    reply = jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": LG_TASK})  # GetTask's, flat
    out = jsoncodec.loads(agent_v10_reply(reply, "task", cx) or b"")
    assert out["result"]["status"] == {"state": "TASK_STATE_SUBMITTED"}
    assert out["result"]["history"][0]["parts"][1] == FILE and "kind" not in out["result"]
    assert [n.code for n in cx.notes] == [SPOKE_V03_NOTE]
