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
from gateway.core.types import JSONRPC, REST, V03REST, V03RPC, V10, Binding, Dialect, Version


def test_every_version_and_binding_speaks_one_dialect() -> None:
    assert dict(DIALECTS) == {
        (Version.V03, Binding.JSONRPC): Dialect.V03RPC,
        (Version.V03, Binding.REST): Dialect.V03REST,
        (Version.V10, Binding.JSONRPC): Dialect.V10,
        (Version.V10, Binding.REST): Dialect.V10,
    }
    assert dict(BINDINGS) == {V03RPC: frozenset({JSONRPC}), V03REST: frozenset({REST}), V10: frozenset({JSONRPC, REST})}


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
    assert codec_in(raw, Cx(), "$") == raw == codec_out(raw, Cx(), "$")   # the proto: single base64
    quirky = Cx(quirks=Quirks(rest_double_base64=True))
    wire = base64.b64encode(raw.encode()).decode()
    assert codec_out(raw, quirky, "$") == wire and codec_in(wire, quirky, "$") == raw
    urlsafe = base64.urlsafe_b64encode(b"??>").decode().rstrip("=")
    assert codec_in(base64.urlsafe_b64encode(urlsafe.encode()).decode().rstrip("="), quirky, "$") == urlsafe
    with pytest.raises(TranslationError) as caught:
        codec_in("not base64!", quirky, "$.f.fileWithBytes")
    assert caught.value.path == "$.f.fileWithBytes"
