"""The fork server: the one process that forks serving processes.

``fork()`` is only safe in a process with one thread and no event loop: a child of a
process running trio (or any threads) inherits its epoll instance, its signal wakeup
descriptor and locks other threads held. So the supervisor forks this process *before*
it starts trio, after importing everything a serving process runs (the MCP SDK, pydantic,
hypercorn, libzim, Xapian...) and freezing it out of the collector's sight; this process
then only waits for commands and forks. Every serving process starts as a copy of it:
in milliseconds, and sharing those pages with it and with each other until they are
written (measured: 55 MB of PSS each for two forked processes, 94 MB each spawned;
DEVELOPERS.md, "Serving processes").

Commands arrive on a pipe, one line each (``spawn``, ``signal``, ``stop``, ``kill``);
what happens is reported on another pipe, one line each (``started``, ``exited``,
``unforked``),
which the serving processes write to as well (``ready``). Lines are shorter than
``PIPE_BUF``, so the writers' lines never interleave. The serving processes are this
process's children: it reaps them and reports their exit statuses, and it is the only
one that signals them, so a pid is never signalled after it was reaped (and reused).

When the supervisor goes (its end of the command pipe closes, even by SIGKILL), this
process stops its children the way ``stop`` does, waits for them and exits; a serving
process whose fork server died gets SIGTERM (``PR_SET_PDEATHSIG``) and drains.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import signal
import socket
from collections.abc import Callable
from typing import Final, NoReturn

from corpus_mcp.lifetime import parent_alive, parent_death_signal

log = logging.getLogger("corpus_mcp.server")

SPAWN: Final = "spawn"
SIGNAL: Final = "signal"
STOP: Final = "stop"
KILL: Final = "kill"
STARTED: Final = "started"
EXITED: Final = "exited"
UNFORKED: Final = "unforked"
"""A serving process that could not be forked (``unforked <number> 0 <errno>``)."""
READY: Final = "ready"

#: Signals this process ignores: the supervisor tells it what to do (a terminal's
#: Ctrl-C, or systemd's SIGTERM to a whole cgroup, reach every process of the group).
_IGNORED: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

ServeProcess = Callable[[int, int], int]
"""Runs serving process ``number`` in a freshly forked child (given the event pipe's
write end, to report itself ready); returns the process's exit code."""


def report(events: int, *words: object) -> None:
    """Write one event line to the supervisor (atomic: far shorter than PIPE_BUF)."""
    line = " ".join(map(str, words)).encode() + b"\n"
    with contextlib.suppress(BrokenPipeError):  # the supervisor is gone: nobody to tell
        os.write(events, line)


class _ForkServer:
    """The loop's state: the serving processes alive, and whether more may be forked."""

    def __init__(
        self, commands: int, events: int, sockets: list[socket.socket], serve: ServeProcess
    ) -> None:
        self.commands = commands
        self.events = events
        self.sockets = sockets
        self.serve = serve
        self.children: dict[int, int] = {}  # pid -> process number
        self.forking = True
        """False once told to stop (or the supervisor went): nothing is forked again."""
        self.supervised = True
        """False once the supervisor's end of the command pipe has closed."""

    def run(self) -> int:
        for signum in _IGNORED:
            signal.signal(signum, signal.SIG_IGN)
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # so that the wakeup fd is written
        signal.set_wakeup_fd(wake_write)
        pending = b""
        try:
            while self.children or (self.forking and self.supervised):
                waiting = [wake_read] + ([self.commands] if self.supervised else [])
                readable, _, _ = select.select(waiting, [], [])
                if wake_read in readable:
                    with contextlib.suppress(BlockingIOError):
                        while os.read(wake_read, 512):
                            pass
                self._reap()
                if self.commands not in readable:
                    continue
                chunk = os.read(self.commands, 4096)
                if not chunk:  # the supervisor is gone: stop as it would have asked
                    self.supervised = False
                    self._stop(signal.SIGTERM)
                    continue
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    self._command(line.decode().split(), (wake_read, wake_write))
        finally:
            signal.set_wakeup_fd(-1)
            os.close(wake_read)
            os.close(wake_write)
        return 0

    def _command(self, words: list[str], private: tuple[int, int]) -> None:
        word, *arguments = words
        if word == SPAWN and self.forking:
            number = int(arguments[0])
            try:
                pid = _fork(number, self.serve, self.events, (self.commands, *private))
            except OSError as exc:  # a process or memory limit: the supervisor tries again
                report(self.events, UNFORKED, number, 0, exc.errno or 0)
                return
            self.children[pid] = number
            report(self.events, STARTED, number, pid)
        elif word == SIGNAL:
            number, signum = map(int, arguments)
            for pid, child in self.children.items():
                if child == number:
                    _signal(pid, signum)
        elif word == STOP:
            self._stop(int(arguments[0]))
        elif word == KILL:
            for pid in self.children:
                _signal(pid, signal.SIGKILL)

    def _reap(self) -> None:
        """Collect every child that has exited, and report it."""
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            number = self.children.pop(pid, None)
            if number is not None:
                report(self.events, EXITED, number, pid, os.waitstatus_to_exitcode(status))

    def _stop(self, signum: int) -> None:
        """Fork nothing more, let the port go with the last serving process, and pass
        ``signum`` (SIGTERM or SIGINT: drain) to every serving process."""
        if self.forking:
            self.forking = False
            for sock in self.sockets:
                sock.close()
        for pid in self.children:
            _signal(pid, signum)


def _fork(number: int, serve: ServeProcess, events: int, private: tuple[int, ...]) -> int:
    """Fork serving process ``number``; in the child, run it and exit with its code."""
    server = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: measured from the next frame on)
        _serving_child(number, serve, events, private, server)
    return pid


def _serving_child(
    number: int, serve: ServeProcess, events: int, private: tuple[int, ...], server: int
) -> NoReturn:
    """The freshly forked serving process: the fork server's state undone, then serve
    (draining when the fork server, ``server``, dies: its SIGTERM; the fork server is
    single-threaded, so the thread that forked this process is the fork server's life)."""
    code = 70  # EX_SOFTWARE: what remains if even the child's own handling failed
    try:
        signal.set_wakeup_fd(-1)
        for descriptor in private:
            os.close(descriptor)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # Until trio watches them: a stop signal ends a process that serves nothing yet
        # (a SIGHUP stays ignored: the supervisor holds it back until the process is ready).
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        parent_death_signal(signal.SIGTERM)
        if not parent_alive(server):  # it died before the signal was set
            os.kill(os.getpid(), signal.SIGTERM)
        code = serve(number, events)
    except BaseException:  # nothing may return into the fork server's loop
        log.exception("serving process %d failed", number)
    logging.shutdown()
    os._exit(code)


def _fork_server(
    commands: tuple[int, int],
    events: tuple[int, int],
    sockets: list[socket.socket],
    serve: ServeProcess,
) -> NoReturn:
    """The freshly forked fork server (given both pipes' read and write ends): its loop,
    then exit (never back to the caller)."""
    code = 70
    (commands_read, commands_write), (events_read, events_write) = commands, events
    try:
        os.close(commands_write)
        os.close(events_read)
        code = _ForkServer(commands_read, events_write, sockets, serve).run()
    except BaseException:  # the child never returns to the caller
        log.exception("the fork server failed")
    logging.shutdown()
    os._exit(code)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except OSError as exc:  # exited, not reaped yet: its exit is reported next
        if exc.errno != errno.ESRCH:
            raise


def start(sockets: list[socket.socket], serve: ServeProcess) -> tuple[int, int, int]:
    """Fork the fork server (call this with one thread and no event loop running).

    Returns its pid, the command pipe's write end and the event pipe's read end; the
    caller's copies of ``sockets`` are closed (the fork server holds them now).
    """
    commands_read, commands_write = os.pipe()
    events_read, events_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: measured from the next frame on)
        _fork_server((commands_read, commands_write), (events_read, events_write), sockets, serve)
    os.close(commands_read)
    os.close(events_write)
    for sock in sockets:
        sock.close()
    return pid, commands_write, events_read
