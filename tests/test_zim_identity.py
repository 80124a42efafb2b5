"""Which file an archive is: the descriptor kept on it, and each way its path can stop
naming it (real files changed on disk, no server)."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest

from corpus_mcp.zim import ZimOpenError, ZimReader
from corpus_mcp.zim import reader as reader_module
from corpus_mcp.zim.identity import (
    CHANGED,
    DELETED,
    REPLACED,
    TRUNCATED,
    UNREADABLE,
    ArchiveFile,
    FileIdentity,
    FileProblem,
    look,
)
from corpus_mcp.zim.index import Indexes, open_indexes

AS_ROOT = pytest.mark.skipif(
    os.geteuid() == 0, reason="root reads a file whatever its mode: chmod 000 cannot stop it"
)


@pytest.fixture
def archive(demo_archives: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the demo Wikipedia archive, free to break."""
    copy = tmp_path / "wikipedia.zim"
    shutil.copyfile(demo_archives["Wikipedia"], copy)
    return copy


def descriptors_on(path: Path, *, collect: bool = True) -> int:
    """How many of this process's descriptors are open on ``path``'s inode (once what
    is unreachable is collected, unless ``collect`` is false)."""
    if collect:
        gc.collect()
    inode = path.stat().st_ino
    count = 0
    for entry in os.scandir("/proc/self/fd"):
        try:
            count += os.stat(entry.path).st_ino == inode
        except OSError:  # the descriptor scandir itself used, closed since
            continue
    return count


def test_an_unchanged_file_has_no_problem(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    assert opened.problem() is None
    assert opened.identity == FileIdentity.of(archive.stat())
    assert look(str(archive)) == opened.identity


def test_libzim_and_xapian_open_the_very_file_held(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    assert opened.source.startswith("/proc/self/fd/")
    assert os.stat(opened.source).st_ino == opened.identity.inode
    archive.rename(archive.with_suffix(".moved"))
    # The path names nothing now; the descriptor still reaches the file.
    assert os.stat(opened.source).st_ino == opened.identity.inode


def test_a_truncated_file_says_by_how_much(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    size = archive.stat().st_size
    os.truncate(archive, size // 2)
    problem = opened.problem()
    assert problem == FileProblem(TRUNCATED, f"{archive}: {size} -> {size // 2} bytes")


def test_a_file_written_in_place_has_changed(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    stat = archive.stat()
    with archive.open("r+b") as writing:  # the same bytes, the same size
        writing.write(archive.read_bytes())
    os.utime(archive, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    problem = opened.problem()
    assert problem is not None
    assert problem.reason == CHANGED
    assert problem.detail.endswith(f"{stat.st_size} -> {stat.st_size} bytes, modified +2.000 s")


def test_a_grown_file_has_changed(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    with archive.open("ab") as appending:
        appending.write(b"\0" * 10)
    problem = opened.problem()
    assert problem is not None
    assert problem.reason == CHANGED


def test_a_deleted_file(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    archive.unlink()
    assert opened.problem() == FileProblem(DELETED, f"{archive}: no such file")


def test_a_file_renamed_over_it_is_no_problem_of_the_file_held(archive: Path) -> None:
    """The file held is intact: whether to serve the new one is the service's call."""
    opened = ArchiveFile(str(archive))
    fresh = archive.with_suffix(".new")
    shutil.copyfile(archive, fresh)
    os.replace(fresh, archive)
    assert opened.problem() is None
    assert opened.opened_as_held() is None  # libzim opened the descriptor, not the path
    assert look(str(archive)) != opened.identity


def test_an_archive_opened_by_its_path_must_be_the_file_held(archive: Path) -> None:
    """Without /proc, libzim and Xapian open the path: if it names another file by
    then, they may have mapped that one instead of the file whose identity is kept."""
    opened = ArchiveFile(str(archive))
    opened.source = opened.path
    assert opened.opened_as_held() is None
    fresh = archive.with_suffix(".new")
    shutil.copyfile(archive, fresh)
    os.replace(fresh, archive)
    problem = opened.opened_as_held()
    assert problem == FileProblem(
        REPLACED, f"{archive}: another file (inode {archive.stat().st_ino})"
    )
    archive.unlink()
    assert opened.opened_as_held() == FileProblem(DELETED, f"{archive}: no such file")


def test_a_path_that_cannot_be_looked_at_is_unreadable(archive: Path) -> None:
    beneath_a_file = archive / "child.zim"
    found = look(str(beneath_a_file))
    assert isinstance(found, FileProblem)
    assert found.reason == UNREADABLE
    assert found.detail == f"{beneath_a_file}: Not a directory"


@AS_ROOT
def test_a_file_without_read_permission_is_unreadable(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    archive.chmod(0)
    assert opened.problem() == FileProblem(UNREADABLE, f"{archive}: no read permission")


def test_closing_gives_the_descriptor_back(archive: Path) -> None:
    opened = ArchiveFile(str(archive))
    assert descriptors_on(archive) == 1
    opened.close()
    assert descriptors_on(archive) == 0
    problem = opened.problem()  # fstat of a closed descriptor
    assert problem is not None
    assert problem.reason == UNREADABLE


def test_a_reader_keeps_one_descriptor_of_its_own(archive: Path) -> None:
    reader = ZimReader(archive)
    assert reader.handle.problem() is None
    assert reader.info.file == str(archive)  # names the path, not /proc/self/fd
    assert reader.info.title  # read through the descriptor
    del reader
    assert descriptors_on(archive) == 0


def test_a_reader_closes_its_files_when_its_last_reference_goes(archive: Path) -> None:
    """By reference counting alone, indexes and all: the server freezes what it opened
    at startup out of the cyclic collector's sight, and a reader in a reference cycle
    would keep its files open for good once a reload or a replacement drops it."""
    gc.disable()
    try:
        reader = ZimReader(archive)
        assert reader.fulltext_index is not None
        assert reader.title_index is not None
        assert reader.fulltext_index.search([("linearization",)], 5)
        assert reader.title_index.search(["Ray"], 5)
        assert reader.read("Ray_Charles")[1]
        assert descriptors_on(archive, collect=False) >= 4  # its own, libzim's, the indexes'
        del reader
        assert descriptors_on(archive, collect=False) == 0
    finally:
        gc.enable()


def test_a_file_that_is_not_an_archive_leaves_no_descriptor(tmp_path: Path) -> None:
    junk = tmp_path / "junk.zim"
    junk.write_bytes(b"not a ZIM archive" * 8)
    with pytest.raises(ZimOpenError) as caught:
        ZimReader(junk)
    del caught  # its traceback holds the half-made reader
    assert descriptors_on(junk) == 0


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ZimOpenError) as caught:
        ZimReader(tmp_path / "absent.zim")
    assert caught.value.reason == "No such file or directory"


def test_a_file_changed_while_it_is_opened_is_refused(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy still in progress: the file changes between libzim's open and the end."""

    def truncate_meanwhile(source: str) -> Indexes:
        os.truncate(archive, archive.stat().st_size - 1)
        return open_indexes(source)

    monkeypatch.setattr(reader_module, "open_indexes", truncate_meanwhile)
    with pytest.raises(ZimOpenError) as caught:
        ZimReader(archive)
    assert caught.value.reason == "archive file truncated while it was being opened"
    del caught  # its traceback holds the half-made reader
    assert descriptors_on(archive) == 0
