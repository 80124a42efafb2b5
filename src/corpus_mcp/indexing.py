"""The section indexes of one served corpus: each library switched to its index once it
is ready, missing ones built in the background, broken ones dropped and built again.

:class:`~corpus_mcp.sections.manager.IndexManager` knows the folder and builds; this
module applies what it finds to the libraries a corpus serves (their ``sections``), from
two tasks of the corpus: one looks at the folder every ``ARCHIVE_RECHECK_SECONDS`` (an
index another process built, a search that found one broken), one builds what is
missing, one archive at a time. A library switched to or from its index forgets what was
remembered of its searches (``forget``): its answers would now be ranked otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Protocol

import trio

from corpus_mcp.adapters import Adapter
from corpus_mcp.sections import SectionIndex
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.sections.manager import IndexManager, Target
from corpus_mcp.zim import ArchiveInfo

log = logging.getLogger("corpus_mcp.sections")


class _Service(Protocol):
    @property
    def info(self) -> ArchiveInfo: ...


class Indexed(Protocol):
    """What this module needs of a library (:class:`corpus_mcp.library.Library`)."""

    name: str
    adapter: Adapter
    sections: SectionIndex | None
    broken: tuple[SectionIndex, str] | None

    @property
    def service(self) -> _Service: ...


def target_of(library: Indexed) -> Target:
    info = library.service.info
    return Target(
        library=library.name,
        archive=info.file,
        uuid=info.uuid,
        size=info.size,
        adapter=library.adapter.name,
        adapter_version=library.adapter.version,
    )


class Indexing:
    """The libraries of one corpus and their section indexes."""

    def __init__(
        self,
        manager: IndexManager,
        libraries: Mapping[str, Indexed],
        *,
        interval: float,
        forget: Callable[[Indexed], None],
    ) -> None:
        self.manager = manager
        self._libraries = libraries
        self._interval = interval
        self._forget = forget
        self._watching = trio.CancelScope()

    def state(self, name: str) -> IndexState:
        """A library's index as it stands: ``ready`` only while it is searched (then
        from the open index, without reading the folder)."""
        library = self._libraries[name]
        index = library.sections
        target = target_of(library)
        if index is not None:
            return IndexState(
                state="ready", key=target.key, sections=index.meta.sections, bytes=index.size
            )
        state = self.manager.state(target)
        if state.state == "ready":  # published, not switched to yet (within a check)
            return IndexState(state="building", key=state.key, reason="publishing")
        return state

    def states(self) -> dict[str, IndexState]:
        return {name: self.state(name) for name in self._libraries}

    async def watch(self) -> None:
        """Switch libraries to their indexes and build the missing ones, until
        :meth:`stop` (INDEX=off: nothing)."""
        if not self.manager.enabled:
            return
        with self._watching:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._switching)
                nursery.start_soon(self._building)

    def stop(self) -> None:
        """No more switching or building (a reload retired this corpus); a build running
        is stopped, keeping what it committed."""
        self._watching.cancel()

    async def _switching(self) -> None:
        while True:
            await self.check()
            await trio.sleep(self._interval)

    async def check(self) -> None:
        """One look at every library: a broken index dropped, a ready one switched to."""
        for library in self._libraries.values():
            broken = library.broken
            if broken is not None:
                self.failed(library, *broken)
            if library.sections is None:
                index = await trio.to_thread.run_sync(self.manager.open, target_of(library))
                if index is not None and library.sections is None:
                    self._switch(library, index)

    async def _building(self) -> None:
        while True:
            targets = [target_of(library) for library in self._libraries.values()]
            target = await trio.to_thread.run_sync(self.manager.next_to_build, targets)
            if target is None:
                await trio.sleep(self._interval)
                continue
            outcome = await self.manager.build(target)
            library = self._libraries.get(target.library)
            if outcome.built and library is not None and target_of(library) == target:
                index = await trio.to_thread.run_sync(self.manager.open, target)
                if index is not None and library.sections is None:
                    self._switch(library, index)
            elif not outcome.built:
                # Busy (another process builds) or failed (retried later, backing off):
                # the folder says when to look again.
                await trio.sleep(self._interval)

    async def reopen(self, library: Indexed) -> None:
        """After the library's archive was replaced: the old file's index is never
        searched again; the new one's is, once ready (built if missing)."""
        library.sections = None
        library.broken = None
        if self.manager.enabled:
            index = await trio.to_thread.run_sync(self.manager.open, target_of(library))
            if index is not None:
                library.sections = index

    def failed(self, library: Indexed, index: SectionIndex, reason: str) -> None:
        """A search could not read ``index``: the library is searched without it (said
        once) and it is built again."""
        if library.broken is not None and library.broken[0] is index:
            library.broken = None
        if library.sections is not index:
            return
        library.sections = None
        self._forget(library)
        self.manager.discard(target_of(library), reason)

    def _switch(self, library: Indexed, index: SectionIndex) -> None:
        library.sections = index
        library.broken = None
        self._forget(library)
        log.info(
            "library %s: searching its section index from now on (%s sections, %s)",
            library.name,
            f"{index.meta.sections:,}",
            index.file.name,
        )
