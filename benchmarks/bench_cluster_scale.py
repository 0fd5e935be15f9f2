"""What one acknowledged play costs a cluster of 1, 2 and 3 nodes at the same offered load.

    python benchmarks/bench_cluster_scale.py --nodes 1,2,3 --games 200 --duration 15 \\
        --warmup 4 --repeat 3

For each node count (in turn, ``--repeat`` times, the counts interleaved so that the machine's
other work falls on each alike) it starts a fresh local cluster (:class:`LocalCluster`: a
throwaway PostgreSQL with ``pg_stat_statements``, Redis, N ``blink serve --cluster`` nodes,
HAProxy), makes ``--games`` two-player rooms through HAProxy, and plays them with
``benchmarks/bench_load.py``'s client bots (two WebSockets a game, ``--rate`` plays a second
each, in a process of their own). After ``--warmup`` seconds it reads everything once, again
``--duration`` seconds later, and divides the differences by the plays the nodes applied
meanwhile (``blink_plays_applied_total``: each is acknowledged after its commit):

- CPU seconds of each node process, PostgreSQL (the postmaster and its backends, living and
  ended), Redis, HAProxy and the load generator (``/proc/PID/stat``);
- the nodes' own counters (``/metrics``): the storage writer's transactions and statements,
  the bus's messages sent and heard by kind;
- PostgreSQL's view: ``pg_stat_database`` (``xact_commit``, rows inserted) and
  ``pg_stat_statements`` (statements executed, every client: writer, leases, reads);
- Redis's ``INFO commandstats`` (commands executed; the nodes' Redis user may read ``INFO``
  in this benchmark's clusters only).

Before the load, with the rooms made and nobody playing, it measures each node's CPU for
``--idle`` seconds: what a node costs whatever its share of the plays (its timers, the leases'
checks, presence on the bus), shown as a share of each play at the load's rate. No house bot
plays, so the nodes start with ``BLINK_WARM_BOTS=0`` (no warming of the bots' searches).

``--per-node`` makes ``--games`` a number per node: N nodes play N times as many games, so
each node carries the same load whatever the count. A node's CPU per play falls as its load
rises (a busier loop does more per wake-up), so at the same offered load more nodes cost more
per play even when the cluster adds nothing; at the same load per node the ratios show what
the cluster itself adds, which is what a machine with a core per node would see.

``--pin-nodes CPUS`` keeps every node on those CPUs and everything else (PostgreSQL, Redis,
HAProxy, the load generator, this process) on the others: the nodes then share their CPUs
with each other only, as on a machine with cores set aside for them.

``--code A,B`` runs the nodes of two checkouts in turn (each run's nodes import ``blink``
from that folder's ``src``), for a change's before and after in the same run.

It prints, per node count, the medians over the repeats and their ratio to the first count,
with the load average at each run's end (the machine's other work shows there). Exits 2 with
one sentence on bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_load  # the load generator of the same folder
from blink.cluster import local
from blink.cluster.local import LocalCluster

TICK = os.sysconf("SC_CLK_TCK")
console = Console(stderr=True)


def proc_cpu(pid: int, with_children: bool = False) -> float:
    """CPU seconds of process ``pid`` (user and system); with its descendants, living
    (``/proc``) and ended (the reaped ones' times in its own ``cutime``/``cstime``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    total = int(fields[11]) + int(fields[12])
    if with_children:
        total += int(fields[13]) + int(fields[14])
    seconds = total / TICK
    if with_children:
        import psutil

        for child in psutil.Process(pid).children(recursive=True):
            try:
                t = child.cpu_times()
                seconds += t.user + t.system
            except psutil.Error:
                continue
    return seconds


def pin(pid: int, cpus: set[int]) -> None:
    """Keep every thread of process ``pid`` and of its descendants on ``cpus`` (threads and
    processes started later inherit it from their parent)."""
    import psutil

    procs = [psutil.Process(pid)]
    procs += procs[0].children(recursive=True)
    for proc in procs:
        for task in Path(f"/proc/{proc.pid}/task").iterdir():
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):  # a thread ended
                os.sched_setaffinity(int(task.name), cpus)


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a node's ``/metrics`` (name, sorted labels) -> value."""
    text = httpx.get(f"{url}/metrics", timeout=30).text
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def pg_counts(cluster: LocalCluster) -> dict[str, Any]:
    """PostgreSQL's own counts for the ``blink`` database."""
    import psycopg

    assert cluster.postgres is not None
    pg = cluster.postgres
    where = {"host": "127.0.0.1", "port": pg.port, "user": "postgres", "dbname": "blink"}
    with psycopg.connect(**where, password=pg.password, autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_fetched "
            "FROM pg_stat_database WHERE datname = 'blink'"
        ).fetchone()
        assert row is not None
        calls = conn.execute(
            "SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 70), sum(calls) "
            "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = 'blink' AND s.query NOT LIKE '%pg_stat%' GROUP BY 1"
        ).fetchall()
    names = ("xact_commit", "xact_rollback", "tup_inserted", "tup_updated", "tup_fetched")
    out: dict[str, Any] = {k: float(v) for k, v in zip(names, row, strict=True)}
    out["by_query"] = {q: float(n) for q, n in calls}
    out["statements"] = sum(out["by_query"].values())
    return out


def redis_counts(cluster: LocalCluster) -> dict[str, float]:
    """Redis's commands executed so far, by command (``INFO commandstats``; ``info`` left
    out: this benchmark's own)."""
    import redis

    assert cluster.redis is not None
    client = redis.Redis.from_url(cluster.redis.url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    out: dict[str, float] = {}
    for key, value in stats.items():
        name = key.removeprefix("cmdstat_")
        if name != "info":
            out[name] = float(value["calls"])
    return out


def snapshot(cluster: LocalCluster, loadgen: int) -> dict[str, Any]:
    """Everything counted so far."""
    assert cluster.postgres is not None and cluster.redis is not None
    assert cluster.postgres.proc is not None and cluster.redis.proc is not None
    assert cluster.haproxy is not None
    return {
        "node_cpu": [proc_cpu(n.proc.pid, True) for n in cluster.running],
        "pg_cpu": proc_cpu(cluster.postgres.proc.pid, True),
        "redis_cpu": proc_cpu(cluster.redis.proc.pid),
        "haproxy_cpu": proc_cpu(cluster.haproxy.pid),
        "loadgen_cpu": proc_cpu(loadgen, True),
        "metrics": [scrape(n.http) for n in cluster.running],
        "pg": pg_counts(cluster),
        "redis": redis_counts(cluster),
        "t": time.monotonic(),
    }


def _sum(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str) -> float:
    return sum(v for (n, _), v in samples.items() if n == name)


def _by(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, label: str
) -> dict[str, float]:
    out: dict[str, float] = {}
    for (n, labels), v in samples.items():
        if n == name:
            key = dict(labels).get(label, "")
            out[key] = out.get(key, 0.0) + v
    return out


def figures(a: dict[str, Any], b: dict[str, Any], nodes: int) -> dict[str, Any]:
    """The measurement window's figures (``b`` minus ``a``), per play where it says so."""
    seconds = b["t"] - a["t"]
    plays_by_node = [
        _sum(mb, "blink_plays_applied_total") - _sum(ma, "blink_plays_applied_total")
        for ma, mb in zip(a["metrics"], b["metrics"], strict=True)
    ]
    plays = sum(plays_by_node) or float("nan")

    def node_total(name: str) -> float:
        return sum(
            _sum(mb, name) - _sum(ma, name)
            for ma, mb in zip(a["metrics"], b["metrics"], strict=True)
        )

    def kinds(name: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for ma, mb in zip(a["metrics"], b["metrics"], strict=True):
            before = _by(ma, name, "kind")
            for k, v in _by(mb, name, "kind").items():
                out[k] = out.get(k, 0.0) + v - before.get(k, 0.0)
        return {k: round(v / plays, 4) for k, v in sorted(out.items()) if v}

    node_cpu = [y - x for x, y in zip(a["node_cpu"], b["node_cpu"], strict=True)]
    pg = {k: b["pg"][k] - a["pg"][k] for k in a["pg"] if k != "by_query"}
    queries = {q: n - a["pg"]["by_query"].get(q, 0.0) for q, n in b["pg"]["by_query"].items()}
    top = sorted(queries.items(), key=lambda item: -item[1])[:8]
    redis_cmds = {k: v - a["redis"].get(k, 0.0) for k, v in b["redis"].items()}
    per = 1000 / plays  # milliseconds (or thousandths) per play
    return {
        "nodes": nodes,
        "seconds": round(seconds, 2),
        "plays": int(sum(plays_by_node)),
        "plays_per_s": round(sum(plays_by_node) / seconds, 1),
        "plays_by_node": [int(p) for p in plays_by_node],
        "node_cpu_ms_per_play": [round(c * per, 4) for c in node_cpu],
        "nodes_cpu_ms_per_play": round(sum(node_cpu) * per, 4),
        "pg_cpu_ms_per_play": round((b["pg_cpu"] - a["pg_cpu"]) * per, 4),
        "redis_cpu_ms_per_play": round((b["redis_cpu"] - a["redis_cpu"]) * per, 4),
        "haproxy_cpu_ms_per_play": round((b["haproxy_cpu"] - a["haproxy_cpu"]) * per, 4),
        "loadgen_cpu_ms_per_play": round((b["loadgen_cpu"] - a["loadgen_cpu"]) * per, 4),
        "writer_commits_per_play": round(node_total("blink_db_commits_total") / plays, 4),
        "writer_statements_per_play": round(node_total("blink_db_statements_total") / plays, 4),
        "writes_per_commit": round(
            node_total("blink_db_writes_total") / max(1.0, node_total("blink_db_commits_total")),
            2,
        ),
        "bus_sent_per_play": round(node_total("blink_bus_sent_total") / plays, 4),
        "bus_heard_per_play": round(node_total("blink_bus_heard_total") / plays, 4),
        "bus_ignored_per_play": round(node_total("blink_bus_ignored_total") / plays, 4),
        "bus_sent_by_kind": kinds("blink_bus_sent_total"),
        "bus_heard_by_kind": kinds("blink_bus_heard_total"),
        "pg_xact_per_play": round(pg["xact_commit"] / plays, 4),
        "pg_statements_per_play": round(pg["statements"] / plays, 4),
        "pg_rows_inserted_per_play": round(pg["tup_inserted"] / plays, 4),
        "pg_statements_by_query": {q: round(n / plays, 4) for q, n in top if n},
        "redis_commands_per_play": round(sum(redis_cmds.values()) / plays, 4),
        "redis_commands": {k: int(v) for k, v in sorted(redis_cmds.items()) if v},
        "load_avg": round(os.getloadavg()[0], 2),
    }


def _loadgen(args: tuple[Any, ...], out: Any) -> None:
    """The load generator's process: bench_load's client bots; their figures to ``out``."""
    out.put(bench_load._worker(*args))


def run_once(nodes: int, opts: argparse.Namespace, code: str | None = None) -> dict[str, Any]:
    """One cluster of ``nodes`` nodes under the load: its figures. ``code``: the nodes run
    the ``blink`` of that checkout (its ``src`` folder), not this one."""
    if code is not None:
        os.environ["PYTHONPATH"] = str(Path(code).resolve() / "src")
    cluster = LocalCluster(
        nodes=nodes,
        node_args=tuple(bench_load._node_args()),
        postgres_settings=("shared_preload_libraries=pg_stat_statements",),
    )
    with cluster:
        import psycopg

        assert cluster.postgres is not None
        pg = cluster.postgres
        where = {"host": "127.0.0.1", "port": pg.port, "user": "postgres", "dbname": "blink"}
        with psycopg.connect(**where, password=pg.password, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        if opts.pinned is not None:
            for n in cluster.running:
                pin(n.proc.pid, opts.pinned)
            rest = set(os.sched_getaffinity(0)) - opts.pinned
            # This process too: the load generator it starts inherits its CPUs.
            for pid in (os.getpid(), pg.proc.pid, cluster.redis.proc.pid, cluster.haproxy.pid):
                pin(pid, rest)
        games = opts.games * nodes if opts.per_node else opts.games
        rooms = asyncio.run(bench_load._make_rooms(cluster.port, games))
        # The nodes' own cost with nobody playing (timers, the leases' checks, presence):
        # what each node costs whatever its share of the plays.
        idle0 = [proc_cpu(n.proc.pid, True) for n in cluster.running]
        t_idle = time.monotonic()
        time.sleep(opts.idle)
        idle_s = time.monotonic() - t_idle
        idle = [proc_cpu(n.proc.pid, True) - c for n, c in zip(cluster.running, idle0, strict=True)]
        begin = time.time() + 1.0
        job = (cluster.port, rooms, begin, opts.warmup, opts.duration, opts.rate, opts.seed)
        ctx = multiprocessing.get_context("spawn")
        results = ctx.Queue()
        gen = ctx.Process(target=_loadgen, args=(job, results))
        gen.start()
        assert gen.pid is not None
        try:
            time.sleep(max(0.0, begin + opts.warmup - time.time()))
            first = snapshot(cluster, gen.pid)
            time.sleep(opts.duration)
            last = snapshot(cluster, gen.pid)
            client = results.get(timeout=opts.duration + opts.warmup + 120)
        finally:
            gen.join(timeout=30)
            if gen.is_alive():
                gen.kill()
        res = figures(first, last, nodes)
        res["idle_cpu_ms_per_s"] = [round(1000 * c / idle_s, 2) for c in idle]
        res["idle_share_ms_per_play"] = round(sum(res["idle_cpu_ms_per_s"]) / res["plays_per_s"], 4)
        lat = sorted(client["latencies"])
        res["client_plays"] = client["plays"]
        res["client_p99_ms"] = round(lat[int(0.99 * (len(lat) - 1))] * 1000, 2) if lat else None
        res["client_errors"] = client["errors"] + client["failures"]
        return res


COLUMNS: list[tuple[str, str, Callable[[Any], str]]] = [
    ("plays/s", "plays_per_s", lambda v: f"{v:.0f}"),
    ("nodes CPU ms/play", "nodes_cpu_ms_per_play", lambda v: f"{v:.3f}"),
    ("PG CPU ms/play", "pg_cpu_ms_per_play", lambda v: f"{v:.3f}"),
    ("Redis CPU ms/play", "redis_cpu_ms_per_play", lambda v: f"{v:.3f}"),
    ("HAProxy CPU ms/play", "haproxy_cpu_ms_per_play", lambda v: f"{v:.3f}"),
    ("load generator CPU ms/play", "loadgen_cpu_ms_per_play", lambda v: f"{v:.3f}"),
    ("nodes' idle CPU ms/play", "idle_share_ms_per_play", lambda v: f"{v:.3f}"),
    ("writer commits/play", "writer_commits_per_play", lambda v: f"{v:.3f}"),
    ("writes/commit", "writes_per_commit", lambda v: f"{v:.1f}"),
    ("writer stmts/play", "writer_statements_per_play", lambda v: f"{v:.3f}"),
    ("PG xact/play", "pg_xact_per_play", lambda v: f"{v:.3f}"),
    ("PG stmts/play", "pg_statements_per_play", lambda v: f"{v:.3f}"),
    ("bus sent/play", "bus_sent_per_play", lambda v: f"{v:.4f}"),
    ("bus heard/play", "bus_heard_per_play", lambda v: f"{v:.4f}"),
    ("Redis cmds/play", "redis_commands_per_play", lambda v: f"{v:.4f}"),
    ("load avg", "load_avg", lambda v: f"{v:.1f}"),
]


def report(runs: dict[int, list[dict[str, Any]]], title: str = "") -> Table:
    """Medians per node count, and their ratio to the first count."""
    counts = list(runs)
    table = Table(title=f"{title}Medians per node count (ratio to the first count)")
    table.add_column("figure")
    for n in counts:
        table.add_column(f"{n} node{'s' if n > 1 else ''}", justify="right")
    for title, key, fmt in COLUMNS:
        meds = [statistics.median(r[key] for r in runs[n]) for n in counts]
        cells = []
        for m in meds:
            cell = fmt(m)
            if key != "load_avg" and meds[0]:
                cell += f" ({m / meds[0]:.2f}x)"
            cells.append(cell)
        table.add_row(title, *cells)
    per_node = [
        " / ".join(
            f"{statistics.median(r['node_cpu_ms_per_play'][i] for r in runs[n]):.3f}"
            for i in range(n)
        )
        for n in counts
    ]
    table.add_row("each node's CPU ms/play", *per_node)
    return table


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; a bad one ends the program with status 2 and one sentence."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="1,2,3", help="node counts, in turn (1,2,3)")
    ap.add_argument("--games", type=int, default=200, help="two-player games played")
    ap.add_argument(
        "--per-node",
        action="store_true",
        help="--games is per node: the same load on each node whatever the count",
    )
    ap.add_argument("--duration", type=float, default=15.0, help="seconds measured")
    ap.add_argument("--warmup", type=float, default=4.0, help="seconds before measuring")
    ap.add_argument("--rate", type=float, default=1.5, help="plays a second per player")
    ap.add_argument("--repeat", type=int, default=3, help="runs per node count")
    ap.add_argument(
        "--idle", type=float, default=3.0, help="seconds the idle nodes' CPU is measured first"
    )
    ap.add_argument(
        "--pin-nodes",
        default="",
        metavar="CPUS",
        help="keep the nodes on these CPUs (0 or 0,1) and everything else (PostgreSQL, Redis, "
        "HAProxy, the load generator) on the others: what a machine with cores of its own for "
        "the nodes would show",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also print each run as a JSON line")
    ap.add_argument(
        "--code",
        default="",
        metavar="DIR[,DIR]",
        help="run the nodes of each checkout in turn (its src folder), in the same run: "
        "before and after a change",
    )
    opts = ap.parse_args(argv)
    problem = None
    try:
        opts.node_counts = [int(x) for x in opts.nodes.split(",")]
    except ValueError:
        problem = f"--nodes takes counts separated by commas (1,2,3), not {opts.nodes!r}."
    else:
        if not all(1 <= n <= 16 for n in opts.node_counts):
            problem = "--nodes takes counts from 1 to 16."
    if problem is None:
        if opts.games < 1:
            problem = "--games must be at least 1."
        elif opts.duration <= 0 or opts.warmup < 0 or opts.idle <= 0:
            problem = "--duration and --idle must be positive and --warmup not negative."
        elif opts.rate <= 0:
            problem = "--rate must be positive."
        elif opts.repeat < 1:
            problem = "--repeat must be at least 1."
    opts.pinned = None
    if problem is None and opts.pin_nodes:
        have = os.sched_getaffinity(0)
        try:
            opts.pinned = {int(x) for x in opts.pin_nodes.split(",")}
        except ValueError:
            problem = f"--pin-nodes takes CPU numbers separated by commas, not {opts.pin_nodes!r}."
        else:
            if not opts.pinned < have:
                problem = (
                    f"--pin-nodes takes some of this process's CPUs ({sorted(have)}) and must "
                    "leave at least one for the rest."
                )
    opts.codes = [c for c in opts.code.split(",") if c] or [None]
    bad = [c for c in opts.codes if c is not None and not (Path(c) / "src" / "blink").is_dir()]
    if problem is None and bad:
        problem = f"--code takes checkouts of blink (a folder with src/blink), not {bad[0]!r}."
    if problem is not None:
        print(problem, file=sys.stderr)
        sys.exit(2)
    return opts


def main(argv: list[str] | None = None) -> None:
    """Command line."""
    opts = parse(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # The nodes' Redis user may also read INFO (commandstats), in these clusters only.
    local.REDIS_RULES += " +info"
    # No house bot plays here: the nodes skip warming their searches at start (a child
    # process compiling or loading them, then a thread loading them in the node), which
    # could still be running when the measurement begins on a busy machine.
    os.environ["BLINK_WARM_BOTS"] = "0"
    runs: dict[str | None, dict[int, list[dict[str, Any]]]] = {
        c: {n: [] for n in opts.node_counts} for c in opts.codes
    }
    total = opts.repeat * len(opts.node_counts) * len(opts.codes)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("measuring", total=total)
        for i in range(opts.repeat):
            for n in opts.node_counts:
                for code in opts.codes:
                    where = f" of {code}" if code else ""
                    progress.update(task, description=f"run {i + 1}: {n} node(s){where}")
                    res = run_once(n, opts, code)
                    res["code"] = code
                    runs[code][n].append(res)
                    if opts.json:
                        print(json.dumps(res), flush=True)
                    progress.advance(task)
    for code, by_count in runs.items():
        Console().print(report(by_count, f"{code}: " if code else ""))
    per = " per node" if opts.per_node else ""
    print(
        f"{opts.games} games{per} at {opts.rate:g} plays/s per player, "
        f"{opts.duration:g} s measured after {opts.warmup:g} s, {opts.repeat} runs per count; "
        f"{os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
