"""core.bindings.protojson: proto field names read as JSON names, by the v1.0 proto's descriptors, free-form
values untouched, the JSON spelling winning when both are given, nothing copied when nothing is renamed."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gateway.core.bindings.protojson import json_names, may_have_proto_names
from gateway.core.operations import by_name


def test_nested_messages_are_renamed_free_form_values_are_not() -> None:
    params = {"message": {"message_id": "m", "task_id": "t", "parts": [{"text": "x", "media_type": "text/plain",
                                                                        "metadata": {"a_b": 1}}],
                          "metadata": {"x_y": {"c_d": 2}}},
              "configuration": {"history_length": 1, "accepted_output_modes": ["text/plain"],
                                "task_push_notification_config": {"task_id": "t", "url": "u"}}}
    assert json_names(by_name("send_message"), params) == {
        "message": {"messageId": "m", "taskId": "t", "parts": [{"text": "x", "mediaType": "text/plain",
                                                                "metadata": {"a_b": 1}}],
                    "metadata": {"x_y": {"c_d": 2}}},
        "configuration": {"historyLength": 1, "acceptedOutputModes": ["text/plain"],
                          "taskPushNotificationConfig": {"taskId": "t", "url": "u"}}}


def test_per_operation_request_messages() -> None:
    assert json_names(by_name("list_tasks"), {"context_id": "c", "page_size": 2, "include_artifacts": True}) == {
        "contextId": "c", "pageSize": 2, "includeArtifacts": True}
    assert json_names(by_name("get_push_config"), {"task_id": "t", "id": "p"}) == {"taskId": "t", "id": "p"}


def test_json_names_win_and_unchanged_params_are_not_copied() -> None:
    assert json_names(by_name("get_task"), {"id": "t", "historyLength": 2, "history_length": 9}) == {
        "id": "t", "historyLength": 2}
    params = {"id": "t", "historyLength": 2, "unknown_member": 1}
    assert json_names(by_name("get_task"), params) is params
    assert json_names(by_name("get_task"), None) is None


def test_the_body_sniff() -> None:
    assert may_have_proto_names(b'{"params": {"history_length": 1}}')
    assert may_have_proto_names(b'{"params": {"x_": 1}}') and may_have_proto_names(b'{"a__b" : 1}')
    assert not may_have_proto_names(b'{"role": "ROLE_USER", "state": "TASK_STATE_WORKING"}')
    assert not may_have_proto_names(b'{"text": "snake_case in a value"}')


@given(st.text(st.sampled_from('ab_Z1" :{}'), max_size=40))
def test_the_look_for_proto_names_is_the_names_pattern(text: str) -> None:
    body = text.encode()
    assert may_have_proto_names(body) is bool(re.search(rb'"[a-z][a-z0-9]*_[a-z0-9_]*"\s*:', body))
