"""The migration counts: sliding windows, the bounded caller table, snapshots summed across processes, the
view, caller names that never show credentials, and the deprecation headers and cut-off."""

from __future__ import annotations

import json
from email.utils import formatdate

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core.migration import NO_CALLER, OTHER, Deprecation, Stats, caller_id, merge, view
from gateway.core.notes import EXPLAINED, Note

T0 = 1_800_000_000.0   # a fixed moment; every test passes its own times


def _one(stats: Stats, caller: str = "bot", version: str = "0.3", binding: str = "JSONRPC", at: float = T0,
         route: str = "default", notes: tuple[Note, ...] = ()) -> None:
    stats.record(route=route, caller=caller, version=version, binding=binding, now=at, notes=notes)


def test_windows_slide() -> None:
    stats = Stats()
    _one(stats, at=T0)
    _one(stats, at=T0 + 30)
    _one(stats, at=T0 + 1800)
    row = view(stats.snapshot(), T0 + 1800)["traffic"][0]
    assert row["total"] == 3 and row["windows"] == {"1m": 1, "1h": 3, "24h": 3}
    later = view(stats.snapshot(), T0 + 2 * 86400)["traffic"][0]
    assert later["total"] == 3 and later["windows"] == {"1m": 0, "1h": 0, "24h": 0}
    assert later["last_seen"].endswith("GMT")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(["0.3", "1.0"]),
                          st.floats(0, 40)), max_size=25), st.integers(0, 25))
def test_counts_read_mid_bucket_are_every_exchange_so_far(calls: list[tuple[str, str, float]], cut: int) -> None:
    """Exchanges are counted as pending within a finest bucket and settled later, yet every read sees them
    all: the view is the one of counts read after every single exchange (totals, windows, last seen)."""
    calls = sorted(calls, key=lambda c: c[2])
    stats, each = Stats(), Stats()
    for n, (caller, version, dt) in enumerate(calls):
        _one(stats, caller=caller, version=version, at=T0 + dt)
        _one(each, caller=caller, version=version, at=T0 + dt)
        each.snapshot()   # read: nothing pending
        if n + 1 == cut:
            assert view(stats.snapshot(), T0 + 41) == view(each.snapshot(), T0 + 41)
    data = view(stats.snapshot(), T0 + 41)
    assert data == view(each.snapshot(), T0 + 41)
    assert sum(r["windows"]["1m"] for r in data["traffic"]) == sum(r["total"] for r in data["traffic"]) == len(calls)
    expected: dict[str, tuple[int, str]] = {}
    for caller, _, dt in calls:   # in time order: the last one is the caller's last seen
        expected[caller] = (expected.get(caller, (0, ""))[0] + 1, formatdate(T0 + dt, usegmt=True))
    assert {c["caller"]: (c["total"], c["last_seen"]) for c in data["callers"]} == expected


def test_buckets_stay_bounded() -> None:
    stats = Stats()
    for i in range(5000):
        _one(stats, at=T0 + i * 7)
    series = stats.traffic[("default", "0.3", "JSONRPC")]
    series.settle()
    assert all(len(ring) <= 61 for ring in series.buckets.values()), {k: len(v) for k, v in series.buckets.items()}
    assert series.total == 5000


def test_callers_are_bounded_and_the_busiest_kept() -> None:
    stats = Stats(max_callers=3)
    for _ in range(10):
        _one(stats, caller="heavy")
    for i in range(20):
        _one(stats, caller=f"light-{i}")
    assert len(stats.callers) <= 6 and "heavy" in stats.callers
    data = view(merge([stats.snapshot()]), T0)
    names = [c["caller"] for c in data["callers"]]
    assert len(names) == 3 and "heavy" in names and OTHER in names
    assert sum(c["total"] for c in data["callers"]) == 30   # nothing lost: the rest summed


def test_snapshots_of_two_workers_sum() -> None:
    a, b = Stats(), Stats()
    _one(a, caller="billing-bot", notes=(Note("field_dropped", "$.params.message.extensions"),))
    _one(b, caller="billing-bot", notes=(Note("field_dropped", "$.result.x"),))
    _one(b, caller="ops-console", version="1.0", binding="HTTP+JSON")
    docs = [json.loads(json.dumps(a.snapshot({"default": {"url": "u"}}))), json.loads(json.dumps(b.snapshot()))]
    data = view(merge(docs), T0 + 1)
    assert data["totals"] == {"0.3": 2, "1.0": 1}
    assert data["still_v03"] == ["billing-bot"]
    bot = data["callers"][0]
    assert (bot["caller"], bot["total"], bot["versions"]) == ("billing-bot", 2, ["0.3"])
    assert data["callers"][1]["versions"] == ["1.0"] and not data["callers"][1]["still_v03"]
    assert data["notes"] == [{"route": "default", "code": "field_dropped", "detail": "", "total": 2,
                              "explained": EXPLAINED["field_dropped"],
                              "example_path": "$.params.message.extensions", "windows": {"1m": 2, "1h": 2, "24h": 2},
                              "last_seen": data["notes"][0]["last_seen"]}]
    assert data["agents"] == {"default": {"url": "u"}}


def test_requests_without_a_caller_name_are_apart_by_version() -> None:
    stats = Stats()
    _one(stats, caller=NO_CALLER)
    _one(stats, caller=NO_CALLER, version="1.0", binding="HTTP+JSON")
    _one(stats, caller=NO_CALLER, version="1.0")
    _one(stats, caller="ops-console", version="1.0")
    data = view(merge([stats.snapshot()]), T0 + 1)
    assert [c["caller"] for c in data["callers"]] == ["ops-console"] and data["still_v03"] == []
    assert [(u["client_version"], u["total"]) for u in data["unnamed"]] == [("0.3", 1), ("1.0", 2)]
    assert data["totals"] == {"0.3": 1, "1.0": 3}   # still counted in the traffic


def test_the_dates_set_are_in_the_view() -> None:
    policy = {"caller_header": "X-Client", **Deprecation.of("@1767225600", "", "", "@1798761600").as_json()}
    stats = Stats()
    before = view(merge([stats.snapshot(policy=policy)]), 1767225600)["policy"]
    assert before["deprecation"] == "Thu, 01 Jan 2026 00:00:00 GMT" and before["sunset"] == ""
    assert before["cutoff"] == "Fri, 01 Jan 2027 00:00:00 GMT" and not before["cutoff_in_force"]
    assert view(merge([stats.snapshot(policy=policy)]), 1798761600)["policy"]["cutoff_in_force"]


def test_merge_ignores_unknown_snapshot_versions() -> None:
    assert view(merge([{"version": 99, "traffic": [{"bad": 1}]}]), T0)["traffic"] == []


@settings(max_examples=50)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["0.3", "1.0"]),
                          st.integers(0, 200_000)), max_size=60), st.integers(1, 4))
def test_splitting_traffic_across_workers_changes_no_total(events: list[tuple[str, str, int]], split: int) -> None:
    whole, parts = Stats(), [Stats() for _ in range(split)]
    for i, (caller, version, dt) in enumerate(sorted(events, key=lambda e: e[2])):
        _one(whole, caller=caller, version=version, at=T0 + dt)
        _one(parts[i % split], caller=caller, version=version, at=T0 + dt)
    now = T0 + 200_000
    one, many = view(whole.snapshot(), now), view(merge(p.snapshot() for p in parts), now)
    assert one["traffic"] == many["traffic"]
    assert sorted((c["caller"], c["total"]) for c in one["callers"]) == \
        sorted((c["caller"], c["total"]) for c in many["callers"])


def test_caller_names_never_show_credentials() -> None:
    assert caller_id("User-Agent", " billing-bot/2.1 ") == "billing-bot/2.1"
    assert caller_id("User-Agent", None) == NO_CALLER
    secret = caller_id("Authorization", "Bearer s3cr3t")
    assert secret.startswith("sha256:") and "s3cr3t" not in secret
    assert secret == caller_id("authorization", "Bearer s3cr3t")
    assert len(caller_id("X-Client", "x" * 1000)) == 200


def test_deprecation_headers_and_cutoff() -> None:
    policy = Deprecation.of("@1782777600", "@1798761599", "https://example.com/move", "@1798761600")
    assert policy.headers() == [("Deprecation", "@1782777600"), ("Sunset", "Thu, 31 Dec 2026 23:59:59 GMT"),
                                ("Link", '<https://example.com/move>; rel="deprecation"')]
    assert not policy.cut_off(1798761599) and policy.cut_off(1798761600)
    assert Deprecation.of("", "", "", "").headers() == [] and not Deprecation.of("", "", "", "").active
    assert not Deprecation.of("", "", "", "").cut_off(T0)
