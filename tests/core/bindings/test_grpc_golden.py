"""The gRPC codec against every golden fixture that has a protobuf message: wire-identical to a2a-sdk's
own generated types, the decoded dict denotes the same message, the translators read it as they read the
golden, and v0.3 bytes cross the v1.0 hub to v1.0 bytes and back exactly."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2 as sdk03
from a2a.types import a2a_pb2 as sdk10
from google.protobuf import json_format
from google.protobuf.message import Message

from gateway.core import jsoncodec
from gateway.core.bindings.grpc import codec
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.types import Dialect, Version
from tests import golden
from tests.oracle import ORACLES

VERSION = {Dialect.V03REST: Version.V03, Dialect.V10: Version.V10}
SDK = {Version.V03: sdk03, Version.V10: sdk10}


def message_name(family: str, dialect: Dialect) -> str | None:
    if family not in ORACLES or dialect not in VERSION:
        return None
    v10, _, v03 = ORACLES[family]
    return v10 if dialect is Dialect.V10 else v03


BINARY = [f for f in golden.fixtures() if message_name(f.family, f.dialect) is not None]


def classes(fixture: golden.Fixture) -> tuple[type[Message], type[Message]]:
    name = message_name(fixture.family, fixture.dialect)
    assert name is not None
    version = VERSION[fixture.dialect]
    sdk_class: type[Message] = getattr(SDK[version], name)
    return codec.message_class(version, name), sdk_class


def test_every_proto_family_has_binary_goldens() -> None:
    assert len(BINARY) > 100
    assert {f.dialect for f in BINARY} == {Dialect.V03REST, Dialect.V10}


@pytest.mark.parametrize("fixture", BINARY, ids=str)
def test_round_trip(fixture: golden.Fixture) -> None:
    """dict → bytes → dict: the bytes are a2a-sdk's for the same dict, the dict is the ProtoJSON normal
    form of the golden (same message; fields in number order, defaults omitted, enum names, json names,
    padded standard base64, 0/3/6/9 fraction digits, Struct members sorted, integral numbers as integers)
    and a fixed point, and the translators read it as they read the golden."""
    ours, sdks = classes(fixture)
    payload = copy.deepcopy(fixture.payload)
    cx = Cx()
    data = codec.encode(ours, payload, cx)
    assert payload == fixture.payload, "encoding mutated its input"
    assert data == json_format.ParseDict(fixture.payload, sdks()).SerializeToString(deterministic=True)
    back = codec.decode(ours, data, cx)
    assert json_format.ParseDict(back, sdks()) == json_format.ParseDict(fixture.payload, sdks())
    assert jsoncodec.dumps(codec.decode(ours, codec.encode(ours, back, cx), cx)) == jsoncodec.dumps(back)
    assert [n.code for n in cx.notes] in ([], ["number_rounded"] * len(cx.notes))
    if fixture.dialect is Dialect.V03REST and fixture.family in golden_families() and not cx.notes:
        (ours_v10, our_notes), (golden_v10, golden_notes) = (_to_v10(fixture.family, back),
                                                             _to_v10(fixture.family, fixture.payload))
        assert ours_v10 == golden_v10
        # the gRPC decoder writes a zero state out (it is a real v0.3 state): nothing is defaulted then
        assert our_notes == [n for n in golden_notes if n[0] != "state_defaulted"]


def golden_families() -> set[str]:
    return {case.family for case in golden.cases()}


# proto3 cannot tell a v0.3 capability that is false from an unset one; v1.0 makes these booleans
# optional, so the card translated from gRPC leaves them unset where the JSON card said false (both
# read as false)
_V03_IMPLICIT_FALSE = ("streaming", "pushNotifications")


def _to_v10(family: str, value: Any) -> tuple[Any, list[tuple[str, str]]]:
    """The translator's v1.0 output in the v1.0 normal form (through the v1.0 codec), and its notes."""
    cx = Cx()
    try:
        out = translate(family, copy.deepcopy(value), src=Dialect.V03REST, dst=Dialect.V10, cx=cx)
    except Exception as exc:  # the golden and its normal form must fail alike too
        return type(exc).__name__, []
    name = message_name(family, Dialect.V10)
    if name is not None and out is not None:
        v10 = codec.message_class(Version.V10, name)
        out = without_implicit_false(codec.decode(v10, codec.encode(v10, out, Cx()), Cx()))
    # a golden in proto field names (snake_case) is read with notes; the codec only writes json names
    return out, sorted((n.code, n.path) for n in cx.notes if n.code != "proto_field_name_read")


def without_implicit_false(card: Any) -> Any:
    capabilities = card.get("capabilities") if type(card) is dict else None
    for key in _V03_IMPLICIT_FALSE:
        if type(capabilities) is dict and capabilities.get(key) is False:
            del capabilities[key]
    return card


_EXACT = {(c.family, c.name, c.src, c.dst) for c in golden.cases()}
HUB = [c for c in golden.cases()
       if c.src is Dialect.V03REST and c.dst is Dialect.V10 and (c.family, c.name, c.dst, c.src) in _EXACT
       and message_name(c.family, c.src) is not None and message_name(c.family, c.dst) is not None]


def test_hub_cases_exist() -> None:
    assert len(HUB) >= 20


@pytest.mark.parametrize("case", HUB, ids=str)
def test_through_the_hub(case: golden.Case) -> None:
    """v0.3 bytes → v03rest dict → translate → v10 dict → v1.0 bytes, and back, with no notes: both
    byte strings are exactly the encodings of the two goldens (capabilities the v0.3 card says are
    false left unset in v1.0, see above; a number beyond 2**53 rounded once, where it is first encoded)."""
    v03 = codec.message_class(Version.V03, str(message_name(case.family, Dialect.V03REST)))
    v10 = codec.message_class(Version.V10, str(message_name(case.family, Dialect.V10)))
    cx = Cx()
    expected = without_implicit_false(copy.deepcopy(case.expected))
    v03_bytes, v10_bytes = codec.encode(v03, case.source, cx), codec.encode(v10, expected, cx)
    assert {n.code for n in cx.notes} <= {"number_rounded"}  # noted where the first bytes are made
    cx = Cx()
    up = translate(case.family, codec.decode(v03, v03_bytes, cx), src=Dialect.V03REST, dst=Dialect.V10, cx=cx)
    assert codec.encode(v10, up, cx) == v10_bytes
    down = translate(case.family, codec.decode(v10, v10_bytes, cx), src=Dialect.V10, dst=Dialect.V03REST, cx=cx)
    assert codec.encode(v03, down, cx) == v03_bytes
    assert cx.notes == []
