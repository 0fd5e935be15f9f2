"""Process pools for simulations: workers that ignore Ctrl-C and die with their parent.

Every simulator that spreads games over processes takes its pool from :func:`worker_pool`, so
that a parent killed outright (``kill -9``, a test runner's timeout) never leaves workers
running with no one to collect their work.
"""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

from blink.children import die_with_parent

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["worker_pool"]


def _init_worker(parent: int | None) -> None:
    """Set up a worker process: Ctrl-C is for the parent alone, and the worker dies with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers ignore Ctrl-C and die with this process."""
    # Imported here: multiprocessing's modules cost a run on one process about 50 ms at start.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context()  # the default one, as the pool would take
    # A fork server starts the workers (and is their parent): only fork and spawn start them
    # from this process, in the calling thread (run() keeps the pool on that one thread).
    parent = os.getpid() if ctx.get_start_method() in ("fork", "spawn") else None
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(parent,)
    )
