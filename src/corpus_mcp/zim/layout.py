"""Where an uncompressed blob lives inside a ZIM file, read from the container format.

python-libzim gives no access to the Xapian databases a ZIM carries (``X/fulltext/xapian``,
``X/title/xapian``, the 2018 ``Z//fulltextIndex/xapian``): new-scheme lookups cover only
the ``C`` namespace, and no call returns a blob's byte offset. Xapian can open a
single-file database at an offset of an open file, so finding that offset is all it takes.

The walk follows the openzim format: the 80-byte header gives the positions of the path
pointer list (sorted by namespace, then path, bytewise) and the cluster pointer list; a
binary search finds the directory entry; the entry names a cluster and a blob; the
cluster's first byte says whether it is compressed and how wide its blob offsets are.
Everything is checked against the file size, and any surprise (a compressed cluster, a
redirect, a truncated or corrupt file) gives ``None``: the caller then searches through
libzim instead. Pure Python on ``os.pread``, no libzim.
"""

from __future__ import annotations

import os
import struct
import uuid

import msgspec

ZIM_MAGIC = 72173914
HEADER_SIZE = 80
#: Directory entries are short: fixed fields, then a path and a title (each NUL-ended).
#: Longer entries than this are not index entries.
_DIRENT_READ = 4096
_REDIRECT, _LINK_TARGET, _DELETED = 0xFFFF, 0xFFFE, 0xFFFD
_UNCOMPRESSED = frozenset({0, 1})
_EXTENDED_OFFSETS = 0x10


def header_uuid(path: str) -> str | None:
    """An archive's UUID as libzim spells it (``599c5823-f3ca-...``), read from its
    header without opening it with libzim (``corpus-mcp list`` opens no archive); None
    when the file cannot be read or is no ZIM."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(24)
    except OSError:
        return None
    if len(header) < 24 or struct.unpack_from("<I", header, 0)[0] != ZIM_MAGIC:
        return None
    return str(uuid.UUID(bytes=header[8:24]))


class BlobLocation(msgspec.Struct, frozen=True):
    """Byte range of a blob in the file."""

    offset: int
    size: int


def locate_blob(fd: int, namespace: str, path: str) -> BlobLocation | None:
    """The byte range of the content entry ``namespace/path`` when it is stored
    uncompressed; ``None`` when the entry is missing, a redirect, compressed, or the
    file does not read as a ZIM."""
    try:
        return _locate(fd, namespace.encode("ascii"), path.encode("utf-8"))
    except (OSError, struct.error, ValueError):
        return None


def _locate(fd: int, namespace: bytes, path: bytes) -> BlobLocation | None:
    size = os.fstat(fd).st_size
    header = os.pread(fd, HEADER_SIZE, 0)
    if len(header) < HEADER_SIZE or struct.unpack_from("<I", header, 0)[0] != ZIM_MAGIC:
        return None
    entry_count, cluster_count = struct.unpack_from("<II", header, 24)
    path_pointers, _, cluster_pointers = struct.unpack_from("<QQQ", header, 32)
    if path_pointers + 8 * entry_count > size or cluster_pointers + 8 * cluster_count > size:
        return None
    wanted = (namespace, path)
    low, high = 0, entry_count
    while low < high:
        middle = (low + high) // 2
        if _entry_key(fd, path_pointers, middle, size)[0] < wanted:
            low = middle + 1
        else:
            high = middle
    if low >= entry_count:
        return None
    key, fields = _entry_key(fd, path_pointers, low, size)
    if key != wanted or fields is None:
        return None
    cluster, blob = fields
    if cluster >= cluster_count:
        return None
    (cluster_at,) = struct.unpack("<Q", _read_exact(fd, 8, cluster_pointers + 8 * cluster))
    if cluster_at >= size:  # also keeps a corrupt pointer (>= 2**63) away from pread
        return None
    info = _read_exact(fd, 1, cluster_at)[0]
    if info & 0x0F not in _UNCOMPRESSED:
        return None
    one, two = ("<Q", "<QQ") if info & _EXTENDED_OFFSETS else ("<I", "<II")
    width = struct.calcsize(one)
    # The first offset is the size of the offset table: n blobs have n + 1 offsets.
    (table_size,) = struct.unpack(one, _read_exact(fd, width, cluster_at + 1))
    if blob + 1 >= table_size // width:
        return None
    start, end = struct.unpack(two, _read_exact(fd, 2 * width, cluster_at + 1 + width * blob))
    if end < start or cluster_at + 1 + end > size:
        return None
    return BlobLocation(offset=cluster_at + 1 + start, size=end - start)


def _entry_key(
    fd: int, path_pointers: int, index: int, size: int
) -> tuple[tuple[bytes, bytes], tuple[int, int] | None]:
    """``((namespace, path), (cluster, blob) or None for non-content entries)``."""
    (at,) = struct.unpack("<Q", _read_exact(fd, 8, path_pointers + 8 * index))
    if at >= size:
        raise ValueError("directory entry outside the file")
    raw = os.pread(fd, _DIRENT_READ, at)
    mimetype, _, namespace = struct.unpack_from("<HBc", raw, 0)
    if mimetype == _REDIRECT:
        start, fields = 12, None
    elif mimetype in (_LINK_TARGET, _DELETED):
        start, fields = 8, None
    else:
        start, fields = 16, struct.unpack_from("<II", raw, 8)
    end = raw.index(b"\0", start)
    return (namespace, raw[start:end]), fields


def _read_exact(fd: int, count: int, offset: int) -> bytes:
    data = os.pread(fd, count, offset)
    if len(data) != count:
        raise ValueError("unexpected end of file")
    return data
