"""The dialects as data: which (version, binding) speaks which dialect, the enum tables, each spec's fields
against the shapes they stand for, and the v0.3 REST bytes codec with its quirk."""

from __future__ import annotations

import base64
import dataclasses

import pytest

from gateway.core import dialects
from gateway.core.dialects import BINDINGS, DIALECTS, SPECS, V03_SPECS, V03REST_SPEC, V03RPC_SPEC, V10_SPEC
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.quirks import Quirks
from gateway.core.types import GRPC, JSONRPC, REST, V03REST, V03RPC, V10, Binding, Dialect, Version


def test_every_version_and_binding_speaks_one_dialect() -> None:
    assert dict(DIALECTS) == {
        (Version.V03, Binding.JSONRPC): Dialect.V03RPC,
        (Version.V03, Binding.REST): Dialect.V03REST,
        (Version.V10, Binding.JSONRPC): Dialect.V10,
        (Version.V10, Binding.REST): Dialect.V10,
        # the gRPC binding carries the protos whose ProtoJSON renderings the HTTP+JSON dialects are
        (Version.V03, Binding.GRPC): Dialect.V03REST,
        (Version.V10, Binding.GRPC): Dialect.V10,
    }
    assert dict(BINDINGS) == {V03RPC: frozenset({JSONRPC}), V03REST: frozenset({REST, GRPC}),
                              V10: frozenset({JSONRPC, REST, GRPC})}


def test_one_spec_per_dialect() -> None:
    assert {d: spec.dialect for d, spec in SPECS.items()} == {d: d for d in Dialect}
    assert V03_SPECS == (V03RPC_SPEC, V03REST_SPEC) and all(s.version is Version.V03 for s in V03_SPECS)
    assert V10_SPEC.version is Version.V10
    with pytest.raises(dataclasses.FrozenInstanceError):
        V03RPC_SPEC.kind_tags = False  # type: ignore[misc]
    assert len({V03RPC_SPEC, V03REST_SPEC, V10_SPEC}) == 3   # hashable, by identity


def test_the_spec_fields_say_what_the_shapes_are() -> None:
    rpc, rest = V03RPC_SPEC, V03REST_SPEC
    assert (rpc.kind_tags, rest.kind_tags) == (True, False)
    assert (rpc.protojson, rest.protojson, V10_SPEC.protojson) == (False, True, True)
    assert (rpc.message_parts, rest.message_parts) == ("parts", "content")
    assert (rpc.file_keys, rest.file_keys) == (("bytes", "uri"), ("fileWithBytes", "fileWithUri"))
    assert (rpc.data_wrapped, rest.data_wrapped) == (False, True)
    assert (rpc.push_config_member, rest.push_config_member) == ("pushNotificationConfig", "pushNotification")
    assert (rpc.drops_empty_ids, rest.drops_empty_ids) == (False, True)
    assert (rpc.message_gaps, rest.message_gaps) == (frozenset(), frozenset({"referenceTaskIds"}))
    assert (rpc.resource_names, rest.resource_names) == (False, True)
    assert rest.member_aliases["msg"] == "message" and not rpc.member_aliases
    for spec in V03_SPECS:  # the quirk field an absent `blocking` reads exists
        assert isinstance(getattr(Quirks(), spec.blocking_quirk or ""), bool)


def test_state_and_role_tables() -> None:
    assert V03RPC_SPEC.states_to_v10["input-required"] == "TASK_STATE_INPUT_REQUIRED"
    assert V03REST_SPEC.states_to_v10["TASK_STATE_CANCELLED"] == "TASK_STATE_CANCELED"
    differ = {k: v for k, v in V03REST_SPEC.states_to_v10.items() if k != v}
    assert differ == {"TASK_STATE_CANCELLED": "TASK_STATE_CANCELED"}
    assert set(dialects.STATE_FROM_V10) == set(dialects.V10_STATE_NUMBER) == set(V03REST_SPEC.states_from_v10)
    assert set(dialects.V10_STATE_NUMBER) >= dialects.TERMINAL_V10 | dialects.INTERRUPTED_V10
    assert V03RPC_SPEC.roles_to_v10 == {"user": "ROLE_USER", "agent": "ROLE_AGENT"}
    assert dialects.V10_ROLE_BY_NUMBER[2] == "ROLE_AGENT"
    assert set(dialects.STREAM_MEMBERS_V10.values()) == {"task", "message", "statusUpdate", "artifactUpdate"}


def test_rest_bytes_codec_and_its_quirk() -> None:
    codec_in, codec_out = V03REST_SPEC.bytes_to_v10, V03REST_SPEC.bytes_from_v10
    assert codec_in is not None and codec_out is not None
    assert V03RPC_SPEC.bytes_to_v10 is None and V03RPC_SPEC.bytes_from_v10 is None
    raw = base64.b64encode(b"\x00\xffhi").decode()
    proto = Quirks(rest_double_base64=False)
    assert codec_in(raw, Cx(quirks=proto), "$") == raw == codec_out(raw, Cx(quirks=proto), "$")  # single base64
    quirky = Cx(quirks=Quirks(rest_double_base64=True))
    wire = base64.b64encode(raw.encode()).decode()
    assert codec_out(raw, quirky, "$") == wire and codec_in(wire, quirky, "$") == raw
    urlsafe = base64.urlsafe_b64encode(b"??>").decode().rstrip("=")
    assert codec_in(base64.urlsafe_b64encode(urlsafe.encode()).decode().rstrip("="), quirky, "$") == urlsafe
    with pytest.raises(TranslationError) as caught:
        codec_in("not base64!", quirky, "$.f.fileWithBytes")
    assert caught.value.path == "$.f.fileWithBytes"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_auto_rest_bytes_tells_the_conventions_apart_and_learns_the_peers() -> None:
    codec_in, codec_out = V03REST_SPEC.bytes_to_v10, V03REST_SPEC.bytes_from_v10
    assert codec_in is not None and codec_out is not None
    content = b"\x00\xffbinary content"
    single, double = _b64(content), _b64(_b64(content).encode())
    # a single encoding cannot be double (one decode gives bytes that are no base64 text): certain, no note
    cx = Cx()
    assert codec_in(single, cx, "$") == single and (cx.rest_bytes, cx.rest_bytes_seen, cx.notes) == (
        "single", "single", [])
    assert codec_out(single, cx, "$") == single                 # answered as it spoke
    # one decode of a double encoding gives base64 text: read as double, a guess, noted and learned
    cx = Cx()
    assert codec_in(double, cx, "$.p") == single
    assert (cx.rest_bytes, cx.rest_bytes_seen) == ("double", "double")
    assert [(n.code, n.path) for n in cx.notes] == [("rest_bytes_detected", "$.p")]
    assert codec_out(single, cx, "$") == double                 # answered in its own convention
    # nothing seen yet: the caller's guess (a User-Agent or Server header), else the proto's convention
    guessed = Cx(rest_bytes_guess="double")
    assert codec_out(single, guessed, "$.q") == double and [n.code for n in guessed.notes] == ["rest_bytes_guessed"]
    unknown = Cx()
    assert codec_out(single, unknown, "$") == single and unknown.rest_bytes == "single"
    assert [n.detail for n in unknown.notes] == ["single base64, as the proto says"]
    # a peer known to write single is never decoded, even where a value looks double
    known = Cx(rest_bytes="single")
    assert codec_in(double, known, "$") == double and known.notes == []
    # a peer known to write double whose value cannot be double: taken as it is, noted
    contra = Cx(rest_bytes="double")
    assert codec_in(single, contra, "$") == single and [n.code for n in contra.notes] == ["rest_bytes_detected"]


def test_both_sdks_file_bytes_round_trip_through_one_gateway_on_defaults() -> None:
    """The same v1.0 raw value reaches a Python REST client (double) and a JS one (single) each in its own
    convention, once each exchange has seen (or guessed from) its peer."""
    codec_in, codec_out = V03REST_SPEC.bytes_to_v10, V03REST_SPEC.bytes_from_v10
    assert codec_in is not None and codec_out is not None
    raw = _b64(b"%PDF-1.7 \x00\x01\x02")
    for sent, convention in ((_b64(raw.encode()), "double"), (raw, "single")):
        cx = Cx()
        assert codec_in(sent, cx, "$") == raw
        assert codec_out(raw, cx, "$") == sent and cx.rest_bytes == convention


def test_v03_item_is_told_by_its_kind() -> None:
    assert dialects.v03_item({"kind": "status-update", "taskId": "t"})
    assert all(dialects.v03_item({"kind": k}) for k in ("task", "message", "artifact-update"))
    assert not dialects.v03_item({"statusUpdate": {"kind": "status-update"}})  # v1.0's wrapper
    assert not dialects.v03_item({"kind": "other"}) and not dialects.v03_item(["kind"]) and not dialects.v03_item(None)
