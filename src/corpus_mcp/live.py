"""The corpus being served, and how a reload (SIGHUP) replaces it without downtime.

A *generation* is one open :class:`~corpus_mcp.corpus.Corpus`: the manifest it was
opened from, its archives and its caches. Every call runs on the generation that was
current when it began, to its end. A reload reads corpus.toml again and resolves its
paths in CORPUS_ROOT again, opens the archives that are new or changed (and checks
them under ZIM_CHECK) while the current generation goes on serving, and only then
makes the new generation current, in one step. The old one is closed once its last
call has ended. A manifest or an archive that fails leaves the current generation
serving, with the reason logged and counted (``corpus_mcp_reloads_total``).

A library whose file has not changed (its path names the very file it serves: same
device, inode, size and modification time) is not opened again: the new generation
takes it as it is, with its reader, its per-archive lock and its API symbols, which is
safe because the corpus caches are keyed by archive UUID and an open archive never
changes. That holds too for a file renamed over a served one that the periodic check
has already swapped in (:mod:`corpus_mcp.zim.service`): one reader per file. Such a
library belongs to both generations, and its archive stays open as long as either
does. A library that only the retired generation has is *detached* from its path (the
calls in flight finish on its file whatever the path names now: the old file may be
deleted), and no longer checked periodically (the current generation checks what they
share); it is let go when the generation closes, its files closing with the last
reference to its reader.

Reloads and the periodic check's swaps of a library's file take one lock, so that a
reload never opens a file that a swap is about to serve, and no retired generation
swaps anything in.

Each generation is held open by a task of its own (``open_corpus`` is entered and left
in that task), so whatever opening a corpus starts also ends in its own scope.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import msgspec
import trio

from corpus_mcp import config, metrics
from corpus_mcp.cache import ByteLRU
from corpus_mcp.config import ConfigError, Manifest, Settings, load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.library import Library
from corpus_mcp.parsing import ParsePool, open_parse_pool
from corpus_mcp.redaction import describe, log_failure
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.wire import FetchOutput, SearchOutput
from corpus_mcp.zim import OpenFailure
from corpus_mcp.zim.identity import FileIdentity, look

log = logging.getLogger("corpus_mcp.live")


def identify(path: os.PathLike[str] | str) -> FileIdentity | None:
    """The identity of the file at ``path``, or None when there is no readable file
    (then no library is kept for it: the reload opens it, and says why it cannot)."""
    found = look(os.fspath(path))
    return found if isinstance(found, FileIdentity) else None


class Generation:
    """One open corpus and the calls running on it."""

    def __init__(self, number: int, corpus: Corpus, manifest: Manifest) -> None:
        self.number = number
        self.corpus = corpus
        self.manifest = manifest
        self.loaded_at = time.time()
        self.calls = 0
        self.retired = False
        self.drained = trio.Event()
        """Set once the generation is retired and its last call has ended."""

    @contextmanager
    def call(self) -> Iterator[Corpus]:
        """The corpus, for one call; the generation stays open until the call ends."""
        self.calls += 1
        try:
            yield self.corpus
        finally:
            self.calls -= 1
            if self.retired and not self.calls:
                self.drained.set()

    def retire(self) -> None:
        """No new call comes here; close once the calls in flight have ended."""
        self.retired = True
        self.corpus.stop_watching()
        if not self.calls:
            self.drained.set()

    def archives(self) -> set[int]:
        """The identities of the open readers this generation uses."""
        held = (self.corpus.library(name).service.held for name in self.corpus.libraries)
        return {id(reader) for reader in held if reader is not None}

    def unchanged(self, library: str, identity: FileIdentity | None) -> Library | None:
        """This generation's library of that name when it serves the file of that
        ``identity`` (the one at its path now), unchanged; never an unavailable one."""
        if identity is None or library not in self.corpus.libraries:
            return None
        kept = self.corpus.library(library)
        served = kept.service.held
        return kept if served is not None and served.handle.identity == identity else None


class Reload(msgspec.Struct, frozen=True, kw_only=True):
    """What a reload did: its :data:`corpus_mcp.metrics.RELOAD_OUTCOMES` outcome, the
    generation serving afterwards, and why it failed (empty when it did not)."""

    outcome: str
    generation: int
    reason: str = ""


class LiveCorpus:
    """What the transports serve: the current generation's corpus, swapped by :meth:`reload`.

    It offers what the server needs of a corpus (``libraries``, ``search``, ``fetch``);
    each call is pinned to the generation current when it starts.
    """

    def __init__(self, settings: Settings, nursery: trio.Nursery, parser: ParsePool) -> None:
        self._settings = settings
        self._nursery = nursery
        # One pool of parse workers for every generation alive: a reload starts none.
        self._parser = parser
        # One global pool of archive calls for every generation alive (open_corpus).
        self._archive_limiter = trio.CapacityLimiter(settings.search_workers)
        # Held by a reload, and by a generation's periodic check while it serves a
        # library another file: one change of the archives served at a time.
        self._archive_changes = trio.Lock()
        self._alive: list[Generation] = []
        self._current: Generation | None = None
        # Cache lookups of closed generations, so that the counters never go back.
        self._closed_lookups: dict[str, tuple[int, int]] = {}

    @property
    def current(self) -> Generation:
        if self._current is None:
            raise RuntimeError("no corpus is open yet")
        return self._current

    @property
    def generations(self) -> tuple[Generation, ...]:
        """Every generation still open, oldest first (the last is the current one)."""
        return tuple(self._alive)

    # -- the corpus API ---------------------------------------------------------------

    @property
    def libraries(self) -> tuple[str, ...]:
        return self.current.corpus.libraries

    async def search(self, query: str, limit: int) -> SearchOutput:
        with self.current.call() as corpus:
            return await corpus.search(query, limit)

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        with self.current.call() as corpus:
            return await corpus.fetch(ref, sections)

    # -- generations ------------------------------------------------------------------

    async def open_first(self, manifest: Manifest) -> None:
        """Open the first generation (startup: failures propagate, nothing serves yet)."""
        self._serve(await self._nursery.start(self._hold, 1, manifest, {}))

    async def reload(self) -> Reload:
        """Read the manifest again and serve what it says, or keep serving what is served.

        Never raises for a bad manifest or archive (or a bug): it is logged, counted, and
        the current generation goes on. Reloads run one at a time.
        """
        async with self._archive_changes:
            current = self.current
            started = trio.current_time()
            try:
                manifest, identities = await trio.to_thread.run_sync(self._read_manifest)
            except ConfigError as exc:
                return self._failed("invalid_manifest", str(exc))
            except Exception as exc:  # a bug must not take the serving corpus down
                return self._failed("internal_error", self._bug(exc, "reading corpus.toml"))
            reuse: dict[str, Library] = {}
            for library in manifest.enabled:
                kept = current.unchanged(library.name, identities[library.name])
                if kept is not None and _same_entry(current.manifest, library):
                    reuse[library.name] = kept
            if manifest == current.manifest and len(reuse) == len(manifest.enabled):
                log.info(
                    "reload: corpus.toml and the archives are unchanged; generation %d "
                    "goes on serving",
                    current.number,
                )
                metrics.reloaded("unchanged")
                return Reload(outcome="unchanged", generation=current.number)
            generation = await self._open(current.number + 1, manifest, reuse)
            if not isinstance(generation, Generation):
                # Archives that did open before the failure are unreachable now, but the
                # failure's traceback (frames that held them) may sit in reference
                # cycles: collect them, closing their files.
                gc.collect()
                return self._failed(*generation)
            self._serve(generation)
            current.retire()
            opened = [name for name in generation.corpus.libraries if name not in reuse]
            removed = [name for name in current.corpus.libraries if name not in reuse]
            for name in removed:  # left to the calls in flight, whatever its path names now
                current.corpus.library(name).service.detach()
            log.info(
                "reload: generation %d serves %s after %.1f s (opened: %s; kept open: %s); "
                "generation %d closes after its %d calls in flight (its own archives: %s)",
                generation.number,
                ", ".join(generation.corpus.libraries),
                trio.current_time() - started,
                ", ".join(opened) or "none",
                ", ".join(reuse) or "none",
                current.number,
                current.calls,
                ", ".join(removed) or "none",
            )
            metrics.reloaded("swapped")
            return Reload(outcome="swapped", generation=generation.number)

    async def _open(
        self, number: int, manifest: Manifest, reuse: dict[str, Library]
    ) -> Generation | tuple[str, str]:
        """Generation ``number``, open and held; or the failed outcome and its reason."""
        try:
            generation: Generation = await self._nursery.start(self._hold, number, manifest, reuse)
        except OpenFailure as exc:
            return "archive_failed", str(exc)
        except Exception as exc:  # a bug must not take the serving corpus down
            return "internal_error", self._bug(exc, "opening the corpus")
        return generation

    def _read_manifest(self) -> tuple[Manifest, dict[str, FileIdentity | None]]:
        """The manifest as it is now, and its archives' identities (a worker thread:
        both touch the disk)."""
        manifest = load_manifest(self._settings.corpus_config, self._settings.corpus_root)
        return manifest, _identities(manifest)

    def _bug(self, exc: Exception, doing: str) -> str:
        """Log a bug met while ``doing`` with its traceback; the reason a reload gives."""
        log_failure(log, exc, self._settings.log_queries, "reload: %s failed", doing)
        return describe(exc, log_queries=self._settings.log_queries)

    def _failed(self, outcome: str, reason: str) -> Reload:
        current = self.current
        log.error(
            "reload failed (%s): %s; generation %d goes on serving %s",
            outcome,
            reason,
            current.number,
            ", ".join(current.corpus.libraries),
        )
        metrics.reloaded(outcome)
        return Reload(outcome=outcome, generation=current.number, reason=reason)

    def _serve(self, generation: Generation) -> None:
        self._current = generation
        metrics.libraries_served(generation.corpus.libraries)

    async def _hold(
        self,
        number: int,
        manifest: Manifest,
        reuse: dict[str, Library],
        *,
        task_status: trio.TaskStatus[Generation] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Open generation ``number``, report it, and keep it open until it has drained."""
        async with open_corpus(
            self._settings,
            manifest,
            reuse=reuse,
            archive_limiter=self._archive_limiter,
            parser=self._parser,
            archive_changes=self._archive_changes,
        ) as corpus:
            generation = Generation(number, corpus, manifest)
            self._alive.append(generation)
            try:
                task_status.started(generation)
                await generation.drained.wait()
            finally:
                self._alive.remove(generation)
                self._count_lookups(generation.corpus)
        released = len(generation.archives() - _archives(self._alive))
        # Collected by a task of its own: this frame (its arguments, the task status)
        # holds the generation's libraries until the task has ended.
        self._nursery.start_soon(self._closed, number, released)

    async def _closed(self, number: int, released: int) -> None:
        """Generation ``number`` has closed: what it alone had is unreachable now. Its
        readers closed with their last reference; what a reference cycle keeps (an
        exception's traceback holding the frames of a call that read a retired reader)
        is collected now rather than at some later collection (:func:`_collect`)."""
        _collect()
        if released:
            log.info(
                "generation %d closed: %d archives it alone had open released", number, released
            )
        else:
            log.info("generation %d closed: every archive it had stays open", number)

    def retire_all(self) -> None:
        """Shutting down: no generation takes calls any more."""
        for generation in self._alive:
            generation.retire()

    # -- metrics ----------------------------------------------------------------------

    def _count_lookups(self, corpus: Corpus) -> None:
        for name, cache in _caches(corpus).items():
            hits, misses = self._closed_lookups.get(name, (0, 0))
            self._closed_lookups[name] = (hits + cache.hits, misses + cache.misses)

    def index_states(self) -> dict[str, IndexState]:
        """The serving generation's libraries' section indexes."""
        return self.current.corpus.index_states()

    def figures(self) -> metrics.CorpusFigures:
        """What :mod:`corpus_mcp.metrics` shows of the corpus, at this moment."""
        current = self.current
        caches: dict[str, metrics.CacheFigures] = {}
        for name in metrics.CACHES:
            hits, misses = self._closed_lookups.get(name, (0, 0))
            held = entries = 0
            for generation in self._alive:
                cache = _caches(generation.corpus)[name]
                held += cache.bytes
                entries += len(cache)
                hits += cache.hits
                misses += cache.misses
            caches[name] = metrics.CacheFigures(
                bytes=held,
                limit=_caches(current.corpus)[name].max_bytes,
                entries=entries,
                hits=hits,
                misses=misses,
            )
        return metrics.CorpusFigures(
            generation=current.number,
            loaded_at=current.loaded_at,
            draining=len(self._alive) - 1,
            libraries=current.corpus.libraries,
            open_archives=len(_archives(self._alive)),
            stuck=current.corpus.stuck_libraries,
            caches=caches,
            indexes={
                name: metrics.IndexFigures(
                    state=state.state,
                    progress=state.done / state.total if state.total else 0.0,
                    sections=state.sections,
                    bytes=state.bytes,
                )
                for name, state in current.corpus.index_states().items()
            },
        )


def _collect() -> None:
    """A full collection that sees what the server froze (``gc.freeze`` in serve.py, once
    the first generation was open: so that full collections do not walk the corpus),
    then what is alive frozen again: the generations serving now stay out of the
    collector's sight, and a closed one's cycles, frozen or not, are freed."""
    frozen = gc.get_freeze_count() > 0
    if frozen:
        gc.unfreeze()
    gc.collect()
    if frozen:
        gc.freeze()


def _caches(corpus: Corpus) -> dict[str, ByteLRU[Any, Any]]:
    return {
        "documents": corpus.cache,
        "hits": corpus.hits_cache,
        "answers": corpus.answers_cache,
        "fetches": corpus.fetches_cache,
    }


def _archives(generations: list[Generation]) -> set[int]:
    return set().union(*(generation.archives() for generation in generations))


def _identities(manifest: Manifest) -> dict[str, FileIdentity | None]:
    return {library.name: identify(library.file) for library in manifest.enabled}


def _same_entry(manifest: Manifest, library: config.Library) -> bool:
    """Whether ``manifest`` names the same archive under that name, read the same way."""
    before = next((lib for lib in manifest.enabled if lib.name == library.name), None)
    return before is not None and (before.file, before.adapter) == (library.file, library.adapter)


@asynccontextmanager
async def open_live_corpus(settings: Settings, manifest: Manifest) -> AsyncIterator[LiveCorpus]:
    """The corpus of ``manifest``, open and served by generations until the block ends.

    Raises what opening the first generation raises (:class:`OpenFailure`). On exit,
    every generation is closed (the transport has ended, so no call is in flight).
    """
    async with open_parse_pool(settings.parse_workers) as parser, trio.open_nursery() as nursery:
        # The workers start while the first generation opens its archives.
        nursery.start_soon(parser.warm_up)
        live = LiveCorpus(settings, nursery, parser)
        await live.open_first(manifest)
        try:
            with metrics.watching(live.figures):
                yield live
        finally:
            live.retire_all()
            nursery.cancel_scope.cancel()
