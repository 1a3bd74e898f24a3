"""The README is the user's door and must stay true: its configuration reference is the one the
configuration schema generates, and the commands it shows exist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.config import reference_markdown
from gateway.config.reference import README_END as END
from gateway.config.reference import README_START as START

README = Path(__file__).resolve().parent.parent / "README.md"


def test_configuration_reference_is_generated_from_the_schema() -> None:
    text = README.read_text()
    block = text[text.index(START) + len(START):text.index(END)].strip()
    assert block == reference_markdown().strip(), (
        "README's configuration reference is stale: regenerate it with `python -m gateway.config`")


def test_quick_start_commands_exist() -> None:
    text = README.read_text()
    makefile = (README.parent / "Makefile").read_text()
    for command in ("make run", "make test"):
        assert command in text
        assert f"\n{command.split()[1]}:" in makefile
    assert (README.parent / ".ci" / "run").read_text().count("make test") == 1


def test_the_library_example_runs_and_prints_what_the_readme_shows(capsys: Any) -> None:
    text = README.read_text()
    section = text[text.index("## Using the translation core as a library"):]
    code = section[section.index("```python\n") + 10:section.index("\n```\n")]
    shown = section[section.index("```text\n") + 8:]
    shown = shown[:shown.index("\n```")]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == shown.strip()
