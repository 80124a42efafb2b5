"""``python -m corpus_mcp.demo DIR``: build the demo corpus into DIR.

Nothing goes to stdout (callers may parse it or use it as a transport); the one-line
summary goes to stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from corpus_mcp.demo import DEMO_LIBRARIES, build_demo_corpus


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m corpus_mcp.demo DIR", file=sys.stderr)
        return 2
    started = time.perf_counter()
    manifest = build_demo_corpus(Path(args[0]).resolve())
    elapsed = time.perf_counter() - started
    print(
        f"demo corpus: {len(DEMO_LIBRARIES)} archives, manifest {manifest} ({elapsed:.1f}s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
