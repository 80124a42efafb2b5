"""The ``corpus-mcp`` command: ``serve``, ``stdio``, ``validate``, ``list``, ``index``,
``search``, ``fetch`` and ``init``.

All configuration comes from the environment (:func:`corpus_mcp.config.load_settings`)
so the same image runs unchanged under compose, ``make run``, an MCP host and CI; only
``init`` works without a manifest (it writes one). Exit codes: 0 on success, 1 when
``validate`` finds a failing library, a tool answers with an error, the corpus cannot
be opened or ``init`` wrote nothing, 2 for invalid settings or manifest (and argparse
usage errors).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

import msgspec

from corpus_mcp import __version__
from corpus_mcp.adapters import ADAPTERS
from corpus_mcp.config import (
    ENV_VARIABLES,
    LIBRARY_NAME_RULE,
    ConfigError,
    Library,
    Manifest,
    Settings,
    init_paths,
    load_manifest,
    load_settings,
)
from corpus_mcp.console import Progress, human_size, render_table, shorten
from corpus_mcp.families import LABELS, adapter_for
from corpus_mcp.zim import ArchiveInfo, ZimOpenError, ZimReader

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


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
    expected = adapter_for(info.family, ADAPTERS)
    if info.family == "html" and library.adapter != expected:
        warnings.append(f"{info.family_evidence}; trusting adapter {library.adapter!r}")
    elif library.adapter != expected:
        warnings.append(
            f"archive looks like {LABELS[info.family]} ({info.family_evidence}), read by "
            f"adapter {expected!r}, but the manifest declares adapter {library.adapter!r}"
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


def inspect_library(
    library: Library, check: bool, progress: TextIO
) -> tuple[LibraryReport, ZimReader | None]:
    """Open one archive (and run libzim's check when asked), never raising; the reader
    too, for the web links' sample, when it opened."""
    report = LibraryReport(library=library)
    try:
        reader = ZimReader(library.file)
    except ZimOpenError as exc:
        report.failure = f"cannot open: {exc.reason}"
        return report, None
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
    return report, reader


def _validate_row(report: LibraryReport, settings: Settings) -> list[str]:
    library, info = report.library, report.info
    check = settings.zim_check
    row = [library.name, library.adapter, library.archive]
    if info is None:
        row += ["-"] * 9
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
            _index_column(settings, library),
        ]
    if check:
        row.append({None: "-", True: "passed", False: "FAILED"}[report.check_passed])
    row.append("FAILED" if report.failure else "ok")
    return row


def validate(settings: Settings, manifest: Manifest, out: TextIO, err: TextIO) -> int:
    """Open every enabled library, print one table row each, then warnings and failures."""
    reports = []
    readers: dict[str, ZimReader] = {}
    opening = Progress(err, "opening library", len(manifest.enabled))
    for done, library in enumerate(manifest.enabled):
        opening.step(done, f"{library.name} ({library.archive})")
        if settings.zim_check:
            opening.close()  # the check reports on lines of its own
        report, reader = inspect_library(library, settings.zim_check, err)
        reports.append(report)
        if reader is not None and report.failure is None:
            readers[library.name] = reader
    opening.close()
    headers = ["library", "adapter", "file", "size", "entries", "articles", "snapshot"]
    headers += ["language", "scraper", "full-text index", "title index", "section index"]
    headers += ["check"] if settings.zim_check else []
    headers += ["status"]
    rows = [_validate_row(r, settings) for r in reports]
    print(render_table(headers, rows), file=out)
    chosen = _chosen_by_patterns(manifest.enabled)
    if chosen:
        print("\n" + "\n".join(chosen), file=out)
    disabled = [library.name for library in manifest.libraries if not library.enabled]
    if disabled:
        print(f"\ndisabled (not opened): {', '.join(disabled)}", file=out)
    if readers:
        print("\n" + web_links_report(readers, manifest, err), file=out)
    notes = [f"warning: {r.library.name}: {w}" for r in reports for w in r.warnings]
    folder_note = _index_folder_note(settings)
    if folder_note is not None:
        notes.append(folder_note)
    notes += [f"FAILED: {r.library.name}: {r.failure}" for r in reports if r.failure]
    if notes:
        print("\n" + "\n".join(notes), file=out)
    failed = [r.library.name for r in reports if r.failure]
    if failed:
        print(f"validate: {len(failed)} failing library(ies): {', '.join(failed)}", file=err)
        return EXIT_FAILED
    print(f"\n{len(reports)} enabled library(ies) ok", file=out)
    return EXIT_OK


def web_links_report(readers: Mapping[str, ZimReader], manifest: Manifest, err: TextIO) -> str:
    """Where each library's pages are on the web, and how many of the web links of a
    sample of its documents lead into the corpus (:mod:`corpus_mcp.linksample`); then
    the libraries whose addresses overlap."""
    from corpus_mcp.adapters import get_adapter  # noqa: PLC0415 (validate and list --links)
    from corpus_mcp.linksample import SAMPLE_PAGES, corpus_links  # noqa: PLC0415
    from corpus_mcp.webmap import describe_overlap  # noqa: PLC0415

    adapters = {lib.name: get_adapter(lib.adapter) for lib in manifest.enabled}
    sampling = Progress(err, "sampling web links of", len(readers))
    names = list(readers)
    found = corpus_links(
        readers,
        {name: adapters[name] for name in names},
        progress=lambda name: sampling.step(names.index(name), name),
    )
    sampling.close()
    rows = []
    for name in names:
        mounts = found.mounts.get(name, ())
        web = ", ".join(mount.address for mount in mounts) or "-"
        if name in found.unreadable:
            rows.append([name, "-", f"tables unreadable: {found.unreadable[name]}"])
        else:
            rows.append([name, shorten(web, 60), found.samples[name].describe()])
    lines = [
        f"web links: a sample of each library's documents (the first {SAMPLE_PAGES} with "
        "web links, spread through the archive), resolved through every library's site "
        "(its addresses on the web, scheme and www. aside)",
        render_table(["library", "on the web", "its web links into the corpus"], rows),
    ]
    lines += [describe_overlap(overlap) for overlap in found.overlaps]
    return "\n".join(lines)


# -- list -------------------------------------------------------------------------------


def _chosen_by_patterns(libraries: tuple[Library, ...]) -> list[str]:
    """One line per library whose ``path`` is a pattern: the file it chose."""
    return [
        f"pattern: {library.name}: {library.path} -> {library.archive}"
        for library in libraries
        if library.is_pattern
    ]


def list_libraries(
    settings: Settings,
    manifest: Manifest,
    out: TextIO,
    *,
    links: bool = False,
    err: TextIO = sys.stderr,
) -> int:
    """Every configured library, disabled ones included, without opening any archive:
    its path as written, the file it names (a pattern: the newest snapshot present),
    that file's size and its section index; then why a pattern chose no file. With
    ``links``, the enabled archives present are opened for their web links' sample
    (:func:`web_links_report`)."""
    rows = []
    for library in manifest.libraries:
        present_file = library.unresolved is None and library.file.is_file()
        if present_file:
            present = human_size(library.file.stat().st_size)
        else:
            present = "MISSING" if library.enabled else "missing"
        shown = "-" if library.unresolved is not None else library.archive
        index = _index_column(settings, library) if present_file else "-"
        rows.append(
            [
                library.name,
                library.adapter,
                _yes_no(library.enabled),
                library.path,
                shown,
                present,
                index,
            ]
        )
    headers = ["library", "adapter", "enabled", "path", "file", "size", "section index"]
    print(f"manifest: {manifest.file}", file=out)
    print(render_table(headers, rows), file=out)
    unresolved = [
        f"{library.name}: {library.path} {library.unresolved}"
        for library in manifest.libraries
        if library.unresolved is not None
    ]
    if unresolved:
        print("\n" + "\n".join(unresolved), file=out)
    if links:
        readers: dict[str, ZimReader] = {}
        for library in manifest.enabled:
            if library.unresolved is None and library.file.is_file():
                try:
                    readers[library.name] = ZimReader(library.file)
                except ZimOpenError as exc:
                    print(f"\n{library.name}: cannot open: {exc.reason}", file=out)
        if readers:
            print("\n" + web_links_report(readers, manifest, err), file=out)
    return EXIT_OK


def _index_column(settings: Settings, library: Library) -> str:
    """A library's section index in a phrase, read from the index folder alone."""
    if settings.index == "off":
        return "off (INDEX=off)"
    from corpus_mcp.sections.catalog import IndexFolder  # noqa: PLC0415 (list and validate)
    from corpus_mcp.sections.command import index_state  # noqa: PLC0415

    return index_state(IndexFolder(settings.index_dir), library).describe()


def _index_folder_note(settings: Settings) -> str | None:
    """Why indexes cannot be built in CORPUS_INDEX_DIR (None: they can)."""
    if settings.index == "off":
        return None
    from corpus_mcp.sections.catalog import IndexFolder  # noqa: PLC0415

    problem = IndexFolder(settings.index_dir).usable()
    if problem is None:
        return None
    return f"warning: section indexes: {problem}: libraries are served without them"


# -- entry point ------------------------------------------------------------------------


#: Where the repository documents what the help says in brief (tests/test_docs.py checks
#: that each page and section named here exists).
DOCUMENTATION = (
    "documentation, in the repository: README.md first (the quickstart, MCP hosts, the two "
    "tools, configuration at a glance), then docs/: agents.md (the two tools in full), "
    "corpus.md (archives, init, search and fetch from the terminal, section indexes), "
    "configuration.md (corpus.toml, every variable above), deployment.md (the container, "
    "replicas, Kubernetes), operations.md (serving processes, crashes, archive faults, "
    "metrics and logs, updating the corpus)."
)
HELP_WIDTH = 88


def _paragraph(text: str) -> str:
    return textwrap.fill(text, HELP_WIDTH, break_on_hyphens=False, break_long_words=False)


def _environment_help() -> str:
    width = max(len(variable.name) for variable in ENV_VARIABLES)
    manifest = (
        "corpus.toml: version = 1 and [[library]] tables with name, path, adapter "
        f"({' | '.join(ADAPTERS)}) and enabled (default true). path is relative to "
        "CORPUS_ROOT: a file, or a pattern in the file name, e.g. "
        "wikipedia/wikipedia_en_all_nopic_*.zim, which serves the newest snapshot present by "
        "the _YYYY-MM date ending the file names, chosen again at each SIGHUP (list and "
        "validate show the file each pattern chose). The repository's corpus.toml describes "
        "the default layout; corpus-mcp init writes one for a folder of ZIM archives or a "
        "Kiwix library.xml (--force to replace a manifest)."
    )
    exit_codes = (
        "exit codes: 0 ok, 1 a library failed validation, a tool error (search, fetch), a "
        "corpus that cannot be opened or nothing written (init), 2 invalid settings, "
        "manifest or usage."
    )
    lines = [
        "configuration (environment variables; unset or empty means the default):",
        *(
            f"  {v.name.ljust(width)}  {v.meaning} (default: {v.default or 'none'})"
            for v in ENV_VARIABLES
        ),
        "",
        "booleans accept true/false, 1/0, yes/no, on/off (any case).",
        _paragraph(manifest),
        f"library names: {LIBRARY_NAME_RULE}; they appear in refs corpus://<name>/<path>.",
        "",
        _paragraph(exit_codes),
        "",
        _paragraph(DOCUMENTATION),
    ]
    return "\n".join(lines)


def _command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    documented: str,
) -> argparse.ArgumentParser:
    """A subcommand whose help says what it does and where the documentation says more."""
    return commands.add_parser(
        name,
        help=summary,
        description=f"{summary}\n\n{_paragraph(f'documented in {documented}.')}",
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the tool's JSON exactly as an MCP client gets it (errors too)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log at LOG_LEVEL on stderr (default: warnings only)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corpus-mcp",
        description="Offline ZIM archives (Wikipedia, DevDocs, Stack Exchange and any other "
        "Kiwix archive) as MCP search and fetch tools, served over Streamable HTTP or stdio.",
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _command(
        commands,
        "serve",
        "open every enabled library and serve MCP on MCP_HOST:MCP_PORT",
        'README.md, "Quickstart"; docs/deployment.md (the container); docs/operations.md, '
        '"Serving processes"',
    )
    _command(
        commands,
        "stdio",
        "open every enabled library and serve MCP on stdin/stdout",
        'README.md, "Connecting an MCP host"',
    )
    _command(
        commands,
        "validate",
        "open every enabled library, print its metadata; exit 1 on failure",
        'docs/configuration.md, "corpus.toml"',
    )
    listing = _command(
        commands,
        "list",
        "list all configured libraries (disabled too) without opening them",
        'docs/configuration.md, "corpus.toml"',
    )
    listing.add_argument(
        "--links",
        action="store_true",
        help="also open the enabled archives and say how many of the web links of a "
        "sample of each one's documents lead into the corpus (validate says it too)",
    )
    index = _command(
        commands,
        "index",
        "build the section indexes that are missing or stale (every core; a killed run "
        "continues where it stopped)",
        'docs/corpus.md, "Section indexes"',
    )
    index.add_argument(
        "--library",
        dest="libraries",
        action="append",
        default=[],
        metavar="NAME",
        help="only this enabled library (repeat for more; default: all of them)",
    )
    index.add_argument(
        "--processes",
        type=int,
        metavar="N",
        help="worker processes (default: one per usable CPU)",
    )
    index.add_argument(
        "--prune",
        action="store_true",
        help="also remove the indexes no enabled library uses (old snapshots' ones)",
    )

    terminal = 'docs/corpus.md, "From the terminal: search and fetch"; the tool: docs/agents.md'
    search = _command(
        commands, "search", "run the search tool once and print the results", terminal
    )
    search.add_argument("query", help="what to look for, as an agent would ask")
    search.add_argument(
        "--limit", type=int, metavar="N", help="how many results (default SEARCH_LIMIT)"
    )
    _add_output_options(search)

    fetch = _command(commands, "fetch", "run the fetch tool once and print the document", terminal)
    fetch.add_argument("ref", help="a ref as search printed it (corpus://<library>/<path>)")
    fetch.add_argument(
        "--section",
        dest="sections",
        action="append",
        metavar="ID",
        help="only this section (repeat for more; '' is the lead section)",
    )
    _add_output_options(fetch)

    init = _command(
        commands,
        "init",
        "write corpus.toml for a folder of ZIM archives or a Kiwix library.xml",
        'docs/corpus.md, "A corpus in one command: `corpus-mcp init`"',
    )
    init.add_argument(
        "source",
        nargs="?",
        type=Path,
        help="folder searched recursively for *.zim, or a library.xml (default: "
        "CORPUS_ROOT if set, else ./corpus)",
    )
    init.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the manifest to write (default: CORPUS_CONFIG if set, else ./corpus.toml)",
    )
    init.add_argument("--force", action="store_true", help="replace an existing manifest")
    return parser


def _serve(settings: Settings, manifest: Manifest) -> int:
    from corpus_mcp.server import main as server_main  # noqa: PLC0415 (heavy; serve only)

    return server_main(settings, manifest)


def _stdio(settings: Settings, manifest: Manifest) -> int:
    from corpus_mcp.server.stdio import main as stdio_main  # noqa: PLC0415 (heavy; stdio only)

    return stdio_main(settings, manifest)


def _tool(settings: Settings, manifest: Manifest, args: argparse.Namespace) -> int:
    from corpus_mcp import terminal  # noqa: PLC0415 (heavy; search and fetch only)

    if args.command == "search":
        arguments = terminal.search_arguments(args.query, args.limit)
    else:
        arguments = terminal.fetch_arguments(args.ref, args.sections)
    return terminal.run_tool_command(
        settings, manifest, args.command, arguments, as_json=args.json, verbose=args.verbose
    )


def _index(settings: Settings, manifest: Manifest, args: argparse.Namespace) -> int:
    from corpus_mcp.sections.command import run_index  # noqa: PLC0415 (index only)

    if args.processes is not None and args.processes < 1:
        print("corpus-mcp index: --processes must be 1 or more", file=sys.stderr)
        return EXIT_CONFIG
    try:
        return run_index(
            settings,
            manifest,
            only=args.libraries,
            processes=args.processes,
            prune=args.prune,
            out=sys.stdout,
            err=sys.stderr,
        )
    except KeyboardInterrupt:
        return 130


def _init(args: argparse.Namespace) -> int:
    from corpus_mcp.init import run_init  # noqa: PLC0415 (init only)

    source, output = init_paths(args.source, args.output)
    return run_init(source, output, force=args.force, out=sys.stdout, err=sys.stderr)


def _init_hint(settings: Settings) -> str:
    """When the manifest is missing or names absent archives while CORPUS_ROOT holds
    some: the command that writes a manifest for them."""
    root = settings.corpus_root
    if not root.is_dir() or not any(root.rglob("*.zim")):
        return ""
    force = " --force" if settings.corpus_config.exists() else ""
    command = f"corpus-mcp init {shlex.quote(str(root))} --output "
    command += shlex.quote(str(settings.corpus_config)) + force
    return f"\nhint: to write a manifest for the ZIM archives in {root}: {command}"


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; return the process exit code."""
    args = build_parser().parse_args(argv)
    if args.command == "init":
        return _init(args)
    try:
        settings = load_settings(one_process=args.command != "serve")
    except ConfigError as exc:
        print(f"corpus-mcp {args.command}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        manifest = load_manifest(
            settings.corpus_config, settings.corpus_root, check_files=args.command != "list"
        )
    except ConfigError as exc:
        print(f"corpus-mcp {args.command}: {exc}{_init_hint(settings)}", file=sys.stderr)
        return EXIT_CONFIG
    if args.command == "serve":
        return _serve(settings, manifest)
    if args.command == "stdio":
        return _stdio(settings, manifest)
    if args.command == "validate":
        return validate(settings, manifest, sys.stdout, sys.stderr)
    if args.command in ("search", "fetch"):
        return _tool(settings, manifest, args)
    if args.command == "index":
        return _index(settings, manifest, args)
    return list_libraries(settings, manifest, sys.stdout, links=args.links, err=sys.stderr)
