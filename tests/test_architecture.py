"""The import rules of design.md, enforced by an AST walk: the core is sans-IO (no aiohttp, asyncio,
structlog, clocks, randomness, environment or logging), only the shell and the demo import aiohttp, only
observability imports structlog, only the codec imports ujson, and nothing reads the reference folder
beside the repository. Across the whole package: no import cycle (`from pkg import mod` read strictly, as
importing pkg's __init__ too), no module taking a sibling through its package's face, no private name
imported from another module, no shim and no re-exports but the package faces."""

from __future__ import annotations

import ast
import functools
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
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


# --- the package's own import graph -----------------------------------------------------------------
# Every import counts as an edge: module level, inside a function, under TYPE_CHECKING.



@dataclass(frozen=True, slots=True)
class Edge:
    source: str  # the importing module, e.g. "gateway.shell.carrier.relay"
    target: str  # the imported module (a package means its __init__.py)
    name: str  # the name taken from it ("" for `import x.y`)
    line: int


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _package() -> dict[str, Path]:
    return {_module_name(path): path for path in _modules()}


@functools.cache
def _tree(name: str) -> ast.Module:
    path = _package()[name]
    return ast.parse(path.read_text(), str(path))


def _own(module: str) -> str | None:
    """The longest prefix of a dotted name that is one of the package's modules."""
    while module and module not in _package():
        module = module.rpartition(".")[0]
    return module or None


def _from_base(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".")
    if _package()[name].name != "__init__.py":
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _edges(name: str) -> Iterator[Edge]:
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (target := _own(alias.name)) is not None:
                    yield Edge(name, target, "", node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(name, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in _package():  # `from gateway.config import checks`: the module itself, and
                    yield Edge(name, sub, "", node.lineno)  # the package's __init__, which runs first
                    if (face := _own(base)) is not None and face != name:
                        yield Edge(name, face, "", node.lineno)
                elif (target := _own(base)) is not None:
                    yield Edge(name, target, alias.name, node.lineno)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _rel_module(name: str) -> str:
    return _rel(_package()[name])


def _cycles() -> dict[str, str]:
    """Each strongly connected set of modules (Tarjan), as its violation and one cycle through it."""
    graph = {name: sorted({e.target for e in _edges(name)}) for name in _package()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            component.append(v)
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    out = {}
    for component in found:
        start, members = component[0], set(component)
        paths: deque[list[str]] = deque([[start]])
        cycle: list[str] = []
        while paths and not cycle:  # the shortest way from `start` back to itself
            path = paths.popleft()
            for w in graph[path[-1]]:
                if w == start:
                    cycle = [*path, w]
                    break
                if w in members and w not in path:
                    paths.append([*path, w])
        key = "cycle: " + ", ".join(_rel_module(m) for m in component)
        out[key] = " -> ".join(_rel_module(m) for m in cycle)
    return out


def _private_imports() -> dict[str, str]:
    out = {}
    for name in _package():
        for edge in _edges(name):
            if _private(edge.name) or _private(edge.target.rpartition(".")[2]):
                what = edge.name or edge.target
                out[f"private: {_rel_module(name)} imports {what} from {edge.target}"] = f"line {edge.line}"
        modules = {alias.asname or alias.name.partition(".")[0] for node in ast.walk(_tree(name))
                   if isinstance(node, ast.Import) for alias in node.names if _own(alias.name)}
        modules |= {alias.asname or alias.name for node in ast.walk(_tree(name)) if isinstance(node, ast.ImportFrom)
                    for alias in node.names if f"{_from_base(name, node)}.{alias.name}" in _package()}
        for node in ast.walk(_tree(name)):
            if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                    and node.value.id in modules):
                out[f"private: {_rel_module(name)} uses {node.value.id}.{node.attr}"] = f"line {node.lineno}"
    return out


def _defines(module: ast.Module) -> set[str]:
    """The names a module's own top-level statements bind (not its imports, not __all__)."""
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif not isinstance(node, ast.Import | ast.ImportFrom | ast.Expr | ast.If):
            names.add(f"<{type(node).__name__} at line {node.lineno}>")  # a statement of its own
    return names - {"__all__"}


def _exported(module: ast.Module) -> list[str]:
    for node in module.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _shims_and_reexports() -> dict[str, str]:
    out = {}
    for name, path in _package().items():
        if path.name == "__init__.py":
            continue  # a package face may gather its modules' names
        tree = _tree(name)
        own = _defines(tree)
        if not own and any(isinstance(n, ast.Import | ast.ImportFrom) for n in tree.body):
            out[f"shim: {_rel(path)}"] = "defines nothing of its own"
        imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names}
        passed_on = [n for n in _exported(tree) if n in imported and n not in own]
        if passed_on:
            out[f"re-export: {_rel(path)}"] = f"its __all__ passes on {passed_on}"
    return out


def _faces() -> dict[str, str]:
    """A module inside a package imports its siblings directly, never through the package's (or an
    enclosing package's) face, whose __init__ imports its modules: only a name the face defines itself
    (`from gateway import __version__`) may be taken from it."""
    out = {}
    for name in _package():
        for node in ast.walk(_tree(name)):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = _from_base(name, node)
            if base not in _package() or _package()[base].name != "__init__.py" or not name.startswith(base + "."):
                continue
            through = [a.name for a in node.names if a.name not in _defines(_tree(base))]
            if through:
                out[f"face: {_rel_module(name)} imports {through} through {_rel_module(base)}"] = f"line {node.lineno}"
    return out


def _violations() -> dict[str, str]:
    return {**_cycles(), **_private_imports(), **_shims_and_reexports(), **_faces()}


@pytest.mark.parametrize("rule", ["cycle", "private", "shim", "re-export", "face"])
def test_package_structure(rule: str) -> None:
    new = {k: v for k, v in _violations().items() if k.startswith(f"{rule}: ")}
    assert not new, "\n".join(f"{k} ({v})" for k, v in sorted(new.items()))


def test_the_structure_checks_catch_what_they_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "gateway"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": '"""a"""\nfrom gateway.b import B\n\ndef f() -> None:\n    from gateway import c\n    c._hidden()\n',
        "b.py": '"""b"""\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gateway.a import f\nB = 1\n',
        "c.py": '"""c"""\nfrom gateway.b import _secret\n\ndef _hidden() -> None: ...\n',
        "shim.py": '"""old path"""\nfrom gateway.b import B\n\n__all__ = ["B"]\n',
        "sub/__init__.py": "from gateway.sub.d import D\n\n__all__ = [\"D\"]\n",
        "sub/d.py": '"""d"""\nfrom .e import E\n\nD = E\n__all__ = ["D", "E"]\n',
        "sub/f.py": '"""f"""\nfrom gateway.sub import d\n\nF = d.D\n',
        "sub/e.py": '"""e"""\nfrom ..b import B as E\n',
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    for cached in (_package, _tree):
        cached.cache_clear()
    try:
        found = _violations()
    finally:
        for cached in (_package, _tree):
            cached.cache_clear()
    assert found == {
        # a -> b, b -> a under TYPE_CHECKING, a -> c inside a function, c -> b: one set, its shortest cycle shown
        "cycle: gateway/a.py, gateway/b.py, gateway/c.py": "gateway/a.py -> gateway/b.py -> gateway/a.py",
        "private: gateway/a.py uses c._hidden": "line 6",
        "private: gateway/c.py imports _secret from gateway.b": "line 2",
        "shim: gateway/shim.py": "defines nothing of its own",
        "shim: gateway/sub/e.py": "defines nothing of its own",
        "re-export: gateway/shim.py": "its __all__ passes on ['B']",
        "re-export: gateway/sub/d.py": "its __all__ passes on ['E']",
        # a sibling taken through its package's face: `from gateway.sub import d` inside gateway.sub
        "face: gateway/sub/f.py imports ['d'] through gateway/sub/__init__.py": "line 2",
        "face: gateway/a.py imports ['c'] through gateway/__init__.py": "line 5",
    }
