"""Tests for gateway/core/stream.py (`StreamRelay`): golden SSE transcripts fed whole, byte by byte and in
hypothesis chunks; the look-ahead timer (`release`), transport failures (`fail`), ids, counters, and a
fuzz run of the stream invariants.

Golden layout, tests/golden/sse/, three files per case, named `<§9 case number>_<what>` where a case of
wire-mapping.md §9 applies (else `<topic>_<what>`):
- `<case>.upstream.sse`: the upstream's bytes, verbatim (BOM, CRLF, comments, `id:`/`retry:` as sent).
- `<case>.client.sse`: what the client must receive: one compact JSON per `data:` line, LF line ends.
- `<case>.toml`: `about` (what the case shows, citing wire-mapping), `client` and `upstream` as
  "<dialect> <binding>" ("v03rpc JSONRPC", "v03rest REST", "v10 JSONRPC", "v10 REST"), `rpc_id` as JSON
  text (TOML has no null), `done_before_eof` (the relay ended the stream before the upstream did), and
  optionally `history_length`, `max_event_bytes`, `final_on_interrupted`, `notes` (the note codes the
  relay must record, in order; absent: none) and `oracle_upstream = false` (upstream deliberately invalid).
  It is TOML, not JSON, because tests/golden.py reads every *.json under tests/golden as a fixture.
The upstream is fed, then `close()` is called. Output is compared item by item: comments by text, events
by name and by canonical JSON of their data, so a golden need not repeat the translators' key order, yet
`1`, `1.0` and `true` stay different; a separate test holds the output to `sse.encode`'s framing.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core.errors import StreamError, UpstreamUnavailable
from gateway.core.notes import Cx
from gateway.core.quirks import Quirks
from gateway.core.sse import DEFAULT_MAX_EVENT_BYTES, SseComment, SseEvent, SseItem, SseParser, encode
from gateway.core.stream import ERROR_EVENT, StreamRelay, sse_relay
from gateway.core.types import Binding, Dialect
from tests import oracle
from tests.chunks import bytewise, chunkings, whole
from tests.profiles import examples

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "sse"


# --- golden cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SseCase:
    name: str
    client: Dialect
    client_binding: Binding
    upstream: Dialect
    upstream_binding: Binding
    rpc_id: Any
    upstream_bytes: bytes
    client_bytes: bytes
    done_before_eof: bool
    history_length: int | None = None
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    quirks: Quirks = field(default_factory=Quirks)
    notes: list[str] = field(default_factory=list)
    oracle_upstream: bool = True

    def __str__(self) -> str:
        return self.name

    def relay(self, cx: Cx | None = None) -> StreamRelay:
        return sse_relay(client=self.client, client_binding=self.client_binding, upstream=self.upstream,
                           upstream_binding=self.upstream_binding, rpc_id=self.rpc_id,
                           cx=cx if cx is not None else Cx(quirks=self.quirks),
                           max_event_bytes=self.max_event_bytes, history_length=self.history_length)


_KEYS = {"about", "client", "upstream", "rpc_id", "done_before_eof", "history_length", "max_event_bytes",
         "final_on_interrupted", "notes", "oracle_upstream"}


def _side(text: str) -> tuple[Dialect, Binding]:
    dialect, binding = text.split()
    return Dialect(dialect), Binding[binding]


def _load(toml: Path) -> SseCase:
    name = toml.name.removesuffix(".toml")
    meta = tomllib.loads(toml.read_text())
    assert set(meta) <= _KEYS, f"{toml.name}: unknown keys {sorted(set(meta) - _KEYS)}"
    assert meta.get("about"), f"{toml.name}: say what the case shows"
    client, client_binding = _side(meta["client"])
    upstream, upstream_binding = _side(meta["upstream"])
    quirks = Quirks(final_on_interrupted=meta.get("final_on_interrupted", "lookahead"))
    return SseCase(
        name, client, client_binding, upstream, upstream_binding, json.loads(meta["rpc_id"]),
        (GOLDEN / f"{name}.upstream.sse").read_bytes(), (GOLDEN / f"{name}.client.sse").read_bytes(),
        meta["done_before_eof"], meta.get("history_length"),
        meta.get("max_event_bytes", DEFAULT_MAX_EVENT_BYTES), quirks, meta.get("notes", []),
        meta.get("oracle_upstream", True),
    )


CASES = [_load(path) for path in sorted(GOLDEN.glob("*.toml"))]


def test_golden_layout_is_complete() -> None:
    names = {p.name.split(".")[0] for p in GOLDEN.iterdir()}
    assert names == {c.name for c in CASES}, "every case needs its .toml, .upstream.sse and .client.sse"
    assert len(list(GOLDEN.iterdir())) == 3 * len(CASES)
    for number in range(71, 83):
        if number not in (79, 80):  # 79 is the shell's (a non-SSE reply); 80 is covered by 81's file
            assert any(c.name.startswith(f"{number}_") for c in CASES), f"§9 case {number} has no golden"


# --- helpers --------------------------------------------------------------------------------------


def run(relay: StreamRelay, chunks: list[bytes]) -> bytes:
    out = b"".join(relay.feed(chunk) for chunk in chunks)
    return out + relay.close()


def parse(data: bytes) -> list[SseItem]:
    parser = SseParser()
    items = parser.feed(data)
    assert not parser.buffered_bytes, "output ends inside an event"
    return items


def canonical(items: list[SseItem]) -> list[tuple[str, ...]]:
    def one(item: SseItem) -> tuple[str, ...]:
        if isinstance(item, SseComment):
            return ("comment", item.text)
        return ("event", item.event or "", json.dumps(json.loads(item.data), sort_keys=True))

    return [one(item) for item in items]


def events(data: bytes) -> list[tuple[str | None, Any]]:
    """(event name, decoded data) of each event; empty ones (ignored keep-alives) are skipped."""
    return [(i.event, json.loads(i.data)) for i in parse(data) if isinstance(i, SseEvent) and i.data.strip()]


def item_of(data: Any, binding: Binding) -> Any:
    """The stream item inside a client/upstream event (JSON-RPC: the result)."""
    return data["result"] if binding is Binding.JSONRPC else data


def final_flag(item: Any, dialect: Dialect) -> bool:
    if dialect is Dialect.V03RPC:
        return item.get("kind") == "status-update" and item.get("final") is True
    if dialect is Dialect.V03REST:
        return "statusUpdate" in item and item["statusUpdate"].get("final") is True
    return False


# --- golden transcripts ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=str)
def test_transcript(case: SseCase) -> None:
    cx = Cx(quirks=case.quirks)
    relay = case.relay(cx)
    out = relay.feed(case.upstream_bytes)
    assert relay.done is case.done_before_eof
    assert not relay.holding or not relay.done
    out += relay.close()
    assert relay.done and not relay.holding
    assert canonical(parse(out)) == canonical(parse(case.client_bytes))
    assert [n.code for n in cx.notes] == case.notes
    assert relay.events_out == sum(isinstance(i, SseEvent) for i in parse(out))
    assert relay.feed(case.upstream_bytes) == b"" and relay.close() == b"" and relay.release() == b""


@pytest.mark.parametrize("case", CASES, ids=str)
def test_transcript_bytewise(case: SseCase) -> None:
    assert run(case.relay(), bytewise(case.upstream_bytes)) == run(case.relay(), whole(case.upstream_bytes))


@pytest.mark.parametrize("case", CASES, ids=str)
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_output_does_not_depend_on_chunking(case: SseCase, data: st.DataObject) -> None:
    chunks = data.draw(chunkings(case.upstream_bytes))
    assert run(case.relay(), chunks) == run(case.relay(), whole(case.upstream_bytes))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_output_is_canonical_sse(case: SseCase) -> None:
    out = run(case.relay(), whole(case.upstream_bytes))
    assert out == b"".join(encode(item) for item in parse(out))
    for item in parse(out):
        if isinstance(item, SseEvent):
            assert item.event in (None, ERROR_EVENT)
            assert "\n" not in item.data, "one data line per event"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden_items_are_valid_for_the_official_types(case: SseCase) -> None:
    sides = [(case.client_bytes, case.client, case.client_binding)]
    if case.oracle_upstream:
        sides.append((case.upstream_bytes, case.upstream, case.upstream_binding))
    for data, dialect, binding in sides:
        for _, body in events(data):
            if binding is Binding.JSONRPC:
                assert body["jsonrpc"] == "2.0"
                if "error" in body:
                    assert type(body["error"]["code"]) is int
                    continue
            elif "error" in body or "code" in body:
                continue
            oracle.check("stream_response", dialect, item_of(body, binding))


@pytest.mark.parametrize("case", [c for c in CASES if c.client_binding is Binding.JSONRPC], ids=str)
def test_every_client_event_echoes_the_rpc_id(case: SseCase) -> None:
    for _, body in events(case.client_bytes):
        assert type(body["id"]) is type(case.rpc_id) and body["id"] == case.rpc_id


@pytest.mark.parametrize("case", [c for c in CASES if c.client is not Dialect.V10], ids=str)
def test_v03_clients_get_final_at_most_once_and_last(case: SseCase) -> None:
    out = events(run(case.relay(), whole(case.upstream_bytes)))
    finals = [i for i, (_, body) in enumerate(out)
              if "error" not in body and final_flag(item_of(body, case.client_binding), case.client)]
    assert finals in ([], [len(out) - 1])


# --- look-ahead: holding, release() and close() ---------------------------------------------------

TASK = (b'data: {"jsonrpc":"2.0","id":0,"result":{"task":{"id":"t","contextId":"c",'
        b'"status":{"state":"%s"}}}}\n\n')
STATUS = (b'data: {"jsonrpc":"2.0","id":0,"result":{"statusUpdate":{"taskId":"t","contextId":"c",'
          b'"status":{"state":"%s"}}}}\n\n')


def status(state: str) -> bytes:
    return STATUS % f"TASK_STATE_{state}".encode()


def v03_relay(**kw: Any) -> StreamRelay:
    args: dict[str, Any] = {"client": Dialect.V03RPC, "client_binding": Binding.JSONRPC,
                            "upstream": Dialect.V10, "upstream_binding": Binding.JSONRPC,
                            "rpc_id": 1, "cx": Cx()}
    return sse_relay(**{**args, **kw})


def results(data: bytes) -> list[tuple[str, bool | None]]:
    """(state, final) of each status update in v0.3 JSON-RPC client output, ("task"/"error", None) else."""
    out: list[tuple[str, bool | None]] = []
    for _, body in events(data):
        if "error" in body:
            out.append(("error", None))
        elif body["result"]["kind"] == "status-update":
            out.append((body["result"]["status"]["state"], body["result"]["final"]))
        else:
            out.append((body["result"]["kind"], None))
    return out


def flags(relay: StreamRelay) -> tuple[bool, bool]:
    """(holding, done), read without letting the type checker narrow the properties."""
    return relay.holding, relay.done


def test_release_emits_the_held_event_not_final() -> None:
    relay = v03_relay()
    assert results(relay.feed(TASK % b"TASK_STATE_WORKING" + status("INPUT_REQUIRED"))) == [("task", None)]
    assert flags(relay) == (True, False)
    assert results(relay.release()) == [("input-required", False)]
    assert flags(relay) == (False, False)
    assert relay.release() == b""
    assert relay.close() == b"", "nothing is invented after a released interrupted state"
    assert flags(relay) == (False, True)


def test_release_then_the_stream_goes_on() -> None:
    relay = v03_relay()
    relay.feed(TASK % b"TASK_STATE_WORKING" + status("AUTH_REQUIRED"))
    assert results(relay.release()) == [("auth-required", False)]
    out = relay.feed(status("WORKING") + status("INPUT_REQUIRED"))
    assert results(out) == [("working", False)] and relay.holding
    assert results(relay.close()) == [("input-required", True)]
    assert relay.events_out == 4


def test_an_interrupted_state_after_another_releases_the_first() -> None:
    relay = v03_relay()
    out = relay.feed(TASK % b"TASK_STATE_WORKING" + status("AUTH_REQUIRED") + status("INPUT_REQUIRED"))
    assert results(out) == [("task", None), ("auth-required", False)] and relay.holding
    assert results(relay.close()) == [("input-required", True)]


def test_comments_pass_while_holding() -> None:
    relay = v03_relay()
    relay.feed(TASK % b"TASK_STATE_WORKING" + status("INPUT_REQUIRED"))
    assert relay.feed(b": ping\n\n") == b": ping\n\n"
    assert relay.holding


def test_release_without_hold_is_a_no_op() -> None:
    relay = v03_relay()
    assert relay.release() == b""
    relay.feed(TASK % b"TASK_STATE_WORKING")
    assert relay.release() == b"" and not relay.holding


@pytest.mark.parametrize("client", [(Dialect.V10, Binding.JSONRPC), (Dialect.V10, Binding.REST)])
def test_v10_clients_never_hold(client: tuple[Dialect, Binding]) -> None:
    relay = v03_relay(client=client[0], client_binding=client[1])
    out = relay.feed(TASK % b"TASK_STATE_WORKING" + status("INPUT_REQUIRED"))
    assert len(events(out)) == 2 and not relay.holding and not relay.done


def test_a_v03_upstream_is_trusted_with_final() -> None:
    relay = v03_relay(upstream=Dialect.V03RPC)
    out = relay.feed(b'data: {"jsonrpc":"2.0","id":0,"result":{"kind":"status-update","taskId":"t",'
                     b'"contextId":"c","status":{"state":"input-required"},"final":false}}\n\n')
    assert results(out) == [("input-required", False)] and not relay.holding


MESSAGE = (b'data: {"jsonrpc":"2.0","id":0,"result":{"message":{"messageId":"m","role":"ROLE_AGENT",'
           b'"parts":[{"text":"hi"}]}}}\n\n')


@pytest.mark.parametrize("client", [(Dialect.V03RPC, Binding.JSONRPC), (Dialect.V10, Binding.REST)])
def test_a_terminal_task_ends_the_stream(client: tuple[Dialect, Binding]) -> None:
    relay = v03_relay(client=client[0], client_binding=client[1])
    out = relay.feed(TASK % b"TASK_STATE_CANCELED" + status("WORKING"))
    assert len(events(out)) == 1 and flags(relay) == (False, True)


def test_a_message_inside_a_task_stream_does_not_end_it() -> None:
    relay = v03_relay()
    out = relay.feed(TASK % b"TASK_STATE_WORKING" + MESSAGE + status("COMPLETED"))
    assert results(out) == [("task", None), ("message", None), ("completed", True)]


# --- fail(): the upstream broke -------------------------------------------------------------------


def test_fail_mid_stream_is_one_error_event_then_done() -> None:
    relay = v03_relay(rpc_id="abc")
    relay.feed(TASK % b"TASK_STATE_WORKING")
    out = relay.fail(UpstreamUnavailable("upstream timed out"))
    assert events(out) == [(ERROR_EVENT, {"jsonrpc": "2.0", "id": "abc",
                                          "error": {"code": -32603, "message": "upstream timed out"}})]
    assert relay.done
    assert relay.feed(status("COMPLETED")) == b""
    assert relay.close() == b"" and relay.fail(StreamError()) == b""


def test_fail_while_holding_flushes_the_held_event_not_final() -> None:
    relay = v03_relay()
    relay.feed(TASK % b"TASK_STATE_WORKING" + status("INPUT_REQUIRED"))
    assert results(relay.fail(UpstreamUnavailable())) == [("input-required", False), ("error", None)]
    assert relay.events_out == 3


def test_fail_after_final_is_silent() -> None:
    relay = v03_relay()
    relay.feed(TASK % b"TASK_STATE_WORKING" + status("COMPLETED"))
    assert relay.done and relay.fail(UpstreamUnavailable()) == b""


@pytest.mark.parametrize(("client", "expected"), [
    ((Dialect.V10, Binding.JSONRPC),
     {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Upstream agent unavailable", "data": [
         {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INTERNAL_ERROR",
          "domain": "a2a-protocol.org"}]}}),
    ((Dialect.V10, Binding.REST),
     {"error": {"code": 502, "status": "UNAVAILABLE", "message": "Upstream agent unavailable", "details": [
         {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INTERNAL_ERROR",
          "domain": "a2a-protocol.org"}]}}),
    ((Dialect.V03REST, Binding.REST),
     {"code": -32603, "message": "Upstream agent unavailable", "type": "InternalError"}),
])
def test_fail_speaks_the_clients_shape(client: tuple[Dialect, Binding], expected: Any) -> None:
    relay = v03_relay(client=client[0], client_binding=client[1])
    assert events(relay.fail(UpstreamUnavailable())) == [(ERROR_EVENT, expected)]


# --- ids, construction ----------------------------------------------------------------------------


@pytest.mark.parametrize("rpc_id", ["abc", "", 0, -7, 2**53 + 1, None], ids=repr)
def test_rpc_id_is_echoed_verbatim_in_every_event(rpc_id: Any) -> None:
    relay = v03_relay(rpc_id=rpc_id)
    out = relay.feed(TASK % b"TASK_STATE_WORKING" + status("WORKING") + b"data: [1\n\n")
    bodies = [body for _, body in events(out)]
    assert len(bodies) == 3 and "error" in bodies[-1]
    expected = b'"id":' + json.dumps(rpc_id).encode() + b","
    assert out.count(expected) == 3, "the id's JSON text appears in every envelope"


@pytest.mark.parametrize(("dialect", "binding"),
                         [(Dialect.V03RPC, Binding.REST), (Dialect.V03REST, Binding.JSONRPC)])
@pytest.mark.parametrize("side", ["client", "upstream"])
def test_a_dialect_needs_its_binding(dialect: Dialect, binding: Binding, side: str) -> None:
    with pytest.raises(ValueError, match=side):
        v03_relay(**{side: dialect, f"{side}_binding": binding})


def test_history_length_must_not_be_negative() -> None:
    with pytest.raises(ValueError):
        v03_relay(history_length=-1)


# --- fuzz: the stream invariants for any upstream -------------------------------------------------

STATES = ["SUBMITTED", "WORKING", "INPUT_REQUIRED", "AUTH_REQUIRED", "COMPLETED", "FAILED", "CANCELED",
          "REJECTED", "UNSPECIFIED"]
BLOCKS = [
    *(TASK % f"TASK_STATE_{s}".encode() for s in STATES),
    *(status(s) for s in STATES),
    b'data: {"jsonrpc":"2.0","id":0,"result":{"artifactUpdate":{"taskId":"t","contextId":"c",'
    b'"artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true}}}\n\n',
    b'data: {"jsonrpc":"2.0","id":0,"result":{"message":{"messageId":"m","role":"ROLE_AGENT",'
    b'"parts":[{"text":"hi"}]}}}\n\n',
    b'event: error\ndata: {"jsonrpc":"2.0","id":0,"error":{"code":-32001,"message":"gone"}}\n\n',
    b": ping\r\n\r\n",
    b"data:\n\n",
    b"data: {\n\n",
    b"data: \xff\xfe\n\n",
    b'data: {"jsonrpc":"2.0","id":0,"result":{"task":7}}\n\n',
    b'data: {"jsonrpc":"2.0","id":0,"result":{"statusUpdate":{"status":{"state":42}}}}\n\n',
    b"data: " + b"y" * 300 + b"\n\n",
    b"id: 3\nretry: 10\n",
    b"\r",
    b"data: trailing",
]
CLIENTS = [(Dialect.V03RPC, Binding.JSONRPC), (Dialect.V03REST, Binding.REST),
           (Dialect.V10, Binding.JSONRPC), (Dialect.V10, Binding.REST)]


def fuzz_relay(client: tuple[Dialect, Binding], lookahead: bool) -> StreamRelay:
    quirks = Quirks(final_on_interrupted="lookahead" if lookahead else "input_required")
    return v03_relay(client=client[0], client_binding=client[1], cx=Cx(quirks=quirks), max_event_bytes=256)


def check_invariants(out: bytes, client: tuple[Dialect, Binding]) -> None:
    seen = events(out)  # also: the output parses and ends on an event boundary
    errors = [i for i, (name, _) in enumerate(seen) if name == ERROR_EVENT]
    assert errors in ([], [len(seen) - 1]), "at most one error event, and nothing after it"
    finals = [i for i, (name, body) in enumerate(seen)
              if name != ERROR_EVENT and final_flag(item_of(body, client[1]), client[0])]
    assert finals in ([], [len(seen) - 1]), "at most one final, and nothing after it"


@settings(max_examples=examples(300), deadline=None)
@given(
    blocks=st.lists(st.sampled_from(BLOCKS), max_size=12),
    client=st.sampled_from(CLIENTS),
    lookahead=st.booleans(),
    data=st.data(),
)
def test_fuzz_any_upstream_keeps_the_invariants(blocks: list[bytes], client: tuple[Dialect, Binding],
                                                lookahead: bool, data: st.DataObject) -> None:
    stream = b"".join(blocks)
    expected = run(fuzz_relay(client, lookahead), whole(stream))
    check_invariants(expected, client)
    assert run(fuzz_relay(client, lookahead), data.draw(chunkings(stream))) == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    blocks=st.lists(st.sampled_from(BLOCKS), max_size=12),
    client=st.sampled_from(CLIENTS),
    releases=st.lists(st.booleans(), min_size=12, max_size=12),
    fail_at=st.none() | st.integers(0, 12),
)
def test_fuzz_release_and_fail_keep_the_invariants(blocks: list[bytes], client: tuple[Dialect, Binding],
                                                   releases: list[bool], fail_at: int | None) -> None:
    relay = fuzz_relay(client, lookahead=True)
    out = b""
    for i, block in enumerate(blocks):
        if i == fail_at:
            out += relay.fail(UpstreamUnavailable())
        out += relay.feed(block)
        if releases[i]:
            out += relay.release()
            assert not relay.holding
    out += relay.close()
    assert relay.done and not relay.holding
    check_invariants(out, client)


@settings(max_examples=examples(200), deadline=None)
@given(stream=st.binary(max_size=300), client=st.sampled_from(CLIENTS), data=st.data())
def test_fuzz_arbitrary_bytes_never_raise(stream: bytes, client: tuple[Dialect, Binding],
                                          data: st.DataObject) -> None:
    expected = run(fuzz_relay(client, True), whole(stream))
    check_invariants(expected, client)
    assert run(fuzz_relay(client, True), data.draw(chunkings(stream))) == expected


def test_error_events_never_carry_a_client_fault_code_for_agent_faults() -> None:
    """Bad upstream data is the agent's fault: -32006, never the caller's -32600/-32700/-32602."""
    for block in (b"data: {\n\n", b"data: \xff\n\n", b"data: " + b"y" * 300 + b"\n\n",
                  b'data: {"jsonrpc":"2.0","id":0,"result":{"task":7}}\n\n'):
        relay = fuzz_relay((Dialect.V03RPC, Binding.JSONRPC), True)
        ((name, body),) = events(relay.feed(block))
        assert name == ERROR_EVENT and body["error"]["code"] == -32006


def test_an_event_json_cannot_hold_is_the_agents_fault() -> None:
    """Read by the parse alone, a translated event's NaN, huge literal or lone surrogate is refused when it
    is written again: one error event, -32006, with the caller's id."""
    from gateway.core.notes import Cx
    from gateway.core.stream import sse_relay
    from gateway.core.types import JSONRPC, V03RPC, V10

    for bad in (b'NaN', b'1e400', b'"\\ud800"'):
        relay = sse_relay(client=V03RPC, client_binding=JSONRPC, upstream=V10, upstream_binding=JSONRPC,
                          rpc_id="r-1", cx=Cx())
        event = (b'data: {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {"taskId": "t", "status": '
                 b'{"state": "TASK_STATE_WORKING"}, "metadata": {"x": ' + bad + b'}}}}\n\n')
        out = relay.feed(event)
        assert out.startswith(b"event: error\n") and b'"id":"r-1"' in out and b"-32006" in out, out
        assert relay.done


def _v10_rpc_items(out: bytes) -> list[Any]:
    return [json.loads(line[6:])["result"] for line in out.split(b"\n") if line.startswith(b"data: ")]


def test_a_composed_subscription_opens_with_the_task_then_relays_and_emits() -> None:
    relay = sse_relay(client=Dialect.V10, client_binding=Binding.JSONRPC, upstream=Dialect.V03RPC,
                      upstream_binding=Binding.JSONRPC, rpc_id=3, cx=Cx())
    relay.track = True
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    assert _v10_rpc_items(relay.open_with(task)) == [{"task": task}]
    update = {"kind": "status-update", "taskId": "t", "contextId": "c", "final": True,
              "status": {"state": "input-required"}}
    out = relay.feed(encode(SseEvent(data=json.dumps({"jsonrpc": "2.0", "id": 3, "result": update}))))
    (item,) = _v10_rpc_items(out)
    assert list(item) == ["statusUpdate"] and relay.done   # no Task synthesised: the stream had its Task
    assert relay.tracked["t"] == item
    done = {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}
    assert _v10_rpc_items(relay.emit(done)) == [done] and relay.tracked["t"] == done
    assert relay.events_out == 3


def test_a_terminal_opening_task_ends_the_relay() -> None:
    relay = sse_relay(client=Dialect.V10, client_binding=Binding.REST, upstream=Dialect.V03RPC,
                      upstream_binding=Binding.JSONRPC, rpc_id=None, cx=Cx())
    relay.open_with({"id": "t", "status": {"state": "TASK_STATE_CANCELED"}})
    assert relay.done and relay.open_with({"id": "t", "status": {}}) == b""


def test_a_v03_item_from_a_v10_interface_is_read_as_one_and_reported() -> None:
    relay = sse_relay(client=Dialect.V10, client_binding=Binding.JSONRPC, upstream=Dialect.V10,
                      upstream_binding=Binding.JSONRPC, rpc_id=3, cx=Cx())
    out = relay.feed(b'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":'
                     b'{"state":"TASK_STATE_WORKING"}}}}\n\n')
    assert not relay.spoke_v03
    out += relay.feed(b'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t",'
                      b'"contextId":"c","status":{"state":"completed"},"final":true}}\n\n')
    assert relay.spoke_v03 and relay.done
    assert _v10_rpc_items(out)[-1] == {"statusUpdate": {"taskId": "t", "contextId": "c",
                                                        "status": {"state": "TASK_STATE_COMPLETED"}}}
    assert [n.code for n in relay.cx.notes] == ["agent_dialect_v03"]


def test_langgraph_s_v03_items_in_v10_enum_spellings_reach_a_v03_caller() -> None:
    """langgraph-api's answer to SendStreamingMessage: its first event a v0.3 Task wrapped in v1.0's member (the
    caller's v1.0 parts echoed in its history), the next ones flat v0.3 items, all in v1.0's enum spellings."""
    relay = sse_relay(client=Dialect.V03RPC, client_binding=Binding.JSONRPC, upstream=Dialect.V10,
                      upstream_binding=Binding.JSONRPC, rpc_id=3, cx=Cx())
    task = {"kind": "task", "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}, "history": [
        {"kind": "message", "role": "ROLE_USER", "messageId": "m", "parts": [{"text": "stream 1"}]}]}
    chunk = {"kind": "status-update", "taskId": "t", "contextId": "c", "final": False, "status": {
        "state": "TASK_STATE_WORKING", "message": {"kind": "message", "role": "ROLE_AGENT", "messageId": "a",
                                                   "parts": [{"kind": "text", "text": "chunk 0"}]}}}
    done = {"kind": "status-update", "taskId": "t", "contextId": "c", "final": True,
            "status": {"state": "TASK_STATE_COMPLETED"}}
    out = b"".join(relay.feed(encode(SseEvent(data=json.dumps({"jsonrpc": "2.0", "id": 1, "result": item}))))
                   for item in ({"task": task}, chunk, done))
    items = [json.loads(line[6:])["result"] for line in out.decode().splitlines() if line.startswith("data: ")]
    assert [(i["kind"], i["status"]["state"]) for i in items] == [
        ("task", "submitted"), ("status-update", "working"), ("status-update", "completed")]
    assert items[0]["history"][0]["role"] == "user"
    assert items[0]["history"][0]["parts"] == [{"kind": "text", "text": "stream 1"}]
    assert items[1]["status"]["message"]["role"] == "agent" and [i.get("final") for i in items[1:]] == [False, True]
    assert relay.spoke_v03 and relay.done
    assert [n.code for n in relay.cx.notes].count("agent_dialect_v03") == 3
