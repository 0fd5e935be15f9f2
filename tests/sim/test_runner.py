"""Parallel runs: identical results whatever the number of workers; statistics; workers that
die with their parent."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run
from blink.games.classic.sim.stats import Distribution, percentile, summarize, wilson

E = (BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random"))


def test_same_results_whatever_the_workers() -> None:
    job = Job(E, seed=5)
    one = run(job, 60, workers=1)
    two = run(job, 60, workers=2)
    assert not one.interrupted and not two.interrupted
    assert [r.number for r in one.rows] == list(range(60))
    assert one.rows == two.rows
    s1 = summarize(one.rows, 2).to_dict()
    s2 = summarize(two.rows, 2).to_dict()
    assert s1 == s2


def test_series_rows_and_progress() -> None:
    seen: list[int] = []
    res = run(Job(E, seed=2, best_of=3), 12, workers=2, progress=seen.append)
    assert sum(seen) == 12
    for row in res.rows:
        assert 2 <= len(row.games) <= 5
        assert len(row.winners) == 1
    summary = summarize(res.rows, 2, best_of=3)
    assert summary.matches == 12
    assert sum(summary.wins) + summary.ties == 12
    assert summary.games_played == sum(len(r.games) for r in res.rows)


def test_records_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from blink.games.classic.record import loads

    run(Job(E, seed=1, records=str(tmp_path)), 4, workers=2)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"game-{i:06d}.json" for i in range(4)]
    for f in files:
        loads(f.read_text()).verify()  # type: ignore[union-attr]


def test_wilson() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentiles() -> None:
    xs = [float(i) for i in range(11)]
    assert percentile(xs, 10) == 1.0
    assert percentile(xs, 90) == 9.0
    d = Distribution.of([3.0, 1.0, 2.0])
    assert (d.mean, d.median) == (2.0, 2.0)
    assert math.isnan(Distribution.of([]).mean)


def test_empty_summary_is_strict_json() -> None:
    import json

    data = summarize([], 2, interrupted=True, requested=10).to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["plays"] is None
    assert data["games"] == 0 and data["wins"] == [0, 0]


# -- worker processes die with their parent ---------------------------------------------------

_PARENT = """
import sys
from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run
inhuman = BotSpec.parse("inhuman")
run(Job((inhuman, inhuman), records=sys.argv[1]), 10**6, workers=2)  # hours of work
"""


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent id, start time) of a live process from /proc; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (command) "
    state, ppid, start = fields[0], int(fields[1]), fields[19]
    return None if state in ("Z", "X") else (state, ppid, start)  # a zombie has finished


def _descendants(root: int) -> dict[int, str]:
    """The live descendants of ``root``: process id -> start time (to tell a reused id)."""
    parents: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (st := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = (st[1], st[2])
    out: dict[int, str] = {}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, start) in parents.items():
            if pid not in out and (ppid == root or ppid in out):
                out[pid] = start
                grew = True
    return out


def _wait_until(cond: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Poll ``cond`` until it holds; fail after a generous ``timeout`` (a slow machine only
    makes this slower)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"{what} (after {timeout:.0f} s)"
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_workers_die_with_their_parent(tmp_path: Path) -> None:
    recs = tmp_path / "recs"
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(recs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the cleanup below reaches every worker
    )
    try:
        # Both workers started, and at least one of them past its start-up (it wrote a record).
        def running(cond: Callable[[], bool]) -> Callable[[], bool]:
            def check() -> bool:
                if parent.poll() is not None:
                    err = parent.stderr.read().decode() if parent.stderr else ""
                    raise AssertionError(f"the parent exited ({parent.returncode}): {err}")
                return cond()

            return check

        _wait_until(running(lambda: len(_descendants(parent.pid)) >= 2), "no two workers")
        _wait_until(running(lambda: recs.is_dir() and any(recs.iterdir())), "no game finished")
        workers = _descendants(parent.pid)
        assert len(workers) >= 2
        parent.kill()
        parent.wait()

        def gone() -> bool:
            return all((st := _stat(p)) is None or st[2] != t for p, t in workers.items())

        _wait_until(gone, f"workers {sorted(workers)} outlived their parent")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_a_worker_whose_parent_is_already_gone_exits_at_once() -> None:
    # In a child process (the request would otherwise apply to the test runner itself).
    code = "import os, sys\nfrom blink.children import die_with_parent\n"
    ok = subprocess.run(
        [sys.executable, "-c", code + "print(die_with_parent(os.getppid()))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ok.stdout.strip() == "True"
    # A parent id that is not this process's parent: the parent is taken to have died.
    orphan = subprocess.run(
        [sys.executable, "-c", code + f"die_with_parent({os.getpid()} + 10**6)\nprint('alive')"],
        capture_output=True,
        text=True,
    )
    assert orphan.returncode == 1 and "alive" not in orphan.stdout


def test_the_faster_seed_helpers_give_derive_seeds_values() -> None:
    from blink.sim.seeds import derive_seed, derive_seeds_of, item_seeds

    for master in (0, 7, -3, 2**70):
        assert item_seeds(master, 5, 60) == [derive_seed(master, i) for i in range(5, 60)]
        seeds = [derive_seed(master, i) for i in range(40)] + [-1, 0, 2**80]
        for tag in ("batch", "random", "a%b", "%d"):
            assert derive_seeds_of(seeds, tag) == [derive_seed(s, tag) for s in seeds]
