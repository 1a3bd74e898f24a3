"""Loss is data: `Note` records one drop, coercion or default, and `Cx` carries the notes sink
and the per-peer quirks through a translation. Nothing here logs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gateway.core.quirks import Quirks


@dataclass(frozen=True, slots=True)
class Note:
    code: str
    path: str
    detail: str = ""


DEFAULT_QUIRKS = Quirks()


RestBytes = Literal["double", "single"]


class Cx:
    """Translation context: where notes go, which quirks apply, the upstream tenant, and what one exchange
    learns of its v0.3 REST peer's file-bytes convention (`rest_bytes`; at most one side of a translated
    exchange speaks v0.3 REST, so one slot is unambiguous)."""

    __slots__ = ("lenient", "notes", "quirks", "rest_bytes", "rest_bytes_guess", "rest_bytes_seen", "tenant")

    def __init__(self, notes: list[Note] | None = None, quirks: Quirks = DEFAULT_QUIRKS, tenant: str = "",
                 rest_bytes: RestBytes | None = None, rest_bytes_guess: RestBytes | None = None,
                 lenient: bool = False) -> None:
        self.notes: list[Note] = [] if notes is None else notes
        # what the SDKs' own converters default rather than refuse (a message without role, a null part) is
        # translated with a note instead of refused: offline `translate` only, the gateway stays strict
        self.lenient = lenient
        self.quirks = quirks
        self.tenant = tenant
        self.rest_bytes: RestBytes | None = rest_bytes              # the convention in use (known or guessed)
        self.rest_bytes_guess: RestBytes | None = rest_bytes_guess  # the caller's guess, used if nothing is seen
        self.rest_bytes_seen: RestBytes | None = None               # what the peer's own values showed

    def note(self, code: str, path: str, detail: str = "") -> None:
        self.notes.append(Note(code, path, detail))
