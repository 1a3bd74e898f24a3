"""Who still speaks v0.3: the counting rules of the migration view (per route and caller, by client version
and binding, over sliding windows; notes by code), its mergeable snapshots, and the deprecation policy.
Time is always passed in (unix seconds): nothing here reads a clock."""

# Memory is bounded: a series is a total, a last-seen time and, per window, at most `buckets` counts; the
# callers kept are the busiest (up to 2 × max_callers between folds, max_callers after one), the others
# summed into one OTHER caller. Snapshots are plain JSON so that worker processes can write theirs to files
# and the parent can sum them (as prometheus-client's multiprocess mode sums the metrics).

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

from gateway.core.notes import EXPLAINED, Note

__all__ = ["CREDENTIAL_HEADERS", "NO_CALLER", "OTHER", "SNAPSHOT_VERSION", "WINDOWS", "Deprecation", "Stats",
           "caller_id", "merge", "view"]

# name → (length, bucket width) in seconds: a count "in the last hour" is the sum of the 60 one-minute
# buckets that end at the current one (the oldest may be partly outside the window)
WINDOWS: Mapping[str, tuple[int, int]] = {"1m": (60, 5), "1h": (3600, 60), "24h": (86400, 3600)}
FINEST = min(width for _, width in WINDOWS.values())
assert all(width % FINEST == 0 for _, width in WINDOWS.values()), "every bucket is made of finest buckets"
OTHER = "(other callers)"
NO_CALLER = "(none)"
MAX_CALLER_CHARS = 200
SNAPSHOT_VERSION = 1
# headers that carry credentials: a caller identified by one is shown by a fingerprint, never the value
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"})


def caller_id(header: str, value: str | None) -> str:
    """The caller's name in the migration view: the header's value (trimmed), or a SHA-256 fingerprint
    of it when the header carries credentials."""
    text = (value or "").strip()
    if not text:
        return NO_CALLER
    if header.lower() in CREDENTIAL_HEADERS:
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
    return text[:MAX_CALLER_CHARS]


@dataclass(slots=True)
class _Series:
    """One count: its total, when it was last seen, and its buckets per window (bucket index → count).
    Counts within one finest bucket are summed in `_pending` and settled into the windows when the
    bucket changes or the series is read: one addition per exchange on the hot path."""

    total: int = 0
    last: float = 0.0
    buckets: dict[str, dict[int, int]] = field(default_factory=lambda: {w: {} for w in WINDOWS})
    _pending: int = 0
    _pending_at: int = -1   # the finest bucket the pending counts fall in
    _pending_t: float = 0.0

    def add(self, now: float, n: int = 1) -> None:
        self.total += n
        if now > self.last:
            self.last = now
        at = int(now // FINEST)
        if at == self._pending_at:
            self._pending += n
            return
        self.settle()
        self._pending, self._pending_at, self._pending_t = n, at, now

    def settle(self) -> None:
        """Move the pending counts into every window's bucket, dropping buckets past the window."""
        n = self._pending
        if not n:
            return
        self._pending = 0
        for name, (length, width) in WINDOWS.items():
            ring = self.buckets[name]
            index = int(self._pending_t // width)
            ring[index] = ring.get(index, 0) + n
            keep = length // width
            if len(ring) > keep:
                for old in [i for i in ring if i <= index - keep]:
                    del ring[old]

    def absorb(self, other: _Series) -> None:
        other.settle()
        self.settle()
        self.total += other.total
        self.last = max(self.last, other.last)
        for name, ring in other.buckets.items():
            mine = self.buckets.setdefault(name, {})
            for index, n in ring.items():
                mine[index] = mine.get(index, 0) + n

    def windows(self, now: float) -> dict[str, int]:
        self.settle()
        out = {}
        for name, (length, width) in WINDOWS.items():
            current = int(now // width)
            first = current - length // width
            out[name] = sum(n for i, n in self.buckets.get(name, {}).items() if first < i <= current)
        return out

    def as_json(self) -> dict[str, Any]:
        self.settle()
        return {"total": self.total, "last": self.last,
                "buckets": {w: {str(i): n for i, n in ring.items()} for w, ring in self.buckets.items()}}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> _Series:
        buckets = {w: {int(i): int(n) for i, n in ring.items()} for w, ring in doc.get("buckets", {}).items()}
        return cls(int(doc.get("total", 0)), float(doc.get("last", 0.0)), {w: buckets.get(w, {}) for w in WINDOWS})


Key = tuple[str, str, str]  # route, client version, binding


@dataclass(slots=True)
class _Caller:
    by: dict[Key, _Series] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(s.total for s in self.by.values())

    def absorb(self, other: _Caller) -> None:
        for key, series in other.by.items():
            self.by.setdefault(key, _Series()).absorb(series)


@dataclass(slots=True)
class _NoteStat:
    series: _Series = field(default_factory=_Series)
    example: str = ""  # the JSON path of the first one seen
    detail: str = ""


class Stats:
    """The counts of one process: traffic by (route, client version, binding), callers, notes by code.
    An exchange is one count in a pending table for the finest bucket it falls in; the table is settled
    into the series when the bucket changes or the counts are read (`traffic`, `callers`, `snapshot`):
    one dictionary update per exchange, not two series' bookkeeping."""

    def __init__(self, max_callers: int = 100) -> None:
        self.max_callers = max(1, max_callers)
        self._traffic: dict[Key, _Series] = {}
        self._callers: dict[str, _Caller] = {}
        self.notes: dict[tuple[str, str], _NoteStat] = {}   # (route, code)
        # (route, caller, version, binding) -> [count, last seen] of the exchanges in finest bucket _at
        self._pending: dict[tuple[str, str, str, str], list[Any]] = {}
        self._at = -1

    @property
    def traffic(self) -> dict[Key, _Series]:
        self.settle()
        return self._traffic

    @property
    def callers(self) -> dict[str, _Caller]:
        self.settle()
        return self._callers

    def record(self, *, route: str, caller: str, version: str, binding: str, now: float,
               notes: Iterable[Note] = ()) -> None:
        """One exchange of an A2A client."""
        at = int(now // FINEST)
        if at != self._at:
            self.settle()
            self._at = at
        key = (route, caller, version, binding)
        seen = self._pending.get(key)
        if seen is None:
            self._pending[key] = [1, now]
        else:
            seen[0] += 1
            if now > seen[1]:
                seen[1] = now
        for note in notes:
            stat = self.notes.get((route, note.code))
            if stat is None:
                stat = self.notes[(route, note.code)] = _NoteStat(example=note.path, detail=note.detail[:200])
            stat.series.add(now)

    def settle(self) -> None:
        """The pending counts into the traffic and the callers' series (all in one finest bucket, so each
        series gets them at its own last-seen time, which also falls in it)."""
        pending, self._pending = self._pending, {}
        for (route, caller, version, binding), (n, now) in pending.items():
            key = (route, version, binding)
            series = self._traffic.get(key)
            if series is None:
                series = self._traffic[key] = _Series()
            series.add(now, n)
            who = self._callers.get(caller)
            if who is None:
                who = self._callers[caller] = _Caller()
                if len(self._callers) > 2 * self.max_callers:
                    self._fold()
                    who = self._callers.get(caller) or self._callers.setdefault(OTHER, _Caller())
            mine = who.by.get(key)
            if mine is None:
                mine = who.by[key] = _Series()
            mine.add(now, n)

    def _fold(self) -> None:
        """Keep the max_callers busiest callers (the newest kept among equals); sum the rest into OTHER."""
        other = self._callers.pop(OTHER, _Caller())
        ranked = sorted(self._callers.items(), key=lambda kv: kv[1].total, reverse=True)
        keep = dict(ranked[:self.max_callers - 1] if len(ranked) >= self.max_callers else ranked)
        for name, who in ranked:
            if name not in keep:
                other.absorb(who)
        keep[OTHER] = other
        self._callers = keep

    def snapshot(self, agents: Any = None, policy: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The counts as JSON (for merge() and view()); `agents`: what the process knows of its agents;
        `policy`: its [migration] settings as shown (Deprecation.as_json and the caller header)."""
        return {
            "policy": dict(policy or {}),
            "version": SNAPSHOT_VERSION,
            "max_callers": self.max_callers,
            "traffic": [{"route": k[0], "client_version": k[1], "binding": k[2], **s.as_json()}
                        for k, s in self.traffic.items()],
            "callers": [{"caller": name, "route": k[0], "client_version": k[1], "binding": k[2], **s.as_json()}
                        for name, who in self.callers.items() for k, s in who.by.items()],
            "notes": [{"route": r, "code": c, "example": n.example, "detail": n.detail, **n.series.as_json()}
                      for (r, c), n in self.notes.items()],
            "agents": agents if agents is not None else {},
        }

    @classmethod
    def from_snapshot(cls, doc: Mapping[str, Any]) -> Stats:
        stats = cls(int(doc.get("max_callers", 100)))
        for row in doc.get("traffic", []):
            key = (str(row["route"]), str(row["client_version"]), str(row["binding"]))
            stats.traffic.setdefault(key, _Series()).absorb(_Series.from_json(row))
        for row in doc.get("callers", []):
            key = (str(row["route"]), str(row["client_version"]), str(row["binding"]))
            stats.callers.setdefault(str(row["caller"]), _Caller()).by.setdefault(key, _Series()).absorb(
                _Series.from_json(row))
        for row in doc.get("notes", []):
            stat = stats.notes.setdefault((str(row["route"]), str(row["code"])),
                                          _NoteStat(example=str(row.get("example", "")),
                                                    detail=str(row.get("detail", ""))))
            stat.series.absorb(_Series.from_json(row))
        return stats


def merge(snapshots: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The sum of several processes' snapshots (the workers of one gateway); agents from any that knows them."""
    total: Stats | None = None
    agents: dict[str, Any] = {}
    policy: dict[str, Any] = {}
    for doc in snapshots:
        if doc.get("version") != SNAPSHOT_VERSION:
            continue
        part = Stats.from_snapshot(doc)
        policy = policy or dict(doc.get("policy") or {})
        for route, agent in (doc.get("agents") or {}).items():
            agents.setdefault(route, agent)
        if total is None:
            total = part
            continue
        total.max_callers = max(total.max_callers, part.max_callers)
        for key, series in part.traffic.items():
            total.traffic.setdefault(key, _Series()).absorb(series)
        for name, who in part.callers.items():
            total.callers.setdefault(name, _Caller()).absorb(who)
        for code, stat in part.notes.items():
            mine = total.notes.setdefault(code, _NoteStat(example=stat.example, detail=stat.detail))
            mine.series.absorb(stat.series)
    total = total or Stats()
    if len(total.callers) > total.max_callers:
        total._fold()
    return total.snapshot(agents, policy)


def _row(series: _Series, now: float) -> dict[str, Any]:
    return {"total": series.total, "windows": series.windows(now), "last_seen": _iso(series.last)}


def _iso(ts: float) -> str:
    return formatdate(ts, usegmt=True) if ts else ""


def _policy(policy: Mapping[str, Any], now: float) -> dict[str, Any]:
    cutoff = policy.get("cutoff_at")
    return {**policy, "cutoff_in_force": type(cutoff) is int and now >= cutoff}


def view(snapshot: Mapping[str, Any], now: float) -> dict[str, Any]:
    """The /migration JSON of a (merged) snapshot at `now`: the agents with their claimed and observed
    versions, traffic by client version and binding, the callers (those still on v0.3 first; the requests
    without the caller header apart, by version), notes by code with what each means, the dates set."""
    stats = Stats.from_snapshot(snapshot)
    traffic = [{"route": k[0], "client_version": k[1], "binding": k[2], **_row(s, now)}
               for k, s in sorted(stats.traffic.items())]
    callers: list[dict[str, Any]] = []
    unnamed: dict[str, _Series] = {}   # requests without the caller header: by client version, apart
    for name, who in stats.callers.items():
        if name == NO_CALLER:
            for (_, version, _), series in who.by.items():
                unnamed.setdefault(version, _Series()).absorb(series)
            continue
        rows = [{"route": k[0], "client_version": k[1], "binding": k[2], **_row(s, now)}
                for k, s in sorted(who.by.items())]
        versions = sorted({r["client_version"] for r in rows})
        last = max((s.last for s in who.by.values()), default=0.0)
        callers.append({"caller": name, "versions": versions, "still_v03": "0.3" in versions,
                        "total": who.total, "last_seen": _iso(last), "by": rows, "_last": last})
    callers.sort(key=lambda c: (not c["still_v03"], -c["_last"], c["caller"]))
    for c in callers:
        del c["_last"]
    notes = [{"route": r, "code": c, "explained": EXPLAINED.get(c, ""), "example_path": n.example,
              "detail": n.detail, **_row(n.series, now)}
             for (r, c), n in sorted(stats.notes.items(), key=lambda kv: -kv[1].series.total)]
    by_version: dict[str, int] = {}
    for row in traffic:
        by_version[row["client_version"]] = by_version.get(row["client_version"], 0) + row["total"]
    return {"generated": _iso(now), "windows": list(WINDOWS), "agents": snapshot.get("agents", {}),
            "policy": _policy(snapshot.get("policy") or {}, now), "totals": by_version, "traffic": traffic,
            "callers": callers,
            "unnamed": [{"client_version": v, **_row(s, now)} for v, s in sorted(unnamed.items())],
            "still_v03": [c["caller"] for c in callers if c["still_v03"]], "notes": notes}


@dataclass(frozen=True, slots=True)
class Deprecation:
    """What v0.3 clients are told (RFC 9745 Deprecation, RFC 8594 Sunset, a Link rel="deprecation") and
    when they stop being translated (the cut-off); times in unix seconds, None: not set."""

    deprecated_at: int | None = None
    sunset_at: int | None = None
    link: str = ""
    cutoff_at: int | None = None

    @classmethod
    def of(cls, deprecation: str, sunset: str, link: str, cutoff: str) -> Deprecation:
        """From the `[migration]` settings' normalised values ("@<unix seconds>" or "")."""
        def ts(value: str) -> int | None:
            return int(value[1:]) if value.startswith("@") else None
        return cls(ts(deprecation), ts(sunset), link, ts(cutoff))

    @property
    def active(self) -> bool:
        return bool(self.deprecated_at is not None or self.sunset_at is not None or self.link
                    or self.cutoff_at is not None)

    def as_json(self) -> dict[str, str | int | None]:
        """The dates as HTTP-dates ("" when not set) and the link, for the migration view."""
        return {"deprecation": _iso(self.deprecated_at or 0), "sunset": _iso(self.sunset_at or 0),
                "cutoff": _iso(self.cutoff_at or 0), "cutoff_at": self.cutoff_at, "link": self.link}

    def headers(self) -> list[tuple[str, str]]:
        """The headers added to every reply to a v0.3 client."""
        out = []
        if self.deprecated_at is not None:
            out.append(("Deprecation", f"@{self.deprecated_at}"))   # RFC 9745 §2.1: a structured-field Date
        if self.sunset_at is not None:
            out.append(("Sunset", formatdate(self.sunset_at, usegmt=True)))   # RFC 8594 §3: an HTTP-date
        if self.link:
            out.append(("Link", f'<{self.link}>; rel="deprecation"'))   # RFC 9745 §3
        return out

    def cut_off(self, now: float) -> bool:
        """Whether v0.3 clients get the version error instead of a translation at `now`."""
        return self.cutoff_at is not None and now >= self.cutoff_at
