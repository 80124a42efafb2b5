"""The supervisor of several serving processes, against a fork server played by the test.

The real processes are tested in ``test_server_workers.py``; here the supervisor's own
decisions are driven one event at a time under trio's MockClock (its back-off and its
kill timer are its own sleeps): the start (process 1 alone, then the others), a start
that fails, replacements and their back-off, SIGHUP held for a process still starting,
the stop and what a process that does not stop costs, and a fork server that goes away.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing

from corpus_mcp import metrics
from corpus_mcp.config import Settings, load_settings
from corpus_mcp.logs import FIELDS
from corpus_mcp.server import workers, zygote
from corpus_mcp.server.board import Board
from corpus_mcp.server.serve import FLUSH_SECONDS

BASE = "http://127.0.0.1:8000"
CRASH_REPORT = " (its threads' stacks are in the log above, after 'Fatal Python error')"


class ForkServer:
    """Plays the fork server: records the supervisor's commands, writes its events."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.changed = trio.Event()
        self._send, self._receive = trio.open_memory_channel[str](100)
        self._signals_send, self._signals = trio.open_memory_channel[int](10)
        self.pids = iter(range(1000, 2000))

    def command(self, line: str) -> None:
        self.commands.append(line)
        self.changed.set()
        self.changed = trio.Event()

    async def wait_for(self, line: str, count: int = 1) -> None:
        """Until the supervisor has sent ``line`` ``count`` times (no clock involved)."""
        while self.commands.count(line) < count:
            await self.changed.wait()

    async def events(self) -> AsyncIterator[str]:
        async for line in self._receive:
            yield line

    async def signals(self) -> AsyncIterator[int]:
        async for signum in self._signals:
            yield signum

    async def report(self, *words: object) -> None:
        await self._send.send(" ".join(map(str, words)))

    async def start(self, number: int) -> int:
        """The process asked for is forked: its pid."""
        pid = next(self.pids)
        await self.report(zygote.STARTED, number, pid)
        return pid

    async def signal(self, signum: int) -> None:
        await self._signals_send.send(signum)

    async def gone(self) -> None:
        """Every writer of the events has exited."""
        await self._send.aclose()


def settings(**env: str) -> Settings:
    return load_settings({"WORKERS": "2", "SHUTDOWN_TIMEOUT": "1", **env})


async def supervise(
    fork_server: ForkServer,
    board: Board,
    config: Settings,
    *,
    task_status: trio.TaskStatus[workers.Supervisor] = trio.TASK_STATUS_IGNORED,
) -> int:
    supervisor = workers.Supervisor(
        config, libraries=("wiki",), base=BASE, board=board, send=fork_server.command
    )
    task_status.started(supervisor)
    return await supervisor.run(fork_server.events(), fork_server.signals())


async def started(
    nursery: trio.Nursery, config: Settings | None = None
) -> tuple[ForkServer, Board, workers.Supervisor, dict[int, int], list[int]]:
    """A supervisor whose two processes are ready (their pids by number), and where its
    exit code will be."""
    fork_server, board = ForkServer(), Board(2)
    code: list[int] = []

    async def run(task_status: trio.TaskStatus[workers.Supervisor]) -> None:
        code.append(await supervise(fork_server, board, config or settings(),
                                    task_status=task_status))  # fmt: skip

    supervisor: workers.Supervisor = await nursery.start(run)
    pids = {}
    await fork_server.wait_for("spawn 1")
    pids[1] = await fork_server.start(1)
    assert "spawn 2" not in fork_server.commands  # process 1 alone first
    await fork_server.report(zygote.READY, 1, pids[1])
    await fork_server.wait_for("spawn 2")
    pids[2] = await fork_server.start(2)
    await fork_server.report(zygote.READY, 2, pids[2])
    await wait_until(lambda: board.all_ready)
    return fork_server, board, supervisor, pids, code


async def wait_until(condition: object) -> None:
    assert callable(condition)
    while not condition():
        await trio.sleep(0.01)


async def stop(fork_server: ForkServer, pids: dict[int, int], codes: dict[int, int]) -> None:
    """SIGTERM; the processes exit with ``codes``; every writer goes."""
    await fork_server.signal(signal.SIGTERM)
    await fork_server.wait_for(f"stop {int(signal.SIGTERM)}")
    for number, pid in pids.items():
        await fork_server.report(zygote.EXITED, number, pid, codes.get(number, 0))
    await fork_server.gone()


def supervisor_series(board: Board) -> dict[str, float]:
    decoded = msgspec.msgpack.decode(board.snapshot(0))
    return {f"{sample[0]}{sample[1]}": sample[2] for family in decoded for sample in family[4]}


async def test_process_1_first_then_the_others_then_a_clean_stop(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO")
    async with trio.open_nursery() as nursery:
        fork_server, board, _, pids, code = await started(nursery)
        assert board.pid(1) == pids[1] and board.pid(2) == pids[2]
        assert supervisor_series(board)["corpus_mcp_processes_ready{}"] == 2
        await stop(fork_server, pids, {})
    assert code == [0]
    assert not board.all_ready
    messages = caplog.messages
    assert f"serving wiki at {BASE}/mcp (2 processes, pids {pids[1]}, {pids[2]})" in messages
    assert "received SIGTERM: shutting down 2 serving processes" in messages
    assert messages[-1] == "stopped"


@pytest.mark.parametrize(
    ("exit_code", "said"),
    [(1, None), (-signal.SIGKILL, "serving process 1 was killed by SIGKILL before it was ready")],
)
async def test_a_first_process_that_cannot_start_stops_the_server(
    autojump_clock: trio.testing.MockClock,
    caplog: pytest.LogCaptureFixture,
    exit_code: int,
    said: str | None,
) -> None:
    fork_server, board = ForkServer(), Board(2)
    async with trio.open_nursery() as nursery:

        async def exits() -> None:
            await fork_server.wait_for("spawn 1")
            pid = await fork_server.start(1)
            await fork_server.report(zygote.EXITED, 1, pid, exit_code)
            await fork_server.wait_for(f"stop {int(signal.SIGTERM)}")
            await fork_server.gone()

        nursery.start_soon(exits)
        assert await supervise(fork_server, board, settings()) == 1
    assert "spawn 2" not in fork_server.commands
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == ([said] if said else [])  # exit 1: the process said why itself


async def test_a_process_that_exits_is_replaced_then_backed_off_while_it_dies_young(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with trio.open_nursery() as nursery:
        fork_server, board, supervisor, pids, code = await started(nursery)
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGBUS)
        await fork_server.wait_for("spawn 2", 2)
        assert not board.all_ready and board.pid(2) == 0
        pids[2] = await fork_server.start(2)
        await fork_server.report(zygote.READY, 2, pids[2])
        await wait_until(lambda: board.all_ready)
        # Dies again at once (young): the next one waits, then twice as long.
        before = trio.current_time()
        await fork_server.report(zygote.EXITED, 2, pids[2], 70)
        await fork_server.wait_for("spawn 2", 3)
        assert trio.current_time() - before == pytest.approx(workers.FIRST_BACKOFF_SECONDS)
        pids[2] = await fork_server.start(2)
        before = trio.current_time()
        await fork_server.report(zygote.EXITED, 2, pids[2], 1)  # never got ready
        await fork_server.wait_for("spawn 2", 4)
        assert trio.current_time() - before == pytest.approx(2 * workers.FIRST_BACKOFF_SECONDS)
        pids[2] = await fork_server.start(2)
        await fork_server.report(zygote.READY, 2, pids[2])
        # Ready long enough: a later death is replaced at once again.
        await trio.sleep(workers.STABLE_SECONDS)
        before = trio.current_time()
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGKILL)
        await fork_server.wait_for("spawn 2", 5)
        assert trio.current_time() == before
        pids[2] = await fork_server.start(2)
        await fork_server.report(zygote.READY, 2, pids[2])
        await wait_until(lambda: board.all_ready)
        assert [slot.restarts for slot in supervisor.slots] == [0, 4]
        assert supervisor_series(board)["corpus_mcp_process_restarts_total{'process': '2'}"] == 4
        await stop(fork_server, pids, {})
    assert code == [0]
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    idle = "with no tool call in flight"
    assert warnings == [
        f"serving process 2 was killed by SIGBUS {idle}{CRASH_REPORT}; starting another",
        f"serving process 2 exited with status 70 {idle}; starting another in 0.5 s",
        f"serving process 2 exited with status 1 {idle} before it was ready; starting another"
        " in 1 s",
        f"serving process 2 was killed by SIGKILL {idle}; starting another",
    ]


async def test_a_process_ready_before_the_fork_server_said_it_started_is_ready(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The fork server and the child write on one pipe: a fork server slow to report the
    fork can be overtaken by the child's ``ready`` (seen once with the cores busy: process
    1 served, the supervisor never started process 2)."""
    fork_server, board = ForkServer(), Board(2)
    async with trio.open_nursery() as nursery:
        code: list[int] = []

        async def run() -> None:
            code.append(await supervise(fork_server, board, settings()))

        nursery.start_soon(run)
        await fork_server.wait_for("spawn 1")
        await fork_server.report(zygote.READY, 1, 1000)
        await fork_server.report(zygote.STARTED, 1, 1000)
        with trio.fail_after(workers.STABLE_SECONDS):  # the clock jumps: no hang
            await fork_server.wait_for("spawn 2")
        await fork_server.report(zygote.READY, 2, 1001)
        await fork_server.report(zygote.STARTED, 2, 1001)
        await wait_until(lambda: board.all_ready)
        await stop(fork_server, {1: 1000, 2: 1001}, {})
    assert code == [0]


async def test_a_crash_is_logged_with_its_signal_and_what_the_process_had_in_flight(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The board outlives the process: what it last wrote there is what it had in flight
    when it died; its replacement starts with nothing."""
    caplog.set_level("INFO")
    async with trio.open_nursery() as nursery:
        fork_server, board, _, pids, code = await started(nursery)
        board.set_calls(2, "search", 3)  # as the process writes them (Sibling)
        board.set_calls(2, "fetch", 1)
        board.set_connections(2, 5)
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGSEGV)
        await fork_server.wait_for("spawn 2", 2)
        pids[2] = await fork_server.start(2)
        await wait_until(lambda: board.pid(2) == pids[2])
        assert board.calls(2) == {"search": 0, "fetch": 0}
        await fork_server.report(zygote.READY, 2, pids[2])
        await stop(fork_server, pids, {})
    assert code == [0]
    [crash] = [r for r in caplog.records if r.levelname == "WARNING"]
    assert crash.getMessage() == (
        "serving process 2 was killed by SIGSEGV with 4 tool calls in flight (search 3, "
        f"fetch 1) on 5 connections{CRASH_REPORT}; starting another"
    )
    fields = getattr(crash, FIELDS)
    assert fields["signal"] == "SIGSEGV" and fields["exit_status"] == -signal.SIGSEGV
    assert fields["calls_in_flight"] == {"search": 3, "fetch": 1}
    assert fields["connections"] == 5 and fields["serving_process"] == 2


async def test_sighup_reaches_ready_processes_and_one_starting_once_it_is_ready(
    autojump_clock: trio.testing.MockClock,
) -> None:
    hup = int(signal.SIGHUP)
    async with trio.open_nursery() as nursery:
        fork_server, board, _, pids, code = await started(nursery)
        await fork_server.signal(signal.SIGHUP)
        await fork_server.wait_for(f"signal 2 {hup}")
        assert f"signal 1 {hup}" in fork_server.commands
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGKILL)
        await fork_server.wait_for("spawn 2", 2)
        pids[2] = await fork_server.start(2)
        await wait_until(lambda: board.pid(2) == pids[2])
        sent = len(fork_server.commands)
        await fork_server.signal(signal.SIGHUP)
        await fork_server.wait_for(f"signal 1 {hup}")
        await fork_server.wait_for(f"signal 1 {hup}", 2)
        assert fork_server.commands[sent:].count(f"signal 2 {hup}") == 0  # still starting
        await fork_server.report(zygote.READY, 2, pids[2])
        await fork_server.wait_for(f"signal 2 {hup}", 2)
        await stop(fork_server, pids, {})
    assert code == [0]


async def test_a_process_that_does_not_stop_is_killed_and_the_exit_is_1(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    config = settings()
    async with trio.open_nursery() as nursery:
        fork_server, _, _, pids, code = await started(nursery, config)
        await fork_server.signal(signal.SIGTERM)
        await fork_server.wait_for(f"stop {int(signal.SIGTERM)}")
        await fork_server.report(zygote.EXITED, 1, pids[1], 0)
        before = trio.current_time()
        await fork_server.wait_for(zygote.KILL)
        waited = trio.current_time() - before
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGKILL)
        await fork_server.gone()
    assert code == [1]
    limit = config.shutdown_timeout + FLUSH_SECONDS + workers.STOP_MARGIN_SECONDS
    assert waited == pytest.approx(limit)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [
        "serving processes [2] did not stop in time: killed",
        "serving process 2 was killed by SIGKILL with no tool call in flight while stopping",
    ]


async def test_a_stop_signal_during_the_start_ends_it_cleanly(
    autojump_clock: trio.testing.MockClock,
) -> None:
    fork_server, board = ForkServer(), Board(2)
    async with trio.open_nursery() as nursery:

        async def interrupted() -> None:
            await fork_server.wait_for("spawn 1")
            pid = await fork_server.start(1)
            await fork_server.signal(signal.SIGINT)
            await fork_server.wait_for(f"stop {int(signal.SIGINT)}")
            await fork_server.report(zygote.EXITED, 1, pid, -signal.SIGINT)  # before trio
            await fork_server.gone()

        nursery.start_soon(interrupted)
        assert await supervise(fork_server, board, settings()) == 0
    assert "spawn 2" not in fork_server.commands


async def test_a_process_that_cannot_be_forked_is_tried_again_or_stops_the_start(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    eagain = 11
    async with trio.open_nursery() as nursery:
        fork_server, board, _, pids, code = await started(nursery)
        await fork_server.report(zygote.EXITED, 2, pids[2], -signal.SIGKILL)
        await fork_server.wait_for("spawn 2", 2)
        before = trio.current_time()
        await fork_server.report(zygote.UNFORKED, 2, 0, eagain)
        await fork_server.wait_for("spawn 2", 3)
        assert trio.current_time() - before == pytest.approx(workers.FIRST_BACKOFF_SECONDS * 2)
        pids[2] = await fork_server.start(2)
        await fork_server.report(zygote.READY, 2, pids[2])
        await wait_until(lambda: board.all_ready)
        await stop(fork_server, pids, {})
    assert code == [0]
    assert (
        "serving process 2 could not be started: Resource temporarily unavailable; "
        "trying again in 1 s"
    ) in caplog.messages
    fork_server, board = ForkServer(), Board(2)
    async with trio.open_nursery() as nursery:

        async def refuses() -> None:
            await fork_server.wait_for("spawn 1")
            await fork_server.report(zygote.UNFORKED, 1, 0, eagain)
            await fork_server.wait_for(f"stop {int(signal.SIGTERM)}")
            await fork_server.gone()

        nursery.start_soon(refuses)
        assert await supervise(fork_server, board, settings()) == 1
    assert "serving process 1 could not be started: Resource temporarily unavailable" in (
        caplog.messages
    )


async def test_a_fork_server_that_goes_away_is_an_error(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with trio.open_nursery() as nursery:
        fork_server, _, _, _, code = await started(nursery)
        await fork_server.gone()
    assert code == [1]
    assert "the fork server exited unexpectedly: every serving process is gone" in (caplog.messages)


def test_commands_to_a_fork_server_that_is_gone_are_dropped() -> None:
    read, write = os.pipe()
    os.close(read)
    workers.command_sender(write)("spawn 1")  # no BrokenPipeError
    os.close(write)


async def test_event_lines_are_read_until_every_writer_has_closed() -> None:
    read, write = os.pipe()
    os.write(write, b"started 1 10\nready 1 ")
    os.write(write, b"10\n")
    os.close(write)
    lines = [line async for line in workers.event_lines(read)]
    os.close(read)
    assert lines == ["started 1 10", "ready 1 10"]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (0, "exited with status 0"),
        (-signal.SIGTERM, "was killed by SIGTERM"),
        (-200, "was killed by signal 200"),
    ],
)
def test_exit_statuses_in_words(code: int, words: str) -> None:
    assert workers._how(code) == words


async def test_metrics_that_do_not_fit_are_said_once(
    autojump_clock: trio.testing.MockClock,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("corpus_mcp.server.board.SNAPSHOT_BYTES", 64)
    board = Board(1)
    with trio.move_on_after(5 * workers.PUBLISH_SECONDS):
        await workers.publish_metrics(board, 1)
    assert len(metrics.snapshot()) > 64
    warned = [m for m in caplog.messages if "metrics of this process not shown" in m]
    assert len(warned) == 1


def test_a_replacement_opens_the_start_manifest_when_corpus_toml_broke(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = tmp_path / "corpus.toml"
    manifest.write_text("version = 1\n[[library\n")
    config = load_settings({"CORPUS_CONFIG": str(manifest), "CORPUS_ROOT": str(tmp_path)})
    inherited = object()
    assert workers.current_manifest(config, inherited) is inherited  # type: ignore[arg-type]
    assert "TOML syntax error" in caplog.messages[0]
    assert "opening the manifest the server was started with" in caplog.messages[0]
