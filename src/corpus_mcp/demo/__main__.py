"""``python -m corpus_mcp.demo DIR``: build the demo corpus into DIR, every family's
archive included (what ``make run`` serves when no corpus is configured).

Nothing goes to stdout (callers may parse it or use it as a transport); the one-line
summary goes to stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from corpus_mcp.demo import build_demo_corpus, demo_libraries


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m corpus_mcp.demo DIR", file=sys.stderr)
        return 2
    started = time.perf_counter()
    manifest = build_demo_corpus(Path(args[0]).resolve(), families=True)
    elapsed = time.perf_counter() - started
    archives = len(demo_libraries(families=True))
    print(
        f"demo corpus: {archives} archives, manifest {manifest} ({elapsed:.1f}s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
