"""Many threads searching one archive's Xapian indexes through pools of one or two
databases: run as a script by ``test_zim_index_threads.py``, so that a crash (the
segfault of issue 23) ends this process, not pytest.

``python -m tests.index_threads_child ARCHIVE POOL_SIZES THREADS ROUNDS TRIALS``: TRIALS
times, on indexes opened anew, THREADS threads each do ROUNDS rounds of a full-text
search and a title search, each on a database borrowed from a pool that holds at most
one of POOL_SIZES (``1,2``: the trials take turns), so that borrows and returns
interleave between threads all the time, and compare each answer with the one a single
thread got first. Prints ``trials T rounds R wrong W errors E`` and exits 0 when every
answer was right and nothing raised, 1 otherwise; a native crash kills the process with
its signal, after faulthandler has written every thread's stack on stderr.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
from collections.abc import Sequence

from corpus_mcp.zim.index import FULLTEXT_LOCATIONS, TITLE_LOCATIONS, FulltextIndex, TitleIndex
from corpus_mcp.zim.layout import locate_blob

QUERIES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("python",),),
    (("multiple",), ("inheritance",)),
    (("str", "join"), ("regex",)),
    (("photosynthesis",), ("insulin",), ("charles",)),
    (("the",), ("of",), ("and",), ("in",)),
    # Many words: many posting lists, each holding a reference to the database, opened
    # and closed inside Xapian's match while the GIL is released.
    tuple((word,) for word in ("a", "an", "the", "of", "and", "in", "is", "to", "for", "on")),
)
LIMIT = 20


def offset_of(file: str, locations: Sequence[tuple[str, str]]) -> int:
    fd = os.open(file, os.O_RDONLY)
    try:
        found = next(filter(None, (locate_blob(fd, ns, path) for ns, path in locations)))
    finally:
        os.close(fd)
    return found.offset


def trial(file: str, pool_size: int, threads: int, rounds: int) -> tuple[int, int, int]:
    """One trial on indexes opened for it (fresh databases: a reference count a lost
    update left too high would otherwise shield the next trials from the race); the
    rounds done, the wrong answers, the errors."""
    fulltext = FulltextIndex(file, offset_of(file, FULLTEXT_LOCATIONS), pool_size=pool_size)
    titles = TitleIndex(file, offset_of(file, TITLE_LOCATIONS), pool_size=pool_size)

    def ask(query: tuple[tuple[str, ...], ...]) -> object:
        return (
            fulltext.search(query, LIMIT),
            titles.search([word[0] for word in query], LIMIT),
        )

    expected = [ask(query) for query in QUERIES]
    start = threading.Barrier(threads)
    wrong: list[int] = []
    errors: list[BaseException] = []

    def work(me: int) -> None:
        try:
            start.wait()
            for round_ in range(rounds):
                which = (me + round_) % len(QUERIES)
                if ask(QUERIES[which]) != expected[which]:
                    wrong.append(me)
        except BaseException as exc:  # reported below: the test fails on any of them
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for error in errors[:3]:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
    if max(fulltext.databases_opened, titles.databases_opened) > pool_size:
        errors.append(RuntimeError(f"more than {pool_size} databases opened"))
    return threads * rounds, len(wrong), len(errors)


def main(argv: list[str]) -> int:
    faulthandler.enable(all_threads=True)
    file, sizes, threads, rounds, trials = argv[0], argv[1], *map(int, argv[2:5])
    pool_sizes = [int(size) for size in sizes.split(",")]
    done = wrong = errors = 0
    for number in range(trials):
        figures = trial(file, pool_sizes[number % len(pool_sizes)], threads, rounds)
        done, wrong, errors = done + figures[0], wrong + figures[1], errors + figures[2]
    print(f"trials {trials} rounds {done} wrong {wrong} errors {errors}")
    return 0 if not wrong and not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
