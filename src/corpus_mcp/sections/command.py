"""``corpus-mcp index``: build every enabled library's section index that is missing or
stale, with every core, showing progress; say "up to date" when there is nothing to do.

A run killed part-way (Ctrl-C, kill -9, the OOM killer, a reboot) keeps the chunks its
worker processes committed, and the next run continues from there, saying so; the worker
processes end with it, whatever ended it (:mod:`corpus_mcp.sections.build`). While a
serving process builds in the background (or another ``index`` runs) this waits for the
folder's build lock, saying so.
``--prune`` removes the indexes and builds no enabled library uses any more (an archive
replaced by a newer snapshot leaves its old index behind).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import msgspec

from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import Library, Manifest, Settings, usable_cpus
from corpus_mcp.console import human_size
from corpus_mcp.sections.build import BuildFailed, BuildJob, build_index
from corpus_mcp.sections.catalog import BuildProgress, IndexFolder, IndexState, archive_key
from corpus_mcp.zim.layout import header_uuid

EXIT_OK = 0
EXIT_FAILED = 1


class Planned(msgspec.Struct, frozen=True, kw_only=True):
    """A library and what its index needs."""

    library: Library
    key: str | None
    """None: its archive cannot be read (no UUID in its header)."""
    state: IndexState


def library_key(library: Library) -> str | None:
    """The key of a library's index, from its archive's header (no archive is opened)."""
    uuid = header_uuid(str(library.file))
    return archive_key(uuid, library.adapter) if uuid else None


def index_state(folder: IndexFolder, library: Library) -> IndexState:
    """A library's index as the folder shows it (for ``list`` and ``validate`` too)."""
    key = library_key(library)
    if key is None:
        return IndexState(state="failed", reason="its archive cannot be read")
    try:
        size = library.file.stat().st_size
    except OSError:
        return IndexState(state="failed", key=key, reason="its archive cannot be read")
    return folder.state(key, get_adapter(library.adapter).version, size)


def plan(folder: IndexFolder, libraries: Sequence[Library]) -> list[Planned]:
    return [
        Planned(library=library, key=library_key(library), state=index_state(folder, library))
        for library in libraries
    ]


def run_index(
    settings: Settings,
    manifest: Manifest,
    *,
    only: Sequence[str],
    processes: int | None,
    prune: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """The ``index`` command (see the module docstring); the exit code."""
    unknown = [name for name in only if name not in {lib.name for lib in manifest.enabled}]
    if unknown:
        names = ", ".join(lib.name for lib in manifest.enabled)
        print(
            f"corpus-mcp index: no enabled library named {', '.join(map(repr, unknown))} "
            f"(enabled: {names})",
            file=err,
        )
        return EXIT_FAILED
    libraries = [lib for lib in manifest.enabled if not only or lib.name in only]
    folder = IndexFolder(settings.index_dir)
    problem = folder.usable()
    if problem is not None:
        print(f"corpus-mcp index: {problem}; set CORPUS_INDEX_DIR to a writable folder", file=err)
        return EXIT_FAILED
    if settings.index == "off":
        print("note: INDEX=off: servers started so will not use these indexes", file=err)
    workers = processes or usable_cpus()
    print(f"section indexes in {folder.root} ({workers} processes)", file=out)
    built = failed = 0
    for item in plan(folder, libraries):
        name = item.library.name
        if item.state.state == "ready":
            size = human_size(item.state.bytes)
            print(f"{name}: up to date ({item.state.sections:,} sections, {size})", file=out)
            continue
        if item.key is None:
            print(f"{name}: FAILED: {item.state.reason}", file=out)
            failed += 1
            continue
        if item.state.state == "stale":
            print(f"{name}: stale ({item.state.reason}): building it again", file=out)
        outcome = _build(folder, item, workers, out, err)
        built += outcome
        failed += 1 - outcome
    if prune:
        _prune(folder, manifest, out)
    if not built and not failed:
        print(f"all {len(libraries)} section index(es) up to date", file=out)
    else:
        print(
            f"{built} built, {failed} failed, {len(libraries) - built - failed} up to date",
            file=out,
        )
    return EXIT_FAILED if failed else EXIT_OK


def _build(folder: IndexFolder, item: Planned, workers: int, out: TextIO, err: TextIO) -> int:
    """Build one library's index, waiting for the lock if need be; 1 when built."""
    library = item.library
    job = BuildJob(
        archive=library.file, adapter=library.adapter, folder=folder.root, library=library.name
    )
    bar = ProgressBar(err, library.name)
    try:
        with folder.build_lock(wait=False) as held:
            if not held:
                print(
                    f"{library.name}: another build holds {folder.root / 'build.lock'} "
                    "(a server building in the background?); waiting for it",
                    file=err,
                )
        with folder.build_lock(wait=True):
            if _ready_now(folder, library):
                print(f"{library.name}: built meanwhile by another process", file=out)
                return 1
            started = time.monotonic()
            meta = build_index(
                job,
                processes=workers,
                progress=bar.show,
                notice=lambda text: print(f"{library.name}: {text}", file=err, flush=True),
            )
    except BuildFailed as exc:
        bar.close()
        print(f"{library.name}: FAILED: {exc} (what was built is kept for the next run)", file=out)
        return 0
    except KeyboardInterrupt:
        bar.close()
        print(
            f"\n{library.name}: interrupted; the next run continues where this one stopped",
            file=err,
        )
        raise
    bar.close()
    seconds = time.monotonic() - started
    earlier = bar.pages_before
    rate = (meta.documents - earlier) / seconds if seconds > 0 else 0.0
    size = human_size(folder.file(archive_key(meta.archive_uuid, meta.adapter)).stat().st_size)
    resumed = f", {earlier:,} of them by an earlier run" if earlier else ""
    print(
        f"{library.name}: built: {meta.documents:,} pages{resumed}, {meta.sections:,} sections "
        f"in {seconds:.1f} s ({rate:.1f} pages/s), {size}",
        file=out,
    )
    return 1


def _ready_now(folder: IndexFolder, library: Library) -> bool:
    return index_state(folder, library).state == "ready"


def _prune(folder: IndexFolder, manifest: Manifest, out: TextIO) -> None:
    """Remove the indexes, builds and failure notes of keys no enabled library has."""
    kept = {key for lib in manifest.enabled if (key := library_key(lib)) is not None}
    removed = 0
    freed = 0
    for key in folder.index_keys():
        if key in kept:
            continue
        for path in (folder.file(key), folder.work(key), folder.failure_file(key)):
            freed += _remove(path)
        removed += 1
        print(f"pruned {key}", file=out)
    if removed:
        print(f"pruned {removed} index(es) no enabled library uses ({human_size(freed)})", file=out)


def _remove(path: Path) -> int:
    """Remove a file or folder; the bytes it held."""
    if path.is_dir():
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        shutil.rmtree(path, ignore_errors=True)
        return size
    try:
        size = path.stat().st_size
        path.unlink()
    except OSError:
        return 0
    return size


class ProgressBar:
    """A build's progress on stderr: a live bar on a terminal (entries read, pages,
    pages/s, ETA), else a plain line every few seconds."""

    INTERVAL = 5.0
    WIDTH = 24

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream = stream
        self.label = label
        self.live = stream.isatty()
        self._last = 0.0
        self._shown = 0
        self._start: tuple[int, int] | None = None
        """Entries and pages done before this run (a resumed build)."""

    def show(self, progress: BuildProgress, seconds: float) -> None:
        if self._start is None:
            self._start = (progress.entries_done, progress.pages)
        now = time.monotonic()
        if not self.live and now - self._last < self.INTERVAL:
            return
        self._last = now
        text = self.line(progress, seconds)
        if self.live:
            self.stream.write("\r" + text.ljust(self._shown))
            self._shown = len(text)
            self.stream.flush()
        else:
            print(text, file=self.stream, flush=True)

    @property
    def pages_before(self) -> int:
        """Pages an earlier, interrupted run of this build had done."""
        return self._start[1] if self._start else 0

    def line(self, progress: BuildProgress, seconds: float) -> str:
        total = max(progress.entries_total, 1)
        share = progress.entries_done / total
        filled = int(share * self.WIDTH)
        bar = "=" * filled + (">" if filled < self.WIDTH else "") + " " * (self.WIDTH - filled - 1)
        entries_before, pages_before = self._start or (0, 0)
        rate = (progress.pages - pages_before) / seconds if seconds > 0 else 0.0
        done_now = progress.entries_done - entries_before
        left = progress.entries_total - progress.entries_done
        eta = _clock(left * seconds / done_now) if done_now > 0 else "?"
        return (
            f"{self.label} [{bar[: self.WIDTH]}] {100 * share:3.0f}%  {progress.pages:,} pages  "
            f"{rate:.1f} pages/s  ETA {eta}"
        )

    def close(self) -> None:
        if self.live and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0


def _clock(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
