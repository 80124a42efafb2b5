"""What a supervisor and its serving processes share: one anonymous shared mapping.

The supervisor (:mod:`corpus_mcp.server.workers`) creates the board before its fork
server starts, and every serving process forked from that inherits it: no file, name or
permission is involved, and nothing of it outlives the processes. On it:

- the supervisor writes whether every serving process is ready (what ``/readyz``
  answers, whichever process a probe reaches), and each process's pid;
- every serving process writes how many connections it serves while it accepts
  (:class:`~corpus_mcp.server.connections.Balance`: a process with more than another
  lets that one take the next connection), and how many tool calls it has in flight,
  by tool (what the supervisor says of a process that dies: the mapping outlives it);
- every process writes snapshots of its metrics into a slot of its own (a serving
  process once a second, and within a twentieth of a second of a scrape asking for
  fresh ones; the supervisor when something changes), so that whichever process
  answers ``/metrics`` shows the series of all of them as they were at the scrape
  (:func:`corpus_mcp.metrics.merged_exposition`).

A snapshot is written by one process and read by others without a lock: it carries a
sequence number (odd while it is being written) and a CRC32 of its bytes, and a reader
that catches one half-written keeps the last whole one it read of that slot. The CRC
makes this safe on any memory ordering (a Raspberry Pi's too), not only x86's.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from collections.abc import Sequence
from typing import Final

from corpus_mcp.metrics import TOOLS

SNAPSHOT_BYTES: Final = 4 * 1024 * 1024
"""Room for one process's metrics snapshot (about 100 bytes a series: 40,000 series).
Untouched pages of an anonymous mapping take no memory."""
_HEADER: Final = struct.Struct("<4sIIB")  # magic, version, processes, every one ready
_WANTED: Final = struct.Struct("<Q")  # monotonic ns of the latest scrape asking for snapshots
_WANTED_OFFSET: Final = 16
_SLOT: Final = struct.Struct("<II")  # pid, connections served (NOT_ACCEPTING: none)
_COUNT: Final = struct.Struct("<I")  # one tool's calls in flight in one process
NOT_ACCEPTING: Final = 0xFFFFFFFF
"""The connection count of a process that does not accept (starting, draining, gone)."""
_SNAPSHOT: Final = struct.Struct("<QQII")  # sequence, taken (monotonic ns), length, CRC32
_MAGIC: Final = b"cmcp"
_VERSION: Final = 1
_HEADER_BYTES: Final = 64
_READ_ATTEMPTS: Final = 8


class SnapshotTooLarge(Exception):
    """A snapshot that does not fit in its slot (it is not published)."""


class Board:
    """The shared mapping of one supervisor and its ``processes`` serving processes.

    Snapshot slots are numbered like the processes (1 to ``processes``); slot 0 is the
    supervisor's own.
    """

    def __init__(self, processes: int, tools: Sequence[str] = TOOLS) -> None:
        self.processes = processes
        self.tools = tuple(tools)
        self._table = _HEADER_BYTES
        self._calls = self._table + _SLOT.size * (processes + 1)
        self._snapshots = self._calls + _COUNT.size * len(self.tools) * (processes + 1)
        self._snapshots += -self._snapshots % mmap.PAGESIZE
        size = self._snapshots + SNAPSHOT_BYTES * (processes + 1)
        # Anonymous and shared (MAP_SHARED | MAP_ANONYMOUS): what one process writes,
        # every process forked after its creation reads.
        self._map = mmap.mmap(-1, size)
        _HEADER.pack_into(self._map, 0, _MAGIC, _VERSION, processes, 0)
        for process in range(processes + 1):
            self.set_pid(process, 0)  # nobody, accepting nothing
        self._last: dict[int, bytes] = {}
        """Per slot, the last whole snapshot this process read (see :meth:`snapshot`)."""

    # -- readiness and pids (written by the supervisor) --------------------------------

    @property
    def all_ready(self) -> bool:
        """Whether every serving process has opened its corpus and accepts calls."""
        return bool(_HEADER.unpack_from(self._map, 0)[3])

    @all_ready.setter
    def all_ready(self, ready: bool) -> None:
        _HEADER.pack_into(self._map, 0, _MAGIC, _VERSION, self.processes, int(ready))

    def set_pid(self, process: int, pid: int) -> None:
        """The pid serving as ``process`` now (0: none; it accepts nothing yet, and has
        no call in flight)."""
        _SLOT.pack_into(self._map, self._table + _SLOT.size * process, pid, NOT_ACCEPTING)
        for tool in range(len(self.tools)):
            _COUNT.pack_into(self._map, self._count_offset(process, tool), 0)

    def pid(self, process: int) -> int:
        pid: int = _SLOT.unpack_from(self._map, self._table + _SLOT.size * process)[0]
        return pid

    # -- connections (written by each serving process for itself) ---------------------

    def set_connections(self, process: int, count: int) -> None:
        """``process`` serves ``count`` connections (:data:`NOT_ACCEPTING`: it accepts
        none). One aligned 4-byte store: readers see the old count or the new one."""
        offset = self._table + _SLOT.size * process + 4
        struct.pack_into("<I", self._map, offset, count)

    def fewest_connections(self, besides: int) -> int | None:
        """The fewest connections any accepting process other than ``besides`` serves
        (None when no other one accepts)."""
        counts = [
            _SLOT.unpack_from(self._map, self._table + _SLOT.size * process)[1]
            for process in range(1, self.processes + 1)
            if process != besides
        ]
        accepting = [count for count in counts if count != NOT_ACCEPTING]
        return min(accepting) if accepting else None

    def connections(self, process: int) -> int | None:
        """How many connections ``process`` serves (None: it does not accept)."""
        count: int = _SLOT.unpack_from(self._map, self._table + _SLOT.size * process)[1]
        return None if count == NOT_ACCEPTING else count

    # -- calls in flight (written by each serving process for itself) -----------------

    def set_calls(self, process: int, tool: str, count: int) -> None:
        """``process`` has ``count`` calls of ``tool`` in flight (one aligned 4-byte
        store, from its event loop only)."""
        _COUNT.pack_into(self._map, self._count_offset(process, self.tools.index(tool)), count)

    def calls(self, process: int) -> dict[str, int]:
        """The calls ``process`` has in flight, by tool (as it last wrote them: after it
        died, what it had when it died)."""
        return {
            tool: _COUNT.unpack_from(self._map, self._count_offset(process, number))[0]
            for number, tool in enumerate(self.tools)
        }

    def _count_offset(self, process: int, tool: int) -> int:
        return self._calls + _COUNT.size * (len(self.tools) * process + tool)

    # -- snapshots ---------------------------------------------------------------------

    def want(self, since_ns: int) -> None:
        """Ask every serving process for a snapshot taken after ``since_ns``
        (``time.monotonic_ns()``, one clock for every process of the machine)."""
        _WANTED.pack_into(self._map, _WANTED_OFFSET, since_ns)

    @property
    def wanted(self) -> int:
        """When the latest scrape asked for fresh snapshots (monotonic ns; 0: never)."""
        wanted: int = _WANTED.unpack_from(self._map, _WANTED_OFFSET)[0]
        return wanted

    def publish(self, slot: int, payload: bytes, taken_ns: int) -> None:
        """Make ``payload`` (taken at ``taken_ns``) the snapshot of ``slot`` (only its
        own process calls this)."""
        if len(payload) > SNAPSHOT_BYTES - _SNAPSHOT.size:
            raise SnapshotTooLarge(
                f"{len(payload)} bytes of metrics; a snapshot holds at most "
                f"{SNAPSHOT_BYTES - _SNAPSHOT.size}"
            )
        base = self._snapshots + SNAPSHOT_BYTES * slot
        sequence = _SNAPSHOT.unpack_from(self._map, base)[0]
        writing = sequence + 1 if sequence % 2 == 0 else sequence + 2
        _SNAPSHOT.pack_into(self._map, base, writing, 0, 0, 0)
        start = base + _SNAPSHOT.size
        self._map[start : start + len(payload)] = payload
        crc = zlib.crc32(payload)
        _SNAPSHOT.pack_into(self._map, base, writing + 1, taken_ns, len(payload), crc)

    def clear(self, slot: int) -> None:
        """Forget ``slot``'s snapshot (its process has exited: its replacement starts
        with nothing to show)."""
        base = self._snapshots + SNAPSHOT_BYTES * slot
        sequence = _SNAPSHOT.unpack_from(self._map, base)[0]
        _SNAPSHOT.pack_into(self._map, base, sequence + 2 - sequence % 2, 0, 0, 0)
        self._last.pop(slot, None)

    def taken(self, slot: int) -> int:
        """When ``slot``'s latest snapshot was taken (monotonic ns; 0: none yet)."""
        taken: int = _SNAPSHOT.unpack_from(self._map, self._snapshots + SNAPSHOT_BYTES * slot)[1]
        return taken

    def snapshot(self, slot: int) -> bytes:
        """``slot``'s latest whole snapshot (empty when there is none).

        One being written right now is retried a few times, then the last whole one
        this process read is returned instead: never torn bytes.
        """
        base = self._snapshots + SNAPSHOT_BYTES * slot
        for _ in range(_READ_ATTEMPTS):
            sequence, _, length, crc = _SNAPSHOT.unpack_from(self._map, base)
            if sequence % 2:
                continue
            start = base + _SNAPSHOT.size
            payload = bytes(self._map[start : start + length])
            if _SNAPSHOT.unpack_from(self._map, base)[0] == sequence and (
                zlib.crc32(payload) == crc
            ):
                self._last[slot] = payload
                return payload
        return self._last.get(slot, b"")
