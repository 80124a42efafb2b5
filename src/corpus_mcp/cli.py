"""The ``corpus-mcp`` command: ``serve``, ``validate`` and ``list``.

All configuration comes from the environment (:func:`corpus_mcp.config.load_settings`)
so the same image runs unchanged under compose, ``make run`` and CI. Exit codes: 0 on
success, 1 when ``validate`` finds a failing library, 2 for invalid settings or manifest
(and argparse usage errors).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TextIO

import msgspec

from corpus_mcp import __version__
from corpus_mcp.config import (
    ENV_VARIABLES,
    LIBRARY_NAME_RULE,
    ConfigError,
    Library,
    Manifest,
    Settings,
    load_manifest,
    load_settings,
)
from corpus_mcp.zim import ArchiveInfo, ZimOpenError, ZimReader

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


def human_size(size: int) -> str:
    """Bytes in decimal units with one decimal, as operators read disk sizes: ``2.1 MB``."""
    if size < 1000:
        return f"{size} B"
    value = size / 1000
    for unit in ("kB", "MB", "GB"):
        if round(value, 1) < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain text columns, left-aligned and padded to the widest cell, one row a line."""
    widths = [len(header) for header in headers]
    for row in rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))

    separator = ["-" * width for width in widths]
    return "\n".join(line(cells).rstrip() for cells in (headers, separator, *rows))


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


# -- validate ---------------------------------------------------------------------------


class LibraryReport(msgspec.Struct, kw_only=True):
    """What ``validate`` learnt about one enabled library."""

    library: Library
    info: ArchiveInfo | None = None
    check_passed: bool | None = None
    failure: str | None = None
    warnings: list[str] = msgspec.field(default_factory=list)


def library_warnings(library: Library, info: ArchiveInfo) -> list[str]:
    """Problems that do not stop serving but change what agents get from the library."""
    warnings: list[str] = []
    if info.family is None:
        warnings.append(
            f"family not detected from Scraper/Tags/Name/filename; "
            f"trusting adapter {library.adapter!r}"
        )
    elif info.family != library.adapter:
        warnings.append(
            f"archive looks like {info.family!r} (scraper {info.scraper or 'unknown'}) "
            f"but the manifest declares adapter {library.adapter!r}"
        )
    if not info.has_fulltext_index and not info.has_title_index:
        warnings.append(
            "no full-text index and no title index: search finds nothing here "
            "(fetch by ref still works)"
        )
    elif not info.has_fulltext_index:
        warnings.append("no full-text index: search falls back to titles")
    elif not info.has_title_index:
        warnings.append("no title index: search uses full-text only (no title suggestions)")
    return warnings


def inspect_library(library: Library, check: bool, progress: TextIO) -> LibraryReport:
    """Open one archive (and run libzim's check when asked), never raising."""
    report = LibraryReport(library=library)
    try:
        reader = ZimReader(library.file)
    except ZimOpenError as exc:
        report.failure = f"cannot open: {exc.reason}"
        return report
    report.info = reader.info
    report.warnings = library_warnings(library, reader.info)
    if check:
        size = human_size(reader.info.size)
        print(f"checking {library.name!r} ({size}), this reads the whole file...", file=progress)
        started = time.monotonic()
        report.check_passed = reader.check()
        elapsed = time.monotonic() - started
        outcome = "passed" if report.check_passed else "FAILED"
        print(f"check of {library.name!r} {outcome} in {elapsed:.1f} s", file=progress)
        if not report.check_passed:
            report.failure = "integrity check failed (libzim Archive.check)"
    return report


def _validate_row(report: LibraryReport, check: bool) -> list[str]:
    library, info = report.library, report.info
    row = [library.name, library.adapter, library.path]
    if info is None:
        row += ["-"] * 8
    else:
        row += [
            human_size(info.size),
            str(info.entry_count),
            str(info.article_count),
            info.snapshot or "-",
            info.language or "-",
            info.scraper or "-",
            _yes_no(info.has_fulltext_index),
            _yes_no(info.has_title_index),
        ]
    if check:
        row.append({None: "-", True: "passed", False: "FAILED"}[report.check_passed])
    row.append("FAILED" if report.failure else "ok")
    return row


def validate(settings: Settings, manifest: Manifest, out: TextIO, err: TextIO) -> int:
    """Open every enabled library, print one table row each, then warnings and failures."""
    reports = [inspect_library(lib, settings.zim_check, err) for lib in manifest.enabled]
    headers = ["library", "adapter", "file", "size", "entries", "articles", "snapshot"]
    headers += ["language", "scraper", "full-text index", "title index"]
    headers += ["check"] if settings.zim_check else []
    headers += ["status"]
    print(render_table(headers, [_validate_row(r, settings.zim_check) for r in reports]), file=out)
    disabled = [library.name for library in manifest.libraries if not library.enabled]
    if disabled:
        print(f"\ndisabled (not opened): {', '.join(disabled)}", file=out)
    notes = [f"warning: {r.library.name}: {w}" for r in reports for w in r.warnings]
    notes += [f"FAILED: {r.library.name}: {r.failure}" for r in reports if r.failure]
    if notes:
        print("\n" + "\n".join(notes), file=out)
    failed = [r.library.name for r in reports if r.failure]
    if failed:
        print(f"validate: {len(failed)} failing library(ies): {', '.join(failed)}", file=err)
        return EXIT_FAILED
    print(f"\n{len(reports)} enabled library(ies) ok", file=out)
    return EXIT_OK


# -- list -------------------------------------------------------------------------------


def list_libraries(manifest: Manifest, out: TextIO) -> int:
    """Every configured library, disabled ones included, without opening any archive."""
    rows = []
    for library in manifest.libraries:
        if library.file.is_file():
            present = human_size(library.file.stat().st_size)
        else:
            present = "MISSING" if library.enabled else "missing"
        rows.append(
            [library.name, library.adapter, _yes_no(library.enabled), library.path, present]
        )
    headers = ["library", "adapter", "enabled", "path", "file"]
    print(f"manifest: {manifest.file}", file=out)
    print(render_table(headers, rows), file=out)
    return EXIT_OK


# -- entry point ------------------------------------------------------------------------


def _environment_help() -> str:
    width = max(len(variable.name) for variable in ENV_VARIABLES)
    lines = [
        "configuration (environment variables; unset or empty means the default):",
        *(
            f"  {v.name.ljust(width)}  {v.meaning} (default: {v.default or 'none'})"
            for v in ENV_VARIABLES
        ),
        "",
        "booleans accept true/false, 1/0, yes/no, on/off (any case).",
        "corpus.toml: version = 1 and [[library]] tables with name, path (relative to",
        "CORPUS_ROOT), adapter (mediawiki | devdocs | stackexchange), enabled (default true).",
        f"library names: {LIBRARY_NAME_RULE}; they appear in refs corpus://<name>/<path>.",
        "",
        "exit codes: 0 ok, 1 a library failed validation, 2 invalid configuration.",
    ]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus-mcp",
        description="Offline ZIM archives (Wikipedia, DevDocs, Stack Exchange) as MCP "
        "search and fetch tools, served over Streamable HTTP.",
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary in (
        ("serve", "open every enabled library and serve MCP on MCP_HOST:MCP_PORT"),
        ("stdio", "open every enabled library and serve MCP on stdin/stdout (for MCP hosts)"),
        ("validate", "open every enabled library, print its metadata; non-zero exit on failure"),
        ("list", "list all configured libraries (disabled too) without opening archives"),
    ):
        commands.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=_environment_help(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    return parser


def _serve(settings: Settings, manifest: Manifest) -> int:
    from corpus_mcp.server import main as server_main  # noqa: PLC0415 (heavy; serve only)

    return server_main(settings, manifest)


def _stdio(settings: Settings, manifest: Manifest) -> int:
    from corpus_mcp.server.stdio import main as stdio_main  # noqa: PLC0415 (heavy; stdio only)

    return stdio_main(settings, manifest)


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; return the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        manifest = load_manifest(
            settings.corpus_config, settings.corpus_root, check_files=args.command != "list"
        )
    except ConfigError as exc:
        print(f"corpus-mcp {args.command}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if args.command == "serve":
        return _serve(settings, manifest)
    if args.command == "stdio":
        return _stdio(settings, manifest)
    if args.command == "validate":
        return validate(settings, manifest, sys.stdout, sys.stderr)
    return list_libraries(manifest, sys.stdout)
