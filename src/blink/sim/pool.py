"""Process pools for simulations: workers that ignore Ctrl-C and die with their parent.

Every simulator that spreads games over processes takes its pool from :func:`worker_pool`, so
that a parent killed outright (``kill -9``, a test runner's timeout) never leaves workers
running with no one to collect their work.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["die_with_parent", "worker_pool"]


_PR_SET_PDEATHSIG = 1
"""``prctl`` option (``<linux/prctl.h>``): the signal this process gets when its parent dies."""


def die_with_parent(parent: int | None = None) -> bool:
    """Have Linux kill this process (``SIGKILL``) as soon as its parent dies.

    For worker processes: without it, a parent killed outright (``kill -9``, a test runner's
    timeout) leaves its workers running with no one to collect their work. ``parent`` is the
    process id of the parent that started this process: if this process has another parent by
    now, the parent died before the request was made (the request covers only deaths still to
    come), and this process exits at once. ``None``: not checked (the parent is not known, for
    example a fork server's). Returns whether the request was made: ``False`` (and nothing done)
    where it is not available, on other systems or without a C library.

    Linux sends the signal when the *thread* that started this process ends, not the whole
    process: start such processes from a thread that lives as long as they should.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # orphaned already: no one will ever read this worker's results
    return True


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
