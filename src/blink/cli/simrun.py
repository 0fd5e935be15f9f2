"""What every game's ``blink simulate`` shares: its options, its progress bar, and where the
games run (local processes, or a Dask cluster's workers with ``--cluster``).

Each game's own simulation command (``run_simulation`` of its commands module,
:attr:`blink.model.registry.FrontEnd.commands`; the default game's is ``blink simulate``,
:mod:`blink.cli.simulate`) takes the same :class:`SimulationOptions`, and runs its simulator
inside :func:`pool`, which gives the parallelism and the executor to hand it. Rich and Dask
are imported inside the functions.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from blink.dask_runner.client import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = [
    "ClusterOpt",
    "ClusterTimeoutOpt",
    "Pool",
    "SimulationOptions",
    "check_outputs",
    "pool",
    "progress_bar",
    "rich_progress",
]

ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Run the games on the Dask cluster whose scheduler is at tcp://HOST:PORT (Dask: "
        "the cluster extra; its workers need this blink): the same results as here.",
    ),
]
ClusterTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--cluster-timeout", help="Seconds to wait for the scheduler, and for a first worker."
    ),
]


@dataclass(frozen=True)
class SimulationOptions:
    """The options of a game's simulation on the command line, as the user gave them."""

    games: int
    players: int | None = None
    """``None``: the game's rule (the number of bots named, or its default)."""
    bots: tuple[str, ...] = ()
    seed: int = 0
    workers: int | None = None
    """Local processes; ``None``: every core (or the cluster's workers with :attr:`cluster`)."""
    json_out: bool = False
    plot: Path | None = None
    records: Path | None = None
    cluster: str | None = None
    """A Dask scheduler's address: run the games on its workers."""
    cluster_timeout: float = DEFAULT_TIMEOUT
    engine: str | None = None
    """The simulator's engine as the user named it (``--engine``); ``None``: the game's default.
    A game refuses an engine it does not have, with a sentence naming its engines."""


def check_outputs(plot: Path | None, records: Path | None, fail: Callable[[str], NoReturn]) -> None:
    """Check a simulation's ``--plot`` file and ``--records`` folder before any game is played
    (:mod:`blink.tui.outputs`: the folder must exist; the records folder itself is made);
    ``fail(sentence)`` is called (it exits) for one that cannot be written."""
    from blink.tui.outputs import OutputPathError, check_output_file, check_output_folder

    if plot is not None and plot.suffix.lower() != ".png":
        fail(f"--plot needs a .png file name, not {plot}")
    try:
        if plot is not None:
            check_output_file(plot, "--plot")
        if records is not None:
            check_output_folder(records, "--records")
    except OutputPathError as exc:
        fail(str(exc))


@dataclass(frozen=True)
class Pool:
    """Where a simulation runs: its parallelism, and the executor to give the simulator
    (``None``: its own local process pool)."""

    workers: int
    executor: Executor | None = None


@contextlib.contextmanager
def pool(options: SimulationOptions, fail: Callable[[str], NoReturn]) -> Iterator[Pool]:
    """The local processes, or the connected cluster's workers, for the run inside.

    ``fail(sentence)`` is called (it exits) for a bad option, a cluster that cannot be used and
    a cluster failure during the run (:class:`blink.dask_runner.ClusterError`).
    """
    if options.workers is not None and options.workers < 1:
        fail(f"--workers must be at least 1, not {options.workers}")
    if options.cluster is None:
        yield Pool(options.workers or os.cpu_count() or 1)
        return
    if options.workers is not None:
        fail("--workers counts local processes: with --cluster the cluster's workers play")
    from blink.dask_runner import ClusterError, connect

    try:
        with connect(options.cluster, options.cluster_timeout) as cluster:
            yield Pool(cluster.threads, cluster.executor)
    except ClusterError as exc:
        fail(str(exc))


def rich_progress() -> Progress:
    """The commands' Rich progress bar on stderr, gone when done: what it does, a bar, the
    count done of all, the time taken and the time left."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


@contextlib.contextmanager
def progress_bar(total: int, description: str) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on stderr (gone when done) for ``total`` items; yields the function
    that advances it by ``k`` items."""
    bar = rich_progress()
    with bar:
        task = bar.add_task(description, total=total)
        yield lambda k: bar.advance(task, k)
