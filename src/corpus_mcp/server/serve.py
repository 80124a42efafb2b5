"""Serving: hypercorn's HTTP/1.1 protocol under our own accept loop, signals, draining.

The programmatic entry point is used rather than the hypercorn CLI because the CLI
exits 0 when the app fails to start (stack notes, pitfall 12). The listening socket
is created here, before the app, for two reasons: with port 0 the real port must be
known to build the explicit Host/Origin allow-lists, and :func:`main` opens and checks
every archive before the socket listens, so a client never reaches a half-ready server.

hypercorn's ``worker_serve`` is replaced by :func:`serve_app` (its lifespan and
per-connection ``TCPServer`` are kept): connections are accepted under a cap and
closed lingering (:mod:`corpus_mcp.server.connections`), and a shutdown drains:

1. stop accepting: connections the kernel already completed are taken and served,
   then the listener closes (new clients are refused, none is reset);
2. from now on every response closes its connection; idle connections get
   :data:`DRAIN_QUIET_SECONDS` to deliver a request already on its way, then close;
3. calls in flight finish, for up to SHUTDOWN_TIMEOUT from the signal;
4. what is still running then is stopped and answered 503 (retryable), and gets
   :data:`FLUSH_SECONDS` to write that answer.
"""

from __future__ import annotations

import gc
import logging
import signal
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, cast

import trio
from hypercorn.config import Config
from hypercorn.trio.lifespan import Lifespan
from hypercorn.trio.statsd import StatsdLogger
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import repr_socket_addr, wrap_app

from corpus_mcp import metrics
from corpus_mcp.config import Manifest, Settings
from corpus_mcp.live import LiveCorpus, open_live_corpus
from corpus_mcp.logs import configure_logging, report_fatal_signals, report_startup_failure
from corpus_mcp.memory import configure_memory
from corpus_mcp.server.app import MCP_PATH, CorpusAPI, CorpusApp, Processes, build_app
from corpus_mcp.server.connections import (
    SHUTTING_DOWN,
    Balance,
    ConnectionPool,
    fit_connection_limit,
)
from corpus_mcp.server.http import CONNECTION_KEY
from corpus_mcp.server.streams import LINGER_SECONDS, LingeringStream
from corpus_mcp.zim import OpenFailure

if TYPE_CHECKING:
    from hypercorn.typing import Framework

log = logging.getLogger("corpus_mcp.server")

SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT)
RELOAD_SIGNAL = signal.SIGHUP
DRAIN_QUIET_SECONDS = 0.5
"""How long a connection idle at shutdown may still bring a request it already sent."""
FLUSH_SECONDS = LINGER_SECONDS
"""After SHUTDOWN_TIMEOUT: time for the 503 answers to be written and their sockets closed."""


class _Connection(TCPServer):
    """hypercorn's connection handler, which also lets go when the client has left.

    hypercorn keeps a connection's task until its keep-alive timer runs out even after
    the client closed it, so a client that connects and leaves would hold one of the
    MAX_CONNECTIONS slots for HTTP_IDLE_TIMEOUT. Once reading has ended there is no
    request to wait for: the timer is stopped (a request in progress still finishes).
    """

    async def _read_data(self) -> None:
        await super()._read_data()
        await self.idle_task.stop()


class ListenError(Exception):
    """The configured address cannot be bound (in use, not local, no permission)."""


def bind_address(host: str, port: int) -> str:
    """``host:port`` as hypercorn's ``bind`` wants it (IPv6 literals in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def hypercorn_config(settings: Settings) -> Config:
    """Hypercorn settings: one bind, our logging, no access log, our timeouts.

    ``keep_alive_timeout`` bounds a connection without a request in progress (hypercorn
    runs that timer until a request's head is complete, and again between requests),
    so it is the header timeout too. ``read_timeout`` stays off: hypercorn applies it
    to every read, including while a call is computed, and would cut answers short;
    the body's own deadline (HTTP_BODY_TIMEOUT) is enforced by the app instead.
    """
    config = Config()
    config.bind = [bind_address(settings.mcp_host, settings.mcp_port)]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.keep_alive_timeout = settings.http_idle_timeout
    config.backlog = settings.max_connections * settings.workers
    return config


def _bound_port(sockets: list[socket.socket]) -> int:
    port: int = sockets[0].getsockname()[1]
    return port


async def stop_on_signals(
    stop: trio.Event, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """Set ``stop`` on the first SIGTERM or SIGINT (then keep swallowing them)."""
    with trio.open_signal_receiver(*SHUTDOWN_SIGNALS) as signals:
        task_status.started()
        async for signum in signals:
            if not stop.is_set():
                log.info("received %s: shutting down", signal.Signals(signum).name)
                stop.set()


def bound_sockets(settings: Settings) -> list[socket.socket]:
    """Sockets bound to MCP_HOST:MCP_PORT, not listening yet (a client is refused until
    :func:`serve` listens, once the corpus is open); :class:`ListenError` when the
    address cannot be bound."""
    config = hypercorn_config(settings)
    try:
        sockets = config.create_sockets()
    except OSError as exc:
        raise ListenError(f"cannot listen on {config.bind[0]}: {exc.strerror or exc}") from exc
    return list(sockets.insecure_sockets)


async def serve(
    corpus: CorpusAPI,
    settings: Settings,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
    sockets: list[socket.socket] | None = None,
    processes: Processes | None = None,
    balance: Balance | None = None,
) -> None:
    """Serve ``corpus`` over MCP until ``shutdown_trigger`` returns, then drain.

    Reports the bound base URLs (e.g. ``["http://127.0.0.1:8000"]``) through
    ``task_status``, so ``await nursery.start(serve, ...)`` works with port 0. Without
    a ``shutdown_trigger``, SIGTERM and SIGINT trigger the shutdown. ``sockets`` are
    bound sockets to listen and accept on (a serving process's, inherited from its
    supervisor and shared with the other ``processes``, with whom ``balance`` shares the
    connections), else MCP_HOST:MCP_PORT is bound here. They are closed by the time this
    returns.
    """
    config = hypercorn_config(settings)
    listening = bound_sockets(settings) if sockets is None else sockets
    try:
        port = _bound_port(listening)
        app = build_app(corpus, settings, port=port, processes=processes)
        for sock in listening:
            # Shared by several serving processes, the socket's one queue holds what all of
            # them may take; listening again only sets the same length.
            sock.listen(config.backlog)
        async with trio.open_nursery() as nursery:
            if shutdown_trigger is None:
                stop = trio.Event()
                await nursery.start(stop_on_signals, stop)
                shutdown_trigger = stop.wait
            await serve_app(
                app,
                config,
                settings,
                listening,
                shutdown_trigger=shutdown_trigger,
                task_status=task_status,
                balance=balance,
            )
            nursery.cancel_scope.cancel()
    finally:
        # Closed by the drain normally; a serve cancelled from outside must not leak them.
        for sock in listening:
            sock.close()


async def serve_app(
    app: CorpusApp,
    config: Config,
    settings: Settings,
    sockets: list[socket.socket],
    *,
    shutdown_trigger: Callable[[], Awaitable[None]],
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
    balance: Balance | None = None,
) -> None:
    """Run ``app`` on listening ``sockets`` until ``shutdown_trigger`` returns, then drain
    (sharing the connections with other processes on the same sockets by ``balance``)."""
    config.set_statsd_logger_class(StatsdLogger)
    framework = wrap_app(cast("Framework", app), config.wsgi_max_body_size, "asgi")
    lifespan_state: dict[str, object] = {}
    lifespan = Lifespan(framework, config, lifespan_state)
    context = WorkerContext(None)

    async def serve_connection(stream: LingeringStream) -> None:
        # Each connection's state carries its stream, so the app can tell it when a
        # response is being written (see LingeringStream).
        state = ConnectionState({**lifespan_state, CONNECTION_KEY: stream})
        await _Connection(framework, config, context, state, stream)  # type: ignore[arg-type]

    limit, shed = fit_connection_limit(settings.max_connections)
    pool = ConnectionPool(
        serve_connection,
        limit=limit,
        shed_limit=shed,
        send_timeout=settings.http_send_timeout,
        balance=balance,
    )
    listeners = [trio.SocketListener(trio.socket.from_stdlib_socket(sock)) for sock in sockets]
    binds = [f"http://{repr_socket_addr(sock.family, sock.getsockname())}" for sock in sockets]
    async with trio.open_nursery() as lifespan_nursery:
        await lifespan_nursery.start(lifespan.handle_lifespan)
        await lifespan.wait_for_startup()
        async with trio.open_nursery() as connections:
            async with trio.open_nursery() as accepting:
                for listener in listeners:
                    accepting.start_soon(pool.accept_forever, listener, connections)
                task_status.started(binds)
                await shutdown_trigger()
                accepting.cancel_scope.cancel()
            draining_since = trio.current_time()
            await _drain(
                app,
                pool,
                context,
                sockets=sockets,
                listeners=listeners,
                connections=connections,
                settings=settings,
            )
        log.info(
            "drained in %.1f s (at most %d connections at once; %d answered 503 at once)",
            trio.current_time() - draining_since,
            pool.peak,
            pool.shed_total,
        )
        await lifespan.wait_for_shutdown()
        lifespan_nursery.cancel_scope.cancel()


async def _drain(
    app: CorpusApp,
    pool: ConnectionPool,
    context: WorkerContext,
    *,
    sockets: list[socket.socket],
    listeners: list[trio.SocketListener],
    connections: trio.Nursery,
    settings: Settings,
) -> None:
    """Stop accepting and let calls in flight finish (see the module's docstring)."""
    started = trio.current_time()
    deadline = started + settings.shutdown_timeout
    app.start_draining()
    pool.stop_balancing()
    waiting = sum(pool.accept_backlog(sock, connections, SHUTTING_DOWN) for sock in sockets)
    for listener in listeners:
        await listener.aclose()
    log.info(
        "stopped accepting: %d connections open (%d taken from the backlog), "
        "%d requests in flight; SHUTDOWN_TIMEOUT=%gs",
        pool.open,
        waiting,
        app.in_flight,
        settings.shutdown_timeout,
    )
    with trio.move_on_at(min(started + DRAIN_QUIET_SECONDS, deadline)):
        await pool.wait_closed()
    await context.terminated.set()  # hypercorn closes idle connections now
    with trio.move_on_at(deadline):
        await pool.wait_closed()
    if pool.open or pool.shedding:
        log.warning(
            "SHUTDOWN_TIMEOUT=%gs passed with %d connections open: "
            "%d requests still running answered 503",
            settings.shutdown_timeout,
            pool.open + pool.shedding,
            app.cancel_in_flight(),
        )
        flushed = trio.current_time() + FLUSH_SECONDS
        pool.limit_writes(flushed)  # hypercorn's writes ignore cancellation
        connections.cancel_scope.deadline = flushed


Transport = Callable[[CorpusAPI, Settings, trio.Event], Awaitable[None]]
"""Serves an open corpus until the event is set (a signal) or its client goes away."""


async def run_corpus(settings: Settings, manifest: Manifest, transport: Transport) -> None:
    """Open the corpus (all archives, checked), then serve it with ``transport``.

    Signals are watched from the start: one arriving during a long ZIM_CHECK means the
    server never starts. SIGHUP reloads the corpus (:mod:`corpus_mcp.live`); one arriving
    while the archives open is kept for afterwards (by default it would end the process).
    The transport runs inside the corpus context, so the corpus is closed only after the
    transport has finished (in-flight calls included).
    """
    stop = trio.Event()
    with trio.open_signal_receiver(RELOAD_SIGNAL) as hangups:
        async with trio.open_nursery() as signals:
            await signals.start(stop_on_signals, stop)
            async with open_live_corpus(settings, manifest) as live:
                # What startup made (modules, symbol tables, indexes) lives as long as the
                # process or its generation: out of the collector's sight, full
                # collections stay short (a closed generation is collected, and the
                # next one frozen, by corpus_mcp.live).
                gc.collect()
                gc.freeze()
                if not stop.is_set():
                    async with trio.open_nursery() as serving:
                        serving.start_soon(reload_on_hangups, live, hangups)
                        serving.start_soon(measure_loop_lag)
                        await transport(live, settings, stop)
                        serving.cancel_scope.cancel()
            signals.cancel_scope.cancel()
    log.info("stopped")


async def reload_on_hangups(live: LiveCorpus, hangups: AsyncIterator[int]) -> None:
    """Reload the corpus on each SIGHUP, one reload at a time (several signals arriving
    during a reload make one more)."""
    async for _ in hangups:
        log.info("received SIGHUP: reloading the corpus")
        await live.reload()


#: How often the event loop's lag is measured (corpus_mcp_event_loop_lag_seconds).
LAG_INTERVAL = 0.1


async def measure_loop_lag() -> None:
    """Sleep a fixed interval, again and again, and record how late each wake-up came:
    the event loop's lag, what every call waits before its own work starts (CPU work
    holding the GIL in threads, or a long step in a task, shows here first)."""
    while True:
        asked = trio.current_time() + LAG_INTERVAL
        await trio.sleep_until(asked)
        metrics.loop_lagged(max(0.0, trio.current_time() - asked))


async def serve_http(corpus: CorpusAPI, settings: Settings, stop: trio.Event) -> None:
    """The HTTP transport: hypercorn on MCP_HOST:MCP_PORT until ``stop`` is set."""
    async with trio.open_nursery() as serving:
        binds = await serving.start(_serve_until, corpus, settings, stop)
        names = ", ".join(corpus.libraries)
        for base in binds:
            log.info("serving %s at %s%s", names, base, MCP_PATH)


async def _serve_until(
    corpus: CorpusAPI,
    settings: Settings,
    stop: trio.Event,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    await serve(corpus, settings, task_status=task_status, shutdown_trigger=stop.wait)


def _startup_failure(exc: BaseException) -> BaseException | None:
    """The operator-facing cause inside ``exc`` (possibly nested in exception groups)."""
    if isinstance(exc, OpenFailure | ListenError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _startup_failure(inner)
            if found is not None:
                return found
    return None


def run_program(settings: Settings, manifest: Manifest, transport: Transport) -> int:
    """Run a server program to its end: 0 after a clean shutdown, 1 when it cannot start.

    Libraries that cannot be opened, or an address that cannot be bound, are reported
    on stderr in one line that names them; anything else propagates with its traceback.
    """
    configure_logging(settings.log_level, settings.log_format)
    report_fatal_signals()
    configure_memory()
    try:
        trio.run(run_corpus, settings, manifest, transport)
    except (OpenFailure, ListenError, BaseExceptionGroup) as exc:
        failure = _startup_failure(exc)
        if failure is None:
            raise
        report_startup_failure(f"corpus-mcp: {failure}", settings.log_format)
        return 1
    return 0


def main(settings: Settings, manifest: Manifest) -> int:
    """One process serving MCP over Streamable HTTP until SIGTERM/SIGINT (``corpus-mcp
    serve`` with WORKERS=1; :func:`corpus_mcp.server.workers.main` decides)."""
    return run_program(settings, manifest, serve_http)
