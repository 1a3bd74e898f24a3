"""Loss is data: `Note` records one drop, coercion or default, and `Cx` carries the notes sink
and the per-peer quirks through a translation. Nothing here logs."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.core.quirks import Quirks


@dataclass(frozen=True, slots=True)
class Note:
    code: str
    path: str
    detail: str = ""


DEFAULT_QUIRKS = Quirks()


class Cx:
    """Translation context: where notes go, which quirks apply, and the upstream tenant."""

    __slots__ = ("notes", "quirks", "tenant")

    def __init__(self, notes: list[Note] | None = None, quirks: Quirks = DEFAULT_QUIRKS, tenant: str = "") -> None:
        self.notes: list[Note] = [] if notes is None else notes
        self.quirks = quirks
        self.tenant = tenant

    def note(self, code: str, path: str, detail: str = "") -> None:
        self.notes.append(Note(code, path, detail))
