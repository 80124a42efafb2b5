"""``make run``, ``make init`` and the corpus targets in a copy of the repository's top
level: which corpus and manifest they use, and what they say when the shipped corpus.toml
does not match the archives in ./corpus.

They run the real Makefile with this test run's virtualenv (``VENV``), and only when that
virtualenv is up to date for the Makefile (its install stamp newer than pyproject.toml and
the locks): otherwise ``make`` would reinstall into it, which is not a test's business.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from corpus_mcp.demo import devdocs

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)
STAMP = VENV / ".installed"
#: What the virtualenv's install depends on in the Makefile.
INPUTS = (
    "pyproject.toml",
    "requirements/pip.txt",
    "requirements/dev.txt",
    "requirements/build.txt",
)

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None
    or not STAMP.is_file()
    or any(STAMP.stat().st_mtime < (ROOT / file).stat().st_mtime for file in INPUTS),
    reason=f"needs make and a virtualenv installed by it ({STAMP}) that is up to date",
)


class Make(msgspec.Struct, frozen=True):
    code: int
    stdout: str
    stderr: str


def make(checkout: Path, *args: str) -> Make:
    """``make ARGS`` in ``checkout`` with this run's virtualenv, and no corpus settings
    from the environment (coverage's are kept, to measure the commands it runs)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "HOME", "LANG", "TMPDIR", "INDEX", "CORPUS_INDEX_DIR")
        or k.startswith("COVERAGE_")
    }
    done = subprocess.run(
        ["make", "--no-print-directory", f"VENV={VENV}", *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,  # a hang must fail the test, not the run; never reached when healthy
    )
    return Make(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The repository's top level as a fresh clone has it (copied with their times, so
    the virtualenv's stamp stays newer), without ./corpus."""
    top = tmp_path / "corpus-mcp"
    (top / "requirements").mkdir(parents=True)
    for relative in ("Makefile", "corpus.toml", *INPUTS):
        shutil.copy2(ROOT / relative, top / relative)
    return top


def _serve_line(result: Make) -> str:
    [line] = [line for line in result.stdout.splitlines() if line.endswith("corpus-mcp serve")]
    return line


def test_make_run_without_a_corpus_folder_serves_the_demo_corpus(checkout: Path) -> None:
    result = make(checkout, "-n", "run")
    assert result.code == 0, result.stderr
    demo = checkout / ".demo-corpus"
    assert f'CORPUS_ROOT="{demo}" CORPUS_CONFIG="{demo}/corpus.toml"' in _serve_line(result)


def test_make_run_with_a_corpus_folder_serves_it_as_corpus_toml_says(checkout: Path) -> None:
    (checkout / "corpus").mkdir()
    result = make(checkout, "-n", "run")
    assert result.code == 0, result.stderr
    line = _serve_line(result)
    assert f'CORPUS_ROOT="{checkout}/corpus" CORPUS_CONFIG="{checkout}/corpus.toml"' in line


def test_the_shipped_manifest_over_other_archives_says_how_to_go_on(checkout: Path) -> None:
    python = checkout / "corpus" / "devdocs" / "devdocs_en_python_2026-05.zim"
    devdocs.build(python)
    shipped = (checkout / "corpus.toml").read_text()

    listed = make(checkout, "corpus-list")
    assert listed.code == 0, listed.stderr
    assert "devdocs/devdocs_en_python_2026-05.zim" in listed.stdout
    assert "wikipedia: wikipedia/wikipedia_en_all_nopic_*.zim matches no archive" in listed.stdout

    validated = make(checkout, "validate-corpus")
    assert validated.code != 0
    assert "7 enabled library(ies) without an archive in CORPUS_ROOT" in validated.stderr
    assert "set enabled = false on the libraries you do not want" in validated.stderr
    assert "(`make init`; it replaces an existing manifest only with --force, FORCE=1)" in (
        validated.stderr
    )

    refused = make(checkout, "init")
    assert refused.code != 0
    assert f"make init: {checkout}/corpus.toml exists (nothing was written)" in refused.stderr
    assert "make init FORCE=1" in refused.stderr
    assert (checkout / "corpus.toml").read_text() == shipped

    written = make(checkout, "init", "FORCE=1")
    assert written.code == 0, written.stderr
    assert (checkout / "corpus.toml").read_text() != shipped
    again = make(checkout, "validate-corpus")
    assert again.code == 0, again.stderr
    assert "1 enabled library(ies) ok" in again.stdout
