"""Transcript tests of AguiRun: v1.0 A2A items in, AG-UI events out (agui-a2ui.md §4, cases 24-45),
each transcript validated with ag-ui-protocol and the client lifecycle rules."""

from __future__ import annotations

import pytest

from gateway.core.agui.request import Options
from gateway.core.agui.session import ThreadSession
from tests.core.agui.conformance import snapshots, texts, validate
from tests.core.agui.helpers import (
    Driver,
    artifact,
    body,
    create,
    delete,
    message,
    status,
    task,
    text,
    ui,
    update,
    user,
)


def test_working_then_input_required_paints_two_surfaces_and_next_run_continues() -> None:  # case 24
    d = Driver(body(user("show")))
    events = d.feed(
        task(),
        status("working", text("Looking"), mid="m1"),
        status(
            "input-required", text("Pick one"), ui(create("s1")), ui(create("s2")), ui(update("s1")), mid="m2"
        ),
    )
    validate(events, protocol10=True)
    assert texts(events) == {"m1": "Looking", "m2": "Pick one"}
    assert snapshots(events) == [
        ("a2ui-surface-s1", [create("s1"), update("s1")]),
        ("a2ui-surface-s2", [create("s2")]),
    ]
    assert events[-1] == {
        "type": "RUN_FINISHED",
        "threadId": "th",
        "runId": "r1",
        "outcome": {"type": "success"},
    }
    assert {
        "type": "CUSTOM",
        "name": "a2a.task",
        "value": {"taskId": "T1", "contextId": "C1", "state": "input-required"},
    } in events
    nxt = Driver(body(user("show"), user("more", mid="u2"), run="r2"), d.session)
    assert nxt.message["taskId"] == "T1" and nxt.message["contextId"] == "C1"
    assert nxt.message["parts"] == [{"text": "more"}]


def test_surfaces_in_one_message_are_snapshotted_in_first_touched_order() -> None:  # case 25
    d = Driver(body(user("go")))
    d.feed(status("input-required", ui(create("s1"), create("s2"), update("s1"), as_list=True)))
    activity = [e for e in d.events if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert [e["messageId"] for e in activity] == ["a2ui-surface-s1", "a2ui-surface-s2"]
    assert activity[0] == {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": "a2ui-surface-s1",
        "activityType": "a2ui-surface",
        "content": {"a2ui_operations": [create("s1"), update("s1")]},
        "replace": True,
    }


def test_each_status_update_resnapshots_only_the_surfaces_it_touched() -> None:  # case 26
    d = Driver(body(user("go")))
    d.feed(
        status("working", ui(create("s1")), mid="a"),
        status("working", ui(create("s2")), mid="b"),
        status("input-required", ui(update("s2")), mid="c"),
    )
    assert [s[0] for s in snapshots(d.events)] == ["a2ui-surface-s1", "a2ui-surface-s2", "a2ui-surface-s2"]
    assert snapshots(d.events)[-1][1] == [create("s2"), update("s2")]


def test_a_later_run_resends_the_whole_surface_log() -> None:  # case 27
    d = Driver(body(user("go")))
    d.feed(status("input-required", ui(create("s1")), ui(update("s1", n=1))))
    d2 = Driver(body(user("go"), user("again", mid="u2"), run="r2"), d.session)
    d2.feed(status("input-required", ui(update("s1", n=2)), mid="m9"))
    assert snapshots(d2.events) == [("a2ui-surface-s1", [create("s1"), update("s1", n=1), update("s1", n=2)])]


def test_delete_ends_a_surface_and_a_recreate_starts_a_fresh_log() -> None:  # case 28
    d = Driver(body(user("go")))
    d.feed(
        status("working", ui(create("s1")), ui(update("s1")), mid="a"),
        status("working", ui(delete("s1")), mid="b"),
        status("input-required", ui(create("s1")), mid="c"),
    )
    assert snapshots(d.events)[1] == ("a2ui-surface-s1", [create("s1"), update("s1"), delete("s1")])
    assert snapshots(d.events)[2] == ("a2ui-surface-s1", [create("s1")])


def test_delete_of_an_unknown_surface_still_reaches_the_client() -> None:
    d = Driver(body(user("go")))
    d.feed(status("completed", ui(delete("ghost"))))
    assert snapshots(d.events) == [("a2ui-surface-ghost", [delete("ghost")])]
    assert "ghost" not in d.session.surfaces.live


@pytest.mark.parametrize(
    "part",
    [
        ui(create("s1"), as_list=True),  # list data
        ui(create("s1")),  # object data, mediaType
        ui(create("s1"), mime="application/json+a2ui", where="metadata"),  # legacy type in metadata
        ui(create("s1"), mime="application/json+a2ui", where="mimeType"),  # @ag-ui/a2a's top-level mimeType
        ui(create("s1", version="v0.9"), mime=None),  # no media type (a2ui-elixir)
    ],
    ids=["list", "object", "legacy-metadata", "toplevel-mimetype", "sniffed"],
)
def test_a2ui_is_recognised_in_every_encoding(part: dict[str, object]) -> None:  # case 29
    d = Driver(body(user("go")))
    d.feed(status("input-required", part))
    assert [s[0] for s in snapshots(d.events)] == ["a2ui-surface-s1"]


def test_plain_data_and_files_become_namespaced_custom_events() -> None:  # case 29
    d = Driver(body(user("go")))
    d.feed(
        status(
            "completed",
            {"data": {"answer": 42}},
            {"url": "https://x/y.png", "mediaType": "image/png"},
            {"raw": "aGVsbG8=", "filename": "h.txt"},
            mid="m1",
        )
    )
    custom = [(e["name"], e["value"]) for e in d.events if e["type"] == "CUSTOM" and e["name"] != "a2a.task"]
    assert custom == [
        ("a2a.data", {"data": {"answer": 42}, "messageId": "m1"}),
        ("a2a.file", {"url": "https://x/y.png", "mediaType": "image/png", "messageId": "m1"}),
        ("a2a.file", {"filename": "h.txt", "size": 6, "messageId": "m1"}),
    ]
    assert not snapshots(d.events)
    validate(d.events)


def test_sniffing_off_leaves_untyped_a2ui_as_data() -> None:
    d = Driver(body(user("go")), options=Options(a2ui_sniff=False))
    d.feed(status("completed", ui(create("s1"), mime=None)))
    assert not snapshots(d.events)
    assert any(e.get("name") == "a2a.data" for e in d.events)


def test_surfaceless_a2ui_messages_are_custom_events() -> None:  # case 30
    call = {"version": "v0.10", "callFunction": {"name": "openUrl", "args": {}}}
    d = Driver(body(user("go")))
    d.feed(status("completed", ui(call)))
    assert {
        "type": "CUSTOM",
        "name": "a2ui.message",
        "value": {"message": call, "version": "v0.10"},
    } in d.events


def test_artifact_chunks_are_one_text_message() -> None:  # case 31
    d = Driver(body(user("go")))
    d.feed(
        task("working"),
        artifact("a1", text("Hello")),
        artifact("a1", text(", world"), append=True),
        artifact("a1", text("!"), append=True, last=True),
        status("completed"),
    )
    assert texts(d.events) == {"artifact:T1:a1": "Hello, world!"}
    types = d.types()
    assert types.index("TEXT_MESSAGE_END") < types.index("RUN_FINISHED")
    validate(d.events)


def test_an_artifact_never_closed_is_closed_before_the_end() -> None:  # case 31
    d = Driver(body(user("go")))
    d.feed(artifact("a1", text("partial")), status("completed"))
    assert d.types()[-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]


def test_artifact_carrying_a2ui_is_rendered() -> None:  # case 32
    d = Driver(body(user("go")))
    d.feed(artifact("ui", ui(create("s1")), last=True), status("completed"))
    assert [s[0] for s in snapshots(d.events)] == ["a2ui-surface-s1"]


def test_empty_or_blank_text_has_no_events() -> None:  # case 33
    d = Driver(body(user("go")))
    d.feed(
        status("working", text(""), mid="a"), status("working", text("  \n"), mid="b"), status("completed")
    )
    assert "TEXT_MESSAGE_START" not in d.types()


def test_cumulative_text_of_one_message_becomes_deltas_and_rewrites_a_new_message() -> None:  # case 34
    d = Driver(body(user("go")))
    d.feed(
        status("working", text("Hel"), mid="m1"),
        status("working", text("Hello"), mid="m1"),
        status("working", text("Hello"), mid="m1"),
        status("working", text("Bye"), mid="m1"),
        status("completed"),
    )
    assert texts(d.events) == {"m1": "Hello", "m1#2": "Bye"}
    validate(d.events)


def test_failed_task_ends_with_run_error_carrying_the_status_text() -> None:  # case 35
    d = Driver(body(user("go")))
    d.feed(status("working", text("trying"), mid="a"), status("failed", text("quota exceeded"), mid="b"))
    assert d.events[-1] == {"type": "RUN_ERROR", "message": "quota exceeded", "code": "a2a.task_failed"}
    assert "quota exceeded" not in texts(d.events).values()
    validate(d.events)
    assert d.session.task_id is None


def test_rejected_task_ends_with_run_error() -> None:  # case 36
    d = Driver(body(user("go")))
    d.feed(status("rejected"))
    assert d.events[-1] == {
        "type": "RUN_ERROR",
        "message": "upstream agent rejected the task",
        "code": "a2a.task_rejected",
    }


@pytest.mark.parametrize("v1", [True, False])
def test_canceled_task_outcome_depends_on_the_client_generation(v1: bool) -> None:  # case 37
    d = Driver(body(user("go"), v1=v1))
    d.feed(status("canceled"))
    if v1:
        assert d.events[-1]["outcome"] == {"type": "cancelled"}
    else:
        assert d.events[-1]["code"] == "a2a.task_canceled"
    validate(d.events, protocol10=v1)


@pytest.mark.parametrize("v1", [True, False])
def test_completed_task_finishes_and_next_run_keeps_only_the_context(v1: bool) -> None:  # cases 5, 38
    d = Driver(body(user("go"), v1=v1))
    d.feed(task(), status("completed", text("done")))
    assert ("outcome" in d.events[-1]) is v1
    assert ("protocolVersion" in d.events[0]) is v1
    validate(d.events, protocol10=v1)
    nxt = Driver(body(user("go"), user("next", mid="u2"), run="r2", v1=v1), d.session)
    assert "taskId" not in nxt.message and nxt.message["contextId"] == "C1"


def test_rpc_error_on_a_continuation_clears_the_task() -> None:  # case 39
    session = ThreadSession(context_id="C1", task_id="T1", task_state="TASK_STATE_INPUT_REQUIRED")
    d = Driver(body(user("answer")), session)
    assert d.message["taskId"] == "T1"
    d.events += d.run.on_rpc_error({"code": -32001, "message": "Task not found"})
    assert d.events[-1] == {"type": "RUN_ERROR", "message": "Task not found", "code": "a2a.rpc.-32001"}
    assert session.task_id is None and session.last_forwarded is None
    retry = Driver(body(user("answer"), run="r2"), session)
    assert "taskId" not in retry.message and retry.message["contextId"] == "C1"


def test_stream_ending_while_working_is_an_error() -> None:  # case 41
    d = Driver(body(user("go")))
    d.feed(task("working"), status("working", text("half")))
    assert d.events[-2:] == [
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {
            "type": "RUN_ERROR",
            "message": "upstream stream ended before the task finished",
            "code": "upstream.incomplete",
        },
    ]


def test_input_required_waits_for_eof_then_finishes() -> None:  # case 42
    d = Driver(body(user("go")))
    d.feed(status("input-required", text("?")), eof=False)
    assert d.run.settled and not d.run.done
    assert d.run.on_eof()[-1]["type"] == "RUN_FINISHED"


def test_blocking_task_result_maps_like_a_stream() -> None:  # case 44
    result = task(
        "input-required",
        status={
            "state": "TASK_STATE_INPUT_REQUIRED",
            "message": {"messageId": "m2", "role": "ROLE_AGENT", "parts": [text("Pick"), ui(create("s1"))]},
        },
        artifacts=[{"artifactId": "a1", "parts": [text("report")]}],
        history=[{"messageId": "u1", "role": "ROLE_USER", "parts": [text("go")]}],
    )
    d = Driver(body(user("go")))
    d.feed(result)
    assert texts(d.events) == {"m2": "Pick", "artifact:T1:a1": "report"}
    assert [s[0] for s in snapshots(d.events)] == ["a2ui-surface-s1"]
    validate(d.events)


def test_direct_agent_message_finishes_the_run_and_user_messages_are_not_echoed() -> None:
    d = Driver(body(user("go")))
    d.feed(message(text("echo"), role="ROLE_USER", mid="x"), message(text("hi"), mid="am1"))
    assert texts(d.events) == {"am1": "hi"}
    assert d.events[-1]["type"] == "RUN_FINISHED"
    validate(d.events)


def test_status_message_of_the_user_is_never_reemitted() -> None:
    d = Driver(body(user("go")))
    d.feed(status("working", text("go"), role="ROLE_USER"), status("completed"))
    assert "TEXT_MESSAGE_START" not in d.types()


def test_auth_required_is_reported_and_finishes() -> None:
    d = Driver(body(user("go")))
    d.feed(status("auth-required", text("log in")))
    assert any(e.get("name") == "a2a.auth_required" for e in d.events)
    assert d.events[-1]["type"] == "RUN_FINISHED"


def test_surface_ids_are_kept_verbatim() -> None:  # case 56
    sid = "my surface/ü 1"
    d = Driver(body(user("go")))
    d.feed(status("input-required", ui(create(sid))))
    assert snapshots(d.events)[0][0] == "a2ui-surface-" + sid


def test_items_after_the_end_and_broken_items_are_handled() -> None:
    d = Driver(body(user("go")))
    d.feed(status("completed"))
    assert d.run.on_item(status("working")) == [] and d.run.on_eof() == []
    assert d.run.fail("x", "y") == [] and d.run.on_rpc_error({"code": 1, "message": "m"}) == []
    broken = Driver(body(user("go")))
    assert broken.run.on_item({"bogus": {}})[-1]["code"] == "upstream.protocol_error"
    assert Driver(body(user("go"))).run.on_item({"task": {}, "message": {}})[-1]["type"] == "RUN_ERROR"


def test_replay_surfaces_on_request() -> None:
    d = Driver(body(user("go")))
    d.feed(status("input-required", ui(create("s1"))))
    again = Driver(body(run="r2", forwardedProps={"a2a": {"replaySurfaces": True}}), d.session)
    assert again.types() == ["RUN_STARTED", "ACTIVITY_SNAPSHOT", "RUN_FINISHED"]


def test_interrupt_mode_round_trip() -> None:  # case 51
    opts = Options(input_required_as_interrupt=True)
    d = Driver(body(user("go")), options=opts)
    d.feed(task(), status("input-required", text("Which size?")))
    outcome = d.events[-1]["outcome"]
    assert outcome == {
        "type": "interrupt",
        "interrupts": [
            {
                "id": "a2a:T1",
                "reason": "input_required",
                "metadata": {"taskId": "T1", "contextId": "C1"},
                "message": "Which size?",
            }
        ],
    }
    validate(d.events, protocol10=True)
    blocked = Driver(body(user("go"), user("x", mid="u2"), run="r2"), d.session, options=opts)
    assert blocked.call is None and blocked.events[-1]["code"] == "agui.pending_interrupt"
    resumed = Driver(
        body(run="r3", resume=[{"interruptId": "a2a:T1", "status": "resolved", "payload": "L"}]),
        d.session,
        options=opts,
    )
    assert resumed.message["taskId"] == "T1" and resumed.message["parts"] == [{"text": "L"}]


def test_interrupt_cancelled_cancels_the_task() -> None:
    opts = Options(input_required_as_interrupt=True)
    d = Driver(body(user("go")), options=opts)
    d.feed(task(), status("input-required", text("?")))
    cancel = Driver(
        body(run="r2", resume=[{"interruptId": "a2a:T1", "status": "cancelled"}]), d.session, options=opts
    )
    assert cancel.call is not None and cancel.call.operation == "cancel_task"
    assert cancel.call.params == {"id": "T1"}
    cancel.feed(task("canceled"))
    assert cancel.events[-1]["outcome"] == {"type": "cancelled"}


def test_interrupt_mode_is_off_for_0x_clients() -> None:
    d = Driver(body(user("go"), v1=False), options=Options(input_required_as_interrupt=True))
    d.feed(status("input-required", text("?")))
    assert "outcome" not in d.events[-1] and d.session.pending_interrupt is None


def test_odd_items_and_parts_are_tolerated() -> None:
    d = Driver(body(user("go")))
    d.feed(
        task("working", artifacts=["junk", {"artifactId": "a", "parts": [text("art")]}]),
        {"artifactUpdate": {"taskId": "T1", "artifact": "junk"}},
        status("working", "junk", text("x"), mid="p"),  # type: ignore[arg-type]
        {"statusUpdate": {"taskId": "T1", "status": {"message": {"messageId": "q", "parts": [text("y")]}}}},
        {
            "statusUpdate": {
                "taskId": "T1",
                "status": {"state": "TASK_STATE_WORKING", "message": {"parts": "junk"}},
            }
        },
        status("completed", {"data": {"a": 1}, "metadata": {"mimeType": "application/json"}}, mid="z"),
    )
    validate(d.events)
    assert {
        "type": "CUSTOM",
        "name": "a2a.data",
        "value": {"data": {"a": 1}, "mediaType": "application/json", "messageId": "z"},
    } in d.events
    assert d.events[-1]["type"] == "RUN_FINISHED"


def test_rpc_error_without_a_continued_task_keeps_the_session() -> None:
    session = ThreadSession(context_id="C1", task_id="T9", task_state="TASK_STATE_COMPLETED")
    d = Driver(body(user("go")), session)
    d.events += d.run.on_rpc_error({"code": -32001, "message": 5})
    assert d.events[-1]["message"] == "upstream error" and session.task_id == "T9"


def test_interrupt_without_status_text_has_no_message() -> None:
    d = Driver(body(user("go")), options=Options(input_required_as_interrupt=True))
    d.feed(task(), status("input-required"))
    assert "message" not in d.events[-1]["outcome"]["interrupts"][0]


def test_resume_payloads_become_parts() -> None:
    opts = Options(input_required_as_interrupt=True)
    for payload, parts in (
        ({"text": "t"}, [{"text": "t"}]),
        ({"n": 1}, [{"data": {"n": 1}, "mediaType": "application/json"}]),
        (" ", []),
        (None, []),
    ):
        d = Driver(body(user("go")), options=opts)
        d.feed(task(), status("input-required", text("?")))
        resumed = Driver(
            body(run="r2", resume=[{"interruptId": "a2a:T1", "status": "resolved", "payload": payload}]),
            d.session,
            options=opts,
        )
        assert (resumed.message["parts"] if resumed.call else []) == parts


def test_resubscribe_to_a_working_task_does_not_repeat_what_was_shown() -> None:  # case 47
    d = Driver(body(user("go")))
    d.feed(task(), status("working", text("step 1"), ui(create("s1")), mid="m1"), artifact("a", text("part")))
    assert d.events[-1]["code"] == "upstream.incomplete" and d.session.task_state == "TASK_STATE_WORKING"
    again = Driver(body(user("go"), run="r2"), d.session)
    assert again.call is not None and again.call.operation == "subscribe_to_task"
    assert again.call.params == {"id": "T1"}
    assert again.types() == ["RUN_STARTED", "ACTIVITY_SNAPSHOT"]  # the live surface, painted once more
    replay = task(
        "working",
        status={
            "state": "TASK_STATE_WORKING",
            "message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [text("step 1"), ui(create("s1"))]},
        },
        artifacts=[{"artifactId": "a", "parts": [text("part")]}],
    )
    again.feed(replay, status("completed", text("done"), mid="m2"))
    validate(again.events)
    assert texts(again.events) == {"m2": "done"}
    assert len(snapshots(again.events)) == 1
    assert again.session.surfaces.live["s1"].ops == [create("s1")]


def test_resubscribe_to_a_task_that_ended_finishes_from_the_stored_state() -> None:  # case 48
    session = ThreadSession(
        context_id="C1", task_id="T1", task_state="TASK_STATE_WORKING", last_forwarded="u1"
    )
    d = Driver(body(user("go")), session)
    assert d.call is not None and d.call.operation == "subscribe_to_task"
    d.events += d.run.on_rpc_error({"code": -32004, "message": "Task is in a terminal state"})
    assert d.events[-1]["type"] == "RUN_FINISHED" and session.task_id is None


def test_resubscribe_on_request_and_not_for_finished_threads() -> None:
    session = ThreadSession(
        context_id="C1", task_id="T1", task_state="TASK_STATE_INPUT_REQUIRED", last_forwarded="u1"
    )
    assert Driver(body(user("go")), session).call is None
    asked = Driver(body(user("go"), run="r2", forwardedProps={"a2a": {"resubscribe": True}}), session)
    assert asked.call is not None and asked.call.operation == "subscribe_to_task"
