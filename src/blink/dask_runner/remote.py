"""What runs on a cluster's workers: the version probe, and a chunk of a simulation whose
records come back to the client instead of staying on the worker's disk.

Nothing here imports Dask: these are plain functions that the client sends to the workers
(:mod:`blink.dask_runner.client`).
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = ["ChunkResult", "RecordingJob", "run_chunk", "version_probe"]

R = TypeVar("R")


class RecordingJob(Protocol):
    """A simulator's job (a frozen dataclass): ``records`` names the directory that each
    match's record is written to, or is ``None``."""

    @property
    def records(self) -> str | None:
        """The records directory, or ``None``."""


ChunkResult = tuple[Any, list[tuple[str, bytes]]]
"""A chunk's result (its rows, or columns) and the records its matches wrote: (file name,
contents), sorted by name."""


def version_probe() -> Callable[[], str | None]:
    """A function for ``Client.run`` that returns the worker's ``blink.__version__``, or
    ``None`` when the worker cannot import blink.

    It is made here, inside a function, so that it is sent to the workers by value (cloudpickle
    pickles a function it cannot find by its module and name with its code): a worker without
    blink can still run it.
    """

    def probe() -> str | None:
        import importlib

        try:
            blink = importlib.import_module("blink")
        except ImportError:
            return None
        return str(getattr(blink, "__version__", "unknown"))

    return probe


def run_chunk(
    fn: Callable[[Any, int, int], R], job: RecordingJob, start: int, stop: int
) -> ChunkResult:
    """``fn(job, start, stop)`` on this worker. When the job writes records, they are written
    to a temporary directory here and returned, for the client to write where it was asked to:
    the same bytes a local run writes."""
    if job.records is None:
        return fn(job, start, stop), []
    folder = tempfile.mkdtemp(prefix="blink-records-")
    try:
        local = dataclasses.replace(job, records=folder)  # type: ignore[type-var]
        rows = fn(local, start, stop)
        files = sorted((p.name, p.read_bytes()) for p in Path(folder).iterdir() if p.is_file())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows, files
