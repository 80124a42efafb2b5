"""Building section indexes of real ZIM files, reading them, and every way one can be
broken: killed part-way, cut short, damaged, foreign, of another version; the
``corpus-mcp index`` command."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.sections import IndexUnreadable, SectionIndex
from corpus_mcp.sections.build import BuildFailed, BuildJob, build_index
from corpus_mcp.sections.catalog import IndexFolder, archive_key
from corpus_mcp.sections.manager import IndexManager, Target
from corpus_mcp.sections.reading import read_documents
from corpus_mcp.sections.records import records
from corpus_mcp.sections.store import META_KEY, publish
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.xapian_pool import xapian

from .conftest import NO_REAL_ARCHIVES, SHARED_ZIMS

ROOT = Path(__file__).resolve().parents[1]
CORPUS_MCP = Path(sys.executable).parent / "corpus-mcp"


def job_for(archive: Path, adapter: str, folder: Path, library: str = "lib") -> BuildJob:
    return BuildJob(archive=archive, adapter=adapter, folder=folder, library=library)


def target_for(archive: Path, adapter: str, library: str = "lib") -> Target:
    info = ZimReader(archive, direct_index=False).info
    return Target(
        library=library,
        archive=str(archive),
        uuid=info.uuid,
        size=info.size,
        adapter=adapter,
        adapter_version=get_adapter(adapter).version,
    )


@pytest.fixture(scope="module")
def indexes(demo_archives: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every demo archive's index, built once for the module (one process each)."""
    folder = tmp_path_factory.mktemp("indexes")
    for name, _relative, adapter in DEMO_LIBRARIES:
        build_index(job_for(demo_archives[name], adapter, folder, name), processes=1)
    return folder


def open_index(folder: Path, archive: Path, adapter: str) -> SectionIndex:
    uuid = ZimReader(archive, direct_index=False).info.uuid
    return SectionIndex.open(IndexFolder(folder).file(archive_key(uuid, adapter)))


# -- building and reading -----------------------------------------------------------------


def test_every_demo_archive_gets_an_index_of_all_its_sections(
    indexes: Path, demo_archives: dict[str, Path]
) -> None:
    for name, _relative, adapter in DEMO_LIBRARIES:
        archive = demo_archives[name]
        target = target_for(archive, adapter, name)
        state = IndexManager(indexes).state(target)
        assert state.state == "ready", (name, state)
        index = open_index(indexes, archive, adapter)
        # As many sections as the adapter's search-time view of every page cuts.
        reader = ZimReader(archive, direct_index=False)
        expected = 0
        pages = 0
        for entry in reader.entries(0, reader.info.entry_count):
            parser = get_adapter(adapter)
            if entry.redirect or not parser.is_content(entry.path, entry.mimetype):
                continue
            if parser.main_page_is_navigation and entry.path == reader.info.main_path:
                continue
            html = reader.content(entry.path)
            if parser.redirect_stubs and parser.stub_landing(entry.path, html) is not None:
                continue
            document = parser.parse(entry.path, entry.title, html, name, view=True)
            if document.metadata.get("navigation") == "true" or document.metadata.get("missing"):
                continue
            pages += 1
            expected += len(records(document))
        assert (index.meta.documents, index.meta.sections) == (pages, expected), name
        assert index.meta.adapter_version == get_adapter(adapter).version


def test_an_identifier_finds_its_entry_and_words_find_their_section(
    indexes: Path, demo_archives: dict[str, Path]
) -> None:
    index = open_index(indexes, demo_archives["Python-Docs"], "devdocs")
    found = index.search(index.analyser.question("str.join"), 10, 3)
    assert (found[0].section.path, found[0].section.id) == ("library/stdtypes", "str.join")
    assert found[0].weight > 0
    run = index.search(index.analyser.question("subprocess.run"), 10, 3)[0].section
    assert (run.path, run.id) == ("library/subprocess", "subprocess.run")
    assert run.passages, "the stored section carries its text (for snippets)"
    # No more than the asked number of sections of one document.
    many = index.search(index.analyser.question("string method"), 40, 2)
    per_page: dict[str, int] = {}
    for hit in many:
        per_page[hit.section.path] = per_page.get(hit.section.path, 0) + 1
    assert max(per_page.values()) <= 2


def test_a_candidate_is_read_from_the_index_as_a_document_of_its_sections(
    indexes: Path, demo_archives: dict[str, Path]
) -> None:
    index = open_index(indexes, demo_archives["Python-Docs"], "devdocs")
    read = read_documents(index, "join strings", ["library/stdtypes", "no/such/page"])
    assert set(read) == {"library/stdtypes"}  # a path the index lacks is no document
    document, terms = read["library/stdtypes"]
    ids = [s.section.id for s in terms.sections]
    assert ids[0] == "" and "str.join" in ids  # its lead (a key section) and the match
    assert terms.holds("join")
    assert not document.sections[0].content  # a search view: passages, no Markdown


def test_several_processes_build_the_same_index(
    indexes: Path, demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    archive = demo_archives["StackOverflow"]
    job = job_for(archive, "stackexchange", tmp_path)
    with pytest.raises(RuntimeError, match="holds no build lock"):
        build_index(job, processes=2)  # its workers would commit nothing
    with IndexFolder(tmp_path).build_lock(wait=True):
        meta = build_index(job, processes=2)
    alone = open_index(indexes, archive, "stackexchange")
    assert (meta.documents, meta.sections) == (alone.meta.documents, alone.meta.sections)
    together = open_index(tmp_path, archive, "stackexchange")
    question = together.analyser.question("concatenating strings in a loop")
    assert [h.section.id for h in together.search(question, 20, 3)] == [
        h.section.id for h in alone.search(question, 20, 3)
    ]
    assert not IndexFolder(tmp_path).work(archive_key(meta.archive_uuid, "stackexchange")).exists()


def test_an_archive_that_cannot_be_opened_fails_the_build_saying_why(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.zim"
    bogus.write_bytes(b"not a zim" * 100)
    with pytest.raises(BuildFailed, match="cannot be opened"):
        build_index(job_for(bogus, "mediawiki", tmp_path / "indexes"), processes=1)


# -- killed part-way ------------------------------------------------------------------------

KILLED_BUILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import corpus_mcp.sections.build as build
    build.chunk_entries = lambda total, processes: 4  # many small chunks
    finished = []
    def progress(done, seconds):
        finished.append(done.entries_done)
        if len(finished) == 4:  # three chunks committed: killed as by kill -9
            os.kill(os.getpid(), signal.SIGKILL)
    job = build.BuildJob(archive=Path(sys.argv[1]), adapter=sys.argv[2],
                         folder=Path(sys.argv[3]), library="killed")
    build.build_index(job, processes=1, progress=progress)
    """
)


def test_a_build_killed_part_way_continues_where_it_stopped(
    demo_archives: dict[str, Path], indexes: Path, tmp_path: Path
) -> None:
    archive = demo_archives["StackOverflow"]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_BUILD, str(archive), "stackexchange", str(tmp_path)],
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    folder = IndexFolder(tmp_path)
    key = target_for(archive, "stackexchange").key
    assert not folder.file(key).exists() and folder.work(key).is_dir()
    assert folder.state(key, 1, archive.stat().st_size).state == "missing"
    resumed: list[int] = []
    meta = build_index(
        job_for(archive, "stackexchange", tmp_path),
        processes=1,
        progress=lambda done, _seconds: resumed.append(done.entries_done),
    )
    assert resumed[0] == 12  # the three chunks of four entries the killed run committed
    clean = open_index(indexes, archive, "stackexchange").meta
    assert (meta.documents, meta.sections) == (clean.documents, clean.sections)
    assert folder.state(key, 1, archive.stat().st_size).state == "ready"
    assert not folder.work(key).exists()


def test_a_build_folder_for_another_adapter_version_starts_again(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    archive = demo_archives["Math-SE"]
    key = target_for(archive, "stackexchange").key
    work = IndexFolder(tmp_path).work(key)
    work.mkdir(parents=True)
    stale = {"format": 1, "archive_uuid": "x", "archive_size": 1, "adapter": "stackexchange"}
    (work / "build.json").write_bytes(msgspec.json.encode({**stale, "adapter_version": 0}))
    (work / "shard-1").mkdir()
    build_index(job_for(archive, "stackexchange", tmp_path), processes=1)
    assert IndexFolder(tmp_path).file(key).is_file()


# -- broken index files ----------------------------------------------------------------------


@pytest.fixture
def one_index(
    indexes: Path, demo_archives: dict[str, Path], tmp_path: Path
) -> Iterator[tuple[IndexManager, Target, Path]]:
    """A copy of the demo Python docs' index in a folder of its own: (manager, target,
    file), to break."""
    archive = demo_archives["Python-Docs"]
    target = target_for(archive, "devdocs", "python")
    source = IndexFolder(indexes).file(target.key)
    copy = IndexFolder(tmp_path).file(target.key)
    shutil.copyfile(source, copy)
    yield IndexManager(tmp_path), target, copy


def test_a_truncated_index_is_stale_never_opened_and_built_again(
    one_index: tuple[IndexManager, Target, Path], demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    manager, target, file = one_index
    os.truncate(file, file.stat().st_size // 3)
    state = manager.state(target)
    assert state.state == "stale" and "unreadable" in (state.reason or ""), state
    assert manager.open(target) is None
    assert manager.next_to_build([target]) == target
    build_index(job_for(demo_archives["Python-Docs"], "devdocs", tmp_path), processes=1)
    assert manager.state(target).state == "ready"
    assert manager.open(target) is not None


def test_a_foreign_file_under_an_index_name_is_stale_and_never_opened(
    one_index: tuple[IndexManager, Target, Path],
) -> None:
    manager, target, file = one_index
    file.write_bytes(os.urandom(8192))
    assert manager.state(target).state == "stale"
    assert manager.open(target) is None
    assert manager.next_to_build([target]) == target


def test_an_index_found_broken_while_served_is_removed_to_be_built_again(
    one_index: tuple[IndexManager, Target, Path], caplog: pytest.LogCaptureFixture
) -> None:
    manager, target, file = one_index
    assert manager.open(target) is not None
    manager.discard(target, "reading it failed (EOF reading block 8)")
    assert not file.exists()
    assert manager.state(target).state == "missing"
    assert "unreadable (reading it failed (EOF reading block 8))" in caplog.text


def test_an_index_of_another_format_is_stale_and_never_read(
    one_index: tuple[IndexManager, Target, Path], tmp_path: Path
) -> None:
    manager, target, file = one_index
    old = SectionIndex.open(file).meta
    scratch = tmp_path / "scratch"
    older = msgspec.structs.replace(old, format=old.format + 1)
    shard = scratch / "shard"
    shard.mkdir(parents=True)
    xapian.WritableDatabase(str(shard), xapian.DB_CREATE_OR_OVERWRITE).close()
    publish([shard], older, scratch, file)
    state = manager.state(target)
    assert state.state == "stale" and "format" in (state.reason or "")
    assert manager.open(target) is None
    assert file.exists(), "a stale index stays until its rebuild replaces it"
    assert manager.next_to_build([target]) == target
    with pytest.raises(IndexUnreadable, match="format"):
        SectionIndex.open(file)


def test_an_index_damaged_after_opening_fails_its_reads_as_unreadable(
    one_index: tuple[IndexManager, Target, Path],
) -> None:
    manager, target, file = one_index
    index = manager.open(target)
    assert index is not None
    question = index.analyser.question("str.join")
    assert index.search(question, 5, 3)
    with file.open("r+b") as handle:  # the same inode cut short under the reader
        handle.truncate(4096)
    with pytest.raises(IndexUnreadable):
        for words in ("str.join", "subprocess", "tutorial errors", "glossary"):
            index.search(index.analyser.question(words), 40, 3)
            index.sections_of(index.analyser.question(words), ["library/stdtypes"], 8)


def test_a_file_without_our_metadata_is_unreadable(tmp_path: Path) -> None:
    plain = tmp_path / "plain.glass"
    database = xapian.WritableDatabase(str(plain), xapian.DB_CREATE_OR_OVERWRITE)
    database.set_metadata(META_KEY, "{not json")
    database.commit()
    database.close()
    with pytest.raises(IndexUnreadable, match="not a corpus-mcp section index"):
        SectionIndex.open(plain)


# -- corpus-mcp index ---------------------------------------------------------------------------


def run_index(
    demo_corpus: Path, folder: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "CORPUS_ROOT": str(demo_corpus.parent),
        "CORPUS_CONFIG": str(demo_corpus),
        "CORPUS_INDEX_DIR": str(folder),
        "INDEX": "auto",
        **env,
    }
    return subprocess.run(
        [str(CORPUS_MCP), "index", *args],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_the_index_command_builds_what_is_missing_then_says_up_to_date(
    demo_corpus: Path, tmp_path: Path
) -> None:
    first = run_index(demo_corpus, tmp_path, "--library", "Math-SE", "--library", "MDWiki")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith(f"section indexes in {tmp_path}")
    assert any(line.startswith("Math-SE: built: 12 pages, 30 sections in ") for line in lines)
    assert any(line.startswith("MDWiki: built: ") for line in lines)
    assert lines[-1] == "2 built, 0 failed, 0 up to date"
    again = run_index(demo_corpus, tmp_path, "--library", "Math-SE")
    assert again.returncode == 0, again.stderr
    said = again.stdout.splitlines()[1:]
    assert re.fullmatch(r"Math-SE: up to date \(30 sections, [\d.]+ kB\)", said[0]), said
    assert said[1:] == ["all 1 section index(es) up to date"]


def test_the_index_command_refuses_what_it_cannot_do(demo_corpus: Path, tmp_path: Path) -> None:
    unknown = run_index(demo_corpus, tmp_path, "--library", "nope")
    assert unknown.returncode == 1
    assert "no enabled library named 'nope'" in unknown.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    unwritable = run_index(demo_corpus, blocker / "indexes", "--library", "Math-SE")
    assert unwritable.returncode == 1
    assert "cannot be created" in unwritable.stderr and "CORPUS_INDEX_DIR" in unwritable.stderr
    processes = run_index(demo_corpus, tmp_path, "--processes", "0")
    assert processes.returncode == 2 and "--processes" in processes.stderr


def test_the_index_command_prunes_indexes_no_library_uses(
    demo_corpus: Path, tmp_path: Path
) -> None:
    leftover = IndexFolder(tmp_path).file("00000000-0000-0000-0000-000000000000.mediawiki")
    leftover.write_bytes(b"an old snapshot's index")
    done = run_index(demo_corpus, tmp_path, "--library", "Math-SE", "--prune")
    assert done.returncode == 0, done.stderr
    assert "pruned 00000000-0000-0000-0000-000000000000.mediawiki" in done.stdout
    assert not leftover.exists()
    assert any(p.name.endswith(".stackexchange.xapian") for p in tmp_path.iterdir())


# -- the archives the real scrapers wrote ------------------------------------------------------

REAL = SHARED_ZIMS / "real"


@pytest.mark.skipif(not (REAL / "manifest.json").is_file(), reason=NO_REAL_ARCHIVES)
def test_real_scraper_archives_are_indexed_and_their_identifiers_found(tmp_path: Path) -> None:
    flask = REAL / "devdocs.io_en_flask-2.2_2026-12.zim"
    unix = REAL / "unix.stackexchange.com_en_all_2026-12.zim"
    build_index(job_for(flask, "devdocs", tmp_path, "Flask"), processes=1)
    build_index(job_for(unix, "stackexchange", tmp_path, "Unix"), processes=1)
    index = open_index(tmp_path, flask, "devdocs")
    for query in ("flask.Flask.route", "Flask.route"):
        first = index.search(index.analyser.question(query), 10, 3)[0].section
        assert (first.path, first.id) == ("api/index", "flask.Flask.route"), query
    threads = open_index(tmp_path, unix, "stackexchange")
    hit = threads.search(threads.analyser.question("replace a string in many files with sed"), 5, 3)
    assert hit and hit[0].section.path.startswith("questions/")


# -- the build child and the progress bar -----------------------------------------------------


def test_the_build_child_refuses_bad_arguments_and_a_held_lock(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    from corpus_mcp.sections.build import main  # noqa: PLC0415

    assert main(["too", "few"]) == 2
    archive = str(demo_archives["Math-SE"])
    assert main([archive, "stackexchange", str(tmp_path), "Math-SE", "fastest"]) == 2
    with IndexFolder(tmp_path).build_lock(wait=False):
        assert main([archive, "stackexchange", str(tmp_path), "Math-SE", "normal"]) == 3
    assert main([str(tmp_path / "none.zim"), "stackexchange", str(tmp_path), "x", "normal"]) == 1


@pytest.mark.parametrize("priority", ["idle", "low"])
def test_a_background_build_runs_at_a_lower_priority(priority: str) -> None:
    probe = (
        "import os, sys; from corpus_mcp.sections.build import lower_priority; "
        f"lower_priority({priority!r}); "
        "print(os.nice(0), os.sched_getscheduler(0) == os.SCHED_IDLE)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    niceness, idle = done.stdout.split()
    assert int(niceness) == 19
    assert idle == ("True" if priority == "idle" else "False")


def test_the_progress_bar_says_pages_rate_and_eta() -> None:
    import io  # noqa: PLC0415

    from corpus_mcp.sections.catalog import BuildProgress  # noqa: PLC0415
    from corpus_mcp.sections.command import ProgressBar  # noqa: PLC0415

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    bar = ProgressBar(stream, "Wiki")
    start = BuildProgress(
        pid=1, entries_done=100, entries_total=1000, pages=80, sections=200, updated=0.0
    )
    bar.show(start, 0.0)  # a resumed build: 100 entries done before this run
    later = msgspec.structs.replace(start, entries_done=550, pages=480)
    line = bar.line(later, 10.0)
    assert line.startswith("Wiki [=============>          ]")
    assert "55%" in line and "480 pages" in line and "40.0 pages/s" in line
    assert line.endswith("ETA 0:00:10")  # 450 entries in 10 s, 450 to go
    bar.show(later, 10.0)
    assert bar.pages_before == 80
    bar.close()
    assert stream.getvalue().endswith("\r")
