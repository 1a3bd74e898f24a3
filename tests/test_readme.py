"""README.md is the door and docs/ the documentation site: both must stay true. The README stays short,
its links resolve and reach every page of the site; the configuration reference page is the one the schema
generates; the commands, configuration keys and metrics the pages name exist; the library example runs."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown.extensions.toc import slugify

from gateway.__main__ import COMMANDS
from gateway.__main__ import main as cli
from gateway.config import BY_NAME, SECTIONS, reference_markdown
from gateway.config.reference import REFERENCE_PATH
from gateway.shell.process.metrics import reference_markdown as metrics_markdown

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 300


def _pages() -> dict[Path, str]:
    """README.md and every page of the site (the fragments in docs/_incoming are not pages)."""
    pages = [README, *(p for p in sorted(DOCS.rglob("*.md")) if "_incoming" not in p.parts)]
    return {p: p.read_text(encoding="utf-8") for p in pages}


def _links(text: str) -> list[str]:
    """The targets of the markdown links in `text`, code blocks left out."""
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def _anchors(page: Path) -> set[str]:
    """The anchors the site makes of `page`'s headings (the toc extension's slugs)."""
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"),
                                                     flags=re.DOTALL), flags=re.MULTILINE)
    return {slugify(re.sub(r"[`*]", "", h), "-") for h in headings}


def _nav_pages() -> list[str]:
    """Every page the site's navigation lists, relative to docs/."""
    def walk(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [p for item in node for p in walk(item)]
        if isinstance(node, dict):
            return [p for value in node.values() for p in walk(value)]
        return []
    return walk(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


# ---- the door ------------------------------------------------------------------------------------------------


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines (at most {MAX_README_LINES}): move detail to docs/"


def test_quick_start_commands_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for page in (README, DOCS / "getting-started.md"):
        text = page.read_text(encoding="utf-8")
        for command in ("make run", "make test"):
            assert command in text, page
            assert f"\n{command.split()[1]}:" in makefile
    assert (ROOT / ".ci" / "run").read_text().count("make test") == 1


def test_every_relative_link_resolves() -> None:
    bench = ROOT / "bench" / "README.md"  # the figures' history, beside the benches
    for page, text in {**_pages(), bench: bench.read_text(encoding="utf-8")}.items():
        for link in _links(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
                continue
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            assert target.exists(), f"{page.relative_to(ROOT)} links to {link}, which does not exist"
            if anchor and target.suffix == ".md":
                assert anchor in _anchors(target), f"{page.relative_to(ROOT)} links to {link}: no such heading"


def test_readme_links_every_page_of_the_site() -> None:
    linked = {(ROOT / link.partition("#")[0]).resolve() for link in _links(README.read_text(encoding="utf-8"))}
    nav = _nav_pages()
    assert nav, "mkdocs.yml lists no page"
    for page in nav:
        assert (DOCS / page).resolve() in linked, f"README.md does not link docs/{page}"


# ---- generated pages -----------------------------------------------------------------------------------------


def test_configuration_reference_is_generated_from_the_schema() -> None:
    assert (ROOT / REFERENCE_PATH).read_text(encoding="utf-8") == reference_markdown(), (
        f"{REFERENCE_PATH} is stale: regenerate it with `python -m gateway.config`")
    assert REFERENCE_PATH.removeprefix("docs/") in _nav_pages()


# ---- what the pages name exists ------------------------------------------------------------------------------


def _help(command: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli([command, "--help"])
    return out.getvalue()


def _code(text: str) -> list[str]:
    """The lines of `text`'s code: its fenced blocks' lines and its inline code spans."""
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.DOTALL)
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines()] + re.findall(r"`([^`\n]+)`", prose)


def test_the_commands_the_pages_quote_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    dev = (ROOT / "dev.py").read_text()
    helps: dict[str, str] = {}
    for page, text in _pages().items():
        for line in _code(text):
            for name, rest in re.findall(r"(?<![\w/.'-])a2a-gateway(?=\s|$) *([a-z][a-z-]*)?(.*)", line):
                command = name or "serve"
                assert command in COMMANDS, f"{page.name}: `a2a-gateway {name}` is no command"
                usage = helps.setdefault(command, _help(command))
                for flag in re.findall(r"--[a-z][\w-]*", rest.partition("#")[0]):
                    assert flag in usage, f"{page.name}: `a2a-gateway {command}` takes no {flag}"
            for module in re.findall(r"python3? -m ([a-z_][\w.]*)", line):
                assert importlib.util.find_spec(module) is not None, f"{page.name}: no module {module}"
            for target in re.findall(r"(?<![\w-])make ([a-z]+)\b", line):
                assert f"\n{target}:" in makefile, f"{page.name}: no make target {target}"
            for command in re.findall(r"dev\.py ([a-z]+)", line):
                assert f'"{command}": ' in dev, f"{page.name}: dev.py has no command {command}"


def test_the_configuration_keys_the_pages_name_exist() -> None:
    not_keys = {"agui.rate_limited", "grpc.aio"}  # an AG-UI error code, a module: not configuration keys
    for page, text in _pages().items():
        if page == ROOT / REFERENCE_PATH:
            continue  # generated from the keys themselves
        for name in re.findall(r"`([a-z_]+(?:\.[a-z0-9_]+)+)(?: = [^`]*)?`", text):
            if name.split(".")[0] in SECTIONS and name not in not_keys:
                assert name in BY_NAME, f"{page.name} names `{name}`, which is no configuration key"
        for section, key in re.findall(r"`\[([a-z_.]+)\](?: ([a-z0-9_]+))?", text):
            if key:
                assert f"{section}.{key}" in BY_NAME, f"{page.name} names `[{section}] {key}`, which is no key"
            else:
                assert section.removeprefix("routes.") in SECTIONS, f"{page.name} names no section [{section}]"


def test_the_metrics_the_pages_name_exist() -> None:
    known = set(re.findall(r"`(a2a_gateway_\w+)`", metrics_markdown()))
    for page, text in _pages().items():
        for name in re.findall(r"\ba2a_gateway_[a-z_]+[a-z]", text):
            assert name in known, f"{page.name} names the metric {name}, which the gateway does not have"


# ---- examples run ---------------------------------------------------------------------------------------------


def test_the_library_example_runs_and_prints_what_the_page_shows(capsys: Any) -> None:
    text = (DOCS / "library.md").read_text(encoding="utf-8")
    code = text[text.index("```python\n") + 10:text.index("\n```\n")]
    shown = text[text.index("```text\n") + 8:]
    shown = shown[:shown.index("\n```")]
    exec(compile(code, "docs/library.md", "exec"), {})
    assert capsys.readouterr().out.strip() == shown.strip()
