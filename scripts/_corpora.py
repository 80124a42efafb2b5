"""Corpora for the benchmark and relevance scripts, laid out as an operator would: a
folder of archives with a manifest, so the scripts exercise the real configuration path.

- the development kit (../shared/eval-dev: a realistic corpus in the scrapers' formats and
  89 agent-style questions), built by its setup script, plus the real archives in
  ../shared/zims; without the kit, the demo fixtures and the repository's relevance cases;
- copies of one small archive, each with its own UUID, for the corpus-size table;
- one generated archive of a million entries;
- a large Wikipedia-like archive recombined from the real archives' text.

Everything is built or copied once under ``.bench/`` and reused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

from corpus_mcp.demo import DEMO_LIBRARIES, build_demo_corpus, wikipedia_like
from corpus_mcp.demo.synthetic import build_million_entries
from corpus_mcp.zim.layout import header_uuid

ROOT = Path(__file__).resolve().parents[1]
SHARED_ZIMS = ROOT.parent / "shared" / "zims"
KIT = ROOT.parent / "shared" / "eval-dev"
KIT_CACHE = Path(os.environ.get("CORPUS_DEV_CACHE", Path.home() / ".cache" / "corpus-dev"))
CACHE = ROOT / ".bench"

#: The real archives, as (library name, file name, adapter).
REAL_LIBRARIES = (
    ("rc2018", "wikipedia_en_ray_charles_novid_2018-10.zim", "mediawiki"),
    ("rc2020", "wikipedia_en_ray_charles_mini_2020-03.zim", "mediawiki"),
    ("wp100", "wikipedia_en_100_mini_2022-10.zim", "mediawiki"),
    ("wikibooks_be", "wikibooks_be_all_nopic_2017-02.zim", "mediawiki"),
)
MILLION = 1_000_000
MILLION_PAGES = 100_000
"""Articles among the million entries; the rest are redirects to them."""
LARGE_WIKIPEDIA = 200_000
"""Articles of the large Wikipedia-like archive (demo/wikipedia_like.py)."""

# The ZIM header (openzim "ZIM file format"): the UUID at byte 8, the position of the
# MD5 checksum of everything before it at byte 72.
_UUID_OFFSET = 8
_CHECKSUM_POINTER = 72


@dataclass(frozen=True)
class Library:
    name: str
    path: str
    """Relative to the corpus folder."""
    adapter: str


@dataclass(frozen=True)
class BenchCorpus:
    """A corpus folder with its manifest, and the questions asked of it."""

    manifest: Path
    libraries: tuple[Library, ...]
    queries: tuple[str, ...]
    description: str

    @property
    def root(self) -> Path:
        return self.manifest.parent

    def files(self) -> list[Path]:
        return [self.root / library.path for library in self.libraries]

    def index_files(self, folder: Path) -> list[Path]:
        """The section index files of its archives in ``folder`` (those that exist)."""
        found = []
        for library, file in zip(self.libraries, self.files(), strict=True):
            uuid = header_uuid(str(file))
            index = folder / f"{uuid}.{library.adapter}.xapian"
            if uuid and index.is_file():
                found.append(index)
        return found


def build_kit() -> Path:
    """The development kit's corpus folder, built by its setup script when missing (Debian
    doc packages, a venv with the kit's client, ~20 s the first time)."""
    done = subprocess.run(
        ["bash", str(KIT / "setup.sh")], check=True, capture_output=True, text=True
    )
    return Path(done.stdout.strip().splitlines()[-1])


def kit_available() -> bool:
    return (KIT / "setup.sh").is_file()


def main_corpus() -> BenchCorpus:
    """The development kit plus the real archives (or the demo fixtures plus the real
    archives where the kit is absent), copied under ``.bench/``."""
    if kit_available():
        kit = build_kit()
        folder = CACHE / "kit"
        libraries = [_copied(kit, folder, library) for library in _manifest_libraries(kit)]
        cases = tomllib.loads((KIT / "queries.toml").read_text("utf-8"))["case"]
        description = "development kit (../shared/eval-dev)"
    else:
        folder = CACHE / "demo"
        if not (folder / "corpus.toml").is_file():
            build_demo_corpus(folder)
        libraries = [Library(*library) for library in DEMO_LIBRARIES]
        cases = tomllib.loads((ROOT / "tests" / "relevance_cases.toml").read_text("utf-8"))["case"]
        description = "demo fixtures (the development kit is absent)"
    if SHARED_ZIMS.is_dir():
        for name, file, adapter in REAL_LIBRARIES:
            libraries.append(_copied(SHARED_ZIMS, folder, Library(name, file, adapter), "real"))
        description += " + the real archives in ../shared/zims"
    manifest = _write_manifest(folder / "bench.toml", libraries)
    queries = tuple(dict.fromkeys(case["query"] for case in cases))
    return BenchCorpus(manifest, tuple(libraries), queries, description)


def copies_corpus(source: Path, adapter: str, count: int) -> Path:
    """A manifest of ``count`` copies of ``source``, each with its own UUID (kiwix-serve
    keeps one book per UUID, and corpus-mcp's caches are keyed by it), cached under
    ``.bench/copies``."""
    folder = CACHE / "copies" / source.stem
    libraries = []
    for number in range(1, count + 1):
        name = f"copy{number:03d}"
        target = folder / f"{name}.zim"
        if not target.is_file():
            _copy_with_uuid(source, target, uuid.uuid5(uuid.NAMESPACE_URL, f"{source.name}#{name}"))
        libraries.append(Library(name, target.name, adapter))
    return _write_manifest(folder / f"copies-{count}.toml", libraries)


def million_corpus() -> tuple[Path, Path, str]:
    """The manifest of a generated Wikipedia of a million entries, the archive, and how
    long its build took (recorded next to it, since it is built once)."""
    folder = CACHE / "million"
    archive = folder / "wikipedia_en_synthetic_million_2026-05.zim"
    record = folder / "build.txt"
    if not archive.is_file():
        print(f"building a {MILLION:,}-entry archive (once; cached in {folder}) ...", flush=True)
        started = time.perf_counter()
        build_million_entries(archive, entries=MILLION, pages=MILLION_PAGES)
        when = time.strftime("%Y-%m-%d", time.gmtime())
        record.write_text(f"built in {time.perf_counter() - started:.0f} s on {when}\n")
    manifest = _write_manifest(
        folder / "bench.toml", [Library("million", archive.name, "mediawiki")]
    )
    built = record.read_text().strip() if record.is_file() else "build time not recorded"
    return manifest, archive, built


def large_wikipedia_corpus(
    articles: int = LARGE_WIKIPEDIA, seed: int = 0
) -> tuple[Path, Path, str]:
    """The manifest of a Wikipedia-like archive of ``articles`` articles made of the real
    archives' text (library ``Wikipedia-Large``), the archive, and what its build took
    (recorded next to it: it is built once, into ``.bench/``, and reused; delete the folder
    after changing the generator). Needs ../shared/zims."""
    folder = CACHE / f"large-wikipedia-{articles}-seed{seed}"
    archive = folder / wikipedia_like.FILE
    record = folder / "build.txt"
    if not archive.is_file():
        sources = wikipedia_like.default_sources(SHARED_ZIMS)
        print(
            f"building a {articles:,}-article Wikipedia (once; cached in {folder}) ...", flush=True
        )
        built = wikipedia_like.build_large_corpus(
            folder, articles=articles, seed=seed, sources=sources
        )
        when = time.strftime("%Y-%m-%d", time.gmtime())
        record.write_text(f"{built.summary()}, on {when}\n")
    manifest = folder / "corpus.toml"
    manifest.write_text(wikipedia_like.manifest_text(), encoding="utf-8")
    built_line = record.read_text().strip() if record.is_file() else "build time not recorded"
    return manifest, archive, built_line


def _manifest_libraries(folder: Path) -> list[Library]:
    document = tomllib.loads((folder / "corpus.toml").read_text("utf-8"))
    return [
        Library(table["name"], table["path"], table["adapter"])
        for table in document["library"]
        if table.get("enabled", True)
    ]


def _copied(source_root: Path, folder: Path, library: Library, under: str = "") -> Library:
    """``library`` copied from ``source_root`` into ``folder`` (again when the source
    changed: the kit is rebuilt from time to time)."""
    relative = str(Path(under) / library.path) if under else library.path
    source, target = source_root / library.path, folder / relative
    found = source.stat()
    if not target.is_file() or (target.stat().st_size, target.stat().st_mtime) != (
        found.st_size,
        found.st_mtime,
    ):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return Library(library.name, relative, library.adapter)


def _write_manifest(manifest: Path, libraries: list[Library]) -> Path:
    lines = ["version = 1", ""]
    for library in libraries:
        lines += [
            "[[library]]",
            f'name = "{library.name}"',
            f'path = "{library.path}"',
            f'adapter = "{library.adapter}"',
            "",
        ]
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text("\n".join(lines), encoding="utf-8")
    return manifest


def _copy_with_uuid(source: Path, target: Path, new: uuid.UUID) -> None:
    """A copy of a ZIM archive with another UUID and its checksum made right again."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = bytearray(source.read_bytes())
    data[_UUID_OFFSET : _UUID_OFFSET + 16] = new.bytes
    (checksum_at,) = struct.unpack_from("<Q", data, _CHECKSUM_POINTER)
    data[checksum_at : checksum_at + 16] = hashlib.md5(data[:checksum_at]).digest()
    scratch = target.with_name(target.name + ".tmp")
    scratch.write_bytes(bytes(data))
    scratch.replace(target)
