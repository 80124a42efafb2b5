"""locate_blob: the ZIM container walk that finds the Xapian databases inside an archive.

Checked three ways: on archives libzim's writer builds (the demo corpus) and on the real
scraper-made ones, where every blob found must hold exactly what libzim reads for that
entry; on small archives assembled byte by byte here, which reach the branches libzim
only writes for huge archives (8-byte blob offsets) or never (compressed index
clusters); and on broken copies (truncated, bit-flipped, the zim-testing-suite's
invalid archives), where the only acceptable answers are None or a range inside the
file, never an exception.
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from libzim.reader import Archive  # the oracle: what libzim itself reads for an entry

from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.layout import HEADER_SIZE, ZIM_MAGIC, BlobLocation, locate_blob

from .conftest import REAL_LIBRARIES, SHARED_ZIMS

#: A single-file glass database starts with its version block: this magic, then the
#: format version DATE_TO_VERSION(2016, 3, 14) = 0x046e, big-endian (xapian-core,
#: backends/glass/glass_version.cc; ``xapian.Database`` checks the same 14 bytes).
GLASS_START = b"\x0f\x0dXapian Glass\x04\x6e"
FULLTEXT = ("X", "fulltext/xapian")
TITLE = ("X", "title/xapian")
FULLTEXT_2018 = ("Z", "/fulltextIndex/xapian")
INDEX_ENTRIES = (FULLTEXT, TITLE, FULLTEXT_2018)

#: The demo archives that carry a full-text index (MDWiki is built without one).
DEMO_WITH_FULLTEXT = [name for name, _, _ in DEMO_LIBRARIES if name != "MDWiki"]


def locate(file: Path, namespace: str, path: str) -> BlobLocation | None:
    fd = os.open(file, os.O_RDONLY)
    try:
        return locate_blob(fd, namespace, path)
    finally:
        os.close(fd)


def read_range(file: Path, location: BlobLocation, count: int | None = None) -> bytes:
    with file.open("rb") as handle:
        handle.seek(location.offset)
        return handle.read(location.size if count is None else count)


# -- archives libzim's writer built ------------------------------------------------------


@pytest.mark.parametrize("library", DEMO_WITH_FULLTEXT)
@pytest.mark.parametrize("entry", [FULLTEXT, TITLE], ids=["fulltext", "title"])
def test_index_blobs_of_built_archives_start_as_glass_databases(
    demo_archives: dict[str, Path], library: str, entry: tuple[str, str]
) -> None:
    file = demo_archives[library]
    location = locate(file, *entry)
    assert location is not None
    assert location.offset + location.size <= file.stat().st_size
    assert read_range(file, location, len(GLASS_START)) == GLASS_START


def test_archive_built_without_fulltext_index_has_only_its_title_blob(
    demo_archives: dict[str, Path],
) -> None:
    assert locate(demo_archives["MDWiki"], *FULLTEXT) is None
    title = locate(demo_archives["MDWiki"], *TITLE)
    assert title is not None
    assert read_range(demo_archives["MDWiki"], title, len(GLASS_START)) == GLASS_START


def test_2018_location_is_absent_from_new_archives(demo_archives: dict[str, Path]) -> None:
    assert locate(demo_archives["Wikipedia"], *FULLTEXT_2018) is None


@pytest.mark.parametrize(
    ("namespace", "path"),
    [
        ("X", "fulltext/xapia"),  # a prefix of an entry
        ("X", "fulltext/xapian2"),  # an entry is a prefix of it
        ("C", "No_such_article"),
        ("\x00", "before every entry"),
        ("~", "after every entry"),
        ("X", ""),
    ],
)
def test_missing_path_is_none(demo_archives: dict[str, Path], namespace: str, path: str) -> None:
    assert locate(demo_archives["Wikipedia"], namespace, path) is None


def test_namespace_that_is_not_ascii_is_none(demo_archives: dict[str, Path]) -> None:
    assert locate(demo_archives["Wikipedia"], "É", "fulltext/xapian") is None


def test_redirect_of_a_built_archive_is_none(demo_archives: dict[str, Path]) -> None:
    reader = ZimReader(demo_archives["Wikipedia"])
    assert reader.resolve("Regex").redirected_from == "Regex"  # it is a redirect
    assert locate(demo_archives["Wikipedia"], "C", "Regex") is None


def test_compressed_article_of_a_built_archive_is_none(demo_archives: dict[str, Path]) -> None:
    assert ZimReader(demo_archives["Wikipedia"]).has_entry("Regular_expression")
    assert locate(demo_archives["Wikipedia"], "C", "Regular_expression") is None


# -- real scraper-made archives -------------------------------------------------------------

#: Which index blobs each real archive has (the README of ../shared/zims says which).
REAL_INDEXES = {
    "wp100": {FULLTEXT, TITLE},
    "rc2020": {FULLTEXT, TITLE},
    "rc2018": {FULLTEXT_2018},
    "wikibooks_be": set(),
}


@pytest.mark.parametrize("library", sorted(REAL_INDEXES))
@pytest.mark.parametrize("entry", INDEX_ENTRIES, ids=["fulltext", "title", "fulltext2018"])
def test_real_archive_index_blobs_are_found_where_they_exist(
    shared_zims: Path, library: str, entry: tuple[str, str]
) -> None:
    file = shared_zims / REAL_LIBRARIES[library]
    location = locate(file, *entry)
    if entry in REAL_INDEXES[library]:
        assert location is not None
        assert location.offset + location.size <= file.stat().st_size
        assert read_range(file, location, len(GLASS_START)) == GLASS_START
    else:
        assert location is None


def _entries(file: Path) -> Iterator[tuple[str, str, bool, bytes | None]]:
    """Every entry as libzim reads it: (namespace, path, is_redirect, content)."""
    archive = Archive(file)
    for index in range(archive.entry_count):
        entry = archive._get_entry_by_id(index)
        # Old-scheme paths carry their namespace ("A/...", "I/..."); new ones are "C".
        full = entry.path if not archive.has_new_namespace_scheme else f"C/{entry.path}"
        namespace, path = full[0], full[2:]
        content = None if entry.is_redirect else bytes(entry.get_item().content)
        yield namespace, path, bool(entry.is_redirect), content


@pytest.mark.parametrize("library", sorted(REAL_INDEXES))
def test_every_real_entry_found_holds_exactly_what_libzim_reads(
    shared_zims: Path, library: str
) -> None:
    file = shared_zims / REAL_LIBRARIES[library]
    found = 0
    for namespace, path, is_redirect, content in _entries(file):
        location = locate(file, namespace, path)
        if location is None:
            continue  # compressed: libzim's business
        assert not is_redirect, path
        assert read_range(file, location) == content, path
        found += 1
    # Old mwoffliner archives store images and scripts in uncompressed clusters.
    assert found > 0


@pytest.mark.parametrize("library", sorted(REAL_INDEXES))
def test_no_real_redirect_is_found(shared_zims: Path, library: str) -> None:
    file = shared_zims / REAL_LIBRARIES[library]
    redirects = [(ns, path) for ns, path, is_redirect, _ in _entries(file) if is_redirect]
    assert redirects
    assert [entry for entry in redirects if locate(file, *entry) is not None] == []


# -- archives assembled byte by byte --------------------------------------------------------

UNCOMPRESSED, ZSTD, EXTENDED = 0x01, 0x05, 0x10


@dataclass(frozen=True)
class Cluster:
    info: int
    blobs: Sequence[bytes]


@dataclass(frozen=True)
class Entry:
    namespace: str
    path: str
    cluster: int = 0
    blob: int = 0
    redirect_to: int | None = None
    link_target: bool = False


def assemble_zim(
    entries: Sequence[Entry], clusters: Sequence[Cluster], cluster_pointers: Sequence[int] = ()
) -> bytes:
    """A version 6.0 archive (each entry its own title, no metadata) that libzim opens;
    ``cluster_pointers`` replaces the real cluster positions."""
    body = bytearray(HEADER_SIZE) + b"text/html\0\0"
    positions = []
    for cluster in clusters:
        positions.append(len(body))
        fmt = "Q" if cluster.info & EXTENDED else "I"
        width = struct.calcsize(fmt)
        offsets = [width * (len(cluster.blobs) + 1)]
        for blob in cluster.blobs:
            offsets.append(offsets[-1] + len(blob))
        body += bytes([cluster.info]) + struct.pack(f"<{len(offsets)}{fmt}", *offsets)
        body += b"".join(cluster.blobs)
    ordered = sorted(entries, key=lambda e: (e.namespace.encode(), e.path.encode()))
    dirents = []
    for entry in ordered:
        dirents.append(len(body))
        namespace = entry.namespace.encode()
        if entry.redirect_to is not None:
            body += struct.pack("<HBcII", 0xFFFF, 0, namespace, 0, entry.redirect_to)
        elif entry.link_target:
            body += struct.pack("<HBcI", 0xFFFE, 0, namespace, 0)
        else:
            body += struct.pack("<HBcIII", 0, 0, namespace, 0, entry.cluster, entry.blob)
        body += entry.path.encode() + b"\0\0"
    path_pointers = len(body)
    body += struct.pack(f"<{len(dirents)}Q", *dirents)
    title_pointers = len(body)
    body += struct.pack(f"<{len(dirents)}I", *range(len(dirents)))
    cluster_list = len(body)
    body += struct.pack(f"<{len(clusters)}Q", *(cluster_pointers or positions))
    checksum = len(body)
    body += bytes(16)
    struct.pack_into(
        "<IHH16sIIQQQQIIQ",
        body,
        0,
        ZIM_MAGIC,
        6,
        0,
        b"assembled-by-tst",
        len(ordered),
        len(clusters),
        path_pointers,
        title_pointers,
        cluster_list,
        HEADER_SIZE,
        0xFFFFFFFF,
        0xFFFFFFFF,
        checksum,
    )
    return bytes(body)


BLOBS = (b"<p>alpha</p>", b"<p>beta, longer</p>", b"")


def write(tmp_path: Path, data: bytes, name: str = "assembled.zim") -> Path:
    file = tmp_path / name
    file.write_bytes(data)
    return file


@pytest.mark.parametrize("info", [0x00, UNCOMPRESSED, UNCOMPRESSED | EXTENDED])
def test_every_blob_of_an_uncompressed_cluster_is_found(tmp_path: Path, info: int) -> None:
    entries = [Entry("C", f"page{i}", blob=i) for i in range(len(BLOBS))]
    file = write(tmp_path, assemble_zim(entries, [Cluster(info, BLOBS)]))
    for i, blob in enumerate(BLOBS):
        location = locate(file, "C", f"page{i}")
        assert location is not None
        assert read_range(file, location) == blob


@pytest.mark.parametrize("info", [0x00, UNCOMPRESSED, UNCOMPRESSED | EXTENDED])
def test_assembled_archive_reads_the_same_through_libzim(tmp_path: Path, info: int) -> None:
    """The hand-made archives are real ZIMs: libzim finds the same bytes in them."""
    entries = [Entry("C", f"page{i}", blob=i) for i in range(len(BLOBS))]
    file = write(tmp_path, assemble_zim(entries, [Cluster(info, BLOBS)]))
    reader = ZimReader(file)
    for i in range(len(BLOBS)):
        location = locate(file, "C", f"page{i}")
        assert location is not None
        assert reader.content(f"C/page{i}") == read_range(file, location) == BLOBS[i]


def test_entry_in_a_compressed_cluster_is_none(tmp_path: Path) -> None:
    entries = [Entry("C", "plain", cluster=0), Entry("C", "packed", cluster=1)]
    clusters = [Cluster(UNCOMPRESSED, BLOBS[:1]), Cluster(ZSTD, BLOBS[:1])]
    file = write(tmp_path, assemble_zim(entries, clusters))
    assert locate(file, "C", "plain") is not None
    assert locate(file, "C", "packed") is None


def test_redirect_to_an_uncompressed_entry_is_none(tmp_path: Path) -> None:
    entries = [Entry("C", "page"), Entry("C", "alias", redirect_to=1)]  # index 1: "page"
    file = write(tmp_path, assemble_zim(entries, [Cluster(UNCOMPRESSED, BLOBS[:1])]))
    assert ZimReader(file).resolve("C/alias").path == "C/page"
    assert locate(file, "C", "page") is not None
    assert locate(file, "C", "alias") is None


def test_link_target_entry_is_none(tmp_path: Path) -> None:
    entries = [Entry("C", "page"), Entry("C", "link", link_target=True)]
    file = write(tmp_path, assemble_zim(entries, [Cluster(UNCOMPRESSED, BLOBS[:1])]))
    assert locate(file, "C", "page") is not None
    assert locate(file, "C", "link") is None


@pytest.mark.parametrize("blob", [1, 2, 1000])
def test_blob_number_past_the_clusters_offset_table_is_none(tmp_path: Path, blob: int) -> None:
    """Blob 2 of a one-blob cluster would read its "offsets" from the blob's data, which
    here look like a plausible range (4, 8) inside the file."""
    data = struct.pack("<II", 4, 8) + b"padding!"
    entries = [Entry("C", "page", blob=blob)]
    file = write(tmp_path, assemble_zim(entries, [Cluster(UNCOMPRESSED, [data])]))
    assert locate(file, "C", "page") is None


def test_cluster_number_past_the_list_is_none(tmp_path: Path) -> None:
    entries = [Entry("C", "page", cluster=7)]
    file = write(tmp_path, assemble_zim(entries, [Cluster(UNCOMPRESSED, BLOBS[:1])]))
    assert locate(file, "C", "page") is None


@pytest.mark.parametrize("pointer", [10**9, 2**63 - 1, 2**63, 2**64 - 1])
def test_cluster_pointer_past_the_end_of_the_file_is_none(tmp_path: Path, pointer: int) -> None:
    """Beyond 2**63 an offset no longer fits ``pread``'s off_t (this raised before)."""
    data = assemble_zim([Entry("C", "page")], [Cluster(UNCOMPRESSED, BLOBS[:1])], [pointer])
    assert locate(write(tmp_path, data), "C", "page") is None


def test_blob_end_past_the_end_of_the_file_is_none(tmp_path: Path) -> None:
    """The last offset of the cluster claims more bytes than the file has."""
    data = bytearray(assemble_zim([Entry("C", "page")], [Cluster(UNCOMPRESSED, [b"x" * 8])]))
    cluster_at = HEADER_SIZE + len(b"text/html\0\0")
    struct.pack_into("<I", data, cluster_at + 1 + 4, 10**6)
    assert locate(write(tmp_path, bytes(data)), "C", "page") is None


# -- what is not a ZIM --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a zim file at all\n" * 10,
        struct.pack("<I", ZIM_MAGIC),  # the magic, then nothing
        struct.pack("<I", ZIM_MAGIC) + bytes(HEADER_SIZE - 5),  # one byte short of a header
        struct.pack("<I", ZIM_MAGIC) + bytes(200),  # a header of zeros
        struct.pack(">I", ZIM_MAGIC) + bytes(200),  # the magic in the wrong byte order
    ],
    ids=["empty", "text", "magic-only", "short-header", "zero-header", "big-endian"],
)
def test_file_that_is_not_a_zim_is_none(tmp_path: Path, content: bytes) -> None:
    file = write(tmp_path, content, "not.zim")
    assert all(locate(file, *entry) is None for entry in INDEX_ENTRIES)


def test_random_bytes_after_the_magic_never_raise(tmp_path: Path) -> None:
    rng = random.Random(20260601)
    for trial in range(200):
        noise = rng.randbytes(rng.randrange(HEADER_SIZE, 4096))
        file = write(tmp_path, struct.pack("<I", ZIM_MAGIC) + noise, f"noise{trial}.zim")
        for entry in INDEX_ENTRIES:
            location = locate(file, *entry)
            assert location is None or location.offset + location.size <= file.stat().st_size


def test_directory_descriptor_is_none(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        assert locate_blob(fd, *FULLTEXT) is None
    finally:
        os.close(fd)


def test_invalid_archives_never_raise_and_stay_inside_the_file(shared_zims: Path) -> None:
    files = sorted((shared_zims / "invalid").glob("*.zim"))
    assert len(files) == 16
    for file in files:
        for namespace, path in [*INDEX_ENTRIES, ("A", "Main_Page"), ("C", "main.html")]:
            location = locate(file, namespace, path)
            assert location is None or location.offset + location.size <= file.stat().st_size


# -- broken copies of good archives ---------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where the parts the walk reads sit in one archive."""

    size: int
    path_pointers: tuple[int, int]
    cluster_pointers: tuple[int, int]
    blobs: dict[tuple[str, str], BlobLocation]

    def needed_end(self, entry: tuple[str, str]) -> int:
        """Finding ``entry`` reads nothing at or past this offset (the checksum, another
        index's blob may follow)."""
        blob = self.blobs[entry]
        return max(self.path_pointers[1], self.cluster_pointers[1], blob.offset + blob.size)


def layout_of(file: Path) -> Layout:
    data = file.read_bytes()
    entry_count, cluster_count = struct.unpack_from("<II", data, 24)
    path_pointers, _, cluster_pointers = struct.unpack_from("<QQQ", data, 32)
    blobs = {e: loc for e in INDEX_ENTRIES if (loc := locate(file, *e)) is not None}
    return Layout(
        size=len(data),
        path_pointers=(path_pointers, path_pointers + 8 * entry_count),
        cluster_pointers=(cluster_pointers, cluster_pointers + 8 * cluster_count),
        blobs=blobs,
    )


def spread(start: int, end: int, count: int) -> list[int]:
    """``count`` offsets evenly over [start, end), both ends included."""
    if end <= start:
        return []
    step = max(1, (end - start) // count)
    return sorted({*range(start, end, step), end - 1})


def cut_offsets(layout: Layout) -> list[int]:
    """Every header byte; offsets across both pointer lists and each index blob's cluster
    (its info byte, offset table and data); offsets across the whole file; either side
    of where each lookup stops reading."""
    offsets = set(range(HEADER_SIZE + 1))
    offsets |= {*spread(*layout.path_pointers, 40), *spread(*layout.cluster_pointers, 8)}
    for blob in layout.blobs.values():
        offsets |= {*spread(blob.offset - 64, blob.offset + 1, 64)}
        offsets |= {*spread(blob.offset, blob.offset + blob.size, 40)}
    offsets |= {*spread(0, layout.size, 200)}
    for entry in layout.blobs:
        offsets |= {layout.needed_end(entry) - 1, layout.needed_end(entry)}
    return sorted(o for o in offsets if 0 <= o < layout.size)


def broken_copy_cases(demo_archives: dict[str, Path]) -> list[tuple[str, Path]]:
    """The demo Wikipedia (pointer lists after the clusters) and, where ../shared/zims
    exists, two real archives (pointer lists before the clusters; the 2018 layout)."""
    cases = [("demo-wikipedia", demo_archives["Wikipedia"])]
    for name in ("rc2020", "rc2018"):
        if (SHARED_ZIMS / REAL_LIBRARIES[name]).is_file():
            cases.append((name, SHARED_ZIMS / REAL_LIBRARIES[name]))
    return cases


def test_copies_truncated_before_what_the_walk_reads_give_none(
    tmp_path: Path, demo_archives: dict[str, Path]
) -> None:
    for name, original in broken_copy_cases(demo_archives):
        layout = layout_of(original)
        assert layout.blobs, name
        copy = write(tmp_path, original.read_bytes(), f"{name}.zim")
        fd = os.open(copy, os.O_RDWR)
        try:
            for offset in reversed(cut_offsets(layout)):  # each cut shortens the last one
                os.ftruncate(fd, offset)
                for entry, whole in layout.blobs.items():
                    found = locate_blob(fd, *entry)
                    expected = None if offset < layout.needed_end(entry) else whole
                    assert found == expected, (name, entry, offset)
        finally:
            os.close(fd)


def test_copies_with_flipped_header_and_pointer_bytes_never_raise(
    tmp_path: Path, demo_archives: dict[str, Path]
) -> None:
    """Seeded bit flips in the header and both pointer lists: None or a range inside
    the file, never an exception (a flipped high bit of a cluster pointer once raised
    OverflowError from ``pread``)."""
    rng = random.Random(9)
    for name, original in broken_copy_cases(demo_archives):
        layout = layout_of(original)
        data = original.read_bytes()
        regions = [(0, HEADER_SIZE), layout.path_pointers, layout.cluster_pointers]
        copy = write(tmp_path, data, f"{name}.zim")
        fd = os.open(copy, os.O_RDWR)
        try:
            for _ in range(300):
                flipped = [rng.randrange(*rng.choice(regions)) for _ in range(rng.randint(1, 4))]
                for at in flipped:
                    os.pwrite(fd, bytes([data[at] ^ (1 << rng.randrange(8))]), at)
                for entry in INDEX_ENTRIES:
                    found = locate_blob(fd, *entry)
                    assert found is None or found.offset + found.size <= layout.size
                for at in flipped:  # restore the original bytes for the next trial
                    os.pwrite(fd, data[at : at + 1], at)
        finally:
            os.close(fd)


def test_header_pointing_past_the_file_is_none(
    tmp_path: Path, demo_archives: dict[str, Path]
) -> None:
    data = bytearray(demo_archives["Wikipedia"].read_bytes())
    struct.pack_into("<Q", data, 32, len(data))  # the path pointer list starts at the end
    assert locate(write(tmp_path, bytes(data)), *FULLTEXT) is None
