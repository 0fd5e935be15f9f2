"""Loading the games' compiled kernels (blink.sim.compiled): without the modules numba would
import for features the kernels never use, once a process, and one sentence without numba."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import blink
from blink.sim import compiled

_PROBE = """
import json, sys
from blink.sim import compiled
mod = compiled.load_kernels(sys.argv[1])
again = compiled.load_kernels(sys.argv[1])
print(json.dumps({
    "same": mod is again,
    "imported": [n for n in compiled.UNUSED_BY_KERNELS if sys.modules.get(n) is not None],
    "numba": "numba" in sys.modules,
}))
"""

KERNELS = ["blink.games.classic.sim.fast_bots", "blink.games.goblink.fast.bots"]


@pytest.mark.parametrize("module", KERNELS)
def test_kernels_load_once_and_without_the_modules_they_never_use(module: str) -> None:
    """A fresh process (nothing imported before): the kernels' module comes with numba, the
    same module object on the second call, and scipy and cffi were never imported."""
    src = str(Path(blink.__file__).parents[1])
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, module],
        capture_output=True,
        text=True,
        timeout=600,  # an empty numba cache compiles the kernels first
        check=True,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"same": True, "imported": [], "numba": True}


def test_the_absent_modules_can_be_imported_again_afterwards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Marking a module absent lasts only while the kernels load: afterwards it imports."""
    name = "colorsys"  # a standard module that nothing here imports
    monkeypatch.delitem(sys.modules, name, raising=False)
    with compiled._absent([name]), pytest.raises(ImportError):
        importlib.import_module(name)
    assert name not in sys.modules
    assert importlib.import_module(name).__name__ == name


def test_without_numba_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba refused: :func:`compiled.unavailable` is one line that says what to do, and
    :func:`compiled.load_kernels` raises the error with the same sentence and its code."""
    for name in list(sys.modules):
        if name == "numba" or name.startswith("numba."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "numba", None)
    for name in ("blink.games.goblink.fast.bots", "blink.games.goblink.fast.rules"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(compiled, "_LOADED", {})
    why = compiled.unavailable(KERNELS[1])
    assert why is not None and "\n" not in why
    assert "pip install numba" in why and "--engine exact" in why
    with pytest.raises(compiled.FastUnavailableError) as info:
        compiled.load_kernels(KERNELS[1])
    assert str(info.value) == why and info.value.code == "fast_unavailable"
