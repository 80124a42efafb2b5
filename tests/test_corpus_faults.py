"""The corpus with a library whose archive file changed: left out of searches, refused by
fetch, its caches dropped when a sound archive is back; and with a new archive renamed
over a served one: no outage, the swap when it is sound, a call in flight across the swap
reading the old one to its end (real archives, in-process; the background check is driven
by hand here, see tests/test_archive_faults.py for a server)."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.errors import CorpusError
from corpus_mcp.federate import federate
from corpus_mcp.library import Library
from corpus_mcp.parsing import ParsePool
from corpus_mcp.zim import ArchiveService, ZimError, ZimReader
from corpus_mcp.zim.identity import TRUNCATED
from corpus_mcp.zim.service import NOT_AN_ARCHIVE

from .conftest import settings_for

NEVER = "3600"
"""ARCHIVE_RECHECK_SECONDS here: the tests call ``recheck`` themselves."""


@pytest.fixture
def corpus_copy(demo_corpus: Path, tmp_path: Path) -> Path:
    """A copy of the demo corpus, free to break; returns its manifest."""
    for _, relative, _ in DEMO_LIBRARIES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(demo_corpus.parent / relative, tmp_path / relative)
    manifest = tmp_path / "corpus.toml"
    shutil.copyfile(demo_corpus, manifest)
    return manifest


@pytest.fixture
async def corpus(corpus_copy: Path) -> AsyncIterator[Corpus]:
    settings = settings_for(corpus_copy, ARCHIVE_RECHECK_SECONDS=NEVER, SEARCH_TIMEOUT="60")
    async with open_corpus(settings, load_manifest(corpus_copy, corpus_copy.parent)) as opened:
        yield opened


def served(corpus: Corpus, name: str) -> Path:
    return Path(corpus.library(name).service.info.file)


async def back_again(corpus: Corpus, name: str) -> None:
    """Recheck until the library is served again (two checks see the file unchanged)."""
    for _ in range(3):
        if await corpus.recheck(name):
            return
    pytest.fail(f"{name} was not served again")


async def test_a_truncated_library_is_left_out_then_served_again(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    query = "C3 linearization multiple inheritance"
    whole = await corpus.search(query, 5)
    assert "Wikipedia" in {result.library for result in whole.results}
    assert not whole.partial
    fetched = await corpus.fetch("corpus://Wikipedia/C3_linearization", None)
    uuid = corpus.library("Wikipedia").service.info.uuid
    assert corpus.hits_cache.get((uuid, whole.query, 5)) is not None
    assert corpus.cache.get((uuid, "C3_linearization")) is not None
    file = served(corpus, "Wikipedia")
    pristine = file.read_bytes()
    os.truncate(file, len(pristine) // 2)
    assert not await corpus.recheck("Wikipedia")  # the periodic check finds it
    assert corpus.unavailable_libraries == {"Wikipedia": TRUNCATED}

    for ref in ("corpus://Wikipedia/C3_linearization", "corpus://Wikipedia/Ray_Charles"):
        with pytest.raises(CorpusError) as caught:
            await corpus.fetch(ref, None)
        assert caught.value.payload() == {
            "error": "library_unavailable",
            "message": (
                "library 'Wikipedia' is temporarily unavailable (archive file truncated); "
                "retry in 3600 s or later, or search the other libraries"
            ),
            "library": "Wikipedia",
            "reason": TRUNCATED,
            "retry_after": 3600.0,
        }
    # The remembered answer named the library: it is not given while it is unavailable.
    left_out = await corpus.search(query, 5)
    assert left_out.partial
    assert left_out.unavailable_libraries == ["Wikipedia"]
    assert left_out.results
    assert "Wikipedia" not in {result.library for result in left_out.results}
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    [warning] = warnings  # the service's; no line per search
    assert warning.startswith("library Wikipedia unavailable: archive file truncated")

    file.write_bytes(pristine)  # repaired in place (the same inode)
    await back_again(corpus, "Wikipedia")
    assert corpus.hits_cache.get((uuid, whole.query, 5)) is None
    assert corpus.cache.get((uuid, "C3_linearization")) is None
    assert len(corpus.answers_cache) == 0
    assert corpus.unavailable_libraries == {}
    assert await corpus.fetch("corpus://Wikipedia/C3_linearization", None) == fetched
    assert await corpus.search(query, 5) == whole


async def test_a_fault_found_during_a_search_is_said_once(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    file = served(corpus, "Python-Docs")
    os.truncate(file, 100)
    for _ in range(2):
        found = await corpus.search("asyncio task", 5)
        assert found.unavailable_libraries == ["Python-Docs"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("library Python-Docs unavailable: archive file truncated")


async def test_a_fault_found_while_results_are_read(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    """The index search had answered (its hits remembered); the archive changed before
    the documents were read: the library is left out, said once."""
    await corpus.search("asyncio task", 5)
    corpus.answers_cache.clear()
    corpus.cache.clear()
    os.truncate(served(corpus, "Python-Docs"), 100)
    found = await corpus.search("asyncio task", 5)
    assert found.partial
    assert found.unavailable_libraries == ["Python-Docs"]
    assert "Python-Docs" not in {result.library for result in found.results}
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1


def rename_over(source: Path, target: Path) -> None:
    """The safe update: a new file written next to the served one, then moved over it."""
    fresh = target.with_suffix(".new")
    shutil.copyfile(source, fresh)
    os.replace(fresh, target)


async def test_a_documentation_library_replaced_gets_its_new_symbols(corpus: Corpus) -> None:
    library = corpus.library("Python-Docs")
    file = served(corpus, "Python-Docs")
    before = library.symbols
    assert before.lookup([("asyncio.create_task", 1.0)])
    rename_over(file, file)
    await back_again(corpus, "Python-Docs")
    assert library.symbols is not before
    assert library.symbols.lookup([("asyncio.create_task", 1.0)])
    found = await corpus.search("asyncio.create_task", 3)
    assert found.results[0].library == "Python-Docs"


async def test_a_new_archive_renamed_over_is_served_without_an_outage(
    corpus: Corpus, demo_archives: dict[str, Path]
) -> None:
    """Next month's file moved over the served one: the old one answers until the new
    one has been seen sound twice, then the new one does, with nothing of the old one
    remembered."""
    query = "asyncio task"
    old_uuid = corpus.library("Python-Docs").service.info.uuid
    own = await corpus.fetch("corpus://Python-Docs/library/asyncio", None)
    whole = await corpus.search(query, 5)
    assert "Python-Docs" in {result.library for result in whole.results}
    rename_over(demo_archives["Cpp-Docs"], served(corpus, "Python-Docs"))
    for swapped in (False, True):
        assert await corpus.recheck("Python-Docs") is swapped
        if not swapped:  # the old file answers, searched and fetched, not partial
            assert await corpus.fetch("corpus://Python-Docs/library/asyncio", None) == own
            assert await corpus.search(query, 5) == whole
    assert corpus.unavailable_libraries == {}
    assert corpus.cache.get((old_uuid, "library/asyncio")) is None
    assert corpus.hits_cache.get((old_uuid, whole.query, 5)) is None
    assert len(corpus.answers_cache) == 0
    fetched = await corpus.fetch("corpus://Python-Docs/cpp/container/list", None)
    assert fetched.library == "Python-Docs"
    with pytest.raises(CorpusError) as gone:
        await corpus.fetch("corpus://Python-Docs/library/asyncio", None)
    assert gone.value.code == "not_found"


async def test_a_search_across_a_swap_reads_the_old_archive_and_is_not_remembered(
    corpus: Corpus, demo_archives: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap lands between a search's index work and the reading of its results: the
    search reads the archive it began with (its hits' documents are there), answers
    whole, and leaves nothing for later calls to take for the new archive's."""
    query = "asyncio task"
    library = corpus.library("Python-Docs")
    old_uuid = library.service.info.uuid
    rename_over(demo_archives["Cpp-Docs"], served(corpus, "Python-Docs"))
    while (new := library.service.reopen(direct_index=True, check=False)) is None:
        pass

    def swap_then_federate(*args: Any) -> Any:
        library.service.serve(new)  # in the ranking thread, mid-search
        return federate(*args)

    monkeypatch.setattr("corpus_mcp.searching.federate", swap_then_federate)
    across = await corpus.search(query, 5)
    monkeypatch.undo()
    assert not across.partial
    assert "Python-Docs" in {result.library for result in across.results}
    assert library.service.held is new
    assert len(corpus.answers_cache) == 0  # read from an archive no longer served
    # Its hits are remembered for the archive they came from.
    assert corpus.hits_cache.get((old_uuid, across.query, 5)) is not None
    after = await corpus.search(query, 5)
    assert "Python-Docs" not in {result.library for result in after.results}


@pytest.mark.parametrize(
    ("loader", "table"), [("load_symbols", "its symbol index"), ("load_pages", "its page list")]
)
async def test_a_new_archive_whose_tables_cannot_be_read_is_not_served(
    corpus: Corpus,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    loader: str,
    table: str,
) -> None:
    file = served(corpus, "Cpp-Docs")
    old = corpus.library("Cpp-Docs").service.held
    rename_over(file, file)

    def unreadable(reader: ZimReader, adapter: object) -> None:
        raise ZimError("entry lookup failed: simulated")

    monkeypatch.setattr(f"corpus_mcp.gather.{loader}", unreadable)
    for _ in range(3):
        assert not await corpus.recheck("Cpp-Docs")
    assert corpus.unavailable_libraries == {}
    assert corpus.library("Cpp-Docs").service.held is old  # the old one serves on
    [refused] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"cannot be served: {NOT_AN_ARCHIVE} ({file}: {table}: " in refused
    monkeypatch.undo()
    await back_again(corpus, "Cpp-Docs")


async def test_a_failing_check_is_logged_and_the_others_still_checked(
    demo_archives: dict[str, Path],
    autojump_clock: trio.testing.MockClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = settings_for(demo_archives["Wikipedia"], ARCHIVE_RECHECK_SECONDS="5")
    shared = trio.CapacityLimiter(1)
    libraries = [
        Library(name, get_adapter("mediawiki"), ArchiveService(reader, shared, library=name))
        for name, reader in (
            ("first", ZimReader(demo_archives["Wikipedia"])),
            ("second", ZimReader(demo_archives["MDWiki"])),
        )
    ]
    corpus = Corpus(settings, libraries, ParsePool.in_threads())
    checked: list[str] = []

    async def recheck(name: str) -> bool:
        checked.append(name)
        if name == "first" and checked.count("first") == 1:
            raise RuntimeError("simulated failure of the check")
        return False

    corpus.recheck = recheck  # type: ignore[method-assign]
    with trio.move_on_after(12):  # two rounds, five seconds apart
        await corpus.watch_archives()
    assert checked == ["first", "second", "first", "second"]
    [failure] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert failure.getMessage() == "library first: checking its archive failed"
    assert failure.exc_info is not None


async def test_a_fault_found_by_a_fetch(corpus: Corpus) -> None:
    """No check has run since the file changed: the fetch's own access finds it."""
    os.truncate(served(corpus, "Cpp-Docs"), 100)
    with pytest.raises(CorpusError) as caught:
        await corpus.fetch("corpus://Cpp-Docs/cpp/container/list", None)
    assert caught.value.code == "library_unavailable"
    assert caught.value.details["reason"] == TRUNCATED
    assert corpus.unavailable_libraries == {"Cpp-Docs": TRUNCATED}
