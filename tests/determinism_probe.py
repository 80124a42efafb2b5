"""Run by ``test_determinism`` in fresh interpreters: print every seed-sensitive output.

Each output is printed as a digest under a name, one JSON object, so the test can say
which output changed between two processes started with different ``PYTHONHASHSEED``:
every document of the demo corpus parsed by its adapter (sections, Markdown, metadata),
and every relevance-case query searched and its first result fetched through the corpus.

    python -m tests.determinism_probe MANIFEST
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from pathlib import Path

import msgspec
import trio

from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import open_corpus
from corpus_mcp.zim import ZimReader

from .server_process import corpus_environment

CASES = Path(__file__).with_name("relevance_cases.toml")


def _digest(value: object) -> str:
    return hashlib.sha256(msgspec.json.encode(value)).hexdigest()


def parsed_documents(manifest: Path) -> dict[str, str]:
    """Every content document of every library, as its adapter parses it."""
    out: dict[str, str] = {}
    for library in load_manifest(manifest, manifest.parent).enabled:
        reader, adapter = ZimReader(library.file), get_adapter(library.adapter)
        for path, title, is_redirect in reader.iter_entries():
            if is_redirect or not adapter.is_content(path, reader.resolve(path).mimetype):
                continue
            document = adapter.parse(path, title, reader.content(path), "Library")
            out[f"parse {library.name}/{path}"] = _digest(document)
    return out


async def searched_and_fetched(manifest: Path) -> dict[str, str]:
    """Every relevance-case query's results, and the first result fetched whole."""
    settings = load_settings(corpus_environment(manifest))
    queries = [case["query"] for case in tomllib.loads(CASES.read_text("utf-8"))["case"]]
    out: dict[str, str] = {}
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as corpus:
        for query in queries:
            found = await corpus.search(query, 5)
            out[f"search {query}"] = _digest(found)
            if found.results:
                first = found.results[0].ref
                out[f"fetch {first}"] = _digest(await corpus.fetch(first, None))
    return out


def main() -> None:
    manifest = Path(sys.argv[1])
    outputs = parsed_documents(manifest) | trio.run(searched_and_fetched, manifest)
    json.dump(outputs, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
