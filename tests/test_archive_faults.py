"""Archive files changed under a running ``corpus-mcp serve``: truncated, overwritten in
place, half copied, deleted, made unreadable, replaced by rename or by a complete copy.

One real server over copies of the demo archives (plus a copy of the real Wikipedia
archive whose truncation used to kill the process with SIGBUS, where ../shared/zims has
it) is driven by the MCP Python client over HTTP; every test breaks or replaces one
library's file and leaves it sound again, so they share the server.

A broken file (the library stays unavailable until the operator repairs it): the process
lives, another library answers exactly as before, search says ``partial`` and names the
library, fetch answers ``library_unavailable`` with the reason (for a document read
before the fault too), the log has exactly one warning for it and no error; once the file
is repaired the library answers again. A sound new archive put in its place: it is
served without anyone's help and old documents are forgotten; by rename, the safe way,
without a moment of ``library_unavailable`` or ``partial`` even under load (the old file
serves until the new one is found sound); by a copy over the served file, with every
call meanwhile getting a structured answer.

Every wait is a poll bounded by a hang guard far above ARCHIVE_RECHECK_SECONDS, never a
timed assertion.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import msgspec
import pytest
import trio
from mcp import Client

from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.zim.identity import CHANGED, DELETED, TRUNCATED, UNREADABLE
from corpus_mcp.zim.service import NOT_AN_ARCHIVE

from .conftest import REAL_ARCHIVES_PRESENT, SHARED_ZIMS
from .mcp_helpers import error_payload, structured
from .server_process import ServerProcess, health_status, running_server

RECHECK = 0.2
"""ARCHIVE_RECHECK_SECONDS of the servers here."""
RECOVERY_GUARD = 300 * RECHECK
"""Hang guard for a library to come back: a sound file is served after two checks."""
REAL_WIKIPEDIA = "wikipedia_en_100_mini_2022-10.zim"
SERVER_ENV = {
    "ARCHIVE_RECHECK_SECONDS": str(RECHECK),
    # No library may be left out for being slow on the shared machine: only the faults.
    "SEARCH_TIMEOUT": "60",
}
QUERY = "python list"


class Corpus(msgspec.Struct, frozen=True):
    """A served copy of the archives, and a pristine copy of each to repair from."""

    manifest: Path
    files: dict[str, Path]
    originals: dict[str, Path]


def copy_corpus(demo_corpus: Path, root: Path) -> Corpus:
    """The demo archives (and the real Wikipedia archive when present) under ``root``."""
    libraries = list(DEMO_LIBRARIES)
    sources = {name: demo_corpus.parent / relative for name, relative, _ in libraries}
    if REAL_ARCHIVES_PRESENT:
        libraries.append(("wp100", f"real/{REAL_WIKIPEDIA}", "mediawiki"))
        sources["wp100"] = SHARED_ZIMS / REAL_WIKIPEDIA
    files: dict[str, Path] = {}
    originals: dict[str, Path] = {}
    lines = ["version = 1"]
    for name, relative, adapter in libraries:
        files[name] = root / "served" / relative
        originals[name] = root / "originals" / f"{name}.zim"
        for target in (files[name], originals[name]):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sources[name], target)
        lines += ["[[library]]", f'name = "{name}"', f'path = "{relative}"']
        lines.append(f'adapter = "{adapter}"')
    manifest = root / "served" / "corpus.toml"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Corpus(manifest, files, originals)


def copy_in_place(source: Path, target: Path, length: int | None = None) -> None:
    """What ``cp source target`` does (the same inode, emptied, then written), stopped
    after ``length`` bytes when given (a copy still in progress)."""
    data = source.read_bytes()
    with target.open("wb") as writing:
        writing.write(data[:length])


def rename_over(source: Path, target: Path) -> None:
    """The safe update: a new file written next to the served one, then moved over it."""
    fresh = target.with_name(target.name + ".new")
    shutil.copyfile(source, fresh)
    os.replace(fresh, target)


@pytest.fixture(scope="module")
def corpus_copy(demo_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return copy_corpus(demo_corpus, tmp_path_factory.mktemp("archive-faults"))


@pytest.fixture(scope="module")
def server(
    corpus_copy: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server for every test here: each leaves the file it changed sound again."""
    log = tmp_path_factory.mktemp("archive-faults-log") / "stderr.log"
    with running_server(corpus_copy.manifest, log, env=SERVER_ENV) as running:
        yield running


def url(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}/mcp"


async def fetch(client: Client, library: str, path: str) -> types.CallToolResult:
    return await client.call_tool("fetch", {"ref": f"corpus://{library}/{path}"})


async def poll(done: Callable[[], Awaitable[bool]], what: str) -> None:
    """Until ``done()``, within :data:`RECOVERY_GUARD`."""
    deadline = time.monotonic() + RECOVERY_GUARD
    while not await done():
        assert time.monotonic() < deadline, f"{what} never happened"
        await trio.sleep(RECHECK / 2)


def error_code(result: types.CallToolResult) -> str | None:
    """None for a document, else the error's code."""
    if not result.is_error:
        structured(result)
        return None
    code: str = error_payload(result)["error"]
    return code


def warnings_about(log: str, library: str) -> list[str]:
    """The log's warning lines naming ``library`` (the service's and the search's)."""
    return [
        line
        for line in log.splitlines()
        if " WARNING " in line and (f"library {library} " in line or f"from {library}" in line)
    ]


def assert_one_warning(log: str, library: str, reasons: set[str]) -> str:
    """Exactly one warning about ``library``: the service's, with one of ``reasons``."""
    [warning] = warnings_about(log, library)
    reason = warning.split(f"WARNING corpus_mcp.zim: library {library} unavailable: ")[1]
    assert reason.split(" (")[0] in reasons, warning
    assert "Traceback" not in log
    assert " ERROR " not in log
    return warning


# -- broken files: unavailable until repaired ------------------------------------------------


class Fault(msgspec.Struct, frozen=True):
    """One way to break a library's file, and two of its documents."""

    library: str
    reason: str
    """What the warning says when the fault is found."""
    read_before: str
    """A document fetched before the fault: in the cache, and refused all the same."""
    other: str
    """A document not fetched before the fault (a search may have read it)."""
    stays: bool = True
    """Whether the reason stays until the repair; a file still at the path is otherwise
    tried, and then said to be one that cannot be opened."""


#: Truncation hits the real archive where there is one (libzim maps it and used to die
#: reading it), the demo's Wikipedia otherwise.
TRUNCATED_FAULT = (
    Fault("wp100", TRUNCATED, "Amphibian", "Animal", stays=False)
    if REAL_ARCHIVES_PRESENT
    else Fault("Wikipedia", TRUNCATED, "C3_linearization", "Multiple_inheritance", stays=False)
)
FAULTS = {
    "truncated": TRUNCATED_FAULT,
    "overwritten-in-place": Fault("MDWiki", CHANGED, "Asthma", "Amlodipine", stays=False),
    "half-copied": Fault(
        "Cpp-Docs", TRUNCATED, "cpp/algorithm/sort", "cpp/container/list", stays=False
    ),
    "deleted": Fault(
        "Math-SE",
        DELETED,
        "questions/1212/what-is-the-derivative-of-x-x",
        "questions/11/is-it-true-that-0-999999999-ldots-1",
    ),
    "unreadable": Fault(
        "StackOverflow",
        UNREADABLE,
        "questions/1132941/least-astonishment-and-the-mutable-default-argument",
        "questions/1294382/what-is-the-global-interpreter-lock-gil-in-cpython",
    ),
}


def break_file(kind: str, corpus: Corpus, library: str) -> None:
    file = corpus.files[library]
    if kind == "truncated":
        os.truncate(file, file.stat().st_size // 2)
    elif kind == "overwritten-in-place":  # another archive's bytes, the size kept
        other = corpus.originals["Wikipedia"].read_bytes()
        size = file.stat().st_size
        with file.open("r+b") as writing:
            writing.write((other * (size // len(other) + 1))[:size])
    elif kind == "half-copied":  # next month's file being copied over it, half-way
        copy_in_place(corpus.originals[library], file, file.stat().st_size // 2)
    elif kind == "deleted":
        file.unlink()
    else:
        file.chmod(0)


def repair_file(kind: str, corpus: Corpus, library: str) -> None:
    """What the operator does next: the archive copied back (or its mode)."""
    file = corpus.files[library]
    if kind == "unreadable":
        file.chmod(0o644)
    else:
        copy_in_place(corpus.originals[library], file)


QUICK = ("truncated", "deleted")
AS_ROOT = pytest.mark.skipif(
    os.geteuid() == 0, reason="root reads a file whatever its mode: chmod 000 cannot stop it"
)


def fault_param(kind: str) -> Any:
    marks = [] if kind in QUICK else [pytest.mark.full]
    if kind == "unreadable":
        marks.append(AS_ROOT)
    return pytest.param(kind, marks=marks)


@pytest.mark.parametrize("kind", [fault_param(kind) for kind in FAULTS])
async def test_a_broken_archive_is_left_out_until_it_is_repaired(
    server: ServerProcess, corpus_copy: Corpus, kind: str
) -> None:
    fault = FAULTS[kind]
    library = fault.library
    reasons = {fault.reason} if fault.stays else {fault.reason, NOT_AN_ARCHIVE}
    witness, witness_path = ("MDWiki", "Diabetes_mellitus")
    if library == "MDWiki":
        witness, witness_path = ("Wikipedia", "Ray_Charles")
    async with Client(url(server)) as client:
        before = structured(await fetch(client, library, fault.read_before))
        witnessed = structured(await fetch(client, witness, witness_path))
        mark = server.mark()
        break_file(kind, corpus_copy, library)

        # A path no search has read: its lookup is the first access of the archive since
        # the fault (a cached document could be served until an access or the periodic
        # check finds the fault; from then on, none is).
        for path in ("No_document_here", fault.read_before, fault.other):
            refused = error_payload(await fetch(client, library, path))
            assert refused["error"] == "library_unavailable"
            assert refused["library"] == library
            assert refused["reason"] in reasons
            assert refused["retry_after"] == RECHECK
            assert f"library {library!r} is temporarily unavailable" in refused["message"]

        found = structured(await client.call_tool("search", {"query": QUERY, "limit": 10}))
        assert found["partial"] is True
        assert found["unavailable_libraries"] == [library]
        assert found["results"]
        assert library not in {result["library"] for result in found["results"]}
        assert structured(await fetch(client, witness, witness_path)) == witnessed

        assert server.process.poll() is None
        assert health_status(server.port) == 200
        assert_one_warning(server.log_since(mark), library, {fault.reason})

        repair_file(kind, corpus_copy, library)

        async def answers() -> bool:
            code = error_code(await fetch(client, library, fault.other))
            assert code in (None, "library_unavailable")
            return code is None

        await poll(answers, f"{library} answering again")
        assert structured(await fetch(client, library, fault.read_before)) == before
        again = structured(await client.call_tool("search", {"query": QUERY, "limit": 10}))
        assert again["partial"] is False
    log = server.log_since(mark)
    assert_one_warning(log, library, {fault.reason})
    assert f"library {library} available again" in log
    assert server.process.poll() is None


# -- a sound new archive put in place: served by itself ----------------------------------------


class Replacement(msgspec.Struct, frozen=True):
    """A library's archive replaced by another of its family, and back."""

    library: str
    source: str
    """The library whose archive is put in its place."""
    own: str
    """A document of the library's own archive only."""
    new: str
    """A document of the other archive only."""
    install: Callable[[Path, Path], None]
    reasons: frozenset[str]
    """What the warning may say while the library is unavailable; none: it never is."""


REPLACEMENTS = {
    "renamed-over": Replacement(
        "Python-Docs",
        "Cpp-Docs",
        "library/asyncio",
        "cpp/container/list",
        rename_over,
        frozenset(),
    ),
    # A check may see the copy half-way (truncated) or done (grown).
    "copied-over": Replacement(
        "Math-SE",
        "StackOverflow",
        "questions/1212/what-is-the-derivative-of-x-x",
        "questions/1132941/least-astonishment-and-the-mutable-default-argument",
        copy_in_place,
        frozenset({CHANGED, TRUNCATED}),
    ),
}


async def switch(
    server: ServerProcess,
    client: Client,
    replacement: Replacement,
    files: tuple[Path, Path],
    path: str,
) -> None:
    """Install ``files`` (new, served) and poll until ``path`` is served: every answer
    meanwhile is structured, and the log says it once each way (by rename: the library
    is never unavailable, and the log says so at INFO)."""
    library = replacement.library
    mark = server.mark()
    replacement.install(*files)
    meanwhile = {None, "not_found"}  # the old archive has no such document
    if replacement.reasons:
        meanwhile.add("library_unavailable")

    async def serves() -> bool:
        code = error_code(await fetch(client, library, path))
        assert code in meanwhile
        return code is None

    await poll(serves, f"{library} serving its new archive")
    log = server.log_since(mark)
    if replacement.reasons:
        assert_one_warning(log, library, set(replacement.reasons))
        assert f"library {library} available again" in log
    else:
        assert warnings_about(log, library) == []
        assert (
            f"library {library}: a new file at its path; serving the old one until the new "
            "one is sound"
        ) in log
        assert f"library {library} now serves {files[1]} (replaced); " in log


@pytest.mark.parametrize(
    "how",
    [pytest.param("renamed-over"), pytest.param("copied-over", marks=pytest.mark.full)],
)
async def test_a_new_archive_put_in_place_is_served_without_a_restart(
    server: ServerProcess, corpus_copy: Corpus, how: str
) -> None:
    replacement = REPLACEMENTS[how]
    library = replacement.library
    served = corpus_copy.files[library]
    async with Client(url(server)) as client:
        structured(await fetch(client, library, replacement.own))  # now in the cache
        newer = corpus_copy.originals[replacement.source]
        await switch(server, client, replacement, (newer, served), replacement.new)
        # The cache forgot the old archive's documents.
        assert error_code(await fetch(client, library, replacement.own)) == "not_found"
        own = corpus_copy.originals[library]
        await switch(server, client, replacement, (own, served), replacement.own)
        assert error_code(await fetch(client, library, replacement.new)) == "not_found"
        found = structured(await client.call_tool("search", {"query": QUERY, "limit": 10}))
        assert found["partial"] is False
    assert server.process.poll() is None


UPDATE_CLIENTS = 3


async def test_a_rename_based_update_under_load_never_leaves_the_library_out(
    server: ServerProcess, corpus_copy: Corpus
) -> None:
    """Clients keep searching (every library, a new query each time, so no answer is
    remembered) and fetching from the library while its archive is replaced by rename,
    then put back the same way: no call is told the library is unavailable, no search is
    partial, and each archive's own document is served once it is."""
    replacement = REPLACEMENTS["renamed-over"]
    library = replacement.library
    served_file = corpus_copy.files[library]
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    stop = trio.Event()

    async def client_loop(number: int) -> None:
        async with Client(url(server)) as client:
            turn = number
            while not stop.is_set():
                turn += UPDATE_CLIENTS
                query = f"{QUERY} {turn}"
                try:
                    found = structured(await client.call_tool("search", {"query": query}))
                    path = (replacement.own, replacement.new)[turn % 2]
                    code = error_code(await fetch(client, library, path)) or "ok"
                except Exception as exc:  # a failed call is what this test looks for
                    failures.append(f"{query}: {exc!r}")
                    continue
                outcomes[f"search partial={found['partial']}"] += 1
                outcomes[f"fetch {code}"] += 1

    async with trio.open_nursery() as nursery:
        for number in range(UPDATE_CLIENTS):
            nursery.start_soon(client_loop, number)
        async with Client(url(server)) as checker:
            newer, own = corpus_copy.originals[replacement.source], corpus_copy.originals[library]
            for source, path in ((newer, replacement.new), (own, replacement.own)):
                before = outcomes.total()
                await switch(server, checker, replacement, (source, served_file), path)
                print(f"\n{library} swapped by rename: {outcomes.total() - before} calls meanwhile")
        stop.set()
    assert failures == []
    assert set(outcomes) <= {"search partial=False", "fetch ok", "fetch not_found"}, outcomes
    assert outcomes["search partial=False"] and outcomes["fetch ok"]
    assert server.process.poll() is None


def test_faults_leave_the_served_files_as_they_were(
    server: ServerProcess, corpus_copy: Corpus
) -> None:
    """After the tests above, every served file is its original again (the module's
    tests share the server, so a test that did not repair would break the next)."""
    for library, file in corpus_copy.files.items():
        assert file.read_bytes() == corpus_copy.originals[library].read_bytes(), library
    assert server.process.poll() is None


# -- under load ---------------------------------------------------------------------------------

LOAD_CLIENTS = 4
UNDER_LOAD = ("truncated", "overwritten-in-place", "half-copied", "deleted")


@pytest.mark.full
async def test_faults_under_load_fail_no_call(demo_corpus: Path, tmp_path: Path) -> None:
    """Clients keep searching and fetching from every library while one file after the
    other is broken and repaired; the server here searches through libzim, the other
    engine. Every call gets a document, a search answer or ``library_unavailable``."""
    corpus = copy_corpus(demo_corpus, tmp_path / "corpus")
    env = {**SERVER_ENV, "SEARCH_ENGINE": "libzim"}
    documents = [(f.library, path) for f in FAULTS.values() for path in (f.read_before, f.other)]
    outcomes: dict[str, int] = {}
    failures: list[str] = []
    with running_server(corpus.manifest, tmp_path / "stderr.log", env=env) as server:

        async def client_loop(number: int, stop: trio.Event) -> None:
            async with Client(url(server)) as client:
                turn = number
                while not stop.is_set():
                    library, path = documents[turn % len(documents)]
                    turn += 1
                    try:
                        code = error_code(await fetch(client, library, path)) or "ok"
                        found = await client.call_tool("search", {"query": QUERY})
                        partial = structured(found)["partial"]
                    except Exception as exc:  # a failed call is what this test looks for
                        failures.append(f"{library}/{path}: {exc!r}")
                        continue
                    for outcome in (f"fetch {code}", f"search partial={partial}"):
                        outcomes[outcome] = outcomes.get(outcome, 0) + 1

        mark = server.mark()
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            for number in range(LOAD_CLIENTS):
                nursery.start_soon(client_loop, number, stop)
            async with Client(url(server)) as checker:
                for kind in UNDER_LOAD:
                    fault = FAULTS[kind]
                    seen = server.mark()
                    break_file(kind, corpus, fault.library)

                    async def found(fault: Fault = fault, seen: int = seen) -> bool:
                        return f"library {fault.library} unavailable" in server.log_since(seen)

                    await poll(found, f"the fault of {fault.library} being found")
                    repair_file(kind, corpus, fault.library)

                    async def answers(fault: Fault = fault) -> bool:
                        return error_code(await fetch(checker, fault.library, fault.other)) is None

                    await poll(answers, f"{fault.library} answering again")
            stop.set()
        assert server.process.poll() is None
        log = server.log_since(mark)
    assert failures == []
    assert set(outcomes) <= {
        "fetch ok",
        "fetch library_unavailable",
        "search partial=True",
        "search partial=False",
    }, outcomes
    assert outcomes["fetch ok"] and outcomes["search partial=False"]
    for kind in UNDER_LOAD:
        assert_one_warning(log, FAULTS[kind].library, {FAULTS[kind].reason})
