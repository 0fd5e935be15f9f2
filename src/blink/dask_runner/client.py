"""The Dask side of a simulation on a cluster: the address, the connection and its checks, and
an executor that sends a simulator's chunks to the cluster's workers.

Everything that can go wrong is a :class:`ClusterError` (a code, and one sentence for people
that says what to do): Dask distributed not installed, an address that is not one, a scheduler
that does not answer in time, a cluster without workers, workers without blink or with another
version of it (asked of every worker before anything is sent), workers that kept dying under a
chunk until Dask gave up, a connection lost during the run.

Dask is imported inside :func:`connect`: the rest of blink never needs it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Executor, Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from blink import __version__
from blink.dask_runner import remote

if TYPE_CHECKING:
    import distributed

__all__ = [
    "DEFAULT_TIMEOUT",
    "INSTALL",
    "Cluster",
    "ClusterError",
    "ClusterExecutor",
    "connect",
    "parse_address",
]

INSTALL: Final = 'pip install ".[cluster]"'
"""What to install for ``--cluster`` (the ``cluster`` extra: Dask distributed)."""
DEFAULT_TIMEOUT: Final = 10.0
"""Seconds to wait for the scheduler to answer, and for a first worker."""
SCHEMES: Final = ("tcp", "tls")
"""The Dask protocols an address may name (``HOST:PORT`` alone is ``tcp``)."""


class ClusterError(Exception):
    """Why a simulation on a cluster cannot start or finish: ``code`` names the problem for
    programs, ``str()`` is one sentence for people, with what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_address(text: str) -> str:
    """The scheduler's address as Dask takes it (``tcp://HOST:PORT``), from ``tcp://HOST:PORT``,
    ``tls://HOST:PORT`` or ``HOST:PORT``; :class:`ClusterError` ``bad-address`` otherwise."""
    raw = text.strip()
    bad = ClusterError(
        "bad-address",
        f"--cluster needs a Dask scheduler's address like tcp://HOST:PORT, not {text!r}",
    )
    parts = urlsplit(raw if "://" in raw else f"tcp://{raw}")
    if parts.scheme not in SCHEMES or parts.path or parts.query or parts.fragment:
        raise bad
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        raise bad from None
    host = parts.hostname
    if not host or port is None or port == 0 or parts.username or parts.password:
        raise bad
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}:{port}"


@dataclass(frozen=True)
class Cluster:
    """A connected cluster whose workers run this blink: where, how many threads in all, and
    the executor to run a simulator's chunks on."""

    address: str
    threads: int
    executor: ClusterExecutor


@contextlib.contextmanager
def connect(address: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[Cluster]:
    """Connect to the Dask scheduler at ``address`` and check its workers: at least one (waited
    for up to ``timeout`` seconds, as the scheduler is), and every one running this version of
    blink. On leaving, what is still running is cancelled and the connection closed."""
    where = parse_address(address)
    if not timeout > 0:
        raise ClusterError("bad-timeout", f"--cluster-timeout must be more than 0, not {timeout}")
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "missing-dependency", f"--cluster needs Dask distributed: {INSTALL}"
        ) from None
    try:
        client = distributed.Client(where, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError):
        raise ClusterError(
            "unreachable",
            f"no Dask scheduler answered at {where} within {timeout:g} s: check the address, "
            "that the scheduler runs and that this machine reaches it (or wait longer with "
            "--cluster-timeout)",
        ) from None
    executor = ClusterExecutor(client)
    try:
        _check_workers(client, where, timeout)
        threads = sum(client.nthreads().values())
        yield Cluster(where, max(1, threads), executor)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        client.close()


def _check_workers(client: distributed.Client, where: str, timeout: float) -> None:
    """At least one worker, and blink of this version on every one (else ClusterError)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(
            "no-workers",
            f"the Dask scheduler at {where} has no workers (none joined within {timeout:g} s): "
            "start some with 'dask worker " + where + "'",
        ) from None
    versions: dict[str, str | None] = client.run(remote.version_probe())
    missing = sorted(w for w, v in versions.items() if v is None)
    if missing:
        raise ClusterError(
            "blink-missing",
            f"{len(missing)} of the {len(versions)} workers of {where} cannot import blink "
            f"(first: {missing[0]}): install blink {__version__} on every worker",
        )
    other = sorted((w, v) for w, v in versions.items() if v != __version__)
    if other:
        raise ClusterError(
            "version-mismatch",
            f"{len(other)} of the {len(versions)} workers of {where} run blink {other[0][1]} "
            f"(first: {other[0][0]}), this is blink {__version__}: install the same version "
            "on every worker",
        )


class ClusterExecutor(Executor):
    """A :class:`concurrent.futures.Executor` over a Dask client, for a simulator's chunks:
    ``submit(fn, job, start, stop)`` runs ``fn(job, start, stop)`` on a worker
    (:func:`blink.dask_runner.remote.run_chunk`), writes the records it returned into the job's
    records directory here, and gives a :class:`concurrent.futures.Future` of its rows.

    Cancelling that future cancels the task. A chunk whose workers kept dying until Dask gave
    up (its ``distributed.scheduler.allowed-failures``) fails with :class:`ClusterError`
    ``workers-lost``, one cancelled by the scheduler or a lost connection with
    ``connection-lost``; an error of the simulation itself is raised as it was.
    """

    def __init__(self, client: distributed.Client) -> None:
        self._client = client
        self._run = uuid.uuid4().hex[:12]
        self._count = itertools.count()
        self._tasks: set[distributed.Future[Any]] = set()
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run chunk ``fn(job, start, stop)`` on the cluster."""
        if kwargs or len(args) != 3:
            raise TypeError("ClusterExecutor.submit takes fn(job, start, stop)")
        job, start, stop = args
        # A key of its own for every chunk: Dask would give a key it holds its old result.
        key = f"blink-matches-{start}-{stop - 1}-{self._run}-{next(self._count)}"
        task = self._client.submit(remote.run_chunk, fn, job, start, stop, key=key, pure=False)
        with self._lock:
            self._tasks.add(task)
        out: Future[Any] = Future()

        def cancelled(f: Future[Any]) -> None:
            if f.cancelled():
                task.cancel()

        out.add_done_callback(cancelled)
        task.add_done_callback(lambda t: self._finish(t, out, job.records, start, stop))
        return out

    def _finish(
        self, task: distributed.Future[Any], out: Future[Any], records: str | None, a: int, b: int
    ) -> None:
        """On Dask's callback thread: the task's rows (its records written) into ``out``."""
        with self._lock:
            self._tasks.discard(task)
        if not out.set_running_or_notify_cancel():
            return
        try:
            rows, files = task.result()
            for name, data in files:
                assert records is not None  # only a job with records returns any
                Path(records, name).write_bytes(data)
            out.set_result(rows)
        except BaseException as exc:  # every outcome is handed to whoever waits on ``out``
            out.set_exception(_translate(exc, a, b))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Cancel the chunks still running when ``cancel_futures`` (the client stays open)."""
        with self._lock:
            tasks = list(self._tasks)
        if cancel_futures and tasks:
            with contextlib.suppress(Exception):  # the connection may be gone already
                self._client.cancel(tasks)
        if wait and not cancel_futures:
            concurrent.futures.wait([_as_cf(t) for t in tasks])


def _as_cf(task: distributed.Future[Any]) -> Future[None]:
    """A concurrent.futures.Future done when ``task`` is."""
    done: Future[None] = Future()
    task.add_done_callback(lambda _t: done.set_result(None))
    return done


def _translate(exc: BaseException, a: int, b: int) -> BaseException:
    """A Dask failure of matches ``a`` to ``b - 1`` as a ClusterError; any other as it is."""
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        last = getattr(exc.last_worker, "address", exc.last_worker)
        return ClusterError(
            "workers-lost",
            f"the workers running matches {a}-{b - 1} died {exc.allowed_failures + 1} times and "
            f"Dask gave up (the last one was {last}): see the workers' logs",
        )
    if isinstance(exc, CancelledError):
        return ClusterError(
            "connection-lost",
            f"matches {a}-{b - 1} were cancelled by the Dask scheduler or the connection to it "
            "was lost: check that the scheduler still runs, and run again",
        )
    return exc
