"""Several serving processes on one port (``WORKERS`` > 1): a supervisor, a fork server
and the serving processes.

Ranking, snippets and hints are Python under the GIL, so one process serves on about
one core however many agents call. With ``WORKERS=N`` the process started as
``corpus-mcp serve`` becomes a supervisor:

1. it binds MCP_HOST:MCP_PORT (a busy port fails here, exit 1), imports everything a
   serving process runs and forks the fork server (:mod:`corpus_mcp.server.zygote`)
   before it starts trio;
2. serving process 1 starts alone: it reads corpus.toml, opens every archive and, once
   its corpus is open, listens on the inherited socket. If it cannot (an archive that
   does not open, exit 1), the server never starts and says why once, like a single
   process would;
3. then processes 2 to N start the same way; each is a whole server (its own corpus,
   caches, parse pool, periodic archive checks, SIGHUP generations, connection cap and
   descriptor budget) accepting from the one shared socket, and the kernel hands each
   new connection to whichever process accepts first, so a busy process takes fewer;
4. the supervisor keeps them: a process that exits (a crash, a SIGBUS from an archive
   cut under it, SIGKILL) costs the calls it had in flight; connections waiting in the
   shared queue are served by the others, and a new process takes its place (at once,
   then backing off while replacements keep dying young). It forwards SIGHUP to every
   ready process (one still starting gets it once ready), and SIGTERM or SIGINT to
   every process: each drains as a single server does, and the supervisor exits 0 once
   all have exited 0.

``/readyz`` answers 200 only while every serving process is ready (the supervisor
writes that on the shared :class:`~corpus_mcp.server.board.Board`), ``/healthz`` says
which process answered, and ``/metrics`` shows every process's series labelled
``process`` (:mod:`corpus_mcp.metrics`). stdio is always one process.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from functools import partial
from typing import Final

import trio
from hypercorn.utils import repr_socket_addr

from corpus_mcp import metrics
from corpus_mcp.config import ConfigError, Manifest, Settings, load_manifest
from corpus_mcp.logs import (
    FIELDS,
    configure_logging,
    report_fatal_signals,
    report_startup_failure,
    tag_process,
)
from corpus_mcp.memory import configure_memory
from corpus_mcp.server import zygote
from corpus_mcp.server.app import MCP_PATH, CorpusAPI
from corpus_mcp.server.board import NOT_ACCEPTING, Board, SnapshotTooLarge
from corpus_mcp.server.serve import (
    FLUSH_SECONDS,
    RELOAD_SIGNAL,
    SHUTDOWN_SIGNALS,
    ListenError,
    Transport,
    bound_sockets,
    run_program,
    serve,
    serve_http,
)

log = logging.getLogger("corpus_mcp.server")

PUBLISH_SECONDS = 1.0
"""How often a serving process publishes its metrics for the others to show..."""
WANTED_POLL_SECONDS = 0.05
"""... and how soon it publishes them when a scrape asks for fresh ones."""
FRESH_WAIT_SECONDS = 0.5
"""How long a scrape waits for the other processes' fresh snapshots (a busy or stuck
process's latest one is shown after that)."""
STABLE_SECONDS = 10.0
"""A process that was ready this long before it exited is replaced at once; one that
exits sooner (or never got ready) backs its replacements off."""
FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0
STOP_MARGIN_SECONDS = 5.0
"""After SIGTERM, what serving processes get beyond SHUTDOWN_TIMEOUT and their final
flush before they are killed."""


# -- in a serving process ----------------------------------------------------------------


class Sibling:
    """One serving process among the supervisor's: what the app asks of the others
    (:class:`~corpus_mcp.server.app.Processes`), and how many connections each serves
    (:class:`~corpus_mcp.server.connections.Balance`)."""

    def __init__(self, process: int, board: Board) -> None:
        self._process = process
        self._board = board

    @property
    def process(self) -> int:
        return self._process

    @property
    def all_ready(self) -> bool:
        return self._board.all_ready

    def served(self, count: int) -> None:
        self._board.set_connections(self._process, count)

    def stopped(self) -> None:
        self._board.set_connections(self._process, NOT_ACCEPTING)

    def fewer_elsewhere(self, count: int) -> bool:
        fewest = self._board.fewest_connections(besides=self._process)
        return fewest is not None and fewest < count

    def calls_in_flight(self, tool: str, count: int) -> None:
        self._board.set_calls(self._process, tool, count)

    async def exposition(self, accept: str | None) -> tuple[bytes, str]:
        """This process's metrics as they are, the others' as they are at this scrape
        (each publishes within WANTED_POLL_SECONDS of being asked; one that does not
        within FRESH_WAIT_SECONDS is shown as it last published), and the supervisor's."""
        asked = time.monotonic_ns()
        others = [  # the processes serving (those still opening their corpus show nothing)
            number
            for number in range(1, self._board.processes + 1)
            if number != self._process and self._board.pid(number) and self._board.taken(number)
        ]
        self._board.want(asked)
        with trio.move_on_after(FRESH_WAIT_SECONDS):
            while any(self._board.taken(number) < asked for number in others):
                await trio.sleep(WANTED_POLL_SECONDS / 5)
        snapshots: list[tuple[int | None, bytes]] = [(None, self._board.snapshot(0))]
        snapshots += [(number, self._board.snapshot(number)) for number in others]
        return metrics.merged_exposition(accept, self._process, snapshots)


async def publish_metrics(board: Board, process: int) -> None:
    """Publish this process's metrics on the board every PUBLISH_SECONDS, and soon
    after a scrape in another process asks for them."""
    warned = False
    published = 0
    while True:
        now = time.monotonic_ns()
        if board.wanted > published or now - published >= PUBLISH_SECONDS * 1e9:
            try:
                board.publish(process, metrics.snapshot(), now)
            except SnapshotTooLarge as exc:
                if not warned:
                    log.warning("metrics of this process not shown by the others: %s", exc)
                    warned = True
            published = now
        await trio.sleep(WANTED_POLL_SECONDS)


def serving_transport(
    process: int, board: Board, sockets: list[socket.socket], events: int
) -> Transport:
    """Serving process ``process``'s transport: HTTP on the inherited ``sockets``, ready
    reported to the supervisor once it listens, its metrics published meanwhile."""

    async def serve_process(corpus: CorpusAPI, settings: Settings, stop: trio.Event) -> None:
        sibling = Sibling(process, board)
        async with trio.open_nursery() as publishing:
            publishing.start_soon(publish_metrics, board, process)
            async with trio.open_nursery() as serving:
                await serving.start(
                    partial(
                        serve,
                        corpus,
                        settings,
                        shutdown_trigger=stop.wait,
                        sockets=sockets,
                        processes=sibling,
                        balance=sibling,
                    )
                )
                log.info("accepting calls (pid %d)", os.getpid())
                zygote.report(events, zygote.READY, process, os.getpid())
            publishing.cancel_scope.cancel()

    return serve_process


def current_manifest(settings: Settings, inherited: Manifest) -> Manifest:
    """What a serving process opens: corpus.toml as it is now (what a reload would
    serve: a replacement serves what its siblings reloaded), else, when it has become
    invalid since, the manifest the server was started with (said in a warning)."""
    try:
        return load_manifest(settings.corpus_config, settings.corpus_root)
    except ConfigError as exc:
        log.warning("%s; opening the manifest the server was started with", exc)
        return inherited


def serving_process(
    settings: Settings, manifest: Manifest, sockets: list[socket.socket], board: Board
) -> zygote.ServeProcess:
    """What a freshly forked serving process runs (its exit code returned)."""

    def run(process: int, events: int) -> int:
        tag_process(process, settings.log_format)
        opened = current_manifest(settings, manifest)
        return run_program(settings, opened, serving_transport(process, board, sockets, events))

    return run


# -- the supervisor -----------------------------------------------------------------------


class _Slot:
    """One serving process's place: who fills it now, and its history."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.pid = 0
        self.ready = False
        self.ready_at: float | None = None
        self.young_deaths = 0
        """Exits in a row of processes that never got ready or were ready only briefly."""
        self.restarts = 0
        self.ready_first: int | None = None
        """The pid of a process whose ``ready`` arrived before the fork server's
        ``started`` of it (two writers: a busy fork server can write its line after the
        child has opened its corpus); it is ready once its ``started`` arrives."""
        self.hang_up = False
        """A SIGHUP arrived while the process was starting: sent once it is ready."""


class Supervisor:
    """Starts the serving processes, replaces those that exit, passes signals on."""

    def __init__(
        self,
        settings: Settings,
        *,
        libraries: tuple[str, ...],
        base: str,
        board: Board,
        send: Callable[[str], None],
    ) -> None:
        self.settings = settings
        self.libraries = libraries
        self.base = base
        self.board = board
        self._send = send
        """Sends one command line to the fork server (:func:`command_sender`)."""
        self.slots = [_Slot(number) for number in range(1, settings.workers + 1)]
        self.serving = False
        """Every process was ready once: the server has started."""
        self.stopping = False
        self.exit_code = 0
        self._changed = trio.Event()
        self._nursery: trio.Nursery | None = None

    async def run(self, events: AsyncIterator[str], signals: AsyncIterator[int]) -> int:
        """Supervise until ``events`` (the lines the fork server and the serving processes
        write: :func:`event_lines`) end, because every one of them has exited; ``signals``
        are the supervisor's SIGTERM, SIGINT and SIGHUP. The exit code: 0 after a clean
        shutdown, 1 when the server could not start or a process did not stop cleanly."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._signals, signals)
            nursery.start_soon(self._start)
            self._publish()
            async for line in events:
                word, *numbers = line.split()
                self._event(word, *map(int, numbers))
            nursery.cancel_scope.cancel()
        if not self.stopping:
            log.error("the fork server exited unexpectedly: every serving process is gone")
            return 1
        log.info("stopped")
        return self.exit_code

    # -- starting ----------------------------------------------------------------------

    async def _start(self) -> None:
        """Process 1 alone (it proves the corpus opens), then the others."""
        first = self.slots[0]
        self._command(zygote.SPAWN, first.number)
        while not first.ready:
            if self.stopping:
                return
            await self._wait_changed()
        for slot in self.slots[1:]:
            self._command(zygote.SPAWN, slot.number)

    def _command(self, *words: object) -> None:
        self._send(" ".join(map(str, words)))

    # -- what the fork server and the serving processes report -------------------------

    def _event(self, word: str, number: int, pid: int, *rest: int) -> None:
        slot = self.slots[number - 1]
        if word == zygote.STARTED:
            slot.pid = pid
            self.board.set_pid(number, pid)
            if slot.ready_first == pid:
                slot.ready_first = None
                self._ready(slot)
        elif word == zygote.READY and pid == slot.pid:
            self._ready(slot)
        elif word == zygote.READY:
            slot.ready_first = pid
        elif word == zygote.EXITED and pid == slot.pid:
            self._exited(slot, rest[0])
        elif word == zygote.UNFORKED:
            self._unforked(slot, rest[0])
        self._publish()
        self._changed.set()
        self._changed = trio.Event()

    def _ready(self, slot: _Slot) -> None:
        slot.ready = True
        slot.ready_at = trio.current_time()
        if slot.hang_up:
            slot.hang_up = False
            self._command(zygote.SIGNAL, slot.number, int(RELOAD_SIGNAL))
        if self.stopping or not all(s.ready for s in self.slots):
            return
        self.board.all_ready = True
        if not self.serving:
            self.serving = True
            pids = ", ".join(str(s.pid) for s in self.slots)
            log.info(
                "serving %s at %s%s (%d processes, pids %s)",
                ", ".join(self.libraries),
                self.base,
                MCP_PATH,
                len(self.slots),
                pids,
            )
        else:
            log.info("every serving process is ready again (%d)", len(self.slots))

    def _exited(self, slot: _Slot, code: int) -> None:
        was_ready, ready_at, pid = slot.ready, slot.ready_at, slot.pid
        # What it had in flight: the board outlives the process (read before the slot is
        # cleared for its replacement).
        calls, connections = self.board.calls(slot.number), self.board.connections(slot.number)
        slot.pid, slot.ready, slot.ready_at = 0, False, None
        self.board.set_pid(slot.number, 0)
        self.board.clear(slot.number)
        self.board.all_ready = False
        fields: dict[str, object] = {
            "event": "serving_process_exited",
            "serving_process": slot.number,
            "pid": pid,
            "exit_status": code,
            "signal": _signal_name(-code) if code < 0 else None,
            "calls_in_flight": calls,
            "connections": connections,
            "was_ready": was_ready,
        }
        how = _how(code) + _in_flight(calls, connections) + _crash_report(code)
        if self.stopping:
            # A stop signal is only fatal before trio watches it (the process served
            # nothing yet) or after it stopped watching (it has drained): a terminal's
            # Ctrl-C, or systemd's SIGTERM, reach every process besides the one passed on.
            stopped = code in (-signal.SIGTERM, -signal.SIGINT)
            if code and not stopped:
                log.warning(
                    "serving process %d %s while stopping",
                    slot.number,
                    how,
                    extra={FIELDS: fields},
                )
                self.exit_code = 1
            return
        if not self.serving and slot.number == 1 and not was_ready and not slot.restarts:
            # The server never started: the process said why (exit 1), or this says it.
            if code != 1:
                log.error(
                    "serving process 1 %s before it was ready", _how(code), extra={FIELDS: fields}
                )
            self.exit_code = 1
            self._stop(signal.SIGTERM)
            return
        now = trio.current_time()
        young = ready_at is None or now - ready_at < STABLE_SECONDS
        slot.young_deaths = slot.young_deaths + 1 if young else 1
        delay = 0.0
        if slot.young_deaths > 1:
            delay = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** (slot.young_deaths - 2))
        fields["replaced_in_seconds"] = delay
        log.warning(
            "serving process %d %s%s; starting another%s",
            slot.number,
            how,
            "" if was_ready else " before it was ready",
            f" in {delay:g} s" if delay else "",
            extra={FIELDS: fields},
        )
        assert self._nursery is not None
        self._nursery.start_soon(self._replace, slot, delay)

    def _unforked(self, slot: _Slot, error: int) -> None:
        """The fork server could not fork ``slot``'s process (a process or memory limit):
        at startup the server stops, later it tries again, backing off."""
        reason = os.strerror(error) if error else "unknown error"
        if not self.serving and slot.number == 1 and not slot.restarts:
            log.error("serving process 1 could not be started: %s", reason)
            self.exit_code = 1
            self._stop(signal.SIGTERM)
            return
        slot.young_deaths += 1
        delay = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** (slot.young_deaths - 1))
        log.warning(
            "serving process %d could not be started: %s; trying again in %g s",
            slot.number,
            reason,
            delay,
        )
        assert self._nursery is not None
        self._nursery.start_soon(self._replace, slot, delay)

    async def _replace(self, slot: _Slot, delay: float) -> None:
        await trio.sleep(delay)
        if self.stopping:
            return
        slot.restarts += 1
        slot.hang_up = False  # it reads corpus.toml as it is now
        self._command(zygote.SPAWN, slot.number)
        self._publish()

    # -- signals -----------------------------------------------------------------------

    async def _signals(self, signals: AsyncIterator[int]) -> None:
        async for signum in signals:
            name = signal.Signals(signum).name
            if signum == RELOAD_SIGNAL:
                if self.stopping:
                    continue
                log.info("received %s: reloading the corpus in every serving process", name)
                for slot in self.slots:
                    if slot.ready:
                        self._command(zygote.SIGNAL, slot.number, int(signum))
                    elif slot.pid:
                        slot.hang_up = True
            elif not self.stopping:
                log.info("received %s: shutting down %d serving processes", name, len(self.slots))
                self._stop(signum)

    def _stop(self, signum: int) -> None:
        """Stop forking, pass ``signum`` to every serving process (they drain), and kill
        what is still running once they have had their time."""
        self.stopping = True
        self.board.all_ready = False
        self._command(zygote.STOP, int(signum))
        assert self._nursery is not None
        self._nursery.start_soon(self._kill_stragglers)

    async def _kill_stragglers(self) -> None:
        await trio.sleep(self.settings.shutdown_timeout + FLUSH_SECONDS + STOP_MARGIN_SECONDS)
        left = [slot.number for slot in self.slots if slot.pid]
        if left:
            log.warning("serving processes %s did not stop in time: killed", left)
            self.exit_code = 1
            self._command(zygote.KILL)

    async def _wait_changed(self) -> None:
        await self._changed.wait()

    def _publish(self) -> None:
        """The supervisor's own series, for whichever process answers /metrics."""
        ready = sum(slot.ready for slot in self.slots)
        restarts = {slot.number: slot.restarts for slot in self.slots}
        snapshot = metrics.supervisor_snapshot(len(self.slots), ready, restarts)
        self.board.publish(0, snapshot, time.monotonic_ns())


def command_sender(commands: int) -> Callable[[str], None]:
    """What sends the fork server one command line on the pipe ``commands``."""

    def send(line: str) -> None:
        try:
            os.write(commands, line.encode() + b"\n")
        except BrokenPipeError:  # the fork server is gone: its end of the events follows
            log.debug("fork server gone: %r not sent", line)

    return send


async def event_lines(events: int) -> AsyncGenerator[str]:
    """The lines written on the pipe ``events``, until every writer (the fork server,
    each serving process) has closed it."""
    async with trio.lowlevel.FdStream(os.dup(events)) as stream:
        pending = b""
        while chunk := await stream.receive_some(4096):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode()


def _how(code: int) -> str:
    """An exit status in words (``waitstatus_to_exitcode``: negative for a signal)."""
    if code < 0:
        return f"was killed by {_signal_name(-code)}"
    return f"exited with status {code}"


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _in_flight(calls: dict[str, int], connections: int | None) -> str:
    """What a process had in flight when it exited, in words."""
    total = sum(calls.values())
    if total:
        each = ", ".join(f"{tool} {count}" for tool, count in calls.items() if count)
        words = f" with {total} tool call{'s' if total > 1 else ''} in flight ({each})"
    else:
        words = " with no tool call in flight"
    if connections is not None:
        words += f" on {connections} connection{'' if connections == 1 else 's'}"
    return words


#: The signals faulthandler reports (a native crash, or an abort): the dying process
#: wrote every thread's Python stack to the log first.
FATAL_SIGNALS: Final = frozenset(
    {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGFPE, signal.SIGILL}
)


def _crash_report(code: int) -> str:
    if -code in FATAL_SIGNALS:
        return " (its threads' stacks are in the log above, after 'Fatal Python error')"
    return ""


# -- the entry point ------------------------------------------------------------------------


def main(settings: Settings, manifest: Manifest) -> int:
    """``corpus-mcp serve``: one serving process (WORKERS=1), or a supervisor of
    WORKERS of them on one port until SIGTERM/SIGINT."""
    if settings.workers == 1:
        return run_program(settings, manifest, serve_http)
    configure_logging(settings.log_level, settings.log_format)
    report_fatal_signals()  # the supervisor's and the fork server's own crashes
    configure_memory()  # inherited by the fork server and every serving process
    try:
        sockets = bound_sockets(settings)
    except ListenError as exc:
        report_startup_failure(f"corpus-mcp: {exc}", settings.log_format)
        return 1
    base = "http://" + repr_socket_addr(sockets[0].family, sockets[0].getsockname())
    board = Board(settings.workers)
    libraries = tuple(library.name for library in manifest.enabled)
    log.info(
        "starting %d processes on %s (WORKERS=%d), process 1 first",
        settings.workers,
        base,
        settings.workers,
    )
    # Everything imported so far (all a serving process runs) stays out of the
    # collector's sight in the fork server and its children: their collections never
    # write to those pages, so the processes keep sharing them.
    gc.collect()
    gc.freeze()
    if threading.active_count() > 1:  # pragma: no cover (nothing here starts threads)
        raise RuntimeError("the supervisor must fork its fork server before any thread")
    fork_server, commands, events = zygote.start(
        sockets, serving_process(settings, manifest, sockets, board)
    )
    supervisor = Supervisor(
        settings, libraries=libraries, base=base, board=board, send=command_sender(commands)
    )

    async def supervise() -> int:
        with trio.open_signal_receiver(*SHUTDOWN_SIGNALS, RELOAD_SIGNAL) as signals:
            async with aclosing(event_lines(events)) as lines:
                return await supervisor.run(lines, signals)

    try:
        return trio.run(supervise)
    finally:
        os.close(commands)  # the fork server stops its processes if they still run
        os.close(events)
        os.waitpid(fork_server, 0)
