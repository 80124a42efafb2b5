"""The long soak (``make soak``; issue 23): N clients for a long while against a real
``corpus-mcp serve`` with ``WORKERS=auto``, counting what would bring a server down.

Each client asks new questions, never asked before (questions made of titles from the
corpus's own archives, and the development kit's or the repository's cases, each asked
as a fresh variant: the question with lone punctuation marks added, which no cache has),
and fetches the first hit's hinted sections (``scripts/_load.py``). Meanwhile the
server's log is read for the supervisor's lines about serving processes: deaths by a
signal (crashes), other exits, replacements, and faulthandler's reports of a native
crash; and its process tree is sampled (RSS, PSS, threads).

Prints the calls, the errors by kind, crashes, exits, replacements, fault reports and
the server's memory over time; exits 1 when a serving process crashed or the server
itself died, else 0. The server's log is kept (its path is printed).

Any corpus works: ``--root`` (and ``--config``, default ROOT/corpus.toml), such as a
generated Wikipedia-like archive; by default the development kit's corpus at
``~/.cache/corpus-dev/corpus`` when it was built, else the demo corpus. The corpus's
missing section indexes are built before the server starts, unless
``--build-in-background``: then the server builds them at its background priority while
the clients run, and switches to each once it is complete, as a fresh deployment does.

Usage: make soak [SOAK_ARGS="--duration 60"]
       python scripts/soak.py [--root DIR] [--config FILE] [--duration 1800] [--clients 16]
           [--build-in-background]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import trio
from _bench_load import NewQueries
from _corpora import CACHE, KIT, KIT_CACHE
from _load import MODES, QUERIES, Stats, report, run_phase
from _processes import ROOT, ProcessSample, Served, ServerFailed, corpus_server, sample

from corpus_mcp.config import load_manifest
from corpus_mcp.demo import build_demo_corpus
from corpus_mcp.zim import ZimReader

TITLES_PER_LIBRARY = 2000
"""Titles taken from each archive (evenly spread over it) to make questions of."""
TEMPLATES = ("{}", "what is {}", "{} history", "how does {} work", "{} examples")
LOG_POLL_SECONDS = 1.0
_CRASH = re.compile(r"serving process (\d+) was killed by (SIG\w+|signal \d+)")
_EXIT = re.compile(r"serving process (\d+) exited with status (-?\d+)")
_LEVEL = re.compile(r" (WARNING|ERROR|CRITICAL) ([\w.]+)(?: \[process \d+\])?: (.*)")


@dataclass
class ServerLog:
    """What the server's log said about its serving processes so far."""

    crashes: Counter[str] = field(default_factory=Counter)
    """Deaths by signal, by the signal's name."""
    exits: Counter[str] = field(default_factory=Counter)
    """Other deaths, by exit status."""
    replacements: int = 0
    unforked: int = 0
    fault_reports: int = 0
    """faulthandler's ``Fatal Python error`` reports (one per native crash)."""
    other: Counter[str] = field(default_factory=Counter)
    """Other warnings and errors, by logger and their first words."""
    crash_lines: list[str] = field(default_factory=list)

    def read(self, line: str) -> None:
        if line.startswith("Fatal Python error"):
            self.fault_reports += 1
            return
        level = _LEVEL.search(line)
        if level is None:
            return
        message = level.group(3)
        if "while stopping" in message:
            return
        if crash := _CRASH.search(message):
            self.crashes[crash.group(2)] += 1
            self.crash_lines.append(line)
        elif exit_ := _EXIT.search(message):
            self.exits[exit_.group(2)] += 1
        elif "could not be started" in message:
            self.unforked += 1
        else:
            self.other[f"{level.group(2)}: {' '.join(message.split()[:6])}"] += 1
        if "starting another" in message:
            self.replacements += 1


async def watch_log(path: Path, log: ServerLog) -> None:
    """Read the server's log as it grows, line by line."""
    offset = 0
    pending = ""
    while True:
        with path.open("rb") as stream:
            stream.seek(offset)
            chunk = stream.read()
        offset += len(chunk)
        *lines, pending = (pending + chunk.decode("utf-8", "replace")).split("\n")
        for line in lines:
            log.read(line)
        await trio.sleep(LOG_POLL_SECONDS)


@dataclass(frozen=True)
class Reading:
    seconds: float
    calls: int
    errors: int
    crashes: int
    tree: ProcessSample


async def watch_memory(
    server: Served, stats: Stats, log: ServerLog, every: float, readings: list[Reading]
) -> None:
    """Sample the server's process tree every ``every`` seconds, printing each."""
    started = time.monotonic()
    print(f"{'t (s)':>7} {'calls':>7} {'errors':>6} {'crashes':>7} {'procs':>5} "
          f"{'threads':>7} {'RSS MB':>7} {'PSS MB':>7}")  # fmt: skip
    while True:
        tree = sample(server.pid)
        reading = Reading(
            time.monotonic() - started,
            stats.total,
            sum(stats.errors.values()),
            sum(log.crashes.values()),
            tree,
        )
        readings.append(reading)
        print(
            f"{reading.seconds:7.0f} {reading.calls:7d} {reading.errors:6d} "
            f"{reading.crashes:7d} {tree.processes:5d} {tree.threads:7d} "
            f"{tree.rss_bytes / 2**20:7.0f} {tree.pss_bytes / 2**20:7.0f}",
            flush=True,
        )
        await trio.sleep(every)


def default_corpus() -> tuple[Path, Path, str]:
    """The development kit's corpus when it was built, else the demo corpus."""
    kit = KIT_CACHE / "corpus" / "corpus.toml"
    if kit.is_file():
        return kit.parent, kit, f"development kit ({kit.parent})"
    demo = CACHE / "demo" / "corpus.toml"
    if not demo.is_file():
        build_demo_corpus(demo.parent)
    return demo.parent, demo, f"demo corpus ({demo.parent})"


def cases(config: Path) -> list[str]:
    """The questions of the development kit (for its corpus) or of the repository's
    relevance cases (for the demo corpus); none for another corpus."""
    if config.resolve() == (KIT_CACHE / "corpus" / "corpus.toml").resolve():
        found = KIT / "queries.toml"
    elif config.resolve() == (CACHE / "demo" / "corpus.toml").resolve():
        found = ROOT / "tests" / "relevance_cases.toml"
    else:
        return []
    if not found.is_file():
        return []
    return [case["query"] for case in tomllib.loads(found.read_text("utf-8"))["case"]]


def title_questions(root: Path, config: Path, per_library: int) -> list[str]:
    """Questions made of titles of every enabled library's articles (evenly spread over
    each archive), in a few agent-like forms."""
    manifest = load_manifest(config, root)
    found: list[str] = []
    for library in manifest.enabled:
        reader = ZimReader(library.file, direct_index=False)
        titles = [title for _, title, redirect in reader.iter_entries() if title and not redirect]
        step = max(1, len(titles) // per_library)
        chosen = titles[::step][:per_library]
        found += [TEMPLATES[i % len(TEMPLATES)].format(t) for i, t in enumerate(chosen)]
    return found


def questions(root: Path, config: Path, per_library: int) -> list[str]:
    """Every base question, interleaved so that consecutive ones read other documents."""
    bases = [*cases(config), *QUERIES]
    titles = title_questions(root, config, per_library)
    mixed: list[str] = []
    for i in range(max(len(bases), len(titles))):
        mixed += [*titles[i : i + 1], *bases[i : i + 1]]
    return list(dict.fromkeys(mixed))


async def soak(args: argparse.Namespace, server: Served, bases: list[str], log_path: Path) -> int:
    stats, log, readings = Stats(), ServerLog(), list[Reading]()
    every = args.sample_every or max(10.0, args.duration / 30)
    print(f"{args.clients} clients for {args.duration:g} s against {server.url}")
    async with trio.open_nursery() as watchers:
        watchers.start_soon(watch_log, log_path, log)
        watchers.start_soon(watch_memory, server, stats, log, every, readings)
        await run_phase(
            server.url,
            args.clients,
            args.duration,
            MODES,
            questions=iter(NewQueries(bases)),
            stats=stats,
        )
        await trio.sleep(LOG_POLL_SECONDS * 2)  # the last lines of the log read
        readings.append(Reading(args.duration, stats.total, 0, 0, sample(server.pid)))
        watchers.cancel_scope.cancel()
    print()
    report(f"soak ({args.clients} clients)", stats, args.duration)
    crashes = sum(log.crashes.values())
    print(
        f"serving processes: {crashes} crashes (deaths by signal: {dict(log.crashes) or 'none'}), "
        f"{sum(log.exits.values())} other exits ({dict(log.exits) or 'none'}), "
        f"{log.replacements} replacements, {log.unforked} not forked, "
        f"{log.fault_reports} faulthandler reports"
    )
    for line in log.crash_lines[:10]:
        print(f"  {line}")
    if log.other:
        print(f"other warnings and errors in the log: {sum(log.other.values())}")
        for what, count in log.other.most_common(8):
            print(f"  {count:6d}  {what}")
    rss = [reading.tree.rss_bytes / 2**20 for reading in readings]
    pss = [reading.tree.pss_bytes / 2**20 for reading in readings]
    print(
        f"server RSS (tree): {rss[0]:.0f} MB at start, {min(rss):.0f}-{max(rss):.0f} MB, "
        f"{rss[-1]:.0f} MB at the end; PSS {pss[0]:.0f} -> {pss[-1]:.0f} MB (max {max(pss):.0f})"
    )
    alive = server.process.poll() is None
    if not alive:
        print(f"the server itself exited ({server.process.returncode})")
    print(f"server log: {log_path}")
    return 1 if crashes or log.fault_reports or not alive else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="the corpus folder (CORPUS_ROOT)")
    parser.add_argument("--config", type=Path, help="its manifest (default ROOT/corpus.toml)")
    parser.add_argument("--duration", type=float, default=1800.0, help="seconds (1800)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", default="auto", help="WORKERS of the server (auto)")
    parser.add_argument(
        "--titles", type=int, default=TITLES_PER_LIBRARY, help="titles taken per library"
    )
    parser.add_argument(
        "--build-in-background",
        action="store_true",
        help="no section index built first: the server builds its missing ones while "
        "the clients run (a fresh deployment)",
    )
    parser.add_argument(
        "--sample-every", type=float, default=0.0, help="seconds between memory readings"
    )
    args = parser.parse_args()
    if args.root or args.config:
        config = (args.config or args.root / "corpus.toml").resolve()
        root = (args.root or config.parent).resolve()
        described = f"{root} ({config.name})"
    else:
        root, config, described = default_corpus()
    if not config.is_file():
        print(f"no manifest at {config}", file=sys.stderr)
        return 2
    bases = questions(root, config, args.titles)
    print(f"corpus: {described}; {len(bases)} base questions, each asked as new variants")
    log_path = CACHE / "soak" / f"server-{time.strftime('%Y%m%d-%H%M%S')}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = {"WORKERS": args.workers, "LOG_LEVEL": "warning", "LOG_FORMAT": "text"}
    try:
        with corpus_server(
            config, env, root=root, log=log_path, prebuild=not args.build_in_background
        ) as server:
            return trio.run(soak, args, server, bases, log_path)
    except ServerFailed as failure:
        print(f"the server did not start: {failure}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
