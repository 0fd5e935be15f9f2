"""``blink simulate --cluster``: a Dask LocalCluster of real worker processes gives the same
summary and the same record files as a local run with the same seed, for every classic engine
and for Go Blink; and every way a cluster cannot be used is one sentence and exit status 2.

The clusters are started by fixtures and closed after their tests; their worker processes
also exit by themselves when this process dies (Dask's nannies watch their parent's pipe), and
the first fixture checks that closing it leaves none running.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster
from typer.testing import CliRunner

from blink import __version__
from blink.children import die_with_parent
from blink.cli import app
from blink.dask_runner import ClusterError, connect, parse_address
from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.runner import Job, run

runner = CliRunner()

TIMEOUT = 120.0
"""Seconds to wait for anything a cluster does (generous: the machine may be busy)."""


def _start(workers: int, preload: str | None = None) -> LocalCluster:
    """A LocalCluster of ``workers`` worker processes (one thread each), on free ports."""
    extra = {"preload": [preload]} if preload is not None else {}
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        scheduler_port=0,
        **extra,  # type: ignore[arg-type]
    )


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.05)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The scheduler address of a LocalCluster of two worker processes."""
    lc = _start(2)
    try:
        with Client(lc.scheduler_address, timeout=TIMEOUT) as client:
            client.wait_for_workers(2, timeout=TIMEOUT)
            pids = list(client.run(os.getpid).values())
        assert len(pids) == 2 and all(p != os.getpid() for p in pids)
        yield lc.scheduler_address
    finally:
        lc.close()
    _wait_until(lambda: not any(_alive(p) for p in pids), f"workers {pids} outlived the cluster")


def _sim(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["simulate", *args])
    return res.exit_code, res.stdout, res.stderr


def _summary(out: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    data.pop("elapsed_s")  # the one figure that differs from run to run
    return data


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    "args",
    [
        ["--engine", "exact", "--games", "60", "--bot", "champion:blocker", "--bot", "beginner"],
        ["--engine", "exact", "--games", "9", "--best-of", "3", "--players", "3"],
        ["--games", "3000", "--bot", "expert", "--bot", "expert:random"],
        ["--engine", "fast", "--games", "40", "--best-of", "3"],
        ["--engine", "fast", "--games", "2000", "--bot", "expert", "--bot", "beginner"],
        ["--game", "goblink", "--games", "40", "--players", "3", "--bot", "memory,greedy"],
    ],
    ids=["exact", "exact-series-3p", "default-fast", "fast-series", "fast", "goblink"],
)
def test_the_cluster_gives_the_local_results(cluster: str, args: list[str]) -> None:
    code, out, err = _sim(*args, "--seed", "11", "--json", "--cluster", cluster)
    assert code == 0, err
    code, local, err = _sim(*args, "--seed", "11", "--json", "--workers", "2")
    assert code == 0, err
    assert _summary(out) == _summary(local)
    code, other, _ = _sim(*args, "--seed", "12", "--json", "--cluster", cluster)
    assert code == 0 and _summary(other) != _summary(out)  # the seed is what decides


@pytest.mark.parametrize(
    "args",
    [
        ["--engine", "exact", "--games", "25"],
        ["--engine", "fast", "--games", "30", "--best-of", "3"],
        ["--game", "goblink", "--games", "15"],
    ],
    ids=["exact", "fast-series", "goblink"],
)
def test_records_are_written_here_with_the_local_bytes(
    cluster: str, args: list[str], tmp_path: Path
) -> None:
    there, here = tmp_path / "cluster", tmp_path / "local"
    code, out, err = _sim(*args, "--seed", "3", "--records", str(there), "--cluster", cluster)
    assert code == 0, err
    assert "records written to" in out
    code, _, err = _sim(*args, "--seed", "3", "--records", str(here), "--workers", "1")
    assert code == 0, err
    mine = _files(there)
    assert len(mine) == int(args[args.index("--games") + 1])
    assert mine == _files(here)


def test_go_blink_own_command_takes_the_cluster(cluster: str) -> None:
    args = ["goblink", "simulate", "--games", "12", "--bot", "memory", "--json", "--seed", "4"]
    there = runner.invoke(app, [*args, "--cluster", cluster])
    here = runner.invoke(app, ["simulate", "--game", "goblink", "--games", "12", *args[4:]])
    assert there.exit_code == 0, there.stderr
    assert _summary(there.stdout) == _summary(here.stdout)


def test_a_sweep_runs_on_the_cluster(cluster: str) -> None:
    # Every point plays the same chunks (matches 0-29) with other bots: each its own result.
    args = ["sweep", "--param", "speed", "--values", "0.5,2", "--games", "30", "--json"]
    code, out, err = _sim(*args, "--cluster", cluster)
    assert code == 0, err
    code, local, _ = _sim(*args, "--workers", "1")
    assert json.loads(out) == json.loads(local)


def test_the_executor_reports_progress_and_runs_on_the_workers(cluster: str) -> None:
    specs = (BotSpec.parse("expert"), BotSpec.parse("beginner"))
    job = Job(specs, seed=8)
    seen: list[int] = []
    with connect(cluster, TIMEOUT) as remote:
        assert remote.threads == 2
        result = run(job, 50, remote.threads, seen.append, executor=remote.executor)
        with Client(cluster, timeout=TIMEOUT) as client:
            # The scheduler kept the name of every kind of task it ran: blink's chunks too.
            prefixes = client.run_on_scheduler(
                lambda dask_scheduler: list(dask_scheduler.task_prefixes)
            )
    assert "blink-matches" in prefixes  # the chunks' keys: blink-matches-START-END-...
    assert sum(seen) == 50 and len(seen) > 1  # one step per chunk, as the chunks finished
    assert [r.number for r in result.rows] == list(range(50))
    assert result.rows == run(job, 50, 1).rows


def test_workers_given_with_a_cluster_are_refused(cluster: str) -> None:
    code, out, err = _sim("--games", "5", "--workers", "2", "--cluster", cluster)
    assert code == 2 and out == ""
    assert "--workers counts local processes" in err


@pytest.mark.parametrize(
    "address",
    ["scheduler", "tcp://host", "http://127.0.0.1:8786", "tcp://127.0.0.1:99999", "tcp://:8786"],
)
def test_a_bad_address_is_one_sentence(address: str) -> None:
    code, out, err = _sim("--games", "5", "--cluster", address)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"Error: --cluster needs a Dask scheduler's address like tcp://HOST:PORT, not {address!r}"
    )


def test_addresses_dask_takes() -> None:
    assert parse_address("127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert parse_address(" tls://sched.example:9000 ") == "tls://sched.example:9000"
    assert parse_address("tcp://[::1]:8786") == "tcp://[::1]:8786"
    with pytest.raises(ClusterError) as info:
        parse_address("tcp://host:0")
    assert info.value.code == "bad-address"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_an_unreachable_scheduler_is_one_sentence() -> None:
    address = f"tcp://127.0.0.1:{_closed_port()}"
    code, out, err = _sim("--games", "5", "--cluster", address, "--cluster-timeout", "1")
    assert code == 2 and out == ""
    assert err.strip().startswith(f"Error: no Dask scheduler answered at {address} within 1 s")
    assert len(err.strip().splitlines()) == 1
    code, _, err = _sim("--games", "5", "--cluster", address, "--cluster-timeout", "0")
    assert code == 2 and "--cluster-timeout must be more than 0" in err


def test_go_blink_says_it_in_its_own_words() -> None:
    address = f"tcp://127.0.0.1:{_closed_port()}"
    res = runner.invoke(
        app, ["goblink", "simulate", "--games", "3", "--cluster", address, "--cluster-timeout", "1"]
    )
    assert res.exit_code == 2
    assert res.stderr.startswith(f"blink simulate: no Dask scheduler answered at {address}")


def test_without_dask_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes the import fail
    code, out, err = _sim("--games", "5", "--cluster", "tcp://127.0.0.1:8786")
    assert code == 2 and out == ""
    assert err.strip() == 'Error: --cluster needs Dask distributed: pip install ".[cluster]"'


def test_a_cluster_without_workers_is_one_sentence() -> None:
    lc = _start(0)
    try:
        code, out, err = _sim(
            "--games", "5", "--cluster", lc.scheduler_address, "--cluster-timeout", "1"
        )
    finally:
        lc.close()
    assert code == 2 and out == ""
    assert "has no workers" in err and "dask worker" in err


NO_BLINK = """
import sys

class NoBlink:
    def find_spec(self, name, path=None, target=None):
        if name == "blink" or name.startswith("blink."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

for name in [m for m in sys.modules if m == "blink" or m.startswith("blink.")]:
    del sys.modules[name]
sys.meta_path.insert(0, NoBlink())
"""
"""A worker preload (Dask runs the text as a module): this worker cannot import blink."""

OTHER_VERSION = """
import blink
blink.__version__ = "0.0.1+other"
"""
"""A worker preload: this worker's blink says it is another version."""


def test_workers_without_blink_are_named_before_anything_runs() -> None:
    lc = _start(1, NO_BLINK)
    try:
        code, out, err = _sim("--games", "5", "--cluster", lc.scheduler_address)
    finally:
        lc.close()
    assert code == 2 and out == ""
    assert "1 of the 1 workers of" in err and "cannot import blink" in err
    assert f"install blink {__version__} on every worker" in err


def test_workers_with_another_blink_are_named_before_anything_runs() -> None:
    lc = _start(1, OTHER_VERSION)
    try:
        code, out, err = _sim(
            "--game", "goblink", "--games", "5", "--cluster", lc.scheduler_address
        )
    finally:
        lc.close()
    assert code == 2 and out == ""
    assert "run blink 0.0.1+other" in err and f"this is blink {__version__}" in err


DIES = """
import os
import blink.games.goblink.sim as sim

def die(*args):
    os._exit(3)

sim.play_one = die
sim._fast_chunk = die
"""
"""A worker preload: the worker process dies as soon as it plays a Go Blink game."""


def _restarted(lc: LocalCluster) -> bool:
    """Whether the scheduler itself (not the cluster's cached view of it) holds a worker
    again, and every nanny's worker process has started."""
    scheduler = lc.scheduler
    assert scheduler is not None
    return len(scheduler.workers) == 1 and all(
        nanny.process is not None
        and nanny.process.process is not None
        and nanny.process.process.pid is not None
        for nanny in lc.workers.values()
    )


def test_workers_lost_until_dask_gives_up_is_one_sentence() -> None:
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        lc = _start(1, DIES)
        try:
            code, out, err = _sim(
                "--game", "goblink", "--games", "4", "--cluster", lc.scheduler_address
            )
            # The nanny starts its worker again after Dask gave up; closing the cluster while
            # it does fails inside Dask ("can only join a started process").
            _wait_until(lambda: _restarted(lc), "no worker came back")
        finally:
            lc.close()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("blink simulate: the workers running matches ")
    assert "died 2 times and Dask gave up" in lines[0]


def _blink_tasks(client: Client) -> int:
    """How many of blink's chunks the scheduler holds now."""
    count: int = client.run_on_scheduler(
        lambda dask_scheduler: sum(str(k).startswith("blink-") for k in dask_scheduler.tasks)
    )
    return count


def test_ctrl_c_cancels_the_cluster_work_and_prints_what_finished(cluster: str) -> None:
    """Ctrl-C once chunks run on the workers: exit 130, the summary of the matches finished
    (none, or some), and nothing of the run left on the scheduler. Nothing waits for a guessed
    time: the test polls the scheduler."""
    cmd = [sys.executable, "-m", "blink", "simulate", "--games", "1000000", "--json"]
    with Client(cluster, timeout=TIMEOUT) as client:
        proc = subprocess.Popen(
            [*cmd, "--cluster", cluster],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=die_with_parent,  # the run dies with this test, whatever happens
        )
        try:
            _wait_until(lambda: _blink_tasks(client) > 0, "no chunk reached the scheduler")
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=TIMEOUT)
        finally:
            proc.kill()
            proc.wait()
        assert proc.returncode == 130, err
        data = json.loads(out)
        assert data["interrupted"] is True and data["requested"] == 1000000
        assert data["games"] < 1000000
        _wait_until(lambda: _blink_tasks(client) == 0, "the run's chunks stayed on the cluster")
