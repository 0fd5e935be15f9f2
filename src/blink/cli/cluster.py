"""``blink cluster``: several ``blink serve`` nodes behind HAProxy (docs/cluster.md).

- ``blink cluster haproxy-config --node HOST:PORT ...`` prints the HAProxy configuration that
  sends each room's traffic to one node by its code (:mod:`blink.cluster.haproxy`).
- ``blink cluster run --nodes N`` starts a whole cluster on this machine (a throwaway
  PostgreSQL, N nodes, HAProxy; :mod:`blink.cluster.local`), prints the address to open, and
  stops everything on Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import signal
import threading
from typing import Annotated, NoReturn

import typer

from blink.server.settings import Settings

__all__ = ["register"]

SOCKETS = Settings.max_sockets_per_address or 0
"""The router's cap on one address's sockets by default: a node's own."""

cluster_app = typer.Typer(
    name="cluster",
    help="Several blink serve nodes behind HAProxy: its configuration, or a local cluster.",
    no_args_is_help=True,
)


def _fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"blink cluster: {message}", err=True)
    raise typer.Exit(2)


NodeOpt = Annotated[
    list[str],
    typer.Option("--node", help="A node's HOST:PORT (a blink serve --cluster); once per node."),
]
BindOpt = Annotated[
    str, typer.Option("--bind", help="Where HAProxy listens: HOST:PORT (*:80: every interface).")
]
CheckOpt = Annotated[
    int,
    typer.Option(
        "--check-interval-ms", min=50, help="Milliseconds between health checks of each node."
    ),
]
HealthHostOpt = Annotated[
    str,
    typer.Option("--health-host", help="The Host header of the health checks (a node's name)."),
]
SocketsOpt = Annotated[
    int,
    typer.Option(
        "--max-sockets-per-address",
        min=0,
        metavar="N",
        help="TCP connections one client address may hold through the router, counted by "
        "HAProxy for every node (0: no cap).",
    ),
]
SecretOpt = Annotated[
    str | None,
    typer.Option(
        "--proxy-secret",
        envvar="BLINK_PROXY_SECRET",
        metavar="SECRET",
        help="The secret HAProxy sets in X-Blink-Proxy for the nodes' --proxy-secret (give it "
        "in the environment; the configuration then holds it: keep it private).",
    ),
]


@cluster_app.command("haproxy-config")
def haproxy_config(
    node: NodeOpt,
    bind: BindOpt = "127.0.0.1:8000",
    check_interval_ms: CheckOpt = 2000,
    health_host: HealthHostOpt = "localhost",
    max_sockets_per_address: SocketsOpt = SOCKETS,
    proxy_secret: SecretOpt = None,
) -> None:
    """Print the HAProxy configuration of the nodes: a room's requests by its code (consistent
    hashing), every other request to any node, health checks on /api/health."""
    from blink.cluster.haproxy import (
        HaproxyConfig,
        NodeAddressError,
        parse_node,
        render,
        secret_problem,
    )

    problem = secret_problem(proxy_secret) if proxy_secret else None
    if problem is not None:
        _fail(f"--proxy-secret: {problem}")
    try:
        nodes = tuple(parse_node(n) for n in node)
        cfg = HaproxyConfig(
            nodes=nodes,
            bind=bind,
            check_interval_ms=check_interval_ms,
            health_host=health_host,
            max_sockets_per_address=max_sockets_per_address or None,
            proxy_secret=proxy_secret or None,
        )
        typer.echo(render(cfg), nl=False)
    except NodeAddressError as exc:
        _fail(str(exc))


@cluster_app.command("run")
def run(
    nodes: Annotated[int, typer.Option("--nodes", min=1, max=16, help="Nodes to start.")] = 2,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="HAProxy's port (0: any free one).")
    ] = 8000,
    max_sockets_per_address: SocketsOpt = SOCKETS,
) -> None:
    """Start a cluster on this machine: a throwaway PostgreSQL, the nodes on free loopback
    ports, HAProxy in front; stop it all with Ctrl+C (or SIGTERM)."""
    from blink.cluster.local import ClusterError, LocalCluster

    stop = threading.Event()

    def on_signal(_sig: int, _frame: object) -> None:
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    cluster = LocalCluster(
        nodes=nodes, port=port, max_sockets_per_address=max_sockets_per_address or None
    )
    try:
        try:
            cluster.start()
        except ClusterError as exc:
            _fail(str(exc))
        for n in cluster.running:
            typer.echo(f"Node: {n.http} (log {n.log})")
        if cluster.postgres is not None:
            from sqlalchemy.engine import make_url

            # As Redis's: in the nodes' environment and a file of mode 0600, never shown.
            shown = make_url(cluster.postgres.url).render_as_string(hide_password=True)
            typer.echo(f"PostgreSQL: {shown} (password in {cluster.postgres.password_file})")
        if cluster.redis is not None:
            from blink.server.redis_url import shown_redis_url

            # The password is in the nodes' environment and Redis's own file, never shown.
            conf = cluster.redis.folder / "redis.conf"
            typer.echo(f"Redis: {shown_redis_url(cluster.redis.url)} (password in {conf})")
        typer.echo(f"Router secret: *** (in {cluster.secret_file})")
        typer.echo(f"Open {cluster.url}/")
        while not stop.wait(0.5):
            dead = [n for n in cluster.running if n.proc.poll() is not None]
            if dead:
                typer.echo(f"blink cluster: the node on port {dead[0].port} stopped", err=True)
        typer.echo("Stopping the cluster...")
    finally:
        cluster.stop()
        for s, handler in old.items():
            signal.signal(s, handler)


def register(app: typer.Typer) -> None:
    """Add ``blink cluster`` to the main app."""
    app.add_typer(cluster_app)
