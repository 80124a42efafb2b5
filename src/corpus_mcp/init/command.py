"""``corpus-mcp init``: find the archives, read their metadata, write ``corpus.toml``.

All or nothing: the manifest is written to a temporary file next to its destination,
loaded back with the server's own manifest loader against the corpus root, and only
then renamed into place, so a failure at any step leaves no file, half-written or
not. An existing manifest is replaced only with ``force``. Archives that cannot be
used (unreadable, split, outside the root) are reported and left out; every archive
that opens is served (of an unknown family, by the generic HTML adapter); no archive
that opens at all is an error.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import msgspec

from corpus_mcp.config import ConfigError, load_manifest
from corpus_mcp.console import Progress, render_table, shorten
from corpus_mcp.init.plan import Archive, Entry, plan_libraries
from corpus_mcp.init.render import render_manifest
from corpus_mcp.init.sources import InitError, Skipped, Sources, find_sources
from corpus_mcp.zim import ZimOpenError, ZimReader

EXIT_OK = 0
EXIT_FAILED = 1

TITLE_COLUMN_CHARS = 48


class Written(msgspec.Struct, frozen=True, kw_only=True):
    """What ``init`` wrote, for the report."""

    manifest: Path
    root: Path
    entries: list[Entry]
    skipped: list[Skipped]


def read_archives(sources: Sources, progress: Progress) -> tuple[list[Archive], list[Skipped]]:
    """Open each archive for its metadata; the ones that do not open are skipped."""
    archives: list[Archive] = []
    skipped: list[Skipped] = []
    for done, file in enumerate(sources.files):
        relative = file.relative_to(sources.root).as_posix()
        progress.step(done, relative)
        try:
            info = ZimReader(file).info
        except ZimOpenError as exc:
            skipped.append(Skipped(relative, f"cannot be opened: {exc.reason}"))
            continue
        archives.append(Archive(relative, info))
    progress.close()
    return archives, skipped


def _listing(skipped: list[Skipped]) -> str:
    return "".join(f"\n  {item.path}: {item.reason}" for item in skipped)


def _check_destination(output: Path, force: bool) -> None:
    if output.is_dir():
        raise InitError(f"{output} is a folder; --output takes the manifest file to write")
    if not output.parent.is_dir():
        raise InitError(f"cannot write {output}: the folder {output.parent} does not exist")
    if output.exists() and not force:
        raise InitError(f"{output} exists; pass --force to replace it (nothing was written)")


def _file_mode(output: Path) -> int:
    """An existing manifest's mode, else what a new file gets under the umask (not 0600:
    the container's user must be able to read the manifest)."""
    if output.exists():
        return output.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(output: Path, text: str, verify: Callable[[Path], None]) -> None:
    """``text`` at ``output`` via a verified temporary file and a rename, or nothing."""
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=output.parent, prefix=f".{output.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise InitError(f"cannot write {output}: {exc.strerror}") from None
    try:
        os.fchmod(descriptor, _file_mode(output))
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        verify(Path(temporary))
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _verifier(root: Path, entries: list[Entry]) -> Callable[[Path], None]:
    """Load the written text with the server's loader; it must give back ``entries``."""

    def verify(written: Path) -> None:
        try:
            manifest = load_manifest(written, root)
        except ConfigError as exc:
            raise InitError(f"the generated manifest does not load (a bug): {exc}") from None
        loaded = [(lib.name, lib.path, lib.adapter, lib.enabled) for lib in manifest.libraries]
        meant = [(e.name, e.path, e.adapter, e.enabled) for e in entries]
        if loaded != meant:
            raise InitError("the generated manifest reads back differently (a bug)")

    return verify


def write_manifest(source: Path, output: Path, *, force: bool, progress: TextIO) -> Written:
    """Find, read, plan, render and write; raises :class:`InitError` with nothing written."""
    output = output.absolute()
    _check_destination(output, force)
    sources = find_sources(source)
    if not sources.files:
        if sources.skipped:
            listing = _listing(list(sources.skipped))
            raise InitError(f"no archive the server can open in {sources.origin}:{listing}")
        raise InitError(
            f"no ZIM archives (*.zim) in {sources.origin} or its subfolders; download some "
            "from https://download.kiwix.org/zim/ or give another folder"
        )
    reading = Progress(progress, "reading archive", len(sources.files))
    archives, unreadable = read_archives(sources, reading)
    skipped = [*sources.skipped, *unreadable]
    if not archives:
        raise InitError(
            f"none of the {len(sources.files)} archive(s) in {sources.origin} could be "
            f"opened:{_listing(skipped)}"
        )
    entries, duplicates = plan_libraries(archives)
    skipped += duplicates
    text = render_manifest(entries, skipped, root=sources.root, origin=sources.origin)
    write_atomically(output, text, _verifier(sources.root, entries))
    return Written(manifest=output, root=sources.root, entries=entries, skipped=skipped)


def report(written: Written, out: TextIO, err: TextIO) -> None:
    """The libraries written, what was left out (stderr), and how to serve the result."""
    rows = [
        [
            entry.name,
            entry.adapter,
            "yes" if entry.enabled else "no",
            shorten(entry.info.title, TITLE_COLUMN_CHARS),
            entry.path,
        ]
        for entry in written.entries
    ]
    print(render_table(["library", "adapter", "enabled", "title", "path"], rows), file=out)
    for entry in written.entries:
        if entry.disabled_because:
            print(f"disabled {entry.name}: {entry.disabled_because}", file=out)
    for item in written.skipped:
        print(f"corpus-mcp init: left out {item.path}: {item.reason}", file=err)
    enabled = sum(entry.enabled for entry in written.entries)
    environment = (
        f"CORPUS_ROOT={shlex.quote(str(written.root))} "
        f"CORPUS_CONFIG={shlex.quote(str(written.manifest))}"
    )
    print(
        f"\nwrote {written.manifest}: {len(written.entries)} libraries, {enabled} enabled\n"
        f"check it:  {environment} corpus-mcp validate\n"
        f"serve it:  {environment} corpus-mcp stdio   (or: serve)",
        file=out,
    )


def run_init(source: Path, output: Path, *, force: bool, out: TextIO, err: TextIO) -> int:
    """``corpus-mcp init``: the exit code (0 written, 1 nothing written)."""
    try:
        written = write_manifest(source, output, force=force, progress=err)
    except InitError as exc:
        print(f"corpus-mcp init: {exc}", file=err)
        return EXIT_FAILED
    report(written, out, err)
    return EXIT_OK
