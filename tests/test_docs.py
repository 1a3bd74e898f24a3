"""The documentation site builds: `mkdocs build --strict` (a broken link or anchor, a page missing from the
navigation or a navigation entry without its page fails it), on a copy of docs/ that also holds a fragment in
docs/_incoming, which the site leaves out whatever it links to."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(root / "mkdocs.yml"), "--site-dir", str(site)],
                          capture_output=True, text=True, timeout=120, env={"NO_MKDOCS_2_WARNING": "1",
                                                                            "PATH": "/usr/bin:/bin"})


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("_incoming"))
    (tmp_path / "docs" / "_incoming").mkdir()
    (tmp_path / "docs" / "_incoming" / "some-branch.md").write_text("# A fragment\n\n[nowhere](nowhere.md)\n")
    built = _build(tmp_path, tmp_path / "site")
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "reference" / "configuration" / "index.html").exists()
    assert not (tmp_path / "site" / "_incoming").exists()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("_incoming"))
    page = tmp_path / "docs" / "index.md"
    page.write_text(page.read_text() + "\n[a page](no-such-page.md), [a heading](running.md#no-such-heading)\n")
    built = _build(tmp_path, tmp_path / "site")
    assert built.returncode != 0
    assert "no-such-page.md" in built.stderr and "no-such-heading" in built.stderr
