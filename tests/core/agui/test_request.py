"""RunAgentInput reading and the A2A call a run makes (agui-a2ui.md §4 cases 1-23, 50): validation
details, which messages are forwarded, user content as parts, actions per A2UI version, ids."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.core.agui import a2ui, inputs
from gateway.core.agui.request import Options, new_user_messages, user_parts
from gateway.core.agui.session import ThreadSession
from tests.core.agui.conformance import validate
from tests.core.agui.helpers import (
    NOW,
    PLAIN,
    V09,
    V10,
    Driver,
    action,
    body,
    create,
    delete,
    status,
    ui,
    user,
)


def _parse(value: Any) -> inputs.RunInput:
    return inputs.parse(value if isinstance(value, bytes) else json.dumps(value).encode())


def _error(value: Any) -> inputs.InputError:
    with pytest.raises(inputs.InputError) as info:
        _parse(value)
    return info.value


def test_not_json_is_400() -> None:  # case 1
    err = _error(b"{nope")
    assert (err.status, err.code) == (400, "agui.invalid_json")
    assert err.body()["error"]["code"] == "agui.invalid_json"


@pytest.mark.parametrize("value", [[1], 3, "x", None])
def test_non_objects_are_422(value: Any) -> None:  # case 2
    assert _error(value).status == 422


def test_missing_members_are_listed_by_loc() -> None:  # case 3
    err = _error({})
    assert (err.status, err.code) == (422, "agui.invalid_input")
    assert [d["loc"] for d in err.details] == [["threadId"], ["runId"], ["messages"]]
    assert err.body()["error"]["details"][0] == {
        "loc": ["threadId"],
        "msg": "Field required",
        "type": "missing",
    }


@pytest.mark.parametrize("field", ["threadId", "runId"])
def test_empty_ids_are_422(field: str) -> None:  # case 4
    assert _error(body(**{field: " "})).details == [
        {"loc": [field], "msg": "String should have at least 1 character", "type": "string_too_short"}
    ]


@pytest.mark.parametrize(
    "bad,loc",
    [
        ({"messages": "x"}, ["messages"]),
        ({"messages": [3]}, ["messages", 0]),
        ({"messages": [{"role": "user", "content": "x"}]}, ["messages", 0, "id"]),
        ({"messages": [{"id": 1, "role": "user", "content": "x"}]}, ["messages", 0, "id"]),
        ({"messages": [{"id": "a", "role": "robot"}]}, ["messages", 0, "role"]),
        ({"messages": [{"id": "a", "role": "user", "content": 5}]}, ["messages", 0, "content"]),
        ({"tools": {}}, ["tools"]),
        ({"threadId": 5}, ["threadId"]),
    ],
)
def test_bad_shapes_name_their_loc(bad: dict[str, Any], loc: list[Any]) -> None:
    assert _error({**body(), **bad}).details[0]["loc"] == loc


def test_both_generations_and_extra_members_are_accepted() -> None:  # cases 5, 6
    old = _parse(body(user("hi"), v1=False, extra="x"))
    new = _parse(body(user("hi"), state=None, parentRunId="p", unknown={"a": 1}))
    assert (old.protocol10, new.protocol10) == (False, True)
    assert not _parse(body(user("hi"), v1=False, protocolVersion="0.9")).protocol10
    assert _parse(body(user("hi"), v1=False, protocolVersion="1.1.0")).protocol10


def test_no_messages_and_no_action_makes_no_call() -> None:  # case 9
    d = Driver(body())
    assert d.call is None and d.types() == ["RUN_STARTED", "RUN_FINISHED"]
    validate(d.events)


def test_last_message_not_from_the_user_makes_no_call() -> None:  # case 10
    d = Driver(body(user("hi"), {"id": "a1", "role": "assistant", "content": "hello"}))
    assert d.call is None and d.types() == ["RUN_STARTED", "RUN_FINISHED"]


def test_user_content_parts() -> None:  # case 11
    content = [
        {"type": "text", "text": "look"},
        {"type": "text", "text": "  "},
        {"type": "image", "source": {"type": "url", "value": "https://x/a.png", "mimeType": "image/png"}},
        {"type": "document", "source": {"type": "data", "value": "aGk=", "mimeType": "application/pdf"}},
        {"type": "binary", "mimeType": "text/plain", "data": "aGk=", "filename": "a.txt"},
        {"type": "binary", "mimeType": "image/png", "url": "https://x/b.png"},
        {"type": "binary", "mimeType": "image/png", "id": "upload-1"},
        {"type": "binary", "url": "https://x/c"},
        {"type": "image", "source": {"type": "url", "value": "https://x/d"}},
        {"type": "image", "source": "nope"},
        {"type": "audio"},
        7,
    ]
    assert user_parts(content) == [
        {"text": "look"},
        {"url": "https://x/a.png", "mediaType": "image/png"},
        {"raw": "aGk=", "mediaType": "application/pdf"},
        {"raw": "aGk=", "mediaType": "text/plain", "filename": "a.txt"},
        {"url": "https://x/b.png", "mediaType": "image/png"},
        {"url": "https://x/c"},
        {"url": "https://x/d"},
    ]
    assert user_parts("") == [] and user_parts(None) == []


def test_only_new_user_messages_are_forwarded() -> None:  # cases 12, 22
    history = [
        user("a", "u1"),
        {"id": "s", "role": "system", "content": "x"},
        {"id": "r", "role": "reasoning", "content": "x"},
        {"id": "act", "role": "activity", "content": {}},
        user("b", "u2"),
        user("c", "u3"),
    ]
    assert [m["id"] for m in new_user_messages(history, "u1")] == ["u2", "u3"]
    assert [m["id"] for m in new_user_messages(history, None)] == ["u3"]
    assert new_user_messages(history, "u3") == []
    d = Driver(body(*history))
    assert d.message["parts"] == [{"text": "c"}] and d.message["messageId"] == "u3"


def test_the_call_carries_modes_metadata_and_the_extension() -> None:
    d = Driver(body(user("hi")))
    assert d.call is not None and d.call.operation == "send_streaming_message"
    assert d.call.extensions == ("https://a2ui.org/a2a-extension/a2ui/v1.0",)
    assert d.message == {
        "messageId": "u1",
        "role": "ROLE_USER",
        "parts": [{"text": "hi"}],
        "extensions": ["https://a2ui.org/a2a-extension/a2ui/v1.0"],
    }
    assert d.call.params["metadata"] == {"ag-ui": {"threadId": "th", "runId": "r1"}}
    assert "application/a2ui+json" in d.call.params["configuration"]["acceptedOutputModes"]


def test_a_non_streaming_agent_gets_a_blocking_send() -> None:
    d = Driver(body(user("hi")), agent=type(V10)(streaming=False, a2ui=None))
    assert d.call is not None and d.call.operation == "send_message" and d.call.extensions == ()


def test_catalog_from_copilotkit_context_becomes_client_capabilities() -> None:
    ctx = [
        {
            "description": "A2UI Component Schema — available components for generating UI surfaces.",
            "value": json.dumps({"catalogId": "cat-1", "components": {}}),
        },
        {"description": "A2UI Component Schema — again", "value": json.dumps({"catalogId": "cat-1"})},
        {"description": "A2UI Component Schema — broken", "value": "{"},
        {"description": "other", "value": "x"},
    ]
    d = Driver(body(user("hi"), context=ctx))
    assert d.message["metadata"] == {"a2uiClientCapabilities": {"v1.0": {"supportedCatalogIds": ["cat-1"]}}}
    v08 = a2ui.client_capabilities(a2ui.PROFILES["v0.8"], ctx)
    assert v08 == {"supportedCatalogIds": ["cat-1"]}


def _surface_session(*messages: dict[str, Any], mime: str = a2ui.MIME) -> ThreadSession:
    session = ThreadSession(context_id="C1", task_id="T1", task_state="TASK_STATE_INPUT_REQUIRED")
    session.surfaces.apply(list(messages), mime)
    return session


def test_action_on_a_v09_surface() -> None:  # case 13
    session = _surface_session(create("s1", "v0.9"), mime=a2ui.MIME_LEGACY)
    session.last_forwarded = "u1"
    d = Driver(
        body(
            user("old"),
            forwardedProps=action(
                sourceComponentId="btn", timestamp="2026-10-01T12:00:00Z", context={"size": 2}
            ),
        ),
        session,
        agent=V09,
    )
    assert d.message["taskId"] == "T1" and d.message["contextId"] == "C1"
    assert d.message["parts"] == [
        {
            "data": {
                "version": "v0.9",
                "action": {
                    "name": "book",
                    "surfaceId": "s1",
                    "sourceComponentId": "btn",
                    "timestamp": "2026-10-01T12:00:00Z",
                    "context": {"size": 2},
                },
            },
            "mediaType": "application/json+a2ui",
            "metadata": {"mimeType": "application/json+a2ui"},
        }
    ]


def test_action_on_a_v10_surface_is_completed() -> None:  # cases 14, 21
    session = _surface_session(create("s1"))
    d = Driver(body(forwardedProps=action(context={})), session)
    (part,) = d.message["parts"]
    assert part["data"] == {
        "version": "v1.0",
        "action": {
            "name": "book",
            "surfaceId": "s1",
            "sourceComponentId": "unknown",
            "timestamp": a2ui.rfc3339(NOW),
            "context": {},
        },
    }
    assert part["mediaType"] == part["metadata"]["mimeType"] == "application/a2ui+json"
    assert d.message["messageId"].startswith("agui-") and "text" not in part


def test_action_on_a_v08_surface_and_action_name_alias() -> None:  # cases 15, 16
    v08 = {"surfaceUpdate": {"surfaceId": "s1", "components": []}}
    session = _surface_session(v08, mime=a2ui.MIME_LEGACY)
    fp = {"a2uiAction": {"userAction": {"actionName": "go", "surfaceId": "s1", "sourceComponentId": "b"}}}
    d = Driver(body(forwardedProps=fp), session)
    data = d.message["parts"][0]["data"]
    assert set(data) == {"userAction"} and data["userAction"]["name"] == "go"


@pytest.mark.parametrize(
    "fp",
    [
        {"a2uiAction": {}},
        {"a2uiAction": {"userAction": {"name": "x"}}},
        {"a2uiAction": {"userAction": {"surfaceId": "s"}}},
        {"a2uiAction": {"userAction": {"name": "x", "surfaceId": "s", "context": 1}}},
        {"a2uiAction": {"userAction": {"name": "x", "surfaceId": "s", "sourceComponentId": 1}}},
        {"a2uiAction": "x"},
    ],
)
def test_broken_actions_are_422(fp: dict[str, Any]) -> None:  # case 17
    err = _error(body(forwardedProps=fp))
    assert (err.status, err.code) == (422, "a2ui.invalid_action")


@pytest.mark.parametrize("fp", ["x", [1], None])
def test_forwarded_props_that_are_not_objects_mean_no_action(fp: Any) -> None:  # case 18
    assert _parse(body(user("hi"), forwardedProps=fp)).action is None


def test_unknown_surface_lenient_and_strict() -> None:  # case 19
    lenient = Driver(body(forwardedProps=action(surface="nope")))
    warning = next(e for e in lenient.events if e["type"] == "CUSTOM")
    assert warning["name"] == "a2ui.warning" and warning["value"]["code"] == "a2ui.unknown_surface"
    assert lenient.message["parts"][0]["data"]["version"] == "v1.0"
    strict = Driver(body(forwardedProps=action(surface="nope")), options=Options(unknown_surface="strict"))
    assert strict.call is None and strict.types() == ["RUN_STARTED", "RUN_ERROR"]
    assert strict.events[-1]["code"] == "a2ui.unknown_surface"


def test_deleted_surface_lenient_and_strict() -> None:  # case 20
    session = _surface_session(create("s1", "v0.9"), delete("s1", "v0.9"), mime=a2ui.MIME_LEGACY)
    strict = Driver(body(forwardedProps=action()), session, options=Options(unknown_surface="strict"))
    assert strict.events[-1]["code"] == "a2ui.surface_deleted"
    lenient = Driver(body(forwardedProps=action()), session)
    assert lenient.message["parts"][0]["data"]["version"] == "v0.9"  # the deleted surface's own version


def test_agent_without_a2ui_gets_no_extension_and_a_text_fallback() -> None:  # case 23
    session = _surface_session(create("s1"))
    d = Driver(body(forwardedProps=action(context={"n": 1})), session, agent=PLAIN)
    assert "extensions" not in d.message and d.call is not None and d.call.extensions == ()
    assert d.message["parts"][1] == {"text": 'User performed action "book" on surface "s1". Context: {"n":1}'}


def test_action_plus_typed_text_goes_in_one_message() -> None:
    session = _surface_session(create("s1"))
    d = Driver(body(user("and two please"), forwardedProps=action()), session)
    assert [next(iter(p)) for p in d.message["parts"]] == ["data", "text"]
    assert d.message["messageId"] == "u1"


@pytest.mark.parametrize(
    "encoding,expect",
    [
        ("bare", {"name", "surfaceId", "sourceComponentId", "timestamp", "context"}),
        ("v0.8", {"userAction"}),
        ("v0.10", {"version", "action"}),
    ],
)
def test_forced_action_encodings(encoding: str, expect: set[str]) -> None:
    session = _surface_session(create("s1"))
    d = Driver(body(forwardedProps=action()), session, options=Options(action_encoding=encoding))
    data = d.message["parts"][0]["data"]
    assert set(data) == expect


def test_want_response_is_kept_for_v10_only() -> None:
    session = _surface_session(create("s1"))
    assert (
        Driver(body(forwardedProps=action(wantResponse=True)), session).message["parts"][0]["data"]["action"][
            "wantResponse"
        ]
        is True
    )
    old = _surface_session(create("s1", "v0.9"), mime=a2ui.MIME_LEGACY)
    assert (
        "wantResponse"
        not in Driver(body(forwardedProps=action(wantResponse=True)), old).message["parts"][0]["data"][
            "action"
        ]
    )


def test_contextid_thread_mode_sends_the_thread_id() -> None:  # case 50
    d = Driver(body(user("hi"), thread="my-thread"), options=Options(contextid_mode="thread"))
    assert d.message["contextId"] == "my-thread"
    d.feed(status("completed", mid="m", ctx="server-ctx"))
    assert d.session.context_id is None


def test_action_validates_against_the_a2ui_v10_schema_shape() -> None:  # case 14
    session = _surface_session(create("s1"))
    data = Driver(body(forwardedProps=action()), session).message["parts"][0]["data"]
    required = {"name", "surfaceId", "sourceComponentId", "timestamp", "context"}
    assert data["version"] == "v1.0" and required <= set(data["action"])
    assert isinstance(data["action"]["timestamp"], str) and data["action"]["timestamp"].endswith("Z")


def test_surface_mime_is_kept_for_actions() -> None:
    session = ThreadSession()
    d = Driver(body(user("go")), session)
    d.feed(status("input-required", ui(create("s1", "v0.9"), mime=a2ui.MIME)))
    assert session.surfaces.live["s1"].profile.version == "v0.9.1"
