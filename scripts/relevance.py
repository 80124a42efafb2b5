"""Relevance on the development kit (../shared/eval-dev), end to end, with a regression floor.

1. builds the kit's corpus when needed (``setup.sh``: Debian doc packages, a venv with the
   kit's client, ~20 s the first time; ~/.cache/corpus-dev afterwards);
2. starts a real ``corpus-mcp serve`` over it on a free loopback port;
3. runs the kit's scorer (``run_eval.py``) against it: search(query, limit=5), then fetch of
   the matching hit's hinted sections, for each of its agent-style cases;
4. prints the kit's tables, then the summary row and the kit's two halves (each case's
   ``half`` field: tune on A, check on B), with ``foreign`` (results per search from a
   library that holds none of the case's expected documents);
5. with ``--check``, exits 1 when MRR@5 or section-hint accuracy falls more than 0.02
   below the figures committed in ``scripts/relevance-floor.json``, or any case errs.
   ``--update-floor`` records the current figures there (raise it with each improvement).

The kit is for development: an independent set of the same kind decides, so nothing in
``src/`` may name its queries, titles or paths.

Usage: python scripts/relevance.py [--check] [--update-floor] [--engine auto|libzim]
       [--out cases.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _corpora import KIT, KIT_CACHE, ROOT, build_kit, kit_available
from _processes import corpus_server

FLOOR = Path(__file__).resolve().parent / "relevance-floor.json"
#: How far below the committed figures MRR@5 and hint accuracy may fall.
TOLERANCE = 0.02
#: The figures the floor guards, as named in the kit's summary.
GUARDED = ("mrr@5", "section_hint@found")
COLUMNS = (
    ("Hit@1", "hit@1"),
    ("Hit@5", "hit@5"),
    ("MRR@5", "mrr@5"),
    ("hints", "section_hint@found"),
    ("answer", "snippet_found"),
)


def evaluate(url: str, out: Path) -> dict[str, Any]:
    python = KIT_CACHE / "venv" / "bin" / "python"
    subprocess.run([str(python), str(KIT / "run_eval.py"), url, "--out", str(out)], check=True)
    result: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return result


def row(label: str, figures: dict[str, Any]) -> str:
    cells = [f"{figures.get(key) or 0:.2f}" for _, key in COLUMNS]
    return (
        f"| {label} | {int(figures['cases'])} | {' | '.join(cells)} "
        f"| {figures.get('chars_mean', 0):,.0f} | {figures.get('foreign_per_search', 0):.2f} "
        f"| {int(figures['errors'])} |"
    )


def report(result: dict[str, Any]) -> dict[str, Any]:
    """The kit's own summaries: all cases, then each half (the ``half`` field of a case)."""
    overall: dict[str, Any] = result["overall"]
    heads = " | ".join(name for name, _ in COLUMNS)
    print(f"\n| corpus-mcp | cases | {heads} | chars/case | foreign | errors |")
    print("| --- " * (len(COLUMNS) + 5) + "|")
    print(row("all", overall))
    for name, figures in sorted(result.get("by_half", {}).items()):
        print(row(f"half {name}", figures))
    return overall


def check(overall: dict[str, float]) -> int:
    floor: dict[str, float] = json.loads(FLOOR.read_text("utf-8"))
    failures = [
        f"{key} {overall[key]:.3f} is more than {TOLERANCE} below the floor {floor[key]:.3f}"
        for key in GUARDED
        if overall[key] < floor[key] - TOLERANCE
    ]
    if overall["errors"]:
        failures.append(f"{int(overall['errors'])} cases erred")
    for failure in failures:
        print(f"relevance regression: {failure}", file=sys.stderr)
    if not failures:
        held = ", ".join(f"{key} >= {floor[key] - TOLERANCE:.3f}" for key in GUARDED)
        print(f"\nrelevance floor held ({held})")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail below the committed floor")
    parser.add_argument("--update-floor", action="store_true", help="commit today's figures")
    parser.add_argument("--engine", default="auto", choices=("auto", "libzim"))
    parser.add_argument("--out", type=Path, help="keep the kit's per-case results here (JSON)")
    args = parser.parse_args()
    if not kit_available():
        print(f"the development kit is not at {KIT}: relevance not measured", file=sys.stderr)
        return 0 if not args.check else 1
    corpus = build_kit()
    with (
        corpus_server(corpus / "corpus.toml", {"SEARCH_ENGINE": args.engine}) as server,
        tempfile.TemporaryDirectory() as scratch,
    ):
        result = evaluate(server.url, args.out or Path(scratch) / "eval.json")
    overall = report(result)
    if args.update_floor:
        floor = {key: round(overall[key], 3) for key in GUARDED}
        FLOOR.write_text(json.dumps(floor, indent=2) + "\n", "utf-8")
        print(f"wrote {FLOOR.relative_to(ROOT)}: {floor}")
    return check(overall) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
