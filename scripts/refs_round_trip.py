"""Every ref of every search round-trips, over real archives and the demo corpus (issue 33).

Two corpora, each set up as a user would: ``corpus-mcp init`` over the folder, then
``corpus-mcp index``: the archives in ../shared/zims (the top-level ones, real/ and
families/; init walks the folder and leaves out what it cannot serve) and the demo corpus
with every family (``make run``'s). Then one search per document, its title as the
query, and for every result:

- its ref decodes to a document of its library and is spelt again the same
  (``encode(decode(ref)) == ref``), and is unchanged by NFC;
- fetching it, and fetching it in the form refs had before (every non-ASCII character
  percent-encoded), give the same answer, whose ``ref`` is the result's;
- every ``corpus://`` link and ``#anchor`` in the fetched text is spelt as the codec
  spells it, and every linked document fetches (its anchor's section, when it has one).

Prints what was checked per corpus and every failure; exits 1 if there is one.

Usage: python scripts/refs_round_trip.py [--shared ../shared/zims] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

import trio

from corpus_mcp import assemble, refs
from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import build_demo_corpus
from corpus_mcp.errors import CorpusError
from corpus_mcp.wire import FetchOutput
from corpus_mcp.zim import ZimReader

ROOT = Path(__file__).resolve().parents[1]
_OLD_SAFE = "/:@!$&'()*+,;=-._~"
"""What the encoder before IRI refs kept: every other character was percent-encoded."""


def old_form(ref: str) -> str:
    """``ref`` as the server spelt it before IRI refs."""
    library = ref.removeprefix(refs.SCHEME).partition("/")[0]
    decoded = refs.decode(ref, [library])
    spelt = quote(decoded.path, safe=_OLD_SAFE)
    if decoded.fragment:
        spelt += "#" + quote(decoded.fragment, safe=_OLD_SAFE)
    return f"{refs.SCHEME}{library}/{spelt}"


def environment(root: Path, manifest: Path, indexes: Path) -> dict[str, str]:
    return {
        "CORPUS_ROOT": str(root),
        "CORPUS_CONFIG": str(manifest),
        "CORPUS_INDEX_DIR": str(indexes),
        "INDEX": "auto",
        "SEARCH_TIMEOUT": "120",
        "PARSE_WORKERS": "0",
    }


def command(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "corpus_mcp", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"corpus-mcp {' '.join(args)} failed:\n{done.stderr}")


def titles(corpus: Corpus) -> list[str]:
    """The title of every entry that is not a redirect, in every library."""
    found = []
    for name in corpus.libraries:
        reader = ZimReader(corpus.library(name).service.info.file)
        found += [title for _path, title, redirect in reader.iter_entries() if not redirect]
    return [title for title in dict.fromkeys(found) if title.strip()]


class Checked:
    def __init__(self) -> None:
        self.searches = 0
        self.refs: set[str] = set()
        self.links: set[str] = set()
        self.anchors = 0
        self.non_ascii = 0
        self.non_ascii_links = 0
        self.failures: list[str] = []

    def fail(self, what: str) -> None:
        self.failures.append(what)


def spelt_again(ref: str, libraries: Iterable[str], checked: Checked) -> refs.Target | None:
    try:
        target = refs.decode(ref, libraries)
    except CorpusError as exc:
        checked.fail(f"{ref!r} does not decode: {exc.message}")
        return None
    if refs.encode(*target) != ref:
        checked.fail(f"{ref!r} is spelt {refs.encode(*target)!r} again")
    if unicodedata.normalize("NFC", ref) != ref:
        checked.fail(f"{ref!r} changes under NFC")
    return target


async def check_document(corpus: Corpus, ref: str, checked: Checked) -> None:
    libraries = corpus.libraries
    target = spelt_again(ref, libraries, checked)
    if target is None:
        return
    checked.non_ascii += not ref.isascii()
    try:
        fetched = await corpus.fetch(ref, None)
        before = await corpus.fetch(old_form(ref), None)
    except CorpusError as exc:
        checked.fail(f"fetch {ref!r}: {exc.code}: {exc.message}")
        return
    if fetched.ref != ref or before != fetched:
        checked.fail(f"{ref!r} and its old form {old_form(ref)!r} fetch different answers")
    await check_links(corpus, fetched, checked)


async def check_links(corpus: Corpus, fetched: FetchOutput, checked: Checked) -> None:
    for link in assemble.link_targets(fetched.sections):
        if link.startswith("#"):
            checked.anchors += 1
            anchor = refs.anchor_of(link)
            if refs.anchor(anchor) != link:
                checked.fail(f"anchor link {link!r} is spelt {refs.anchor(anchor)!r} again")
            continue
        if link in checked.links:
            continue
        checked.links.add(link)
        checked.non_ascii_links += not link.isascii()
        if spelt_again(link, corpus.libraries, checked) is None:
            continue
        try:
            await corpus.fetch(link, None)
        except CorpusError as exc:
            checked.fail(f"link {link!r} in {fetched.ref!r}: {exc.code}: {exc.message}")


async def check_corpus(label: str, root: Path, manifest: Path, indexes: Path) -> Checked:
    env = environment(root, manifest, indexes)
    command("index", env=env)
    settings = load_settings(env)
    checked = Checked()
    async with open_corpus(settings, load_manifest(manifest, root)) as corpus:
        for title in titles(corpus):
            found = await corpus.search(title, 10)
            checked.searches += 1
            for result in found.results:
                if result.ref not in checked.refs:
                    checked.refs.add(result.ref)
                    await check_document(corpus, result.ref, checked)
    print(
        f"{label}: {len(corpus.libraries)} libraries, {checked.searches} searches, "
        f"{len(checked.refs)} distinct result refs ({checked.non_ascii} not ASCII) fetched "
        f"in both forms, {len(checked.links)} distinct links fetched "
        f"({checked.non_ascii_links} not ASCII), {checked.anchors} anchor links; "
        f"failures: {len(checked.failures)}",
        flush=True,
    )
    for failure in checked.failures[:50]:
        print(f"  FAIL {failure}")
    return checked


async def main_async(shared: Path, work: Path) -> int:
    failures = 0
    if shared.is_dir():
        manifest = work / "shared.toml"
        command("init", str(shared), "-o", str(manifest), "--force", env={})
        checked = await check_corpus("../shared/zims", shared, manifest, work / "shared-indexes")
        failures += len(checked.failures)
    else:
        print(f"{shared} is absent: only the demo corpus is checked")
    demo = work / "demo"
    manifest = build_demo_corpus(demo, families=True)
    checked = await check_corpus("demo corpus", demo, manifest, work / "demo-indexes")
    failures += len(checked.failures)
    return 1 if failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "zims")
    parser.add_argument("--work", type=Path, help="where manifests and indexes go (a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="refs-round-trip-") as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        sys.exit(trio.run(main_async, args.shared.resolve(), work))


if __name__ == "__main__":
    main()
