"""The codec's reading rule: strict JSON (I-JSON) for what the gateway reads, the grammar for what it relays;
hostile bodies refused as MalformedEnvelope, every valid text read exactly as the standard library reads it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core import jsoncodec
from gateway.core.errors import GatewayError, MalformedEnvelope

# (case, body): each refused by `loads`
HOSTILE = [
    ("lone high surrogate", b'{"a":"\\ud800"}'),
    ("lone low surrogate", b'{"text":"x\\uDC00y"}'),
    ("surrogate in a name", b'{"\\ud800":1}'),
    ("lone surrogate at the top", b'"\\ud800"'),
    ("invalid UTF-8", b'{"a":"\xff\xfe"}'),
    ("truncated UTF-8", b'{"a":"\xe2\x82"}'),
    ("NaN", b'{"a":NaN}'),
    ("Infinity", b'[Infinity]'),
    ("-Infinity", b'{"a":[-Infinity]}'),
    ("NaN at the top", b"NaN"),
    ("a double out of range", b'{"a":1e400}'),
    ("a double out of range at the top", b"-1e999"),
    ("an integer past 4300 digits", b'{"a":' + b"9" * 5000 + b"}"),
    ("deep nesting", b"[" * 100_000),
    ("deep nesting closed", b"[" * 2000 + b"]" * 2000),
    ("duplicate names", b'{"a":1,"a":2}'),
    ("duplicate names, nested", b'[{"x":{"b":1,"b":{"c":2}}}]'),
    ("duplicate names in the second of two objects", b'[{"a":1},{"b":1,"b":2}]'),
    ("a number beyond a double, deep", b'{"a":[{"b":[1e400]}]}'),
    ("duplicate names, pretty", b'{\n  "a": 1,\n  "a": 2\n}'),
    ("duplicate names, spaced colon", b'{"a" :1,"a":2}'),
    ("duplicate names hidden by a colon in a string", b'{"a":"b:c","a":1}'),
    ("duplicate names, an escaped colon", b'{"a":"\\u003a","a":1}'),
    ("duplicate names beside an escaped quote", b'{"a":"\\":","a":1}'),
    ("raw control character in a string", b'{"a":"x\x01y"}'),
    ("raw line break in a string", b'{"a":"x\ny"}'),
    ("raw tab in a name", b'{"a\tb":1}'),
    ("duplicate names beside a line break before a colon", b'{"a":1,"a":2,"b"\n:3}'),
    ("duplicate names beside a tab before a colon", b'{"a":1,"a":2,"b"\t:3}'),
    ("duplicate names, the dropped value holds colons", b'{"a":"1:2:3","a":"x"}'),
    ("not JSON", b"<html>503</html>"),
    ("trailing data", b'{"a":1} {"b":2}'),
    ("empty", b""),
]

VALID = [
    b'{"a":"b:c","d":"http://x/y","t":"2025-04-02T16:59:25Z"}',
    b'{"a:b":1,"c":{"d:e":[1,2]}}',
    b'[{"a":1},{"a":2},{"b":{"a":3}}]',
    b'{"a":"\\ud83d\\ude00"}',
    b'{\n  "a": 1,\n  "b": [true, null]\n}',
    b'{"say":"\\"hi\\": there","n":-0.5e3}',
    b'{"a" : 1, "b" : 2}',
    b'{"big":123456789012345678901234567890}',
    b'[' * 500 + b']' * 500,
    b'"plain"',
    b"1.5",
]


@pytest.mark.parametrize(("case", "body"), HOSTILE, ids=[c for c, _ in HOSTILE])
def test_hostile_bodies_are_refused(case: str, body: bytes) -> None:
    with pytest.raises(GatewayError) as info:
        jsoncodec.loads(body)
    assert isinstance(info.value, MalformedEnvelope), case
    if "UTF-8" not in case:  # the same text given as str (e.g. an SSE event's data)
        with pytest.raises(GatewayError):
            jsoncodec.loads(body.decode())


@pytest.mark.parametrize("body", VALID)
def test_valid_bodies_read_as_the_standard_library_reads_them(body: bytes) -> None:
    assert jsoncodec.loads(body) == json.loads(body)
    assert jsoncodec.loads(body.decode()) == json.loads(body)
    assert jsoncodec.loads_relayed(body) == json.loads(body)


RELAYED_REFUSED = ["lone high surrogate", "invalid UTF-8", "NaN", "Infinity", "-Infinity", "deep nesting",
                   "raw control character in a string", "raw line break in a string", "not JSON", "empty",
                   "an integer past 4300 digits"]
RELAYED_PASSED = ["duplicate names", "a double out of range"]  # the agent's own text, relayed as written


@pytest.mark.parametrize("case", RELAYED_REFUSED)
def test_relayed_bytes_must_be_json_text(case: str) -> None:
    with pytest.raises(MalformedEnvelope):
        jsoncodec.loads_relayed(dict(HOSTILE)[case])


@pytest.mark.parametrize("case", RELAYED_PASSED)
def test_relayed_bytes_are_not_held_to_i_json(case: str) -> None:
    jsoncodec.loads_relayed(dict(HOSTILE)[case])


def test_nan_inside_a_string_is_text() -> None:
    body = b'{"a":"NaN and Infinity","b":"tab\\there"}'
    assert jsoncodec.loads(body) == jsoncodec.loads_relayed(body) == json.loads(body)


def test_the_encoder_writes_json_only() -> None:
    with pytest.raises(MalformedEnvelope):
        jsoncodec.dumps({"a": float("nan")})
    with pytest.raises(MalformedEnvelope):
        jsoncodec.dumpb([float("inf")])
    with pytest.raises(MalformedEnvelope):
        jsoncodec.dumpb({"a": "\ud800"})
    assert jsoncodec.dumps({"u": "a/b", "é": 1}) == '{"u":"a/b","é":1}'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5), inner,
                      max_size=4),
    max_leaves=20)
separators = st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : "), (",\n", "\n:\t"), ("\t,", "\r\n: ")])


@settings(max_examples=300, deadline=None)
@given(json_values, separators, st.booleans())
def test_every_valid_text_reads_exactly(value: Any, seps: tuple[str, str], ascii_only: bool) -> None:
    text = json.dumps(value, separators=seps, ensure_ascii=ascii_only)
    assert jsoncodec.loads(text.encode()) == json.loads(text)
    assert jsoncodec.loads_relayed(text.encode()) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4, alphabet="ab:\"\\ "), json_values, min_size=1, max_size=4),
       separators, st.data())
def test_a_repeated_name_is_always_found(obj: dict[str, Any], seps: tuple[str, str], data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(obj)))
    inner = json.dumps(obj, separators=seps)
    twice = inner[:-1] + seps[0] + json.dumps(name) + seps[1] + "1}"
    wrapped = data.draw(st.sampled_from(["{}", '[{}]', '{"x":{}}']))
    text = wrapped.replace("{}", twice, 1)
    with pytest.raises(MalformedEnvelope):
        jsoncodec.loads(text.encode())
    with pytest.raises(MalformedEnvelope):
        jsoncodec.loads(text)


@pytest.mark.parametrize(("case", "body"), HOSTILE, ids=[c for c, _ in HOSTILE])
def test_a_region_scan_never_waves_through_what_the_full_check_refuses(case: str, body: bytes) -> None:
    region = b"data: " + body + b"\n\n"
    if not jsoncodec.plain_text(region) or b"\n" in body or b"\r" in body:
        return  # the per-event scans run (a line break: the data of several lines is never `plain`)
    try:
        jsoncodec.loads_relayed(body)
    except GatewayError:
        with pytest.raises(GatewayError):
            jsoncodec.loads_relayed(body, plain=True)


def test_log_text_is_the_standard_librarys_json_text_with_a_fallback() -> None:
    line = {"event": "exchange", "method": "naïve/\udcff", "n": 2**80, "x": float("nan"), "at": object()}
    text = jsoncodec.log_text(line, lambda value: "fallback")
    assert text == json.dumps(line, default=lambda value: "fallback") == (
        '{"event": "exchange", "method": "na\\u00efve/\\udcff", "n": 1208925819614629174706176, "x": NaN, '
        '"at": "fallback"}')
    back = json.loads(text)
    assert back["method"] == "naïve/\udcff" and back["n"] == 2**80 and back["at"] == "fallback"
    assert jsoncodec.log_text({"n": 10**400}, repr) == '{"n": ' + "1" + "0" * 400 + "}"


@given(json_values)
def test_log_text_reads_back_as_the_value_and_is_spaced_as_json_dumps(value: Any) -> None:
    text = jsoncodec.log_text(value, repr)
    assert json.loads(text) == value
    assert text.replace("e-0", "e-") == json.dumps(value).replace("e-0", "e-").replace("\\u007f", "\x7f")
