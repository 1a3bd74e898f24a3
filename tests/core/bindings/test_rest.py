"""HTTP+JSON binding: every route of both versions parsed and rebuilt (goldens in tests/golden_rest/,
checked by the official protobuf types and a2a-python's route table), tenants incl. `v1` (wire-mapping.md
§9 cases 7, 31), proto field names (33, 40), both subscribe verbs (37), both push-create bodies (38),
delete and success codes (39), errors with paths; fuzz: any request parses or raises our error."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb03
from a2a.types import a2a_pb2 as pb10
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st

from gateway.core.bindings import rest
from gateway.core.bindings.rest import MethodNotAllowed, Outgoing, RestCall
from gateway.core.bindings.rest.fields import V03_NAMES, name_vars, to_json_names
from gateway.core.bindings.rest.routes import ROUTES, TABLES
from gateway.core.errors import (
    GatewayError,
    InvalidAgentResponse,
    LimitExceeded,
    MalformedEnvelope,
    TranslationError,
    UnknownOperation,
    UnsupportedOperation,
)
from gateway.core.notes import Cx
from gateway.core.operations import BY_NAME, OPERATIONS
from gateway.core.quirks import Quirks
from gateway.core.translate import translate
from gateway.core.types import Dialect, Version

V03, V10 = Version.V03, Version.V10
GOLDEN = Path(__file__).resolve().parents[2] / "golden_rest"
VERSIONS = {"v03": V03, "v10": V10}
REST_DIALECT = {V03: Dialect.V03REST, V10: Dialect.V10}


def _goldens() -> list[tuple[str, Version, dict[str, Any]]]:
    out = []
    for path in sorted(GOLDEN.glob("*.json")):
        op, version = path.name.removesuffix(".json").split(".")
        out.append((op, VERSIONS[version], json.loads(path.read_text())))
    return out


GOLDENS = _goldens()
GOLDEN_IDS = [f"{op}.{v.value}" for op, v, _ in GOLDENS]


def _parse(method: str, path: str, query: Any = (), body: Any = None, version: Version = V10) -> RestCall:
    raw = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    return rest.parse(method, path, [tuple(q) for q in query], raw, version=version)


def _request(out: Outgoing) -> dict[str, Any]:
    """An Outgoing as a golden document (body decoded)."""
    return {"method": out.method, "path": out.path, "query": [list(q) for q in out.query],
            "body": None if out.body is None else json.loads(out.body)}


# ---- goldens: one per operation and version ----------------------------------------------------------

def test_every_route_has_a_golden() -> None:
    have = {(op, v) for op, v, _ in GOLDENS}
    assert have == {(op.name, v) for op in OPERATIONS for v in Version if op.routes(v)}


@pytest.mark.parametrize(("op", "version", "doc"), GOLDENS, ids=GOLDEN_IDS)
def test_golden_parses_to_params(op: str, version: Version, doc: dict[str, Any]) -> None:
    call = _parse(doc["method"], doc["path"], doc["query"], doc["body"], version)
    assert call == RestCall(BY_NAME[op], version, doc["params"], "")


@pytest.mark.parametrize(("op", "version", "doc"), GOLDENS, ids=GOLDEN_IDS)
def test_golden_params_build_the_request(op: str, version: Version, doc: dict[str, Any]) -> None:
    params = copy.deepcopy(doc["params"])
    out = rest.build(BY_NAME[op], params, version)
    assert _request(out) == {k: doc[k] for k in ("method", "path", "query", "body")}
    assert params == doc["params"], "build mutated its input"


# P03 request messages by operation (the v0.3 push create is the whole request, as `parse` returns it)
_P03 = {"send_message": "SendMessageRequest", "send_streaming_message": "SendMessageRequest",
        "get_task": "GetTaskRequest", "cancel_task": "CancelTaskRequest",
        "subscribe_to_task": "TaskSubscriptionRequest",
        "create_push_config": "CreateTaskPushNotificationConfigRequest",
        "get_push_config": "GetTaskPushNotificationConfigRequest",
        "list_push_configs": "ListTaskPushNotificationConfigRequest",
        "delete_push_config": "DeleteTaskPushNotificationConfigRequest",
        "get_extended_card": "GetAgentCardRequest"}
_P10 = {"send_message": "SendMessageRequest", "send_streaming_message": "SendMessageRequest",
        "get_task": "GetTaskRequest", "list_tasks": "ListTasksRequest", "cancel_task": "CancelTaskRequest",
        "subscribe_to_task": "SubscribeToTaskRequest", "create_push_config": "TaskPushNotificationConfig",
        "get_push_config": "GetTaskPushNotificationConfigRequest",
        "list_push_configs": "ListTaskPushNotificationConfigsRequest",
        "delete_push_config": "DeleteTaskPushNotificationConfigRequest",
        "get_extended_card": "GetExtendedAgentCardRequest"}


@pytest.mark.parametrize(("op", "version", "doc"), GOLDENS, ids=GOLDEN_IDS)
def test_golden_params_and_bodies_are_valid_proto_json(op: str, version: Version,
                                                       doc: dict[str, Any]) -> None:
    pb, names = (pb03, _P03) if version is V03 else (pb10, _P10)
    json_format.ParseDict(doc["params"], getattr(pb, names[op])())  # strict: unknown members raise
    if doc["body"] is not None and op != "create_push_config":
        json_format.ParseDict(doc["body"], getattr(pb, names[op])())
    if doc["body"] is not None and op == "create_push_config":
        json_format.ParseDict(doc["body"], pb.TaskPushNotificationConfig())


@pytest.mark.parametrize(("op", "version", "doc"), [g for g in GOLDENS if g[0] != "list_tasks"], ids=[
    i for i, g in zip(GOLDEN_IDS, GOLDENS, strict=True) if g[0] != "list_tasks"])
def test_golden_params_feed_the_translators(op: str, version: Version, doc: dict[str, Any]) -> None:
    """What `parse` returns is what translate.calls reads, and what it writes `build` accepts."""
    other = V10 if version is V03 else V03
    family = BY_NAME[op].params_family
    out = translate(family, copy.deepcopy(doc["params"]), src=REST_DIALECT[version], dst=REST_DIALECT[other],
                    cx=Cx())
    rest.build(BY_NAME[op], out, other)


def test_a2a_python_routes_are_all_served() -> None:
    """Oracle: every route a2a-python 1.x serves (v1.0 and its v0.3 compat adapter) is in our table."""
    from unittest.mock import MagicMock

    from a2a.server.routes.rest_routes import create_rest_routes

    def norm(template: str) -> str:
        return re.sub(r"\{\w+\}", "{}", template)

    theirs = {(m, getattr(r, "path", "")) for r in create_rest_routes(MagicMock(), enable_v0_3_compat=True)
              for m in getattr(r, "methods", None) or () if m != "HEAD"}
    ours = {(verb, norm(route.template)) for (_, v), routes in ROUTES.items() for route in routes
            for verb in [route.verb]}
    assert {(m, norm(p)) for m, p in theirs} <= ours


def test_v03_resource_names_cover_the_route_variables() -> None:
    for op in OPERATIONS:
        for route in ROUTES[(op.name, V03)]:
            spec = V03_NAMES.get(op.name)
            assert set(route.vars) == (set(name_vars(spec[1])) if spec else set()), route.template


# ---- tenants ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tenant", ["acme", "v1", "t x/é"[:3] + "é", "tasks-1"])
@pytest.mark.parametrize(("op", "version", "doc"), [g for g in GOLDENS if g[1] is V10],
                         ids=[i for i in GOLDEN_IDS if i.endswith("1.0")])
def test_v10_tenant_prefix_round_trips(op: str, version: Version, doc: dict[str, Any], tenant: str) -> None:
    from urllib.parse import quote

    path = f"/{quote(tenant, safe='')}{doc['path']}"
    call = _parse(doc["method"], path, doc["query"], doc["body"], V10)
    assert call.tenant == tenant
    assert call.params == {**doc["params"], "tenant": tenant}
    assert rest.build(BY_NAME[op], call.params, V10).path == path
    assert rest.build(BY_NAME[op], doc["params"], V10, tenant=tenant).path == path


def test_v1_prefix_is_v03_route_or_v10_tenant() -> None:
    """§9 case 7: the caller's version decides what `/v1` means."""
    body = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}}
    v03 = _parse("POST", "/v1/message:send", (), body, V03)
    v10 = _parse("POST", "/v1/message:send", (), body, V10)
    assert (v03.tenant, "tenant" in v03.params) == ("", False)
    assert (v10.tenant, v10.params["tenant"]) == ("v1", "v1")
    assert _parse("GET", "/v1/tasks/t1", version=V10).params == {"id": "t1", "tenant": "v1"}
    assert _parse("GET", "/v1/tasks", version=V10).op.name == "list_tasks"


def test_unprefixed_paths_are_routes_before_tenants() -> None:
    assert _parse("GET", "/tasks/tasks", version=V10).params == {"id": "tasks"}  # as a2a-python routes it
    assert _parse("GET", "/acme/tasks", version=V10).params == {"tenant": "acme"}


def test_tenant_in_params_and_argument() -> None:
    op = BY_NAME["get_task"]
    assert rest.build(op, {"id": "t", "tenant": "a"}, V10).path == "/a/tasks/t"
    assert rest.build(op, {"id": "t", "tenant": "a"}, V10, tenant="b").path == "/b/tasks/t"
    assert rest.build(op, {"id": "t", "tenant": ""}, V10).path == "/tasks/t"
    assert rest.build(op, {"name": "tasks/t"}, V03, tenant="ignored").path == "/v1/tasks/t"
    send = rest.build(BY_NAME["send_message"], {"tenant": "a", "message": {}}, V10)
    assert (send.path, json.loads(send.body or b"")) == ("/a/message:send", {"message": {}})


def test_body_tenant_kept_when_no_path_tenant() -> None:
    assert _parse("POST", "/message:send", (), {"tenant": "a"}).params == {"tenant": "a"}
    call = _parse("POST", "/b/message:send", (), {"tenant": "a"})
    assert (call.tenant, call.params) == ("b", {"tenant": "b"})


# ---- query strings -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "query", "version", "params"), [
    ("/v1/tasks/t1", [("history_length", "3")], V03, {"name": "tasks/t1", "historyLength": 3}),  # case 40
    ("/v1/tasks/t1/pushNotificationConfigs", [("page_size", "5"), ("page_token", "x")], V03,
     {"parent": "tasks/t1", "pageSize": 5, "pageToken": "x"}),
    ("/tasks/t1", [("history_length", "0")], V10, {"id": "t1", "historyLength": 0}),
    ("/tasks", [("context_id", "c"), ("status", "2"), ("page_size", "+7"), ("include_artifacts", "FALSE"),
                ("status_timestamp_after", "2025-04-02T16:59:25.331844"), ("history_length", "-1")], V10,
     {"contextId": "c", "status": "TASK_STATE_WORKING", "pageSize": 7, "includeArtifacts": False,
      "statusTimestampAfter": "2025-04-02T16:59:25.331844", "historyLength": -1}),
    ("/tasks", [("status", "TASK_STATE_CANCELED"), ("includeArtifacts", "1"),
                ("statusTimestampAfter", "2025-04-02T16:59:25.123456789+02:00")], V10,
     {"status": "TASK_STATE_CANCELED", "includeArtifacts": True,
      "statusTimestampAfter": "2025-04-02T16:59:25.123456789+02:00"}),
    ("/tasks/t1/pushNotificationConfigs", [("pageSize", "1"), ("pageSize", "2")], V10,
     {"taskId": "t1", "pageSize": 2}),  # the last repeat wins
    ("/tasks/t1", [("A2A-Version", "1.0"), ("foo", "bar"), ("id", "other"), ("tenant", "x")], V10,
     {"id": "t1"}),
    ("/v1/card", [("historyLength", "x")], V03, {}),  # not a field of this operation: ignored
])
def test_query_fields(path: str, query: list[tuple[str, str]], version: Version,
                      params: dict[str, Any]) -> None:
    assert _parse("GET", path, query, None, version).params == params


@pytest.mark.parametrize(("path", "query", "version", "at"), [
    ("/v1/tasks/t1", [("historyLength", "abc")], V03, "$.query.historyLength"),
    ("/v1/tasks/t1", [("history_length", "1.5")], V03, "$.query.history_length"),
    ("/tasks/t1", [("historyLength", "4294967296")], V10, "$.query.historyLength"),
    ("/tasks/t1", [("historyLength", "٣")], V10, "$.query.historyLength"),  # non-ASCII digit
    ("/tasks", [("status", "working")], V10, "$.query.status"),
    ("/tasks", [("status", "9")], V10, "$.query.status"),
    ("/tasks", [("includeArtifacts", "yes")], V10, "$.query.includeArtifacts"),
    ("/tasks", [("statusTimestampAfter", "yesterday")], V10, "$.query.statusTimestampAfter"),
    ("/tasks/t/pushNotificationConfigs", [("pageSize", "")], V10, "$.query.pageSize"),
])
def test_bad_query_values_name_their_parameter(path: str, query: list[tuple[str, str]], version: Version,
                                               at: str) -> None:
    with pytest.raises(TranslationError) as exc:
        _parse("GET", path, query, None, version)
    assert exc.value.path == at
    assert exc.value.http_status == 400


def test_build_query_spelling() -> None:
    out = rest.build(BY_NAME["list_tasks"], {"includeArtifacts": False, "status": 5, "pageToken": "",
                                             "historyLength": None}, V10)
    assert out.query == (("includeArtifacts", "false"), ("status", "5"), ("pageToken", ""))
    with pytest.raises(TranslationError) as exc:
        rest.build(BY_NAME["get_task"], {"id": "t", "metadata": {"a": 1}}, V10)
    assert exc.value.path == "$.metadata"


# ---- bodies -----------------------------------------------------------------------------------------

def test_proto_field_names_in_v03_body() -> None:
    """§9 case 33: `request`, snake_case members; free-form values (metadata, data) untouched."""
    body = {"request": {"message_id": "m", "context_id": "c", "role": "ROLE_USER",
                        "content": [{"data": {"data": {"snake_key": {"x_y": 1}}}},
                                    {"file": {"file_with_uri": "u", "mime_type": "t"},
                                     "metadata": {"a_b": 1}}],
                        "metadata": {"keep_me": 1}},
            "configuration": {"accepted_output_modes": ["a"], "push_notification": {"url": "u"},
                              "history_length": 1},
            "metadata": {"user_id": 7}}
    assert _parse("POST", "/v1/message:send", (), body, V03).params == {
        "message": {"messageId": "m", "contextId": "c", "role": "ROLE_USER",
                    "content": [{"data": {"data": {"snake_key": {"x_y": 1}}}},
                                {"file": {"fileWithUri": "u", "mimeType": "t"}, "metadata": {"a_b": 1}}],
                    "metadata": {"keep_me": 1}},
        "configuration": {"acceptedOutputModes": ["a"], "pushNotification": {"url": "u"}, "historyLength": 1},
        "metadata": {"user_id": 7},
    }


def test_proto_field_names_in_v10_body() -> None:
    body = {"message": {"message_id": "m", "reference_task_ids": ["t"], "parts": [{"data": {"a_b": [1]}}],
                        "extensions": ["x_y"]},
            "configuration": {"return_immediately": True, "task_push_notification_config": {"task_id": "t"}}}
    assert _parse("POST", "/message:send", (), body).params == {
        "message": {"messageId": "m", "referenceTaskIds": ["t"], "parts": [{"data": {"a_b": [1]}}],
                    "extensions": ["x_y"]},
        "configuration": {"returnImmediately": True, "taskPushNotificationConfig": {"taskId": "t"}},
    }
    # `request` is not a v1.0 name: left for the translator to reject
    assert _parse("POST", "/message:send", (), {"request": {}}).params == {"request": {}}


def test_json_name_wins_over_a_proto_name_spelling_the_same_member() -> None:
    params = _parse("POST", "/message:send", (), {"message": {"message_id": "a", "messageId": "b"}}).params
    assert params == {"message": {"message_id": "a", "messageId": "b"}}
    assert _parse("POST", "/v1/message:send", (), {"request": {}, "message": {}}, V03).params == {
        "request": {}, "message": {}}


def test_to_json_names_keeps_map_keys_and_free_form_values() -> None:
    card = {"security_schemes": {"my_oauth": {"oauth2_security_scheme": {"flows": {"client_credentials": {
        "token_url": "t", "scopes": {"read_all": "r"}}}}}},
        "security": [{"schemes": {"my_oauth": {"list": ["read_all"]}}}],
        "signatures": [{"header": {"k_id": 1}}], "capabilities": {"extensions": [{"params": {"a_b": 1}}]}}
    assert to_json_names(card, V10) == {
        "securitySchemes": {"my_oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
            "tokenUrl": "t", "scopes": {"read_all": "r"}}}}}},
        "security": [{"schemes": {"my_oauth": {"list": ["read_all"]}}}],
        "signatures": [{"header": {"k_id": 1}}], "capabilities": {"extensions": [{"params": {"a_b": 1}}]}}
    assert to_json_names({"status": {"update": {}}, "msg": {}, "_x": 1, "a__b": 2, "A_b": 3}, V03) == {
        "status": {"message": {}}, "message": {}, "_x": 1, "a__b": 2, "A_b": 3}
    assert to_json_names({"status": {"update": {}}, "msg": {}}, V10) == {"status": {"update": {}}, "msg": {}}


def test_deep_body_is_walked_without_recursion() -> None:
    levels = 480  # 2 containers a level: just under ujson's nesting limit, past Python's recursion limit
    body = b'{"message":' + b'{"a_b":[' * levels + b'{"x_y":1}' + b"]}" * levels + b"}"
    params = rest.parse("POST", "/message:send", [], body, version=V10).params
    node = params["message"]
    while "aB" in node:
        node = node["aB"][0]
    assert node == {"xY": 1}


@pytest.mark.parametrize(("method", "path", "version"), [
    ("GET", "/v1/tasks/t1", V03), ("DELETE", "/tasks/t/pushNotificationConfigs/c", V10),
    ("POST", "/v1/tasks/t1:cancel", V03), ("POST", "/v1/tasks/t1:subscribe", V03),
    ("POST", "/tasks/t1:subscribe", V10), ("GET", "/extendedAgentCard", V10),
])
def test_bodyless_operations_ignore_the_body(method: str, path: str, version: Version) -> None:
    call = _parse(method, path, (), b"not json at all", version)
    assert "metadata" not in call.params


@pytest.mark.parametrize("body", [b"", b"  \n", b"{}"])
def test_empty_post_body_is_an_empty_object(body: bytes) -> None:
    assert _parse("POST", "/tasks/t1:cancel", (), body).params == {"id": "t1"}


def test_path_members_win_over_body_members() -> None:
    """a2a-python's v1.0 client puts `id`/`taskId`/`tenant` in the body too."""
    assert _parse("POST", "/x/tasks/t1:cancel", (), {"id": "t2", "tenant": "y", "metadata": {}}).params == {
        "metadata": {}, "id": "t1", "tenant": "x"}
    assert _parse("POST", "/tasks/t1/pushNotificationConfigs", (), {"taskId": "t2", "url": "u"}).params == {
        "url": "u", "taskId": "t1"}


@pytest.mark.parametrize(("body", "error", "at"), [
    (b"{", MalformedEnvelope, ""),
    (b"\xff", MalformedEnvelope, ""),
    (b"[]", TranslationError, "$"),
    (b'"x"', TranslationError, "$"),
    (b"null", TranslationError, "$"),
    (b"[" * 5000 + b"]" * 5000, (MalformedEnvelope, LimitExceeded), ""),
])
def test_bad_bodies(body: bytes, error: Any, at: str) -> None:
    with pytest.raises(error) as exc:
        _parse("POST", "/v1/message:send", (), body, V03)
    assert exc.value.path == at


# ---- subscribe verbs and push-config create bodies -----------------------------------------------------

@pytest.mark.parametrize("version", [V03, V10])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_subscribe_by_get_and_post(method: str, version: Version) -> None:
    """§9 case 37."""
    path = "/v1/tasks/t1:subscribe" if version is V03 else "/tasks/t1:subscribe"
    call = _parse(method, path, (), None, version)
    assert call.op.name == "subscribe_to_task"
    assert call.params == ({"name": "tasks/t1"} if version is V03 else {"id": "t1"})


def test_subscribe_verb_toward_v03_follows_the_quirk() -> None:
    op = BY_NAME["subscribe_to_task"]
    assert rest.build(op, {"name": "tasks/t1"}, V03) == Outgoing("GET", "/v1/tasks/t1:subscribe", (), None)
    assert rest.build(op, {"name": "tasks/t1"}, V03, quirks=Quirks(rest_subscribe_verb="POST")) == Outgoing(
        "POST", "/v1/tasks/t1:subscribe", (), b'{"name":"tasks/t1"}')
    assert rest.build(op, {"id": "t1"}, V10, quirks=Quirks(rest_subscribe_verb="POST")).method == "GET"


CFG03 = {"name": "tasks/t1/pushNotificationConfigs/c1", "pushNotificationConfig": {"id": "c1", "url": "u"}}
REQ03 = {"parent": "tasks/t1", "configId": "c1", "config": CFG03}


@pytest.mark.parametrize(("body", "params"), [
    (CFG03, {"parent": "tasks/t1", "config": CFG03}),           # P03 / JS
    (REQ03, REQ03),                                              # PY03 / PY compat
    ({"parent": "tasks/zz", "config": CFG03}, {"parent": "tasks/t1", "config": CFG03}),  # path wins
    ({"pushNotificationConfig": {"url": "u"}}, {"parent": "tasks/t1", "config": {"pushNotificationConfig": {
        "url": "u"}}}),
    ({"config_id": "c1", "config": {"push_notification_config": {"url": "u"}}},
     {"parent": "tasks/t1", "configId": "c1", "config": {"pushNotificationConfig": {"url": "u"}}}),
])
def test_v03_push_create_accepts_both_bodies(body: dict[str, Any], params: dict[str, Any]) -> None:
    """§9 case 38; the result is always the P03 CreateTaskPushNotificationConfigRequest."""
    call = _parse("POST", "/v1/tasks/t1/pushNotificationConfigs", (), body, V03)
    assert call.params == params
    json_format.ParseDict(call.params, pb03.CreateTaskPushNotificationConfigRequest())
    assert translate("params.create_push_config", call.params, src=Dialect.V03REST, dst=Dialect.V10,
                     cx=Cx())["taskId"] == "t1"


@pytest.mark.parametrize("params", [CFG03, REQ03, {"config": CFG03}], ids=["config", "request", "unparented"])
@pytest.mark.parametrize(("form", "body"), [("config", CFG03), ("request", REQ03)])
def test_v03_push_create_body_follows_the_quirk(params: dict[str, Any], form: Any,
                                                body: dict[str, Any]) -> None:
    out = rest.build(BY_NAME["create_push_config"], params, V03, quirks=Quirks(rest_push_create_body=form))
    assert (out.method, out.path, json.loads(out.body or b"")) == (
        "POST", "/v1/tasks/t1/pushNotificationConfigs", body)


def test_v03_push_create_without_a_task_is_rejected() -> None:
    with pytest.raises(TranslationError) as exc:
        rest.build(BY_NAME["create_push_config"], {"pushNotificationConfig": {"url": "u"}}, V03)
    assert exc.value.path == "$.parent"
    with pytest.raises(TranslationError) as exc:
        rest.build(BY_NAME["create_push_config"], {"config": {"name": "tasks/t1"}}, V03)
    assert exc.value.path == "$.config.name"


# ---- path encoding ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "encoded"), [
    ("t 1", "t%201"), ("a:b", "a%3Ab"), ("ü%?#", "%C3%BC%25%3F%23"), ("x.y_z-~", "x.y_z-~"),
])
def test_path_values_are_percent_encoded_and_decoded(value: str, encoded: str) -> None:
    for version, params, path in [
        (V10, {"taskId": value, "id": value}, f"/tasks/{encoded}/pushNotificationConfigs/{encoded}"),
        (V03, {"name": f"tasks/{value}/pushNotificationConfigs/{value}"},
         f"/v1/tasks/{encoded}/pushNotificationConfigs/{encoded}"),
    ]:
        out = rest.build(BY_NAME["get_push_config"], params, version)
        assert out.path == path
        assert _parse("GET", path, version=version).params == params
    cancel = rest.build(BY_NAME["cancel_task"], {"id": value}, V10)
    assert cancel.path == f"/tasks/{encoded}:cancel"
    assert _parse("POST", cancel.path, version=V10).params == {"id": value}


def test_ids_ending_in_a_verb_are_ids_for_other_verbs() -> None:
    """As a2a-python (starlette) routes: GET /tasks/{x}:cancel is GetTask of `x:cancel`."""
    assert _parse("GET", "/tasks/t1:cancel").params == {"id": "t1:cancel"}
    assert _parse("POST", "/tasks/a:cancel:cancel").params == {"id": "a:cancel"}


@pytest.mark.parametrize(("path", "at"), [
    ("/tasks/a%2Fb", "$.path.id"),
    ("/v1/tasks/a%2Fb:cancel", "$.path.id"),
    ("/t%2Fx/tasks/a", "$.path.tenant"),
    ("/tasks/%FF", "$.path"),
])
def test_slashes_and_bad_encoding_in_path_values(path: str, at: str) -> None:
    with pytest.raises(TranslationError) as exc:
        _parse("GET" if "cancel" not in path else "POST", path)
    assert exc.value.path == at


@pytest.mark.parametrize(("op", "params", "version", "at"), [
    ("get_task", {}, V10, "$.id"),
    ("get_task", {"id": ""}, V10, "$.id"),
    ("get_task", {"id": 1}, V10, "$.id"),
    ("get_task", {"id": "a/b"}, V10, "$.id"),
    ("get_task", {"id": "t"}, V03, "$.name"),
    ("get_task", {"name": "tasks/a/b"}, V03, "$.name"),
    ("get_push_config", {"taskId": "t"}, V10, "$.id"),
    ("get_push_config", {"name": "tasks/t"}, V03, "$.name"),
    ("list_push_configs", {"name": "tasks/t"}, V03, "$.parent"),
    ("cancel_task", [], V10, "$"),
    ("send_message", {"tenant": "a/b"}, V10, "$.tenant"),
])
def test_build_needs_its_path_members(op: str, params: Any, version: Version, at: str) -> None:
    with pytest.raises(TranslationError) as exc:
        rest.build(BY_NAME[op], params, version)
    assert exc.value.path == at


def test_list_tasks_has_no_v03_route() -> None:
    with pytest.raises(UnsupportedOperation):
        rest.build(BY_NAME["list_tasks"], {}, V03)


def test_none_params_are_empty() -> None:
    assert rest.build(BY_NAME["get_extended_card"], None, V03) == Outgoing("GET", "/v1/card", (), None)


# ---- unknown routes and verbs ------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path", "version"), [
    ("GET", "/message:send", V03),          # v0.3 has only /v1 routes
    ("GET", "/tasks/t1", V03),
    ("GET", "/v2/tasks/t1", V03),
    ("GET", "/v1/tasks/t1/", V03),          # trailing slash
    ("GET", "/v1/tasks", V03),              # no v0.3 ListTasks
    ("GET", "/", V10),
    ("GET", "", V10),
    ("GET", "tasks", V10),
    ("GET", "//tasks", V10),                # empty tenant
    ("GET", "/a/b/tasks", V10),             # one tenant segment only
    ("GET", "/tasks/", V10),                # empty id
    ("POST", "/message:sendx", V10),
    ("GET", "/.well-known/agent-card.json", V10),
])
def test_unknown_routes_are_404(method: str, path: str, version: Version) -> None:
    with pytest.raises(UnknownOperation) as exc:
        _parse(method, path, version=version)
    assert exc.value.http_status == 404
    assert not isinstance(exc.value, MethodNotAllowed)


@pytest.mark.parametrize(("method", "path", "version", "allowed"), [
    ("GET", "/message:send", V10, ("POST",)),
    ("GET", "/v1/message:send", V03, ("POST",)),
    ("PUT", "/tasks/t1:subscribe", V10, ("GET", "POST")),
    ("DELETE", "/v1/tasks/t1/pushNotificationConfigs", V03, ("GET", "POST")),
    ("POST", "/acme/tasks", V10, ("GET",)),
    ("get", "/tasks/t1", V10, ("GET",)),    # verbs are case-sensitive
    ("PATCH", "/v1/card", V03, ("GET",)),
    ("POST", "/tasks/:cancel", V10, ("GET",)),  # no empty id to cancel; GetTask of `:cancel` exists
])
def test_wrong_verb_is_405(method: str, path: str, version: Version, allowed: tuple[str, ...]) -> None:
    with pytest.raises(MethodNotAllowed) as exc:
        _parse(method, path, version=version)
    assert exc.value.http_status == 405
    assert exc.value.allowed == allowed
    assert isinstance(exc.value, UnknownOperation)
    assert "not allowed" in exc.value.message


# ---- replies ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version", "codes", "status"), [
    ("send_message", V03, "200", 200), ("send_message", V03, "js", 201),
    ("create_push_config", V03, "js", 201), ("delete_push_config", V03, "js", 204),
    ("delete_push_config", V03, "200", 200), ("get_task", V03, "js", 200),
    ("send_streaming_message", V03, "js", 200),
    ("send_message", V10, "js", 200), ("delete_push_config", V10, "js", 200),
])
def test_success_status(op: str, version: Version, codes: Any, status: int) -> None:
    assert rest.success_status(BY_NAME[op], version, Quirks(rest_success_codes=codes)) == status


def test_reply_body() -> None:
    delete, task = BY_NAME["delete_push_config"], BY_NAME["get_task"]
    assert rest.reply_body(delete, V03, {}, 204) == b""
    assert rest.reply_body(delete, V03, {}, 200) == b"{}"
    assert rest.reply_body(delete, V10, None, 200) == b"{}"
    assert rest.reply_body(task, V10, {"id": "t/ü"}, 200) == '{"id":"t/ü"}'.encode()


@pytest.mark.parametrize("body", [b"", b" ", b"{}", b"null", b" {} "])
@pytest.mark.parametrize("version", [V03, V10])
def test_empty_delete_result_is_none(body: bytes, version: Version) -> None:
    assert rest.result_from_body(BY_NAME["delete_push_config"], version, body) is None


@pytest.mark.parametrize(("op", "body"), [
    ("get_task", b""), ("get_task", b"{"), ("get_task", b"[]"), ("get_task", b"null"),
    ("delete_push_config", b"[1]"), ("send_message", b"[" * 5000),
])
def test_bad_result_bodies_are_the_agents_fault(op: str, body: bytes) -> None:
    with pytest.raises(InvalidAgentResponse):
        rest.result_from_body(BY_NAME[op], V10, body)


def test_result_proto_names_are_read() -> None:
    body = json.dumps({"msg": {"message_id": "m", "content": [{"data": {"data": {"a_b": 1}}}]}}).encode()
    assert rest.result_from_body(BY_NAME["send_message"], V03, body) == {
        "message": {"messageId": "m", "content": [{"data": {"data": {"a_b": 1}}}]}}
    task = json.dumps({"id": "t", "context_id": "c", "status": {"state": "TASK_STATE_WORKING", "update": {}},
                       "metadata": {"k_v": 1}}).encode()
    assert rest.result_from_body(BY_NAME["get_task"], V03, task) == {
        "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING", "message": {}},
        "metadata": {"k_v": 1}}
    assert rest.result_from_body(BY_NAME["get_task"], V10, task)["status"] == {
        "state": "TASK_STATE_WORKING", "update": {}}
    # the card translator reads proto names itself (and notes them)
    card = b'{"security_schemes": {}, "name": "a"}'
    assert rest.result_from_body(BY_NAME["get_extended_card"], V03, card) == {
        "security_schemes": {}, "name": "a"}


# ---- fuzz ---------------------------------------------------------------------------------------------

_segment = st.sampled_from(["v1", "tasks", "message:send", "message:stream", "card", "extendedAgentCard",
                            "pushNotificationConfigs", "t1", "t1:cancel", "t1:subscribe", ":cancel", "",
                            "%2F", "%FF", "%C3%BC", "a%3Ab"]) | st.text(max_size=6)
_path = st.one_of(st.text(max_size=30), st.lists(_segment, max_size=6).map(lambda s: "/" + "/".join(s)))
_query_name = st.sampled_from(["historyLength", "history_length", "status", "pageSize", "includeArtifacts",
                               "statusTimestampAfter", "x"]) | st.text(max_size=4)
_query = st.lists(st.tuples(_query_name, st.text(max_size=8)), max_size=4)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["message", "request", "config", "parent", "metadata", "data", "a_b", "_", "status",
                         "update", "msg", "schemes"]) | st.text(max_size=5), inner, max_size=3),
    max_leaves=12)
_body = st.binary(max_size=40) | _json.map(lambda v: json.dumps(v).encode())


@given(st.sampled_from(["GET", "POST", "DELETE", "PUT", "get", ""]), _path, _query, _body,
       st.sampled_from(list(Version)))
def test_fuzz_parse_returns_a_call_or_raises_our_error(method: str, path: str, query: list[tuple[str, str]],
                                                      body: bytes, version: Version) -> None:
    try:
        call = rest.parse(method, path, query, body, version=version)
    except GatewayError:
        return
    assert isinstance(call.params, dict)
    assert call.version is version
    if version is V03:
        assert path.startswith("/v1/") and call.tenant == ""


@given(st.sampled_from(OPERATIONS), _json, st.sampled_from(list(Version)), st.text(max_size=4))
def test_fuzz_build_returns_a_request_or_raises_our_error(op: Any, params: Any, version: Version,
                                                          tenant: str) -> None:
    try:
        out = rest.build(op, params, version, tenant=tenant)
    except GatewayError:
        return
    assert out.path.startswith("/")
    assert (out.body is None) == (out.method != "POST")


def test_tables_hold_every_route_once() -> None:
    for version, table in TABLES.items():
        flat = [(r.verb, r.template) for routes in table.values() for r in routes]
        assert sorted(flat) == sorted(route for op in OPERATIONS for route in op.routes(version))


@pytest.mark.parametrize(("python_sdk", "body"), [(True, REQ03), (False, CFG03)])
def test_v03_push_create_body_auto_is_made_per_agent(python_sdk: bool, body: dict[str, Any]) -> None:
    quirks = Quirks().for_agent(python_sdk)
    out = rest.build(BY_NAME["create_push_config"], CFG03, V03, quirks=quirks)
    assert json.loads(out.body or b"") == body
    assert Quirks(rest_push_create_body="config").for_agent(True).rest_push_create_body == "config"  # pinned
    # "auto" that no agent made a choice for sends the proto's shape
    assert json.loads(rest.build(BY_NAME["create_push_config"], CFG03, V03).body or b"") == CFG03
