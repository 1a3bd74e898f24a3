"""Push configs beyond the goldens: resource names, the config id a name and a body must agree on, the
id v1.0 servers default, one authentication scheme."""

from __future__ import annotations

import pytest

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.translate.push_config import config_name, parse_config_name, parse_task_name
from gateway.core.types import V03REST, V03RPC, V10


def test_resource_names() -> None:
    assert config_name("t", "c", "$") == "tasks/t/pushNotificationConfigs/c"
    assert parse_config_name("tasks/t/pushNotificationConfigs/c", "$") == ("t", "c")
    assert parse_task_name("tasks/t", "$") == "t"
    for bad in ("tasks/t", "tasks//pushNotificationConfigs/c", 7):
        with pytest.raises(TranslationError):
            parse_config_name(bad, "$.name")
    with pytest.raises(TranslationError):
        config_name("a/b", "c", "$")


def test_a_name_and_a_body_must_name_the_same_config() -> None:
    body = {"name": "tasks/t/pushNotificationConfigs/c1", "pushNotificationConfig": {"id": "c2", "url": "u"}}
    with pytest.raises(TranslationError) as caught:
        translate("task_push_config", body, src=V03REST, dst=V10, cx=Cx())
    assert caught.value.path == "$.name"


def test_a_config_id_defaults_to_the_task_id_in_a_resource_name() -> None:
    cx = Cx()
    out = translate("task_push_config", {"taskId": "t", "url": "u"}, src=V10, dst=V03REST, cx=cx)
    assert out == {"name": "tasks/t/pushNotificationConfigs/t", "pushNotificationConfig": {"url": "u"}}
    assert [(n.code, n.path) for n in cx.notes] == [("filled_required", "$.id")]
    assert translate("task_push_config", {"taskId": "t", "url": "u"}, src=V10, dst=V03RPC, cx=Cx()) == \
        {"taskId": "t", "pushNotificationConfig": {"url": "u"}}


def test_v10_carries_one_authentication_scheme() -> None:
    cx = Cx()
    cfg = {"url": "u", "authentication": {"schemes": ["Bearer", "Basic"], "credentials": "k"}}
    out = translate("push_config", cfg, src=V03RPC, dst=V10, cx=cx)
    assert out["authentication"] == {"scheme": "Bearer", "credentials": "k"}
    assert [n.code for n in cx.notes] == ["auth_schemes_truncated"]
