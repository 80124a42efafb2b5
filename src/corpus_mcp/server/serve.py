"""Serving: hypercorn's trio worker in our own ``trio.run``, signals, startup failures.

The programmatic entry point is used rather than the hypercorn CLI because the CLI
exits 0 when the app fails to start (stack notes, pitfall 12). The listening socket
is created here, before the app, for two reasons: with port 0 the real port must be
known to build the explicit Host/Origin allow-lists, and :func:`main` opens and checks
every archive before the socket listens, so a client never reaches a half-ready server.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

import trio
from hypercorn.config import Config
from hypercorn.trio.run import worker_serve
from hypercorn.utils import wrap_app

from corpus_mcp.config import Manifest, Settings
from corpus_mcp.corpus import open_corpus
from corpus_mcp.server.app import MCP_PATH, CorpusAPI, build_app
from corpus_mcp.zim import OpenFailure

if TYPE_CHECKING:
    from hypercorn.config import Sockets
    from hypercorn.typing import Framework

log = logging.getLogger("corpus_mcp.server")

GRACEFUL_SECONDS = 0.5
"""How long in-flight requests get after a shutdown signal (tool calls are short)."""
SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class ListenError(Exception):
    """The configured address cannot be bound (in use, not local, no permission)."""


def bind_address(host: str, port: int) -> str:
    """``host:port`` as hypercorn's ``bind`` wants it (IPv6 literals in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def hypercorn_config(settings: Settings) -> Config:
    """Hypercorn settings: one bind, our logging, no access log, a short grace period."""
    config = Config()
    config.bind = [bind_address(settings.mcp_host, settings.mcp_port)]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = GRACEFUL_SECONDS
    return config


def _bound_port(sockets: Sockets) -> int:
    port: int = sockets.insecure_sockets[0].getsockname()[1]
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


async def serve(
    corpus: CorpusAPI,
    settings: Settings,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Serve ``corpus`` over MCP until ``shutdown_trigger`` returns.

    Reports the bound base URLs (e.g. ``["http://127.0.0.1:8000"]``) through
    ``task_status``, so ``await nursery.start(serve, ...)`` works with port 0. Without
    a ``shutdown_trigger``, SIGTERM and SIGINT trigger the graceful shutdown (in-flight
    requests get :data:`GRACEFUL_SECONDS`).
    """
    config = hypercorn_config(settings)
    try:
        sockets = config.create_sockets()
    except OSError as exc:
        raise ListenError(f"cannot listen on {config.bind[0]}: {exc.strerror or exc}") from exc
    port = _bound_port(sockets)
    app = build_app(corpus, settings, port=port)
    for sock in sockets.insecure_sockets:
        sock.listen(config.backlog)
    async with trio.open_nursery() as nursery:
        if shutdown_trigger is None:
            stop = trio.Event()
            await nursery.start(stop_on_signals, stop)
            shutdown_trigger = stop.wait
        await worker_serve(
            wrap_app(cast("Framework", app), config.wsgi_max_body_size, "asgi"),
            config,
            sockets=sockets,
            shutdown_trigger=shutdown_trigger,
            task_status=task_status,
        )
        nursery.cancel_scope.cancel()


Transport = Callable[[CorpusAPI, Settings, trio.Event], Awaitable[None]]
"""Serves an open corpus until the event is set (a signal) or its client goes away."""


async def run_corpus(settings: Settings, manifest: Manifest, transport: Transport) -> None:
    """Open the corpus (all archives, checked), then serve it with ``transport``.

    Signals are watched from the start: one arriving during a long ZIM_CHECK means the
    server never starts. The transport runs inside the corpus context, so the corpus is
    closed only after the transport has finished (in-flight calls included).
    """
    stop = trio.Event()
    async with trio.open_nursery() as signals:
        await signals.start(stop_on_signals, stop)
        async with open_corpus(settings, manifest) as corpus:
            if not stop.is_set():
                await transport(corpus, settings, stop)
        signals.cancel_scope.cancel()
    log.info("stopped")


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


def configure_logging(level: str) -> None:
    """One-line records on stderr (stdout stays clean), unless logging is already set up."""
    logging.basicConfig(
        level=level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


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
    configure_logging(settings.log_level)
    try:
        trio.run(run_corpus, settings, manifest, transport)
    except (OpenFailure, ListenError, BaseExceptionGroup) as exc:
        failure = _startup_failure(exc)
        if failure is None:
            raise
        print(f"corpus-mcp: {failure}", file=sys.stderr)
        return 1
    return 0


def main(settings: Settings, manifest: Manifest) -> int:
    """``corpus-mcp serve``: MCP over Streamable HTTP until SIGTERM/SIGINT."""
    return run_program(settings, manifest, serve_http)
