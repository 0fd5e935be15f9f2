"""Loading a game's compiled (numba) kernels: once a process, quickly, or one sentence why not.

Each game's fast engine keeps its kernels in a module of its own; :func:`load_kernels` imports
it the first time it is asked for (numba with it), and loads numba's compiler registries at
once, without the modules numba would import for features the kernels never use
(:data:`UNUSED_BY_KERNELS`): a second process, whose kernels come from numba's disk cache,
plays its first game about a second sooner. Without numba it raises
:class:`FastUnavailableError`, whose message says what to do.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType

__all__ = ["UNUSED_BY_KERNELS", "FastUnavailableError", "load_kernels", "unavailable"]


class FastUnavailableError(RuntimeError):
    """numba (the compiler of the fast engines) cannot be imported here."""

    code = "fast_unavailable"


UNUSED_BY_KERNELS = ("scipy", "scipy.linalg.cython_blas", "cffi")
"""Modules numba imports, when available, and the kernels never use: scipy (its version
checked on ``import numba``; its BLAS for ``np.dot`` and ``np.linalg``, imported as numba loads
its compiler's registries on the first call of any compiled function, even one loaded from the
cache: 0.2-0.4 s importing scipy.linalg) and cffi (C functions called through cffi: 0.1 s with
its C parser). The kernels are loaded without them: in that process, numba code compiled
afterwards has no cffi support and its 1-D ``np.dot`` is a plain loop (unless scipy.linalg or
cffi was imported before)."""

_LOADED: dict[str, ModuleType] = {}


@contextlib.contextmanager
def _absent(names: Sequence[str]) -> Iterator[None]:
    """While inside, importing any of ``names`` not imported yet fails at once (ImportError)."""
    added = [n for n in names if n not in sys.modules]
    for name in added:
        sys.modules[name] = None  # type: ignore[assignment]  # the import system's "absent"
    try:
        yield
    finally:
        for name in added:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def load_kernels(module: str) -> ModuleType:
    """The kernels' module named ``module``, imported (with numba, its registries loaded) the
    first time; :class:`FastUnavailableError` when numba cannot be imported."""
    mod = _LOADED.get(module)
    if mod is None:
        try:
            with _absent(UNUSED_BY_KERNELS):
                mod = importlib.import_module(module)
                registry = importlib.import_module("numba.core.registry")
                registry.cpu_target.target_context.refresh()
        except ImportError as exc:
            raise FastUnavailableError(
                f"the fast engine needs numba, which cannot be imported here ({exc}); "
                "install it (pip install numba) or use the exact engine (--engine exact)"
            ) from None
        _LOADED[module] = mod
    return mod


def unavailable(module: str) -> str | None:
    """Why the kernels of ``module`` cannot run here (one sentence), or ``None`` when they
    can (loading them if they were not)."""
    try:
        load_kernels(module)
    except FastUnavailableError as exc:
        return str(exc)
    return None
