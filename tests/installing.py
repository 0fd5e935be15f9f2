"""Installing a distribution for a test: with pip, into a folder of its own (``--target``),
not the environment's site-packages, so its own ``pyproject.toml`` declares its entry points
and nothing outlives the test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def install_into(source: Path, site: Path, timeout: float = 300) -> None:
    """Install the distribution at ``source`` into the folder ``site`` (offline, no
    dependencies, built with what is installed); fails the test with pip's output."""
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
