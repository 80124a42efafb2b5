"""Building one archive's section index: every content entry read once, by worker
processes, each writing a shard; continued where a killed run stopped; published as one
file.

The archive's entries are numbered (0 to ``entry_count``, in path order) and cut into
chunks (:func:`chunk_entries`; a resumed build keeps the size it started with). A worker
process opens the archive itself, reads a chunk's pages, parses each with its adapter's
search-time view (what search ranks: the same sections, the same passages), writes
their records to its own shard and commits the shard with the chunk marked done: a
commit is atomic, so a run killed at any moment leaves shards that hold whole chunks,
marked, and the next run does the others. When no chunk is left the shards are merged
into the index file (:func:`store.publish`) and the build folder goes.

``corpus-mcp index`` runs this with one worker per usable CPU; a serving process runs it
in a child process of its own, one worker, at the lowest CPU priority
(:mod:`corpus_mcp.sections.manager`).

A build folder has one writer, whatever happens to the processes building it:

- every process a build starts ends with the one that started it, SIGKILL included
  (:mod:`corpus_mcp.lifetime`: the pool's fork server ends with the build process, each
  worker with the fork server, :mod:`corpus_mcp.sections.forkserver`; the child a
  serving process starts ends with that process);
- a worker commits a chunk behind the folder's fence (:meth:`IndexFolder.fence`), only
  while its build still owns the folder (its token, written when the build claimed the
  folder, and the build lock held), and its parent lives; else it ends, writing nothing.
  It checks the same before each chunk;
- a build claims the folder once no earlier build's worker is committing, says what an
  earlier build left (killed part-way; processes of it still holding shards, whose
  shards it sets aside), and continues from what was committed.
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import shutil
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import msgspec

from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.companions import read_companions
from corpus_mcp.gather import entry_title
from corpus_mcp.lifetime import end_now, end_with_parent, parent_alive
from corpus_mcp.ranking.text import title_key
from corpus_mcp.sections import forkserver
from corpus_mcp.sections.analysis import Analyser
from corpus_mcp.sections.catalog import BuildOwner, BuildProgress, IndexFolder, archive_key
from corpus_mcp.sections.records import NamesByAnchor, SectionRecord, records, redirect_record
from corpus_mcp.sections.store import (
    INDEX_FORMAT,
    IndexMeta,
    ShardDone,
    ShardWriter,
    publish,
    shard_done,
    shard_held,
)
from corpus_mcp.zim import ZimError, ZimReader
from corpus_mcp.zim.xapian_pool import xapian

#: Chunks per worker process, and the bounds of a chunk's entries: a chunk is what a
#: killed build may have to read again, per worker, and the progress moves by chunks.
CHUNKS_PER_PROCESS: Final = 16
MIN_CHUNK_ENTRIES: Final = 20
MAX_CHUNK_ENTRIES: Final = 500
#: HTML entries at most this large may be redirect stubs (mwoffliner's fragment
#: redirects), which are no documents; the same bound as search's (gather.STUB_MAX_BYTES).
STUB_MAX_BYTES: Final = 2048
#: A progress file is rewritten at most this often.
PROGRESS_SECONDS: Final = 1.0


class BuildJob(msgspec.Struct, frozen=True, kw_only=True):
    """One index to build: the archive, its adapter, the folder, and the library's name
    (for what is said about it)."""

    archive: Path
    adapter: str
    folder: Path
    library: str


class BuildStamp(msgspec.Struct, frozen=True, kw_only=True):
    """What a build folder is for (``build.json``): another archive, adapter or format
    means its shards are of no use."""

    format: int
    archive_uuid: str
    archive_size: int
    adapter: str
    adapter_version: int
    chunk_entries: int = 0
    """Entries per chunk (chunks are numbered by it: a resumed build keeps it)."""
    seconds: float = 0.0
    """Time spent by earlier runs."""


class WorkerGuard(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker checks before each chunk and as it commits one: that its build
    still wants it. Failing that, it ends (:func:`corpus_mcp.lifetime.end_now`)."""

    folder: Path
    """The index folder (its fence)."""
    token: str | None = None
    """The build's token, when another process owns the build (a pool worker)."""
    parent: int | None = None
    """The process this one ends with (None: none)."""


class ChunkDone(msgspec.Struct, frozen=True):
    chunk: int
    entries: int
    pages: int
    sections: int


class BuildFailed(Exception):
    """The build could not finish (the message says why; what was done is kept)."""


def build_index(
    job: BuildJob,
    *,
    processes: int,
    progress: Callable[[BuildProgress, float], None] | None = None,
    notice: Callable[[str], None] | None = None,
    parent: int | None = None,
) -> IndexMeta:
    """Build ``job``'s index, continuing an interrupted build, and publish it; the
    caller holds the folder's build lock (worker processes commit only while it is held:
    without it, a build with more than one process raises RuntimeError). ``progress``
    gets the build's progress and the seconds this run has taken, after each chunk;
    ``notice`` what is said of what an earlier build left; ``parent``: the process this
    one ends with (checked before each chunk and commit). Raises :class:`BuildFailed`."""
    started = time.monotonic()
    try:
        reader = ZimReader(job.archive, direct_index=False)
    except ZimError as exc:
        raise BuildFailed(f"the archive cannot be opened: {exc.reason}") from None
    adapter = get_adapter(job.adapter)
    info = reader.info
    key = archive_key(info.uuid, job.adapter)
    folder = IndexFolder(job.folder)
    work = folder.work(key)
    stamp = BuildStamp(
        format=INDEX_FORMAT,
        archive_uuid=info.uuid,
        archive_size=info.size,
        adapter=job.adapter,
        adapter_version=adapter.version,
    )
    if processes > 1 and not folder.building():
        raise RuntimeError(f"build_index: the caller holds no build lock in {folder.root}")
    owner: BuildOwner | None = None
    try:
        owner, earlier = folder.claim(key, job.library)
        stamp = _prepare(work, stamp, chunk_entries(info.entry_count, processes))
        _do_chunks(
            job,
            folder,
            stamp,
            info.entry_count,
            processes=processes,
            guard=WorkerGuard(folder=folder.root, token=owner.token, parent=parent),
            earlier=earlier,
            say=notice or _silent,
            progress=progress,
            started=started,
        )
        seconds = stamp.seconds + (time.monotonic() - started)
        done = _done(work)
        shards = [shard for shard in _shards(work) if shard_done(shard).chunks]
        meta = IndexMeta(
            format=INDEX_FORMAT,
            archive_uuid=info.uuid,
            archive_size=info.size,
            adapter=job.adapter,
            adapter_version=adapter.version,
            language=info.language,
            documents=done.pages,
            sections=done.sections,
            built=datetime.now(UTC).isoformat(timespec="seconds"),
            seconds=round(seconds, 3),
        )
        publish(shards, meta, work / "publish", folder.file(key))
    except OSError as exc:
        reason = _os_reason(exc, folder.root)
        raise _failed(folder, key, work, stamp, started=started, reason=reason) from None
    except xapian.Error as exc:
        reason = f"writing the index failed ({' '.join(str(exc).split())})"
        raise _failed(folder, key, work, stamp, started=started, reason=reason) from None
    except BrokenProcessPool:
        reason = "a build process died (killed, or out of memory)"
        raise _failed(folder, key, work, stamp, started=started, reason=reason) from None
    finally:
        if owner is not None:
            folder.release(owner)
    shutil.rmtree(work, ignore_errors=True)
    folder.clear_failure(key)
    return meta


def _do_chunks(
    job: BuildJob,
    folder: IndexFolder,
    stamp: BuildStamp,
    total: int,
    *,
    processes: int,
    guard: WorkerGuard,
    earlier: BuildOwner | None,
    say: Callable[[str], None],
    progress: Callable[[BuildProgress, float], None] | None,
    started: float,
) -> None:
    """Every chunk the build folder lacks, done (by this process or a pool of them), the
    progress written and reported as they finish."""
    key = archive_key(stamp.archive_uuid, stamp.adapter)
    work = folder.work(key)
    _set_aside_held_shards(work, say)
    chunks = _plan(total, stamp.chunk_entries)
    done = _done(work)
    todo = [c for c in chunks if c[0] not in done.chunks]
    counted = BuildProgress(
        pid=os.getpid(),
        entries_done=sum(stop - start for n, start, stop in chunks if n in done.chunks),
        entries_total=total,
        pages=done.pages,
        sections=done.sections,
        updated=time.time(),
    )
    _say_resumed(say, earlier, key, counted)
    last_written = 0.0
    if progress is not None:  # what earlier runs did, before this one adds to it
        progress(counted, 0.0)
    # Closed here whatever happens: the pool's processes are gone before the claim goes.
    with contextlib.closing(_run(job, work, todo, processes=processes, guard=guard)) as run:
        for finished in run:
            counted.entries_done += finished.entries
            counted.pages += finished.pages
            counted.sections += finished.sections
            counted.updated = time.time()
            if counted.updated - last_written >= PROGRESS_SECONDS or not todo:
                folder.write_progress(key, counted)
                last_written = counted.updated
            if progress is not None:
                progress(counted, time.monotonic() - started)


def _silent(_text: str) -> None:
    """No one to tell."""


def _failed(
    folder: IndexFolder, key: str, work: Path, stamp: BuildStamp, *, started: float, reason: str
) -> BuildFailed:
    """The failure, recorded in the folder (for the server's state and its retries),
    with this run's time counted."""
    _save_seconds(work, stamp, started)
    folder.record_failure(key, reason)
    return BuildFailed(reason)


def _say_resumed(
    say: Callable[[str], None], earlier: BuildOwner | None, key: str, counted: BuildProgress
) -> None:
    """Say what an earlier build left: a build killed before it could end its claim
    (what it committed of this index is kept), what earlier runs did."""
    done = f"{counted.entries_done:,} of {counted.entries_total:,} entries"
    if earlier is not None:
        which = "this index" if earlier.key == key else f"{earlier.library}'s index"
        stopped = (
            f"an earlier build of {which} (process {earlier.pid}) stopped before it "
            "finished (killed?)"
        )
        if earlier.key != key:
            say(f"{stopped}; its next build continues it")
        elif counted.entries_done:
            say(f"{stopped}; continuing from what it committed: {done}")
        else:
            say(f"{stopped}; it committed nothing")
            return
    if counted.entries_done and (earlier is None or earlier.key != key):
        say(f"continuing from what earlier runs committed: {done}")


def _set_aside_held_shards(work: Path, say: Callable[[str], None]) -> None:
    """Set aside the shards a live process still holds open for writing (a worker of a
    build that died, still running: where no parent-death signal ended it, or left by an
    earlier version of this program), and say so: what they hold is done again, and
    whatever they write goes nowhere this build reads."""
    held: list[str] = []
    for shard in _shards(work):
        if shard_held(shard):
            shard.rename(work / f"set-aside-{shard.name}")
            held.append(shard.name.removeprefix("shard-"))
    if held:
        pids = " ".join(held)
        say(
            f"{len(held)} process(es) of an earlier build still write in the build folder "
            f"(pid {pids}): their shards are set aside and their chunks done again; "
            f"stop them (kill {pids})"
        )


def _prepare(work: Path, stamp: BuildStamp, chunk_size: int) -> BuildStamp:
    """The build folder for ``stamp``: kept when it was started for the same archive,
    adapter version and format (with its chunk size and the time already spent), else
    begun again with ``chunk_size``."""
    stamp_file = work / "build.json"
    try:
        before = msgspec.json.decode(stamp_file.read_bytes(), type=BuildStamp)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        before = None
    if (
        before is not None
        and before.chunk_entries > 0
        and msgspec.structs.replace(before, seconds=0.0, chunk_entries=0) == stamp
    ):
        return before
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = msgspec.structs.replace(stamp, chunk_entries=chunk_size)
    stamp_file.write_bytes(msgspec.json.encode(started))
    return started


def _save_seconds(work: Path, stamp: BuildStamp, started: float) -> None:
    """Count this run's time in the build folder, for the index's ``seconds``."""
    spent = msgspec.structs.replace(stamp, seconds=stamp.seconds + time.monotonic() - started)
    with contextlib.suppress(OSError):
        (work / "build.json").write_bytes(msgspec.json.encode(spent))


def chunk_entries(total: int, processes: int) -> int:
    """Entries per chunk: about :data:`CHUNKS_PER_PROCESS` chunks for each process (the
    progress moves, and a killed run loses little), within bounds."""
    share = total // (max(1, processes) * CHUNKS_PER_PROCESS)
    return max(MIN_CHUNK_ENTRIES, min(MAX_CHUNK_ENTRIES, share))


def _plan(total: int, size: int) -> list[tuple[int, int, int]]:
    """``(chunk number, first entry, entry after the last)`` for every chunk."""
    return [(n, start, min(start + size, total)) for n, start in enumerate(range(0, total, size))]


def _shards(work: Path) -> list[Path]:
    return sorted(p for p in work.glob("shard-*") if p.is_dir())


def _done(work: Path) -> ShardDone:
    """Every chunk the build folder's shards hold, with their pages and sections."""
    found = [shard_done(shard) for shard in _shards(work)]
    return ShardDone(
        frozenset().union(*(f.chunks for f in found)),
        sum(f.pages for f in found),
        sum(f.sections for f in found),
    )


def _run(
    job: BuildJob,
    work: Path,
    todo: Sequence[tuple[int, int, int]],
    *,
    processes: int,
    guard: WorkerGuard,
) -> Generator[ChunkDone, None, None]:
    """The chunks done, as they finish: in this process with one worker, else in a pool
    of worker processes (forked from a server that imported only this module), which
    check ``guard`` with its token (this process owns the build: it checks the rest)."""
    if not todo:
        return
    if processes <= 1:
        worker = _Worker(job, work, msgspec.structs.replace(guard, token=None))
        try:
            for chunk in todo:
                yield worker.chunk(*chunk)
        finally:
            worker.close()
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([forkserver.__name__, __name__])
    forkserver.start_fork_server()
    with ProcessPoolExecutor(
        max_workers=min(processes, len(todo)),
        mp_context=context,
        initializer=_start_worker,
        initargs=(job, work, guard),
    ) as pool:
        pending: set[Future[ChunkDone]] = set()
        queue = list(reversed(todo))
        try:
            while queue or pending:
                # A few chunks ahead per worker, not all: a killed run then leaves no
                # work queued in vain, and the progress shows chunks as they finish.
                while queue and len(pending) < 2 * processes:
                    pending.add(pool.submit(_chunk, *queue.pop()))
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        except BaseException:
            for future in pending:
                future.cancel()
            raise


class _Worker:
    """One process's share of a build: the archive opened, the adapter, the names the
    archive's symbol index gives each anchor, and a shard of its own."""

    def __init__(self, job: BuildJob, work: Path, guard: WorkerGuard) -> None:
        self.guard = guard
        self.reader = ZimReader(job.archive, direct_index=False)
        self.adapter = get_adapter(job.adapter)
        self.library = job.library
        self.names = _names(self.reader, self.adapter)
        analyser = Analyser.for_language(self.reader.info.language)
        self.writer = ShardWriter(work / f"shard-{os.getpid()}", analyser)
        self._redirects: list[SectionRecord] = []

    def chunk(self, number: int, start: int, stop: int) -> ChunkDone:
        with _wanted(self.guard):  # an orphan starts no chunk either
            pass
        pages = sections = 0
        for html, entry_path, title in self._pages(start, stop):
            if html is None:  # a redirect: its title finds its target
                self.writer.add(self._redirects.pop())
                continue
            try:
                companions = read_companions(self.reader, self.adapter, entry_path, html)
                document = self.adapter.parse_with_companions(
                    entry_path, title, html, self.library, companions, view=True
                )
            except Exception:  # a page the adapter cannot read is not indexed
                continue
            if document.metadata.get("navigation") == "true" or document.metadata.get("missing"):
                continue
            found = records(document, self.names)
            for record in found:
                self.writer.add(record)
            pages += 1
            sections += len(found)
        with _wanted(self.guard):
            self.writer.commit(number, pages, sections)
        return ChunkDone(number, stop - start, pages, sections)

    def _pages(self, start: int, stop: int) -> Iterator[tuple[bytes | None, str, str]]:
        """The chunk's content pages (html, path, title); for a redirect worth indexing
        (``None``, path, title), its record waiting in ``_redirects``."""
        reader, adapter = self.reader, self.adapter
        main = reader.info.main_path
        for entry in reader.entries(start, stop):
            if entry.redirect:
                if self._redirect(entry.path, entry.title, None):
                    yield None, entry.path, entry.title
                continue
            if not adapter.is_content(entry.path, entry.mimetype):
                continue
            if adapter.main_page_is_navigation and entry.path == main:
                continue
            try:
                html = reader.content(entry.path)
            except ZimError:
                continue
            if adapter.redirect_stubs and entry.size <= STUB_MAX_BYTES:
                landing = adapter.stub_landing(entry.path, html)
                if landing is not None:
                    if self._redirect(landing.path, entry.title, landing.section):
                        yield None, entry.path, entry.title
                    continue
            yield html, entry.path, entry_title(reader, adapter, entry.path, entry.title)

    def _redirect(self, path: str, title: str, section: str | None) -> bool:
        """Queue the record of a redirect at ``path`` (a libzim redirect, or where an
        HTML stub lands), when its title says something its target's does not: sotoki's
        redirects are titled by their own path, and many redirects differ from their
        target in case only."""
        try:
            target = self.reader.resolve(path)
        except ZimError:
            return False
        if not title or title == path or not self.adapter.is_content(target.path, target.mimetype):
            return False
        if section is None and title_key(title) == title_key(target.title):
            return False
        self._redirects.append(redirect_record(title, target.path, target.title, section))
        return True

    def close(self) -> None:
        self.writer.close()


@contextmanager
def _wanted(guard: WorkerGuard) -> Iterator[None]:
    """A block run only while this worker's build wants it (a commit: no new build
    claims the folder until it ends); else this process ends, there and then."""
    if guard.parent is not None and not parent_alive(guard.parent):
        end_now()
    if guard.token is None:  # this process owns the build
        yield
        return
    with IndexFolder(guard.folder).fence(guard.token) as ours:
        if not ours:
            end_now()
        yield


#: A pool process's worker, opened by the pool's initializer.
_WORKERS: dict[str, _Worker] = {}


def _start_worker(job: BuildJob, work: Path, guard: WorkerGuard) -> None:
    """A pool process's start: ending with the fork server that forked it (which ends
    with the build process), then its worker."""
    server = forkserver.FORK_SERVER or os.getppid()
    end_with_parent(server)
    _WORKERS["this"] = _Worker(job, work, msgspec.structs.replace(guard, parent=server))


def _chunk(number: int, start: int, stop: int) -> ChunkDone:
    return _WORKERS["this"].chunk(number, start, stop)


def _names(reader: ZimReader, adapter: Adapter) -> NamesByAnchor:
    """(page, anchor) -> the names the archive's symbol index (DevDocs' navbar) gives it."""
    if adapter.symbol_index is None or not reader.has_entry(adapter.symbol_index):
        return {}
    try:
        data = reader.content(adapter.symbol_index)
    except ZimError:
        return {}
    names: dict[tuple[str, str], list[str]] = {}
    for name, landing in adapter.parse_symbols(data):
        names.setdefault((landing.path, landing.section or ""), []).append(name)
    return names


def _os_reason(exc: OSError, root: Path) -> str:
    if exc.errno == errno.ENOSPC:
        return f"the index folder {root} is full"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"the index folder {root} is not writable"
    return f"{exc.strerror or type(exc).__name__}" + (f": {exc.filename}" if exc.filename else "")


# -- the child process a serving process builds with -------------------------------------

#: ``ioprio_set`` by machine (no wrapper in Python's standard library), and the idle class.
_IOPRIO_SET: Final = {"x86_64": 251, "aarch64": 30}
_IOPRIO_IDLE: Final = 3 << 13


PRIORITIES: Final = ("idle", "low", "normal")


def lower_priority(priority: str) -> None:
    """``idle``: run on what the machine leaves idle (``SCHED_IDLE``: the scheduler
    gives the process a core only when nothing else wants it; the idle I/O class);
    ``low``: nice 19; ``normal``: as it is. Best effort: each refusal is ignored."""
    if priority == "normal":
        return
    with contextlib.suppress(OSError, AttributeError):
        os.nice(19)
    if priority != "idle":
        return
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    number = _IOPRIO_SET.get(os.uname().machine)
    if number is not None:
        with contextlib.suppress(OSError, AttributeError):
            import ctypes  # noqa: PLC0415 - only this child needs it

            ctypes.CDLL(None, use_errno=True).syscall(number, 1, 0, _IOPRIO_IDLE)


#: What the child's notices start with on stderr (the manager logs them).
NOTICE_PREFIX: Final = "note: "


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m corpus_mcp.sections.build ARCHIVE ADAPTER FOLDER LIBRARY PRIORITY
    [PARENT]``: build one index in this process at that priority (what a serving process
    runs, see :mod:`corpus_mcp.sections.manager`), ending with process PARENT when given.
    Exit 0 built, 3 another build holds the folder's lock, 1 failed (the reason in the
    folder and on stderr), 2 bad arguments. Notices are lines of stderr starting with
    :data:`NOTICE_PREFIX`."""
    import sys  # noqa: PLC0415

    args = list(sys.argv[1:] if argv is None else argv)
    if (
        len(args) not in (5, 6)
        or args[4] not in PRIORITIES
        or not all(a.isdigit() for a in args[5:])
    ):
        usage = "ARCHIVE ADAPTER FOLDER LIBRARY idle|low|normal [PARENT]"
        print(f"usage: python -m corpus_mcp.sections.build {usage}", file=sys.stderr)
        return 2
    archive, adapter, root, library, priority = args[:5]
    parent = int(args[5]) if len(args) == 6 else None
    if parent is not None:
        end_with_parent(parent)
    lower_priority(priority)
    folder = IndexFolder(Path(root))
    job = BuildJob(archive=Path(archive), adapter=adapter, folder=Path(root), library=library)
    try:
        with folder.build_lock(wait=False) as held:
            if not held:
                return 3
            build_index(
                job,
                processes=1,
                notice=lambda text: print(NOTICE_PREFIX + text, file=sys.stderr, flush=True),
                parent=parent,
            )
    except BuildFailed as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except OSError as exc:  # the lock file itself: a read-only or full folder
        print(_os_reason(exc, folder.root), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
