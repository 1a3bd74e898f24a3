"""The README is the user's door and must stay true: its configuration reference is the one the
configuration schema generates, and the commands it shows exist."""

from __future__ import annotations

from pathlib import Path

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
