"""Many simulated games or series, in parallel processes, reproducible whatever the workers.

Match ``i`` of a run with master seed ``s`` is seeded ``derive_seed(s, i)``, so its result does
not depend on which process plays it or in what order; rows come back sorted by index.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from blink.games.classic.bots import BotSpec
from blink.games.classic.rules import OFFICIAL, Ruleset
from blink.games.classic.sim.core import (
    BEHIND_MARGIN,
    DEFAULT_CONFIG,
    MAX_SERIES_GAMES,
    GameResult,
    SimConfig,
    simulate_game,
    simulate_series,
)
from blink.match import Series
from blink.sim.pool import worker_pool
from blink.sim.seeds import derive_seed, item_seeds

if TYPE_CHECKING:
    import numpy.typing as npt

    from blink.games.classic.record import GameRecord

__all__ = [
    "ENGINES",
    "Chunk",
    "GameColumns",
    "GameRow",
    "Job",
    "MatchRow",
    "RunResult",
    "SimulationError",
    "UnknownEngineError",
    "chunk_columns",
    "default_engine",
    "run",
    "run_chunk",
]

ENGINES = ("exact", "fast")
"""``exact``: game by game through the rules engine and the bot objects live play uses
(:mod:`blink.games.classic.sim.core`); ``fast``: the same rules and bots compiled with numba
(:mod:`blink.games.classic.sim.fast`), checked against the exact engine, about fifty times
faster, other deals."""


class UnknownEngineError(ValueError):
    """An engine name that is not one of :data:`ENGINES`."""

    code = "unknown_engine"

    def __init__(self, name: str) -> None:
        gone = " (the batch engine was replaced by the fast one)" if name == "batch" else ""
        super().__init__(f"unknown engine {name!r}{gone}: the engines are {', '.join(ENGINES)}")
        self.name = name


def default_engine(specs: Sequence[object]) -> str:
    """The engine a run of ``specs`` gets when none is asked for: ``fast`` when it plays every
    seat (each a ``level:strategy`` spec whose strategy has a kernel form), else ``exact``.

    It depends on the bots alone, never on what is installed: without numba a run it would
    give the fast engine is refused (:func:`blink.games.classic.sim.fast.unavailable`), not
    played by the exact engine instead.
    """
    from blink.games.classic.sim.fast import NoKernelFormError, check_specs

    try:
        check_specs(specs)
    except NoKernelFormError:
        return "exact"
    return "fast"


class GameRow(NamedTuple):
    """The statistics of one game (compact and picklable)."""

    winners: tuple[int, ...]
    reason: str
    plays: int
    duration: float
    stalls: int
    flips: int
    choices: int
    dead_ends: int
    defaults: int
    from_behind: bool

    @classmethod
    def of(cls, g: GameResult) -> GameRow:
        """The row of a simulated game."""
        return cls(
            g.outcome.winners,
            g.outcome.reason,
            g.plays,
            g.duration,
            g.stalls,
            g.flips,
            g.choices,
            g.dead_ends,
            g.defaults,
            g.won_from_behind,
        )


class MatchRow(NamedTuple):
    """One match: a single game, or a best-of-N series. ``winners`` has one seat unless tied."""

    number: int
    """The match's index in the run (its seed is ``derive_seed(master, number)``)."""
    winners: tuple[int, ...]
    games: tuple[GameRow, ...]


@dataclass(frozen=True)
class GameColumns:
    """Single games' statistics as columns: numpy arrays with one entry per game, in match
    order. The fast engine's chunks come back as these rather than as a row per game, whose
    pickling cost about as much as playing the game; :meth:`rows` builds the rows."""

    numbers: npt.NDArray[Any]
    """Each game's match index in the run."""
    players: int
    reasons: tuple[str, ...]
    """The reasons a game ends, by the codes of :attr:`reason`."""
    winners: npt.NDArray[Any]
    """The winning seats as a bit set (seat ``p`` is bit ``p``; more than one bit: a tie)."""
    reason: npt.NDArray[Any]
    plays: npt.NDArray[Any]
    duration: npt.NDArray[Any]
    stalls: npt.NDArray[Any]
    flips: npt.NDArray[Any]
    choices: npt.NDArray[Any]
    dead_ends: npt.NDArray[Any]
    defaults: npt.NDArray[Any]
    from_behind: npt.NDArray[Any]

    def __len__(self) -> int:
        return len(self.numbers)

    def winner_sets(self) -> list[tuple[int, ...]]:
        """The seats of every bit set of :attr:`winners`, by its value."""
        n = self.players
        return [tuple(p for p in range(n) if w >> p & 1) for w in range(1 << n)]

    def rows(self) -> list[MatchRow]:
        """Each game as the row of a match of one game."""
        sets = self.winner_sets()
        cols = (
            self.numbers, self.winners, self.reason, self.plays, self.duration, self.stalls,
            self.flips, self.choices, self.dead_ends, self.defaults, self.from_behind,
        )  # fmt: skip
        out = []
        for i, w, why, *rest in zip(*(c.tolist() for c in cols), strict=True):
            out.append(MatchRow(i, sets[w], (GameRow(sets[w], self.reasons[why], *rest),)))
        return out

    @classmethod
    def join(cls, parts: Sequence[GameColumns]) -> GameColumns:
        """The games of ``parts`` (at least one, of the same setting), in that order."""
        import numpy as np

        first = parts[0]
        arrays = {
            f.name: np.concatenate([getattr(p, f.name) for p in parts])
            for f in dataclasses.fields(cls)
            if f.name not in ("players", "reasons")
        }
        return cls(players=first.players, reasons=first.reasons, **arrays)


Chunk = list[MatchRow] | GameColumns
"""What a chunk of a run gives back: its matches' rows, or the fast engine's single games as
columns."""


@dataclass(frozen=True)
class Job:
    """What to simulate: the same setting for every match of a run."""

    specs: tuple[BotSpec, ...]
    seed: int = 0
    best_of: int = 1
    ruleset: Ruleset = OFFICIAL
    sizes: tuple[int, ...] | None = None
    config: SimConfig = DEFAULT_CONFIG
    records: str | None = None
    """A directory to write each match's record to (``game-000001.json``/``series-...``)."""
    engine: str = "exact"
    """One of :data:`ENGINES` (:func:`default_engine` chooses for a set of bots)."""

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise UnknownEngineError(self.engine)
        if self.engine == "fast":
            from blink.games.classic.sim.fast import check_specs

            check_specs(self.specs)  # a bot it cannot play is refused here, before any game

    def play(self, index: int) -> MatchRow:
        """Simulate match ``index`` (and write its record if asked)."""
        seed = derive_seed(self.seed, index)
        keep = self.records is not None
        if self.best_of == 1:
            g = simulate_game(
                self.specs,
                seed,
                ruleset=self.ruleset,
                sizes=self.sizes,
                config=self.config,
                keep_game=keep,
            )
            if self.records is not None:
                rec = g.record
                rec.meta["index"] = index
                Path(self.records, f"game-{index:06d}.json").write_text(rec.to_json())
            return MatchRow(index, g.outcome.winners, (GameRow.of(g),))
        s = simulate_series(
            self.specs,
            self.best_of,
            seed,
            ruleset=self.ruleset,
            sizes=self.sizes,
            config=self.config,
            keep_games=keep,
        )
        if self.records is not None:
            srec = s.record
            srec.meta.update(index=index, seed=seed, bots=[str(b) for b in self.specs])
            Path(self.records, f"series-{index:06d}.json").write_text(srec.to_json())
        winners = (s.winner,) if s.winner is not None else tuple(range(len(self.specs)))
        return MatchRow(index, winners, tuple(GameRow.of(g) for g in s.games))


def run_chunk(job: Job, start: int, stop: int) -> list[MatchRow]:
    """Matches ``start`` to ``stop - 1`` of ``job``."""
    if job.engine == "fast":
        if job.best_of == 1 and job.records is None:
            return chunk_columns(job, start, stop).rows()
        try:
            return _fast_chunk(job, start, stop)
        except Exception as exc:
            raise _failed(job, start, stop, exc) from None
    out = []
    for i in range(start, stop):
        try:
            out.append(job.play(i))
        except Exception as exc:  # report which game failed, in a form any process can read
            raise SimulationError(
                f"match {i} (seed {job.seed}) failed: {type(exc).__name__}: {exc}"
            ) from None
    return out


def _failed(job: Job, start: int, stop: int, exc: Exception) -> SimulationError:
    return SimulationError(
        f"matches {start}-{stop - 1} (seed {job.seed}, {job.engine} engine) failed: "
        f"{type(exc).__name__}: {exc}"
    )


def chunk_columns(job: Job, start: int, stop: int) -> GameColumns:
    """Single games ``start`` to ``stop - 1`` of ``job`` on the fast engine (a job of single
    games without records), as columns read straight from its arrays."""
    if job.engine != "fast" or job.best_of != 1 or job.records is not None:
        raise ValueError("columns are for the fast engine's single games without records")
    try:
        import numpy as np

        from blink.games.classic.sim.fast import REASONS, result_columns, run_bots

        run = run_bots(
            job.specs,
            item_seeds(job.seed, start, stop),
            ruleset=job.ruleset,
            sizes=job.sizes,
            config=job.config,
        )
        cols = result_columns(run, BEHIND_MARGIN)
    except Exception as exc:
        raise _failed(job, start, stop, exc) from None
    numbers = np.arange(start, stop, dtype=np.int64)
    return GameColumns(numbers, len(job.specs), tuple(REASONS), *cols)


def _chunk_of(job: Job) -> Callable[[Job, int, int], Chunk]:
    """How a run of ``job`` plays a chunk: as columns when it can, else as rows."""
    if job.engine == "fast" and job.best_of == 1 and job.records is None:
        return chunk_columns
    return run_chunk


def _fast_chunk(job: Job, start: int, stop: int) -> list[MatchRow]:
    """Matches ``start`` to ``stop - 1`` of ``job`` on the fast engine, with records or in
    series (game by game: every undecided series of the chunk plays its next game in one call)."""
    from blink.games.classic.record import SeriesRecord
    from blink.games.classic.sim.fast import simulate_fast, to_record

    indices = list(range(start, stop))
    match_seed = {i: derive_seed(job.seed, i) for i in indices}
    keep = job.records is not None
    games: dict[int, list[GameResult]] = {i: [] for i in indices}
    records: dict[int, list[GameRecord]] = {i: [] for i in indices}
    series = {i: Series(job.best_of, len(job.specs)) for i in indices}
    active = indices
    while active:
        if job.best_of == 1:
            seeds = [match_seed[i] for i in active]
        else:
            seeds = [derive_seed(match_seed[i], "game", len(games[i])) for i in active]
        out = simulate_fast(
            job.specs, seeds, ruleset=job.ruleset, sizes=job.sizes, config=job.config, records=keep
        )
        for i, item in zip(active, out, strict=True):
            res = item.result
            if keep:
                records[i].append(to_record(item, job.ruleset, job.sizes))
            games[i].append(res)
            series[i].record(res.outcome.winners)
        if job.best_of == 1:
            break
        active = [i for i in active if not series[i].over and len(games[i]) < MAX_SERIES_GAMES]
    rows = []
    for i in indices:
        if job.best_of == 1:
            g = games[i][0]
            if job.records is not None:
                rec = records[i][0]
                rec.meta["index"] = i
                Path(job.records, f"game-{i:06d}.json").write_text(rec.to_json())
            rows.append(MatchRow(i, g.outcome.winners, (GameRow.of(g),)))
            continue
        s = series[i]
        if job.records is not None:
            srec = SeriesRecord(job.best_of, records[i], {"simulated": True})
            srec.meta.update(
                index=i, seed=match_seed[i], bots=[str(b) for b in job.specs], engine=job.engine
            )
            Path(job.records, f"series-{i:06d}.json").write_text(srec.to_json())
        winners = (s.winner,) if s.winner is not None else tuple(range(len(job.specs)))
        rows.append(MatchRow(i, winners, tuple(GameRow.of(g) for g in games[i])))
    return rows


class SimulationError(RuntimeError):
    """A simulated match failed (a bug): the message names the match and the master seed."""


@dataclass
class RunResult:
    """The matches finished (sorted by index) and whether the run was interrupted."""

    interrupted: bool = False
    requested: int = 0
    parts: list[Chunk] = field(default_factory=list)
    """Each chunk finished, in match order: its rows, or the fast engine's single games as
    columns."""

    @cached_property
    def rows(self) -> list[MatchRow]:
        """Every match finished, in index order (built from the columns on first use)."""
        out: list[MatchRow] = []
        for part in self.parts:
            out.extend(part.rows() if isinstance(part, GameColumns) else part)
        return out

    @cached_property
    def columns(self) -> GameColumns | None:
        """Every match finished as columns, when every chunk came back as columns (the fast
        engine's single games without records); else ``None`` (and with no chunks)."""
        cols = [p for p in self.parts if isinstance(p, GameColumns)]
        if not cols or len(cols) != len(self.parts):
            return None
        return cols[0] if len(cols) == 1 else GameColumns.join(cols)

    @property
    def matches(self) -> int:
        """How many matches finished."""
        return sum(len(p) for p in self.parts)


def _first(part: Chunk) -> int:
    """The index of the first match of a chunk."""
    return int(part.numbers[0]) if isinstance(part, GameColumns) else part[0].number


def _chunks(n: int, workers: int, engine: str = "exact") -> list[tuple[int, int]]:
    if engine != "fast":
        size = max(1, min(200, n // max(1, workers * 8)))
        return [(i, min(n, i + size)) for i in range(0, n, size)]
    # Chunks of up to 2,000 games (a call costs about 0.1 ms, and each chunk about 0.5 ms of the
    # parent's time), smaller towards the end of the run so that no worker is left alone
    # finishing a big one (2,000 games: 80 ms, a tenth of a 40,000-game run on two workers).
    out = []
    i = 0
    while i < n:
        size = max(100, min(2000, (n - i) // max(1, workers * 4)))
        out.append((i, min(n, i + size)))
        i += size
    return out


@contextlib.contextmanager
def _ctrl_c_as_flag() -> Iterator[threading.Event]:
    """While inside, Ctrl-C sets the event instead of raising ``KeyboardInterrupt``.

    A ``KeyboardInterrupt`` raised at an arbitrary point can land inside the process pool's
    own code while it holds a lock, and the pool's shutdown then waits for ever (seen on a
    busy machine). A flag is checked between batches instead. Off the main thread, where no
    handler can be installed, Ctrl-C raises as usual.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def run(
    job: Job,
    matches: int,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Simulate ``matches`` matches of ``job`` on ``workers`` processes (default: all cores).

    ``progress(k)`` is called as each batch of ``k`` matches finishes. Ctrl-C stops the run
    and returns the matches finished so far with ``interrupted`` set. ``executor``: run the
    batches there instead (for example a cluster's, :mod:`blink.dask_runner`), ``workers``
    being its parallelism; the same batches, so the same results. It is not shut down.
    """
    if workers is None:
        workers = os.cpu_count() or 1
    if job.records is not None:
        Path(job.records).mkdir(parents=True, exist_ok=True)
    out = RunResult(requested=matches)
    chunks = _chunks(matches, workers, job.engine)
    play = _chunk_of(job)
    if workers <= 1 and executor is None:
        try:
            for start, stop in chunks:
                out.parts.append(play(job, start, stop))
                if progress is not None:
                    progress(stop - start)
        except KeyboardInterrupt:
            out.interrupted = True
        return out
    done: list[Chunk] = []
    pool = worker_pool(workers) if executor is None else executor
    pending: set[Future[Chunk]] = set()
    try:
        with _ctrl_c_as_flag() as halt:
            try:
                todo = iter(chunks)
                # Keep a few batches per worker queued, so Ctrl-C has little to wait for.
                for chunk in todo:
                    pending.add(pool.submit(play, job, *chunk))
                    if len(pending) >= 3 * workers:
                        break
                while pending and not halt.is_set():
                    finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                    for f in finished:
                        part = f.result()
                        done.append(part)
                        if progress is not None:
                            progress(len(part))
                        nxt = next(todo, None)
                        if nxt is not None and not halt.is_set():
                            pending.add(pool.submit(play, job, *nxt))
            except KeyboardInterrupt:  # Ctrl-C off the main thread: the default handler's raise
                halt.set()
            if halt.is_set():
                out.interrupted = True
                for f in pending:
                    f.cancel()
                # Batches already finished (or finishing now) still count.
                finished, _ = wait(pending, timeout=1.0)
                for f in finished:
                    if not f.cancelled() and f.exception() is None:
                        done.append(f.result())
    finally:
        if executor is None:
            pool.shutdown(wait=not out.interrupted, cancel_futures=True)
        else:
            for f in pending:
                f.cancel()
    out.parts = sorted((p for p in done if len(p)), key=_first)
    return out


def run_list(job: Job, indices: Sequence[int]) -> list[MatchRow]:
    """Specific matches of ``job`` in this process (for tests and spot checks)."""
    return [job.play(i) for i in indices]
