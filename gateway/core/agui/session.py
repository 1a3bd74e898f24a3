"""What the AG-UI front door remembers per thread between runs: the A2A context and task, the last
forwarded user message, pending interrupts and the A2UI surface logs (agui.ex semantics), in a
bounded LRU with a TTL. Pure: the caller passes the time; no events are built here."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from gateway.core.agui.a2ui import CREATE_OP, DELETE_OP, Profile, op_of, profile_of_message, surface_of
from gateway.core.types import JsonObj

MAX_RETIRED = 256
MAX_SEEN = 512


@dataclass(slots=True)
class Surface:
    profile: Profile
    ops: list[JsonObj] = field(default_factory=list)
    deleted: bool = False


@dataclass(slots=True)
class Surfaces:
    """Every live surface of a thread with all its A2UI messages so far; deleted ones are retired."""

    live: dict[str, Surface] = field(default_factory=dict)
    retired: OrderedDict[str, Profile] = field(default_factory=OrderedDict)

    def apply(self, messages: list[JsonObj], mime: str | None) -> tuple[list[tuple[str, list[JsonObj]]],
                                                                         list[JsonObj]]:
        """Add `messages`; return (surface id, its whole log) per surface touched, in first-touched
        order, and the messages naming no surface. A surface whose log ends with its `deleteSurface`
        is dropped after its snapshot; `createSurface` (or any message after a delete) starts a new log."""
        touched: dict[str, Surface] = {}
        surfaceless: list[JsonObj] = []
        for message in messages:
            sid = surface_of(message)
            if sid is None:
                surfaceless.append(message)
                continue
            op = op_of(message)
            surface = self.live.get(sid)
            if surface is None or surface.deleted or op == CREATE_OP:
                surface = self.live[sid] = Surface(profile_of_message(message, mime))
                self.retired.pop(sid, None)
            surface.ops.append(message)
            surface.deleted = op == DELETE_OP
            touched[sid] = surface
        for sid, surface in touched.items():
            if surface.deleted:
                del self.live[sid]
                self.retired[sid] = surface.profile
                while len(self.retired) > MAX_RETIRED:
                    self.retired.popitem(last=False)
        return [(sid, list(surface.ops)) for sid, surface in touched.items()], surfaceless

    def profile(self, surface_id: str) -> tuple[Profile | None, bool]:
        """The profile of a surface for an action on it, and whether it was deleted."""
        if surface_id in self.live:
            return self.live[surface_id].profile, False
        retired = self.retired.get(surface_id)
        return retired, retired is not None


@dataclass(slots=True)
class ThreadSession:
    context_id: str | None = None
    task_id: str | None = None
    task_state: str | None = None            # v1.0 spelling, e.g. TASK_STATE_INPUT_REQUIRED
    last_forwarded: str | None = None        # id of the last AG-UI user message sent upstream
    pending_interrupt: str | None = None     # interrupt id the client must answer with `resume`
    surfaces: Surfaces = field(default_factory=Surfaces)
    seen: OrderedDict[str, None] = field(default_factory=OrderedDict)   # text/A2UI sources already shown
    seen_at: float = 0.0


def remember(session: ThreadSession, source: str) -> None:
    """Record that a message or artifact was delivered, so a replay of it (a resubscription's Task) is not."""
    session.seen[source] = None
    session.seen.move_to_end(source)
    while len(session.seen) > MAX_SEEN:
        session.seen.popitem(last=False)


class Sessions:
    """Thread sessions by key, least recently used first out, expired after `ttl` seconds unused."""

    def __init__(self, *, max_entries: int, ttl: float) -> None:
        self.max_entries = max_entries
        self.ttl = ttl
        self._items: OrderedDict[tuple[str, str], ThreadSession] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple[str, str], now: float) -> ThreadSession:
        """The session of `key`, a new one when unknown or expired; marks it used."""
        session = self._items.get(key)
        if session is None or now - session.seen_at > self.ttl:
            session = ThreadSession()
        session.seen_at = now
        self._items[key] = session
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)
        return session
