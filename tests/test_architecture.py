"""The import rules of design.md, enforced by an AST walk: the core is sans-IO (no aiohttp, asyncio,
structlog, clocks, randomness, environment or logging), only the shell imports aiohttp, only
observability imports structlog, only the codec imports ujson, and nothing reads the reference
folder beside the repository."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gateway"
CORE_BANNED = {"aiohttp", "asyncio", "structlog", "os", "time", "uuid", "random", "logging", "secrets",
               "socket", "threading", "subprocess", "gateway.config", "gateway.shell", "gateway.observability"}
OWNERS = {"aiohttp": ("gateway/shell/", "gateway/demo/"), "structlog": ("gateway/observability.py",),
          "ujson": ("gateway/core/jsoncodec.py",)}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


@pytest.mark.parametrize("path", [p for p in _modules() if "/core/" in p.as_posix()], ids=_rel)
def test_core_is_sans_io(path: Path) -> None:
    bad = {name for name in _imports(path)
           if any(name == b or name.startswith(b + ".") for b in CORE_BANNED)}
    assert not bad, f"{_rel(path)} imports {sorted(bad)}: the core is sans-IO"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_library_owners(path: Path) -> None:
    rel = _rel(path)
    for lib, owner in OWNERS.items():
        uses = any(name == lib or name.startswith(lib + ".") for name in _imports(path))
        assert not uses or rel.startswith(owner), f"{rel} imports {lib}; only {' and '.join(owner)} may"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_modules_say_what_they_own(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert path.name == "__init__.py" or (doc and len(doc) > 40), f"{_rel(path)} needs an opening docstring"


def test_nothing_reads_shared() -> None:
    root = PACKAGE.parent
    shared = "../" + "shared"  # spelled in two pieces so this file does not match itself
    offenders = [p for d in ("gateway", "tests", "bench") for p in (root / d).rglob("*.py")
                 if shared in p.read_text() and p.name != "test_architecture.py"]
    assert not offenders, f"{offenders} read {shared}, which a user's clone does not have"
