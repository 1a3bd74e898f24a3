"""core.mixed: a caller with v0.3 method names and v1.0-shaped objects (fasta2a's client) told by the shapes of
its message, read as the v1.0 call it is, and its replies written back in the enum spellings it used."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core import jsoncodec
from gateway.core.mixed import MIXED_NOTE, mixed_call, reply_body, reply_frames
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
