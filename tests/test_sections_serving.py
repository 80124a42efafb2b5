"""Section indexes while serving: built in the background and switched to, searched with
no page read, an index broken under a running server, an archive replaced under its
name, and what a real server shows of them (/readyz, /metrics, the log)."""

from __future__ import annotations

import os
import shutil
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from corpus_mcp import refs
from corpus_mcp.config import Settings, load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.sections.catalog import IndexFolder

from .conftest import NEXT_MONTH_ONLY, settings_for
from .server_process import running_server

#: Far above what any build here takes: a failsafe, never what is measured.
GUARD_SECONDS = 240.0


async def eventually(what: str, condition: Callable[[], bool]) -> None:
    """Until ``condition()`` holds (checked ten times a second), failing after the guard."""
    with trio.move_on_after(GUARD_SECONDS):
        while not condition():
            await trio.sleep(0.1)
        return
    pytest.fail(f"never: {what}")


def indexed_settings(manifest: Path, folder: Path, **env: str) -> Settings:
    return settings_for(
        manifest,
        INDEX="auto",
        CORPUS_INDEX_DIR=str(folder),
        # Builds run at the server's own priority here: CI keeps every core busy, and at
        # the default (SCHED_IDLE) a build would wait for idle time that never comes.
        INDEX_PRIORITY="normal",
        ARCHIVE_RECHECK_SECONDS="0.2",
        **env,
    )


def all_ready(corpus: Corpus) -> bool:
    return all(state.state == "ready" for state in corpus.index_states().values())


def prebuilt(demo_corpus: Path, folder: Path, names: set[str]) -> None:
    for name, relative, adapter in DEMO_LIBRARIES:
        if name in names:
            job = BuildJob(
                archive=demo_corpus.parent / relative, adapter=adapter, folder=folder, library=name
            )
            build_index(job, processes=1)


async def test_a_corpus_builds_its_indexes_in_the_background_and_then_reads_no_page(
    demo_corpus: Path, tmp_path: Path
) -> None:
    settings = indexed_settings(demo_corpus, tmp_path)
    async with open_corpus(settings, load_manifest(demo_corpus, demo_corpus.parent)) as corpus:
        before = await corpus.search("str.join", 5)  # answered at once, indexes or not
        assert before.results and not before.partial
        await eventually("every index ready", lambda: all_ready(corpus))
        corpus.cache.clear()
        corpus.answers_cache.clear()
        corpus.hits_cache.clear()
        found = await corpus.search("str.join", 5)
        assert found.results[0].ref == "corpus://Python-Docs/library/stdtypes"
        assert [s.id for s in found.results[0].relevant_sections][:1] == ["str.join"]
        assert found.results[0].snippet
        # Ranking, hints and snippets read no page; only a thread asking the question is
        # read whole, for the pages its answer cites (links are in no index).
        [thread] = [r for r in found.results if r.kind == "thread"]
        assert thread.title.startswith("Why is str.join faster")
        uuid = corpus.library(thread.library).service.info.uuid
        path = refs.decode(thread.ref, corpus.libraries).path
        assert len(corpus.cache) == 1
        assert corpus.cache.get((uuid, path)) is not None
        # Fetch still reads the page, whole.
        fetched = await corpus.fetch(found.results[0].ref, ["str.join"])
        assert "str.join" in fetched.sections[0].id
    states = IndexFolder(tmp_path)
    assert len(list(tmp_path.glob("*.xapian"))) == len(DEMO_LIBRARIES)
    assert not states.building()


async def test_an_index_broken_under_the_server_is_left_and_built_again(
    demo_corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    prebuilt(demo_corpus, tmp_path, {name for name, _, _ in DEMO_LIBRARIES})
    settings = indexed_settings(demo_corpus, tmp_path)
    async with open_corpus(settings, load_manifest(demo_corpus, demo_corpus.parent)) as corpus:
        assert all_ready(corpus)
        library = corpus.library("Python-Docs")
        broken = library.sections
        assert broken is not None
        with broken.file.open("r+b") as handle:  # cut short in place, under the reader
            handle.truncate(4096)
        answered = await corpus.search("subprocess.run capture output", 5)
        assert not answered.partial, "a broken index costs no library"
        assert any(r.library == "Python-Docs" for r in answered.results)
        await eventually("the broken index dropped", lambda: library.sections is not broken)
        await eventually(
            "rebuilt and searched again",
            lambda: library.sections is not None and library.sections is not broken,
        )
        again = await corpus.search("subprocess.run", 5)
        assert again.results[0].ref == "corpus://Python-Docs/library/subprocess"
    assert "its section index" in caplog.text and "unreadable" in caplog.text


async def test_an_archive_replaced_under_its_name_never_meets_the_old_index(
    demo_corpus: Path, next_month_wikipedia: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    wikipedia = next(rel for name, rel, _ in DEMO_LIBRARIES if name == "Wikipedia")
    (root / wikipedia).parent.mkdir(parents=True)
    shutil.copyfile(demo_corpus.parent / wikipedia, root / wikipedia)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "wiki"\npath = "{wikipedia}"\nadapter = "mediawiki"\n'
    )
    folder = tmp_path / "indexes"
    build_index(
        BuildJob(archive=root / wikipedia, adapter="mediawiki", folder=folder, library="wiki"),
        processes=1,
    )
    settings = indexed_settings(manifest, folder)
    async with open_corpus(settings, load_manifest(manifest, root)) as corpus:
        library = corpus.library("wiki")
        old = library.service.info.uuid
        assert library.sections is not None and library.sections.meta.archive_uuid == old
        replacement = root / "incoming.zim"
        shutil.copyfile(next_month_wikipedia, replacement)
        os.replace(replacement, root / wikipedia)  # the documented safe update (docs/operations.md)

        def matched() -> bool:
            index = library.sections
            uuid = library.service.info.uuid
            assert index is None or index.meta.archive_uuid == uuid, "the old file's index"
            return uuid != old and index is not None

        await eventually("the new archive searched by its own index", matched)
        found = await corpus.search(NEXT_MONTH_ONLY.replace("_", " "), 5)
        assert found.results[0].ref == f"corpus://wiki/{NEXT_MONTH_ONLY}"


def test_a_real_server_builds_shows_and_serves_its_indexes(
    demo_corpus: Path, tmp_path: Path
) -> None:
    env = {
        "INDEX": "auto",
        "CORPUS_INDEX_DIR": str(tmp_path / "indexes"),
        "INDEX_PRIORITY": "normal",
        "ARCHIVE_RECHECK_SECONDS": "0.2",
    }
    with running_server(demo_corpus, tmp_path / "server.log", env=env) as server:
        base = f"http://127.0.0.1:{server.port}"
        deadline = time.monotonic() + GUARD_SECONDS
        while True:
            with urllib.request.urlopen(f"{base}/readyz") as response:
                ready = response.read().decode()
            if '"missing"' not in ready and "building" not in ready:
                break
            assert time.monotonic() < deadline, ready
            time.sleep(0.2)
        assert '"Python-Docs": "ready (' in ready
        with urllib.request.urlopen(f"{base}/metrics") as response:
            exposition = response.read().decode()
        assert (
            'corpus_mcp_section_index_state{library="Python-Docs",state="ready"} 1.0' in exposition
        )
        assert 'corpus_mcp_section_index_sections{library="Math-SE"} 30.0' in exposition
        server.wait_for_log("library Math-SE: searching its section index from now on")
        assert "building its section index in the background" in server.stderr


async def test_an_unusable_index_folder_means_serving_without_indexes(
    demo_corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder that cannot be written (here: a path under a file, which even root
    cannot create) is said once; every library is searched as without an index."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    settings = indexed_settings(demo_corpus, blocker / "indexes")
    async with open_corpus(settings, load_manifest(demo_corpus, demo_corpus.parent)) as corpus:
        await eventually(
            "the folder's problem said",
            lambda: "serving without new ones" in caplog.text,
        )
        states = corpus.index_states()
        assert {s.state for s in states.values()} == {"failed"}
        assert all("cannot be created" in (s.reason or "") for s in states.values())
        found = await corpus.search("str.join", 5)
        assert found.results and not found.partial
        await trio.sleep(0.5)  # a few more checks: said once, not on each
    assert caplog.text.count("serving without new ones") == 1


def test_validate_says_an_index_folder_cannot_be_used(demo_corpus: Path, tmp_path: Path) -> None:
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    environ = {
        **os.environ,
        "CORPUS_ROOT": str(demo_corpus.parent),
        "CORPUS_CONFIG": str(demo_corpus),
        "INDEX": "auto",
        "CORPUS_INDEX_DIR": str(blocker / "indexes"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "corpus_mcp", "validate"],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "warning: section indexes: the index folder" in done.stdout
    assert "cannot be created" in done.stdout and "served without them" in done.stdout
