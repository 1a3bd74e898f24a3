"""A2UI tables: extension negotiation from agent cards, recognition of A2UI DataParts, message versions,
the surface engine's edge cases, the thread session store and the text tracker."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.agui import a2ui, events
from gateway.core.agui.session import MAX_RETIRED, MAX_SEEN, Sessions, Surfaces, ThreadSession, remember
from gateway.core.agui.text import Texts
from tests.core.agui.helpers import create, delete, update


def _card(*versions: str, extra: Any = None) -> dict[str, Any]:
    exts = [{"uri": a2ui.EXTENSION_PREFIX + v} for v in versions]
    return {"capabilities": {"extensions": [*exts, *(extra or [])]}}


def test_negotiation_picks_the_best_version_front_ends_draw_among_those_the_agent_lists() -> None:
    # the renderers people run draw v0.9 messages (CopilotKit 1.55+, @a2ui/react and /lit, assistant-ui)
    assert a2ui.RENDERED == ("v0.9.1", "v0.9", "v0.8")
    assert a2ui.negotiate(_card("v0.8", "v1.0", "v0.9")) == a2ui.PROFILES["v0.9"]
    assert a2ui.negotiate(_card("v0.9", "v0.9.1", "v0.10", "v1.0")) == a2ui.PROFILES["v0.9.1"]
    assert a2ui.negotiate(_card("v0.8", "v1.0")) == a2ui.PROFILES["v0.8"]
    assert a2ui.negotiate(_card("v0.10", "v1.0")) is None          # nothing a common renderer draws
    # the configuration widens it, in its own order of preference
    assert a2ui.negotiate(_card("v0.10", "v1.0"), ("v1.0", "v0.9")) == a2ui.PROFILES["v1.0"]
    assert a2ui.negotiate(_card("v0.9", "v1.0"), ("v0.9", "v1.0")) == a2ui.PROFILES["v0.9"]
    assert a2ui.negotiate(_card("v0.8", "v1.0"), ("v0.8", "v0.9")) == a2ui.PROFILES["v0.8"]
    assert a2ui.negotiate(_card("v0.9/"), ()) is None
    assert a2ui.negotiate(_card("v9.9", extra=[{"uri": "https://other/ext"}, "junk", {"uri": 3}])) is None
    assert a2ui.negotiate(None) is None and a2ui.negotiate({"capabilities": []}) is None
    assert a2ui.extension_uri(a2ui.PROFILES["v0.9.1"]) == "https://a2ui.org/a2a-extension/a2ui/v0.9.1"


@pytest.mark.parametrize(
    "message,mime,version",
    [
        ({"beginRendering": {"surfaceId": "s", "root": "r"}}, a2ui.MIME_LEGACY, "v0.8"),
        (create("s", "v0.9"), a2ui.MIME_LEGACY, "v0.9"),
        (create("s", "v0.9"), a2ui.MIME, "v0.9.1"),
        (create("s", "v0.10"), a2ui.MIME, "v0.10"),
        (create("s"), a2ui.MIME, "v1.0"),
        ({"createSurface": {"surfaceId": "s"}}, None, "v1.0"),
    ],
)
def test_message_versions(message: dict[str, Any], mime: str | None, version: str) -> None:
    assert a2ui.profile_of_message(message, mime).version == version


def test_recognition() -> None:
    assert a2ui.messages_of({"text": "x"}, sniff=True) is None
    assert a2ui.messages_of({"data": {"a": 1}}, sniff=True) is None
    assert a2ui.messages_of({"data": [], "mediaType": a2ui.MIME}, sniff=True) == []
    assert a2ui.messages_of({"data": []}, sniff=True) is None
    assert a2ui.messages_of({"data": [create("s"), 3], "mediaType": a2ui.MIME}, sniff=False) == [create("s")]
    two_ops = {"createSurface": {"surfaceId": "s"}, "deleteSurface": {"surfaceId": "s"}}
    assert a2ui.messages_of({"data": two_ops}, sniff=True) is None
    assert a2ui.surface_of({"version": "v1.0", "deleteSurface": {"surfaceId": 3}}) is None
    assert a2ui.op_of("x") is None


def test_rfc3339() -> None:
    assert a2ui.rfc3339(1_790_000_000.25) == "2026-09-21T14:13:20.250Z"


def test_surfaces_keep_retired_versions_bounded() -> None:
    surfaces = Surfaces()
    for i in range(MAX_RETIRED + 5):
        surfaces.apply([create(f"s{i}"), delete(f"s{i}")], a2ui.MIME)
    assert len(surfaces.retired) == MAX_RETIRED and not surfaces.live
    assert surfaces.profile("s0") == (None, False)
    assert surfaces.profile(f"s{MAX_RETIRED + 4}") == (a2ui.PROFILES["v1.0"], True)


def test_create_on_a_live_surface_starts_over_and_update_after_delete_too() -> None:
    surfaces = Surfaces()
    surfaces.apply([create("s"), update("s")], a2ui.MIME)
    snaps, _ = surfaces.apply([create("s")], a2ui.MIME)
    assert snaps == [("s", [create("s")])]
    snaps, _ = surfaces.apply([delete("s"), update("s")], a2ui.MIME)
    assert snaps == [("s", [update("s")])] and "s" in surfaces.live


def test_sessions_are_lru_and_expire() -> None:
    store = Sessions(max_entries=2, ttl=10)
    a = store.get(("r", "a"), 0)
    a.context_id = "C"
    assert store.get(("r", "a"), 5) is a
    store.get(("r", "b"), 6)
    store.get(("r", "c"), 7)
    assert len(store) == 2 and store.get(("r", "a"), 8).context_id is None
    assert store.get(("r", "a"), 100).context_id is None


def test_text_tracker_modes() -> None:
    t = Texts()
    assert t.say("a", "one") == [events.text_start("a"), events.text_content("a", "one")]
    assert t.say("a", "", "append") == []
    assert t.say("a", " two", "append") == [events.text_content("a", " two")]
    assert t.say("b", "x") == [events.text_end("a"), events.text_start("b"), events.text_content("b", "x")]
    assert t.say("a", "more", "append")[1:] == [events.text_start("a#2"), events.text_content("a#2", "more")]
    assert t.say("a", "fresh", "new")[1:] == [events.text_start("a#3"), events.text_content("a#3", "fresh")]
    assert t.end("zzz") == [] and t.end("a") == [events.text_end("a#3")] and t.open_id is None
    assert t.say("b", "x!")[0] == events.text_start("b#2")  # closed, extended: the delta alone
    assert t.say("b", "x!") == [] and t.close()[0]["type"] == "TEXT_MESSAGE_END"
    assert t.say("b", "x! ") == []  # a blank delta opens nothing


def test_frames_are_one_lf_terminated_data_line() -> None:
    frame = events.frame(events.text_content("m", "a\nb\r\nc ü/"))
    assert (
        frame == b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\\nb\\r\\nc \xc3\xbc/"}\n\n'
    )
    assert events.frames([events.run_error("")]) == b'data: {"type":"RUN_ERROR","message":"run failed"}\n\n'


def test_seen_sources_are_bounded() -> None:
    session = ThreadSession()
    for i in range(MAX_SEEN + 3):
        remember(session, f"m{i}")
    remember(session, f"m{MAX_SEEN}")
    assert len(session.seen) == MAX_SEEN and "m0" not in session.seen
    assert list(session.seen)[-1] == f"m{MAX_SEEN}"
