"""Offline translation (`a2a-gateway translate`): the project's goldens round-tripped through the command
itself, detection of each payload kind and version, and its exit statuses and messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.__main__ import main
from gateway.core.offline import NotA2A, detect, translate_payload
from gateway.core.types import Binding, Dialect, Version
from tests import golden

ROOT = Path(__file__).resolve().parents[2]
SIDE = {Dialect.V03RPC: ("0.3", "jsonrpc"), Dialect.V03REST: ("0.3", "http+json"), Dialect.V10: ("1.0", None)}
# the goldens pin the proto's v0.3 REST file-bytes convention (tests/core/translate/test_golden.py)
PROTO = ["--quirk", "rest_double_base64=false"]
CROSSING = [c for c in golden.cases() if SIDE[c.src][0] != SIDE[c.dst][0]]


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(["translate", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", CROSSING, ids=str)
def test_the_goldens_through_the_command(case: golden.Case, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(case.source), encoding="utf-8")
    to, dst_binding = SIDE[case.dst]
    binding = dst_binding or SIDE[case.src][1] or "jsonrpc"
    code, out, err = _run(capsys, [str(source), "--kind", case.family, "--to", to, "--binding", binding, *PROTO])
    if case.error is not None:   # invalid (2), or valid but not expressible in the other version (4)
        inexpressible = case.error["type"] in ("Inexpressible", "UnsupportedOperation")
        assert code == (4 if inexpressible else 2), err
        said = "cannot be expressed in the other version" if inexpressible else "invalid payload"
        assert said in err and (not case.error["path"] or f" at {case.error['path']}: " in err), err
        return
    assert code == 0, err
    assert json.loads(out) == case.expected
    assert sorted(line.split()[1] for line in err.splitlines() if line.startswith("note: ")) == \
        sorted(code for code, _ in case.notes)
    strict, _, _ = _run(capsys, [str(source), "--kind", case.family, "--to", to, "--binding", binding, *PROTO,
                                 "--strict"])
    assert strict == (3 if case.notes else 0)


DISTINCT = ("message", "part", "task", "artifact", "status_update", "artifact_update", "agent_card")


@pytest.mark.parametrize("case", [c for c in CROSSING if c.family in DISTINCT and c.src is not Dialect.V03REST
                                  and "lenient" not in c.name and c.name != "no_status"], ids=str)
def test_detection_names_the_kind_and_version(case: golden.Case) -> None:
    assert detect(case.source) == (case.family, Version.V03 if case.src is Dialect.V03RPC else Version.V10)


def test_a_jsonrpc_request_and_response_and_an_sse_transcript() -> None:
    req = translate_payload(b'{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t1"}}')
    assert req.kind == "jsonrpc-request"
    assert json.loads(req.output) == {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "t1"}}
    res = translate_payload(b'{"jsonrpc":"2.0","id":7,"result":{"id":"t1","contextId":"c","status":{"state":'
                            b'"TASK_STATE_WORKING"}}}', to=Version.V03, method="GetTask")
    assert json.loads(res.output)["result"]["status"]["state"] == "working" and not res.assumed
    guessed = translate_payload(b'{"jsonrpc":"2.0","id":7,"result":{"kind":"task","id":"t1","contextId":"c",'
                                b'"status":{"state":"working"}}}')
    assert guessed.assumed and json.loads(guessed.output)["result"]["status"]["state"] == "TASK_STATE_WORKING"
    err = translate_payload(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}',
                            to=Version.V10)
    assert json.loads(err.output)["error"]["code"] == -32001
    sse = (ROOT / "tests/golden/sse/16_rpc_id_null.upstream.sse").read_bytes()
    out = translate_payload(sse)
    assert (out.kind, out.src, out.dst) == ("sse", Dialect.V10, Dialect.V03RPC)
    assert b'"kind":"task"' in out.output and b"event: error" in out.output


def test_what_is_not_a2a_is_refused() -> None:
    for data in (b"hello", b'{"a": 1}', b'{"jsonrpc":"2.0","id":1,"method":"nope"}', b"[1, 2]"):
        with pytest.raises(NotA2A):
            translate_payload(data)
    with pytest.raises(NotA2A, match="already"):
        translate_payload(b'{"messageId":"m","role":"ROLE_USER","parts":[]}', source=Version.V10, to=Version.V10)
    with pytest.raises(NotA2A, match="JSON-RPC only"):
        translate_payload(b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}', binding=Binding.REST)


def test_exit_statuses_and_help(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    code, out, err = _run(capsys, [str(bad)])
    assert (code, out) == (2, "") and "neither JSON nor an SSE transcript" in err
    assert _run(capsys, [str(tmp_path / "missing.json")])[0] == 2
    assert _run(capsys, [str(bad), "--kind", "nope"])[0] == 2
    assert _run(capsys, [str(bad), "--quirk", "nope=1"])[0] == 2
    help_text = subprocess.run([sys.executable, "-m", "gateway", "translate", "--help"], capture_output=True,
                               text=True, cwd=ROOT, check=True).stdout
    for word in ("agent_card", "push_config", "jsonrpc-request", "jsonrpc-response", "sse", "exit statuses",
                 "--strict", "--binding"):
        assert word in help_text


def test_stdin_in_stdout_out() -> None:
    done = subprocess.run([sys.executable, "-m", "gateway", "translate", "--strict"], cwd=ROOT, capture_output=True,
                          input=b'{"kind":"text","text":"hi","metadata":{"a":1}}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"text": "hi", "metadata": {"a": 1}}
    assert b"part: v03rpc -> v10" in done.stderr


def test_an_invalid_payload_exits_2_naming_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.json"
    src.write_text('{"kind":"message","role":"user","parts":[{"kind":"text","text":"hi"}]}')   # no messageId
    code, out, err = _run(capsys, [str(src)])
    assert (code, out) == (2, "") and "invalid payload at $.messageId: " in err, err
    src.write_text('{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}')   # valid, no v0.3 method
    code, out, err = _run(capsys, [str(src)])
    assert (code, out) == (4, "") and "cannot be expressed in the other version" in err, err


@pytest.mark.parametrize(("payload", "note", "expected"), [
    ('{"kind":"message","messageId":"m","parts":[{"kind":"text","text":"hi"}]}', "role_defaulted at $.role",
     {"messageId": "m", "role": "ROLE_UNSPECIFIED", "parts": [{"text": "hi"}]}),
    ('{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"},null]}', "null_part at $.parts[1]",
     {"kind": "message", "messageId": "m", "role": "user",
      "parts": [{"kind": "text", "text": "hi"}, {"kind": "text", "text": ""}]}),
])
def test_what_the_sdks_default_is_translated_with_a_note(payload: str, note: str, expected: object, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.json"
    src.write_text(payload)
    code, out, err = _run(capsys, [str(src)])
    assert code == 0 and json.loads(out) == expected and f"note: {note}" in err, err
    assert _run(capsys, [str(src), "--strict"])[0] == 3


def test_a_payload_too_bare_to_tell_asks_for_its_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.json"
    src.write_text('{"url":"https://example.com/hook"}')   # a push config, or a v1.0 part by URL
    code, _, err = _run(capsys, [str(src)])
    assert code == 2 and "--kind" in err
    code, out, _ = _run(capsys, [str(src), "--kind", "push_config", "--from", "0.3"])
    assert code == 0 and json.loads(out)["url"] == "https://example.com/hook"
