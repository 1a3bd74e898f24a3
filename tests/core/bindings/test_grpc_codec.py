"""The gRPC codec: the protos are the SDKs' own (field for field), live in the gateway's own descriptor pool,
every RPC of both services has its row, and the ProtoJSON normal form is made into what translators read."""

from __future__ import annotations

import json
import subprocess

import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2 as sdk03
from a2a.types import a2a_pb2 as sdk10
from google.api import annotations_pb2  # noqa: F401 - so the text form shows the google.api.http options
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf.descriptor import FileDescriptor

from gateway.core.bindings.grpc import codec
from gateway.core.errors import InvalidAgentResponse, MalformedEnvelope, TranslationError, UnknownOperation
from gateway.core.notes import Cx
from gateway.core.operations import OPERATIONS
from gateway.core.types import Version
from tests.oracle import ORACLES

V03, V10 = Version.V03, Version.V10


def comparable(file: FileDescriptor | bytes) -> str:
    """A file's messages, enums and services with their options (in text form, google.api options
    included); not its name, nor the language options (java_package, objc prefix…) the SDKs'
    generators inject into file options."""
    proto = descriptor_pb2.FileDescriptorProto.FromString(file if isinstance(file, bytes) else file.serialized_pb)
    for member in ("name", "options", "source_code_info"):
        proto.ClearField(member)  # type: ignore[arg-type]
    messages = list(proto.message_type)
    while messages:  # generators differ in writing out default json names; custom ones stay
        message = messages.pop()
        messages.extend(message.nested_type)
        for field in message.field:
            if field.json_name == _camel(field.name):
                field.ClearField("json_name")
    return text_format.MessageToString(proto)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


@pytest.mark.parametrize(("version", "sdk"), [(V03, sdk03), (V10, sdk10)], ids=["v03", "v10"])
def test_protos_are_the_sdks(version: Version, sdk: object) -> None:
    """v0.3: a2a-sdk 1.x's compat proto, itself the 0.3 SDK's (checked against 0.3.26 among the peers)."""
    ours = comparable(codec.FILES[version])
    assert ours == comparable(sdk.DESCRIPTOR)  # type: ignore[attr-defined]
    assert "google.api.http" in ours and ('json_name: "message"' in ours) is (version is V03)
    assert codec.FILES[version].package == {V03: "a2a.v1", V10: "lf.a2a.v1"}[version]


@pytest.mark.peers
def test_v03_proto_is_a2a_sdk_0_3_26s() -> None:
    from tests.peers.venvs import ensure_venv

    script = "import sys; from a2a.grpc import a2a_pb2; sys.stdout.buffer.write(a2a_pb2.DESCRIPTOR.serialized_pb)"
    sdk0326 = subprocess.run([str(ensure_venv("v03")), "-c", script], capture_output=True, check=True).stdout
    assert comparable(codec.FILES[V03]) == comparable(sdk0326)


def test_own_descriptor_pool() -> None:
    """a2a-sdk's modules (imported above) hold both package names in protobuf's default pool; ours
    never touch it, and their messages are wire-compatible."""
    ours = codec.message_class(V10, "Task")
    assert ours.DESCRIPTOR.file.pool is not descriptor_pool.Default()
    assert descriptor_pool.Default().FindMessageTypeByName("lf.a2a.v1.Task") is sdk10.Task.DESCRIPTOR
    assert descriptor_pool.Default().FindMessageTypeByName("a2a.v1.Task") is sdk03.Task.DESCRIPTOR
    assert ours is not sdk10.Task
    task = sdk10.Task(id="t1", context_id="c1")
    assert codec.decode(ours, task.SerializeToString(), Cx()) == {"id": "t1", "contextId": "c1"}


# ---- the table ----------------------------------------------------------------------------------------

def test_every_rpc_of_both_services_has_a_row() -> None:
    for version, count in ((V03, 10), (V10, 11)):
        service = codec.FILES[version].services_by_name["A2AService"]
        rows = [rpc for rpc in codec.RPCS if rpc.version is version]
        assert [rpc.name for rpc in rows] == [m.name for m in service.methods] and len(rows) == count
    assert len(codec.BY_PATH) == len(codec.RPCS)


@pytest.mark.parametrize("rpc", codec.RPCS, ids=lambda rpc: rpc.path)
def test_row(rpc: codec.Rpc) -> None:
    assert codec.by_path(rpc.path) is rpc
    package = {V03: "a2a.v1", V10: "lf.a2a.v1"}[rpc.version]
    assert rpc.path == f"/{package}.A2AService/{rpc.name}"
    assert codec.service_version(rpc.path) is rpc.version
    assert codec.for_operation(rpc.op, rpc.version) is codec.for_operation(rpc.op.name, rpc.version) is rpc
    assert rpc.streaming is rpc.op.streaming
    # the messages are the ones the operation's families are checked against (tests/oracle.py)
    v10, _, v03 = ORACLES.get(rpc.op.result_family, (None, None, None))
    expected_response = v10 if rpc.version is V10 else v03
    assert rpc.response.DESCRIPTOR.name == (expected_response or "Empty")
    v10, _, v03 = ORACLES[rpc.op.params_family]
    request = v10 if rpc.version is V10 else v03
    if (rpc.version, rpc.op.name) == (V03, "create_push_config"):
        request = "CreateTaskPushNotificationConfigRequest"  # the params' bare config form is wrapped
    assert rpc.request.DESCRIPTOR.name == request


def test_every_operation_is_served_or_named_as_missing() -> None:
    for version in Version:
        for op in OPERATIONS:
            rpc = codec.for_operation(op, version)
            assert (rpc is None) is (op.name in codec.NO_RPC[version]), (op.name, version)
    assert dict(codec.NO_RPC) == {V03: {"list_tasks"}, V10: set()}


@pytest.mark.parametrize("path", ["/a2a.v1.A2AService/ListTasks", "/lf.a2a.v1.A2AService/TaskSubscription",
                                  "/other.Service/SendMessage", "", "/"])
def test_unknown_paths(path: str) -> None:
    with pytest.raises(UnknownOperation):
        codec.by_path(path)


def test_service_version_of_unknown_methods() -> None:
    assert codec.service_version("/a2a.v1.A2AService/ListTasks") is V03
    assert codec.service_version("/lf.a2a.v1.A2AService/Nope") is V10
    assert codec.service_version("/grpc.health.v1.Health/Check") is None


# ---- what decoding writes out ---------------------------------------------------------------------

def rpc(path: str) -> codec.Rpc:
    return codec.by_path(path)


def test_zero_state_is_written_out() -> None:
    """TASK_STATE_UNSPECIFIED is the v0.3 `unknown` state: ProtoJSON would omit it."""
    get = rpc("/a2a.v1.A2AService/GetTask")
    data = sdk03.Task(id="t1", status=sdk03.TaskStatus()).SerializeToString()
    assert codec.decode_response(get, data, Cx()) == {"id": "t1", "status": {"state": "TASK_STATE_UNSPECIFIED"}}
    assert codec.decode_response(get, sdk03.Task(id="t1").SerializeToString(), Cx()) == {"id": "t1"}


def test_v03_blocking_false_is_written_out() -> None:
    """A v0.3 gRPC server reads an unset `blocking` as false: the dict says so."""
    send = rpc("/a2a.v1.A2AService/SendMessage")
    request = sdk03.SendMessageRequest(configuration=sdk03.SendMessageConfiguration(history_length=2))
    assert codec.decode_request(send, request.SerializeToString(), Cx()) == {
        "configuration": {"historyLength": 2, "blocking": False}}
    assert codec.decode_request(send, sdk03.SendMessageRequest().SerializeToString(), Cx()) == {}
    send10 = rpc("/lf.a2a.v1.A2AService/SendMessage")
    request10 = sdk10.SendMessageRequest(configuration=sdk10.SendMessageConfiguration(history_length=0))
    assert codec.decode_request(send10, request10.SerializeToString(), Cx()) == {"configuration": {"historyLength": 0}}


def test_json_values_integral_numbers_and_sorted_members() -> None:
    cls = codec.message_class(V10, "Message")
    value = {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"z": [1, 2.5, {"b": 3, "a": None}], "a": 1}}],
             "metadata": {"y": 1.0, "x": -0.0, "big": 2**53}}
    back = codec.decode(cls, codec.encode(cls, value, Cx()), Cx())
    assert json.dumps(back) == json.dumps({
        "messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"a": 1, "z": [1, 2.5, {"a": None, "b": 3}]}}],
        "metadata": {"big": 2**53, "x": 0, "y": 1}})


def test_numbers_beyond_2_53_are_noted() -> None:
    cls, cx = codec.message_class(V10, "Part"), Cx()
    back = codec.decode(cls, codec.encode(cls, {"data": {"n": [2**53 + 1]}}, cx), cx)
    assert back == {"data": {"n": [2**53]}}
    assert [(n.code, n.path) for n in cx.notes] == [("number_rounded", "$.data.n[0]")]


def test_unknown_fields_are_noted() -> None:
    cx = Cx()
    data = sdk10.Task(id="t1").SerializeToString() + b"\xa0\x06\x01"  # field 100, varint 1
    assert codec.decode(codec.message_class(V10, "Task"), data, cx) == {"id": "t1"}
    assert [(n.code, n.path) for n in cx.notes] == [("dropped_unknown_member", "$.#100")]


def test_bytes_are_base64_once() -> None:
    """ProtoJSON's bytes: the v1.0 `raw` string is the content's base64; a2a-sdk 0.3 puts its base64
    text in the proto field itself, so it arrives base64 twice (the rest_double_base64 quirk's shape)."""
    part10 = sdk10.Part(raw=b"\x00\xff")
    assert codec.decode(codec.message_class(V10, "Part"), part10.SerializeToString(), Cx()) == {"raw": "AP8="}
    part03 = sdk03.Part(file=sdk03.FilePart(file_with_bytes=b"AP8="))
    assert codec.decode(codec.message_class(V03, "Part"), part03.SerializeToString(), Cx()) == {
        "file": {"fileWithBytes": "QVA4PQ=="}}


def test_empty_replies() -> None:
    delete = rpc("/lf.a2a.v1.A2AService/DeleteTaskPushNotificationConfig")
    assert delete.empty_response
    assert codec.encode_response(delete, None, Cx()) == b""
    assert codec.decode_response(delete, b"", Cx()) is None


def test_malformed_bytes() -> None:
    get = rpc("/lf.a2a.v1.A2AService/GetTask")
    with pytest.raises(MalformedEnvelope):
        codec.decode_request(get, b"\xff\xff\xff", Cx())
    with pytest.raises(InvalidAgentResponse):
        codec.decode_response(get, b"\x0a\x05ab", Cx())


@pytest.mark.parametrize("params", [["x"], {"id": 5}, {"nope": 1}, {"historyLength": "many"}])
def test_dicts_that_do_not_fit(params: object) -> None:
    with pytest.raises(TranslationError):
        codec.encode_request(rpc("/lf.a2a.v1.A2AService/GetTask"), params, Cx())


def test_v03_create_push_config_wraps_the_bare_config() -> None:
    create = rpc("/a2a.v1.A2AService/CreateTaskPushNotificationConfig")
    config = {"name": "tasks/t1/pushNotificationConfigs/p1", "pushNotificationConfig": {"url": "https://h.example/"}}
    request = sdk03.CreateTaskPushNotificationConfigRequest.FromString(codec.encode_request(create, config, Cx()))
    assert (request.parent, request.config_id, request.config.name) == ("tasks/t1", "p1", config["name"])
    whole = {"parent": "tasks/t1", "configId": "p1", "config": config}
    assert codec.encode_request(create, whole, Cx()) == codec.encode_request(create, config, Cx())
    assert codec.decode_request(create, codec.encode_request(create, config, Cx()), Cx()) == whole
