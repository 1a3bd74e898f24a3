"""The version probe: its request spelled per version and binding, the verdicts of the replies real
a2a-sdk agents give (transcribed from a2a-sdk 0.3.26 and 1.3.0), and what the probes conclude."""

from __future__ import annotations

import json

import pytest

from gateway.core.card import Interface
from gateway.core.types import Binding, Version
from gateway.core.verify import (
    PROBE_TASK_ID,
    Probe,
    Verdict,
    conclude,
    judge,
    judge_grpc,
    method_missing,
    probe_headers,
    probe_request,
)

V03, V10, RPC, REST = Version.V03, Version.V10, Binding.JSONRPC, Binding.REST


def _iface(version: Version, binding: Binding = RPC) -> Interface:
    return Interface(version, binding, "http://agent/x")


@pytest.mark.parametrize(("version", "method"), [(V03, "tasks/get"), (V10, "GetTask")])
def test_jsonrpc_probe_is_get_task_of_the_impossible_id(version: Version, method: str) -> None:
    out = probe_request(_iface(version))
    body = json.loads(out.body or b"")
    assert (out.method, out.path, body["method"], body["params"]["id"]) == ("POST", "", method, PROBE_TASK_ID)


@pytest.mark.parametrize(("version", "path"), [(V03, f"/v1/tasks/{PROBE_TASK_ID}"), (V10, f"/tasks/{PROBE_TASK_ID}")])
def test_rest_probe_is_a_get_of_the_task(version: Version, path: str) -> None:
    out = probe_request(_iface(version, REST))
    assert (out.method, out.path, out.body) == ("GET", path, None)


def test_probe_headers_name_the_version_only_to_v10() -> None:
    assert probe_headers(_iface(V10))["A2A-Version"] == "1.0"
    assert "A2A-Version" not in probe_headers(_iface(V03))
    assert probe_headers(_iface(V10, REST))["Content-Type"] == "application/a2a+json"


# the replies of the real SDKs (see tests/peers): TaskNotFound in the version asked, -32601 or a
# framework 404 otherwise
SDK_REPLIES = [
    (RPC, 200, b'{"error":{"code":-32001,"message":"Task not found"},"id":1,"jsonrpc":"2.0"}', Verdict.PROVEN),
    (RPC, 200, b'{"error":{"code":-32601,"message":"Method not found"},"id":1,"jsonrpc":"2.0"}', Verdict.DISPROVEN),
    (REST, 404, b'{"message":"Task not found"}', Verdict.PROVEN),
    (REST, 404, b'{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found","details":[{"reason":'
                b'"TASK_NOT_FOUND"}]}}', Verdict.PROVEN),
    (REST, 404, b'{"detail":"Not Found"}', Verdict.DISPROVEN),
    (REST, 404, b"Not Found", Verdict.DISPROVEN),
    (REST, 405, b"", Verdict.DISPROVEN),
    (RPC, 200, b'{"error":{"code":-32603,"message":"boom"},"id":1,"jsonrpc":"2.0"}', Verdict.UNKNOWN),
    (RPC, 502, b"<html>bad gateway</html>", Verdict.UNKNOWN),
    (REST, 401, b"", Verdict.UNKNOWN),
]


@pytest.mark.parametrize(("binding", "status", "body", "verdict"), SDK_REPLIES)
def test_judge(binding: Binding, status: int, body: bytes, verdict: Verdict) -> None:
    assert judge(binding, status, body)[0] is verdict
    assert method_missing(binding, status, body) is (verdict is Verdict.DISPROVEN)


def test_conclude_an_honest_a_lying_and_a_silent_card() -> None:
    claimed = _iface(V10)
    honest = conclude(claimed, [Probe(V10, Verdict.PROVEN, "TaskNotFound")])
    assert (honest.status, honest.interface, honest.note()) == ("verified", claimed, None)
    lying = conclude(claimed, [Probe(V10, Verdict.DISPROVEN, ""), Probe(V03, Verdict.PROVEN, "")])
    assert lying.status == "corrected" and lying.lying
    assert lying.interface == Interface(V03, RPC, claimed.url)
    note = lying.note()
    assert note is not None and note.code == "upstream_version_mismatch" and "claims A2A 1.0" in note.detail
    silent = conclude(claimed, [Probe(V10, Verdict.DISPROVEN, ""), Probe(V03, Verdict.UNKNOWN, "")])
    assert (silent.status, silent.version, silent.observed) == ("unverified", V10, None)
    assert lying.as_json()["observed"] == "0.3" and silent.as_json()["status"] == "unverified"


@pytest.mark.parametrize(("code", "verdict"), [
    (5, Verdict.PROVEN),        # NOT_FOUND: the task lookup ran, in the version the service belongs to
    (12, Verdict.DISPROVEN),    # UNIMPLEMENTED: no such service (the other version's proto package)
    (16, Verdict.UNKNOWN),      # UNAUTHENTICATED proves nothing
    (None, Verdict.UNKNOWN),    # a task for an id no agent holds: nothing to conclude
])
def test_judge_grpc(code: int | None, verdict: Verdict) -> None:
    found, detail = judge_grpc(code, "UNAUTHENTICATED" if code == 16 else "")
    assert found is verdict and detail
    if code == 16:
        assert detail == "gRPC UNAUTHENTICATED"
