"""Simulations on a Dask cluster (``blink simulate --cluster tcp://HOST:PORT``).

A driver beside the process pools of :mod:`blink.sim.pool`: the simulators take any
:class:`concurrent.futures.Executor` for their chunks, and :class:`ClusterExecutor` sends them
to a Dask scheduler instead of local processes. The chunks, their seeds and the order their
rows are gathered in are the same, so the results (and the records) are the same bytes as a
local run's with the same seed. :mod:`~blink.dask_runner.client` is the Dask side (connection,
checks, executor); :mod:`~blink.dask_runner.remote` what runs on the workers. Dask distributed
is the optional ``cluster`` extra (``pip install ".[cluster]"``), imported only on connecting.
"""

from __future__ import annotations

from blink.dask_runner.client import (
    DEFAULT_TIMEOUT,
    INSTALL,
    Cluster,
    ClusterError,
    ClusterExecutor,
    connect,
    parse_address,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "INSTALL",
    "Cluster",
    "ClusterError",
    "ClusterExecutor",
    "connect",
    "parse_address",
]
