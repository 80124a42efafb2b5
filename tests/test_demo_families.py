"""The demo corpus ``make run`` serves: every family's archive, each with the adapter
``corpus-mcp init`` gives its family, and each answering a question about its own pages
through the corpus the server serves (with the section index ``make run`` builds, and
without it)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from corpus_mcp import refs
from corpus_mcp.adapters import ADAPTERS
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES, FAMILY_LIBRARIES, build_demo_corpus
from corpus_mcp.families import adapter_for
from corpus_mcp.init.plan import Archive, plan_libraries
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.zim import ZimReader

from .conftest import settings_for

# (library, words of one of its pages' bodies, that page's path)
QUESTIONS = (
    ("Demo-3.11-Documentation", "virtual environments packages",
     "docs.example.org/3.11/tutorial/venv.html"),
    ("Project-Gutenberg-Library", "Elizabeth Bennet Darcy", "Pride and Prejudice.1342"),
    ("freeCodeCamp-JavaScript", "walks the word once and counts each vowel",
     "content/curriculum/javascript-algorithms-and-data-structures/basic-algorithm-scripting/"
     "d3m0000000000000000000a1.md"),
    ("LibreTexts-Chemistry", "particles keep fixed places", "content/page_content_500111.json"),
    ("TED", "secret clocks of coral reefs", "the-secret-clocks-of-coral-reefs"),
    ("iFixit", "Kindle Paperwhite battery", "Guide/-/51500"),
)  # fmt: skip


@pytest.fixture(scope="module")
def full_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_corpus(tmp_path_factory.mktemp("full-demo"), families=True)


def test_the_command_builds_every_family_and_prints_nothing_to_stdout(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "corpus_mcp.demo", str(tmp_path / "cli")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, "")
    assert f"{len(DEMO_LIBRARIES) + len(FAMILY_LIBRARIES)} archives" in run.stderr
    manifest = tomllib.loads((tmp_path / "cli" / "corpus.toml").read_text(encoding="utf-8"))
    assert len(manifest["library"]) == 13


def test_each_library_has_the_adapter_init_gives_its_family(full_demo: Path) -> None:
    manifest = tomllib.loads(full_demo.read_text(encoding="utf-8"))
    assert [lib["name"] for lib in manifest["library"]] == [
        name for name, _, _ in DEMO_LIBRARIES + FAMILY_LIBRARIES
    ]
    for library in manifest["library"]:
        family = ZimReader(full_demo.parent / library["path"]).info.family
        assert adapter_for(family, ADAPTERS) == library["adapter"], library["name"]


def test_each_library_is_named_as_init_names_it(full_demo: Path) -> None:
    """One naming rule for ``corpus-mcp init`` and the demo corpus."""
    libraries = DEMO_LIBRARIES + FAMILY_LIBRARIES
    archives = [Archive(path, ZimReader(full_demo.parent / path).info) for _, path, _ in libraries]
    entries, skipped = plan_libraries(archives)
    assert skipped == []
    assert [entry.name for entry in entries] == [name for name, _, _ in libraries]


@pytest.fixture(scope="module")
def index_folder(full_demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("full-demo-indexes")
    for name, relative, adapter in FAMILY_LIBRARIES:
        job = BuildJob(
            archive=full_demo.parent / relative, adapter=adapter, folder=folder, library=name
        )
        build_index(job, processes=1)
    return folder


@pytest.fixture(params=["indexed", "unindexed"])
async def corpus(
    request: pytest.FixtureRequest, full_demo: Path, index_folder: Path
) -> AsyncIterator[Corpus]:
    index = "auto" if request.param == "indexed" else "off"
    settings = settings_for(
        full_demo, PARSE_WORKERS="0", INDEX=index, CORPUS_INDEX_DIR=str(index_folder)
    )
    async with open_corpus(settings, load_manifest(full_demo, full_demo.parent)) as opened:
        yield opened


@pytest.mark.parametrize(("library", "query", "path"), QUESTIONS, ids=[q[0] for q in QUESTIONS])
async def test_each_family_answers_for_its_own_pages_among_all(
    corpus: Corpus, library: str, query: str, path: str
) -> None:
    found = await corpus.search(query, 5)
    best = found.results[0]
    assert best.ref == refs.encode(library, path), [r.ref for r in found.results]
    fetched = await corpus.fetch(best.ref, None)
    assert fetched.library == library and any(s.content for s in fetched.sections)
