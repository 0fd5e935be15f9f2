"""Loading the games' bots when the server starts, with their compiling done in a child process.

A game's live bots may use a search compiled by numba (Go Blink's master bot). Compiling it
from an empty cache takes about half a minute of CPU, the first time a server starts after an
install, and compiling holds the interpreter's lock: done in the server's worker thread it
slowed every live table meanwhile (a p99 of 38 ms against 3.4 ms with a warm cache,
docs/performance.md). So :class:`BotWarmup` first runs every game's
:meth:`~blink.model.table.Table.warm_bots` in a child process, which compiles whatever numba's
disk cache lacks and writes it there, and only then runs them in the server's worker thread,
which loads the cache. The child dies with the server, and is stopped when the server stops.
If the child fails, the worker thread still loads the bots (compiling them itself if needs be).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from multiprocessing.process import BaseProcess

from blink.children import die_with_parent
from blink.model.registry import NoTable, game_names, get_table

__all__ = ["BotWarmup", "warm_games"]

log = logging.getLogger("blink.server")


def warm_games() -> None:
    """Every registered game's :meth:`~blink.model.table.Table.warm_bots`, in turn (a failure
    is logged, and that game's bots load on first use instead)."""
    for name in game_names():
        try:
            get_table(name).warm_bots()
        except NoTable:
            continue  # a game without a live table has no bots to load
        except Exception:
            log.exception("the bots of %s could not be loaded ahead", name)


def _compile(parent: int) -> None:
    """The child process: die with the server, then warm every game (numba writes its cache)."""
    die_with_parent(parent)
    warm_games()


class BotWarmup:
    """The games' bots loaded ahead: compiled in a child process, then loaded in a worker
    thread of the running loop (:meth:`start`); :meth:`stop` ends the child if it still runs."""

    def __init__(self) -> None:
        self._child: BaseProcess | None = None
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> asyncio.Future[None]:
        """Start the warm-up; the future is done when the bots are loaded in this process."""
        return asyncio.get_running_loop().run_in_executor(None, self._run)

    def _run(self) -> None:
        started = time.monotonic()
        self._compile_apart()
        if self._stopped.is_set():
            return
        compiled = time.monotonic()
        warm_games()
        log.info(
            "the bots are ready: compiled apart in %.1f s, loaded here in %.1f s",
            compiled - started,
            time.monotonic() - compiled,
        )

    def _compile_apart(self) -> None:
        # Spawned, not forked: a fork of a server with running threads may deadlock. Started
        # from this worker thread, which waits for it: Linux's parent-death signal follows the
        # thread that started the child.
        context = multiprocessing.get_context("spawn")
        child = context.Process(target=_compile, args=(os.getpid(),), name="blink-bot-compiler")
        with self._lock:
            if self._stopped.is_set():
                return
            child.start()
            self._child = child
        child.join()
        if child.exitcode not in (0, None) and not self._stopped.is_set():
            log.warning(
                "the bots' searches could not be compiled apart (exit %s): loading them here",
                child.exitcode,
            )

    def stop(self) -> None:
        """End the child process if it still runs (the server is stopping)."""
        with self._lock:
            self._stopped.set()
            child = self._child
        if child is not None and child.is_alive():
            child.kill()
