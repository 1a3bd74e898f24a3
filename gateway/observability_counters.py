"""Owns the process-wide counts the logs feed: thread-safe counters by key, the one counter of
translation notes by code (exported as metrics), and the log-line form of a list of notes."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable

from gateway.core.notes import Note

__all__ = ["NOTE_COUNTER", "KeyCounter", "NoteCounter", "notes_as_json"]


class KeyCounter:
    """A process-local, thread-safe count by key (notes by code, push outcomes by name)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def count(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._counts.update(keys)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()


class NoteCounter(KeyCounter):
    """Translation notes by code (exported as metrics)."""

    def add(self, notes: Iterable[Note]) -> None:
        self.count(n.code for n in notes)


NOTE_COUNTER = NoteCounter()


def notes_as_json(notes: Iterable[Note]) -> list[dict[str, str]]:
    """Notes as log-friendly dicts; `detail` only when present."""
    out: list[dict[str, str]] = []
    for n in notes:
        item = {"code": n.code, "path": n.path}
        if n.detail:
            item["detail"] = n.detail
        out.append(item)
    return out
