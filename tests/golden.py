"""Golden-fixture discovery. Layout: tests/golden/<family>/<case>.<dialect>.json are exact members
(every v0.3 member translates to the v1.0 member and back, with no notes); <case>.to-<dialect>.json
is a one-way expected output from the case's only exact member, and <case>.to-<dialect>.notes.json
lists the notes ([{code, path}]) that translation must record (absent file: none), and
<case>.to-<dialect>.error.json ({type, path, message}) the core's error it must raise instead. A case
named `lenient_*` has a source that real peers send but the official types reject: the oracle skips it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.core.types import Dialect

ROOT = Path(__file__).parent / "golden"
DIALECTS = {d.value: d for d in Dialect}


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    src: Dialect
    dst: Dialect
    source: Any
    expected: Any
    notes: list[tuple[str, str]] = field(default_factory=list)
    error: dict[str, str] | None = None   # {type, path, message} of the GatewayError expected instead

    def __str__(self) -> str:
        return f"{self.family}/{self.name}: {self.src.value}->{self.dst.value}"


@dataclass(frozen=True)
class Fixture:
    family: str
    dialect: Dialect
    path: Path
    payload: Any

    def __str__(self) -> str:
        return str(self.path.relative_to(ROOT))


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _groups() -> dict[tuple[str, str], dict[str, Path]]:
    groups: dict[tuple[str, str], dict[str, Path]] = {}
    for path in sorted(ROOT.rglob("*.json")):
        family = path.parent.relative_to(ROOT).as_posix().replace("/", ".")
        case, _, rest = path.name.partition(".")
        groups.setdefault((family, case), {})[rest.removesuffix(".json")] = path
    return groups


def fixtures() -> list[Fixture]:
    """Every wire payload on disk (exact members and one-way outputs), for the oracle."""
    out = []
    for (family, _case), files in _groups().items():
        for key, path in files.items():
            if key.endswith((".notes", ".error")):
                continue
            if _case.startswith("lenient_") and not key.startswith("to-"):
                continue
            dialect = DIALECTS[key.removeprefix("to-")]
            out.append(Fixture(family, dialect, path, _load(path)))
    return out


def cases() -> list[Case]:
    out = []
    for (family, name), files in _groups().items():
        exact = {DIALECTS[k]: _load(p) for k, p in files.items() if k in DIALECTS}
        oneway = {DIALECTS[k.removeprefix("to-").removesuffix(".error")]: p for k, p in files.items()
                  if k.startswith("to-") and not k.endswith(".notes")}
        if Dialect.V10 in exact:
            for d, payload in exact.items():
                if d is not Dialect.V10:
                    out.append(Case(family, name, d, Dialect.V10, payload, exact[Dialect.V10]))
                    out.append(Case(family, name, Dialect.V10, d, exact[Dialect.V10], payload))
        if oneway:
            assert len(exact) == 1, f"{family}/{name}: a one-way case needs exactly one source member"
            (src, source), = exact.items()
            for dst, path in oneway.items():
                if path.name.endswith(".error.json"):
                    out.append(Case(family, name, src, dst, source, None, error=_load(path)))
                    continue
                notes_path = path.with_name(path.name.replace(".json", ".notes.json"))
                notes = [(n["code"], n["path"]) for n in _load(notes_path)] if notes_path.exists() else []
                out.append(Case(family, name, src, dst, source, _load(path), notes))
    return out
