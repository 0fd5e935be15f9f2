"""Child processes that die with their parent.

Every process blink starts and waits for (simulation workers, the server's bot compiler, a
local cluster's PostgreSQL, Redis, HAProxy and nodes) asks Linux for a signal when its parent
dies, so that a parent killed outright (``kill -9``, a test runner's timeout) never leaves
children running with no one to collect their work.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1
"""``prctl`` option (``<linux/prctl.h>``): the signal this process gets when its parent dies."""


def die_with_parent(parent: int | None = None, sig: int = signal.SIGKILL) -> bool:
    """Have Linux send this process ``sig`` (``SIGKILL`` unless told) as soon as its parent dies.

    ``parent`` is the process id of the parent that started this process: if this process has
    another parent by now, the parent died before the request was made (the request covers
    only deaths still to come), and this process exits at once. ``None``: not checked (the
    parent is not known, for example a fork server's, or in a ``preexec_fn`` before ``exec``).
    Returns whether the request was made: ``False`` (and nothing done) where it is not
    available, on other systems or without a C library.

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
    if prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # orphaned already: no one will ever read this child's results
    return True
