"""A fetch fills its answer in order up to the budget, on the real archives (issue 30).

The cases of the issue through a real MCP server: Ray Charles's "Career" (no text of its
own: its first periods come, the others are listed) and the Python tutorial's "Classes"
(its lead and first sections, the rest listed).

Then the walk: no fetch answers nothing while what it asks for holds text. Every
archive of ../shared/zims (the top-level ones, real/ and families/, each with the
adapter ``corpus-mcp init`` gives it) and every archive of the demo corpus (with the
other families' fixtures): each document fetched whole and by each of its section ids,
at the default budget and at a tight one. An answer holds text exactly when what was
asked for does (the same fetch with a budget no document reaches says), and an answer
whose asked-for sections hold none says so (:data:`corpus_mcp.folding.EMPTY`).

To stay fast enough for the suite, libraries with more documents are sampled (a fixed
seed, :data:`DOCUMENTS` a library), and so are the section ids of long documents
(:data:`SECTIONS` a document); the shared archives are skipped cleanly where absent.
"""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from corpus_mcp import folding, refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import build_demo_corpus
from corpus_mcp.init.command import write_manifest
from corpus_mcp.wire import FetchOutput

from .conftest import SHARED_ZIMS, settings_for, write_libraries
from .mcp_helpers import serving, structured

#: Documents fetched per library, sampled with a fixed seed where a library holds more.
DOCUMENTS = 60
#: Section ids fetched per document, sampled likewise (the lead always among them).
SECTIONS = 24
#: A budget no document reaches: what was asked for, whole.
WHOLE = "100000000"
#: A budget most documents and many sections exceed: cuts and lists everywhere.
TIGHT = "1500"


def _shared_manifest(folder: Path) -> Path:
    """Every archive of ../shared/zims but the broken ones, served with the adapters
    ``corpus-mcp init`` picks, older snapshots enabled too."""
    written = write_manifest(SHARED_ZIMS, folder / "init.toml", force=True, progress=io.StringIO())
    return write_libraries(
        folder / "shared.toml",
        [
            (entry.name, entry.path, entry.adapter, True)
            for entry in written.entries
            if not entry.path.startswith("invalid/")
        ],
    )


def _shared_present() -> bool:
    return (SHARED_ZIMS / "families").is_dir() and (SHARED_ZIMS / "real").is_dir()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manifest of every shared archive (CORPUS_ROOT: ../shared/zims)."""
    if not _shared_present():
        pytest.skip(f"the shared archives are not at {SHARED_ZIMS}")
    return _shared_manifest(tmp_path_factory.mktemp("shared"))


@pytest.fixture
async def client(shared: Path, nursery: trio.Nursery) -> AsyncIterator[Client]:
    """An MCP client of a real server over the shared archives."""
    async with serving(shared, nursery, SHARED_ZIMS) as url, Client(url) as connected:
        yield connected


def _size(answer: dict[str, Any]) -> int:
    return sum(len(s["title"]) + len(s["content"]) for s in answer["sections"])


async def test_a_section_with_no_text_of_its_own_brings_its_first_subsections_over_mcp(
    client: Client,
) -> None:
    ref = refs.encode("Wikipedia-ray-charles-2018-10", "Ray_Charles")
    career = structured(await client.call_tool("fetch", {"ref": ref, "sections": ["Career"]}))
    listed = [s for s in career["available_sections"] if s.get("chars")]
    later = structured(await client.call_tool("fetch", {"ref": ref, "sections": [listed[0]["id"]]}))
    heading, *periods = career["sections"]
    assert (heading["id"], heading["content"]) == ("Career", "")
    assert [s["title"][:9] for s in periods] == ["1945–1952", "1952–1959"]
    assert all(len(s["content"]) > 1_000 for s in periods)
    assert career["truncated"] is True and _size(career) <= 8_000
    assert [s["title"][:9] for s in listed] == ["1959–1971", "1971–1983", "1983–2004"]
    # The first left out, fetched next: all of it (its size as listed).
    assert _size(later) == listed[0]["chars"] and later["truncated"] is False


async def test_a_whole_document_comes_in_order_up_to_the_budget_over_mcp(client: Client) -> None:
    ref = refs.encode("Python-3.11-Documentation", "docs.python.org/3.11/tutorial/classes.html")
    classes = structured(await client.call_tool("fetch", {"ref": ref}))
    assert [s["title"] for s in classes["sections"]] == [
        "9. Classes",
        "9.1. A Word About Names and Objects",
    ]
    assert all(s["content"] for s in classes["sections"])
    assert classes["truncated"] is True and _size(classes) <= 8_000
    listed = [s["title"] for s in classes["available_sections"] if s.get("chars")]
    assert listed[:2] == ["9.2. Python Scopes and Namespaces", "9.3. A First Look at Classes"]
    assert listed[-1] == "9.10. Generator Expressions"


# -- the walk ------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["shared", "demo"])
def walked(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """(manifest, corpus root) of the archives walked."""
    folder = tmp_path_factory.mktemp(f"walk-{request.param}")
    if request.param == "demo":
        manifest = build_demo_corpus(folder, families=True)
        return manifest, folder
    if not _shared_present():
        pytest.skip(f"the shared archives are not at {SHARED_ZIMS}")
    return _shared_manifest(folder), SHARED_ZIMS


@asynccontextmanager
async def _opened(manifest: Path, root: Path, budget: str) -> AsyncIterator[Corpus]:
    """The corpus, with ``budget`` as FETCH_BUDGET_CHARS ("": the default)."""
    env = {"CORPUS_ROOT": str(root), "PARSE_WORKERS": "0", "INDEX": "off"}
    if budget:
        env["FETCH_BUDGET_CHARS"] = budget
    async with open_corpus(settings_for(manifest, **env), load_manifest(manifest, root)) as corpus:
        yield corpus


def _holds_text(answer: FetchOutput) -> bool:
    return any(s.content.strip() and s.content != folding.EMPTY for s in answer.sections)


def _documents(corpus: Corpus, library: str, rng: random.Random) -> list[str]:
    served = corpus.library(library)
    reader = served.service.reader
    paths = [
        path
        for path, _title, is_redirect in reader.iter_entries()
        if not is_redirect and served.adapter.is_content(path, reader.resolve(path).mimetype)
    ]
    return sorted(rng.sample(paths, DOCUMENTS)) if len(paths) > DOCUMENTS else paths


@pytest.mark.parametrize("budget", ["", TIGHT], ids=["default-budget", "tight-budget"])
async def test_no_fetch_is_empty_while_what_it_asks_for_holds_text(
    walked: tuple[Path, Path], budget: str
) -> None:
    manifest, root = walked
    rng = random.Random(30)
    fetched = 0
    async with _opened(manifest, root, WHOLE) as whole, _opened(manifest, root, budget) as corpus:
        for library in corpus.libraries:
            for path in _documents(corpus, library, rng):
                ref = refs.encode(library, path)
                everything = await whole.fetch(ref, None)
                ids = [s.id for s in everything.available_sections]
                if len(ids) > SECTIONS:
                    ids = [ids[0], *rng.sample(ids[1:], SECTIONS - 1)]
                for asked in [None, *([sid] for sid in ids)]:
                    answer = await corpus.fetch(ref, asked)
                    full = await whole.fetch(ref, asked)
                    where = f"{ref} {asked}"
                    assert answer.sections, where
                    assert _holds_text(answer) == _holds_text(full), where
                    if not _holds_text(full):
                        assert answer.sections[0].content == folding.EMPTY, where
                    if answer.truncated:
                        listed = [s.id for s in answer.available_sections if s.chars]
                        assert listed, where
                        # The rest of a section cut: fetched next, it holds text.
                        for rest in (sid for sid in listed if folding.continued(sid)):
                            assert _holds_text(await corpus.fetch(ref, [rest])), rest
                    fetched += 1
    assert fetched > 200
