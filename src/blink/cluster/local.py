"""A whole cluster on this machine: a throwaway PostgreSQL and Redis, N ``blink serve --cluster``
nodes on free loopback ports (sharing the database, and through Redis the lobby's live rooms,
tournaments' changes and the leaderboard's), and HAProxy in front (``blink cluster run``, and
the cluster tests).

Every process is a child that dies with this one: each is started with the parent-death
signal set (``prctl(PR_SET_PDEATHSIG)``, Linux), so even a ``kill -9`` of the runner takes them
down, and :meth:`LocalCluster.stop` stops them in order (HAProxy, the nodes, Redis, PostgreSQL) and
removes the temporary folder. PostgreSQL runs as the ``postgres`` user when started by root,
as Debian's packages expect (its ``initdb`` refuses root).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

from blink.children import die_with_parent
from blink.cluster.haproxy import HaproxyConfig, render
from blink.server.pg_liveness import server_flags
from blink.server.settings import Settings

__all__ = [
    "PG_USER",
    "ClusterError",
    "LocalCluster",
    "LocalPostgres",
    "LocalRedis",
    "Node",
    "Placement",
    "find_haproxy",
    "find_postgres",
    "find_redis",
    "free_port",
]

START_TIMEOUT = 60.0


class ClusterError(Exception):
    """Why the local cluster cannot start: ``code`` for programs, one sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def find_postgres() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``postgres``), newest first."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parent.parent.name.split(".")],
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def find_haproxy() -> str | None:
    """The ``haproxy`` program (on the PATH, or Debian's ``/usr/sbin/haproxy``)."""
    found = shutil.which("haproxy")
    if found is None and os.access("/usr/sbin/haproxy", os.X_OK):
        found = "/usr/sbin/haproxy"
    return found


def find_redis() -> str | None:
    """The ``redis-server`` program (on the PATH, or Debian's ``/usr/bin/redis-server``)."""
    found = shutil.which("redis-server")
    if found is None and os.access("/usr/bin/redis-server", os.X_OK):
        found = "/usr/bin/redis-server"
    return found


REDIS_USER = "blink"
"""The one Redis user of a local cluster (the default user is off)."""
REDIS_RULES = (
    "resetchannels &blink:* resetkeys ~blink:limits:* -@all +@connection +@pubsub -@dangerous"
    " +evalsha +script|load +lindex +lpush +ltrim +expire +zadd +zrem +zremrangebyscore +zcard"
)
"""What that user may do: connect, publish and subscribe on the bus's channels, and keep the
per-address windows (:mod:`blink.server.shared_limits`: the ``limits`` library's moving-window
scripts, run by their digest, loaded when Redis does not know them, which read and write lists
under ``blink:limits:`` with ``LINDEX``, ``LPUSH``, ``LTRIM`` and ``EXPIRE``), and count each
address's open WebSockets (:mod:`blink.server.shared_connections`: sorted sets under
``blink:limits:conns:``, with ``ZADD``, ``ZREM``, ``ZREMRANGEBYSCORE``, ``ZCARD`` and
``EXPIRE``, by a script of its own and a pipeline); no other key."""


def _private_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, readable by this user only (mode 0600 from its creation)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


class LocalRedis:
    """A throwaway Redis on a free loopback port, keeping nothing on disk (a child of this
    process that dies with it). Nobody reaches it without its password: the default user is
    off, and the one user (:data:`REDIS_USER`, a password drawn by :mod:`secrets`) may only
    publish and subscribe on the bus's channels and keep the per-address windows. The password
    is in its configuration file (mode 0600, in its folder) and in :attr:`url`, never on a
    command line."""

    def __init__(self, program: str, folder: Path, listen: tuple[str, ...] = ()) -> None:
        self.program = program
        self.folder = folder
        self.listen = listen
        """More addresses it listens on, besides loopback."""
        self.port = 0
        self.password = secrets.token_urlsafe(24)
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """The nodes' ``--redis-url`` (with the password: keep it out of logs and command
        lines)."""
        return self.url_at("127.0.0.1")

    def url_at(self, host: str) -> str:
        """The ``--redis-url`` of a node that reaches it at ``host`` (one of its addresses)."""
        return f"redis://{REDIS_USER}:{self.password}@{host}:{self.port}/0"

    def start(self) -> None:
        """Start redis-server and wait until it answers a PING (as its user)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        log = self.folder / "redis.log"
        self._log = open(log, "wb")  # noqa: SIM115  # closed by stop()
        conf = self.folder / "redis.conf"
        bind = " ".join(("127.0.0.1", *self.listen))
        _private_file(
            conf,
            f"port {self.port}\nbind {bind}\ndir {self.folder}\n"
            'save ""\nappendonly no\nuser default off\n'
            f"user {REDIS_USER} on >{self.password} {REDIS_RULES}\n",
        )
        self.proc = subprocess.Popen(
            [self.program, str(conf)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: die_with_parent(sig=signal.SIGTERM),
        )
        hello = f"AUTH {REDIS_USER} {self.password}\r\nPING\r\n".encode()
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise ClusterError("start_failed", f"Redis stopped at start: {tail.strip()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock,
            ):
                sock.sendall(hello)
                if b"+PONG" in _read_two_lines(sock):
                    return
            if time.monotonic() > deadline:
                raise ClusterError("start_failed", "Redis did not answer in time")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server."""
        _stop(self.proc)
        if self._log is not None:
            self._log.close()
            self._log = None


def _read_two_lines(sock: socket.socket) -> bytes:
    """What a Redis server answers to two commands (its first two lines, or less)."""
    got = b""
    while got.count(b"\r\n") < 2:
        part = sock.recv(256)
        if not part:
            break
        got += part
    return got


def _wait_health(url: str, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise ClusterError("start_failed", f"{what} stopped at start: {tail.strip()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise ClusterError("start_failed", f"{what} did not answer {url} in time")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(sig)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)


PG_USER = "postgres"
"""The one database user of a local cluster's PostgreSQL (its superuser)."""


class LocalPostgres:
    """A throwaway PostgreSQL server in ``folder`` (``None``: a temporary folder of its own,
    removed by :meth:`stop`) on a free loopback port, fsync off. The folder's parents must be
    open to the ``postgres`` user when run as root.

    Nobody connects without its password: one user (:data:`PG_USER`) with a password drawn
    by :mod:`secrets`, checked by SCRAM-SHA-256 on every connection, TCP or its Unix socket
    (``initdb --auth=scram-sha-256``; the networks of ``listen`` the same). The password is in
    :attr:`password_file` (mode 0600, in its folder) and in :attr:`url`, never on a command
    line: give the URL to a program in its environment."""

    def __init__(
        self,
        folder: Path | None = None,
        listen: tuple[str, ...] = (),
        settings: tuple[str, ...] = (),
    ) -> None:
        bindir = find_postgres()
        if bindir is None:
            raise ClusterError(
                "no_postgresql",
                "PostgreSQL is not installed: install Debian's postgresql package "
                "(apt-get install postgresql)",
            )
        self.bindir = bindir
        self.own = folder is None
        self.listen = listen
        """More addresses it listens on, besides loopback (clients on their networks give the
        password, as on loopback)."""
        self.settings = settings
        """More server settings, ``name=value`` each (a benchmark's
        ``shared_preload_libraries=pg_stat_statements``)."""
        self.folder = folder or Path(tempfile.mkdtemp(prefix="blink-pg-"))
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.password = secrets.token_urlsafe(24)
        self.password_file = self.folder / "password"
        """Where the password is kept (mode 0600; ``initdb`` reads it from there)."""
        self.user: str | None = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterError(
                    "no_postgres_user",
                    "running as root needs the postgres user to run PostgreSQL: install "
                    "Debian's postgresql package",
                ) from None
            self.user = "postgres"

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the ``blink`` database (with the password: keep it out of
        logs and command lines)."""
        return self.url_at("127.0.0.1")

    def url_at(self, host: str) -> str:
        """The URL of the ``blink`` database for a client that reaches it at ``host``."""
        return f"postgresql+psycopg://{PG_USER}:{self.password}@{host}:{self.port}/blink"

    def _as_user(self) -> dict[str, Any]:
        if self.user is None:
            return {}
        return {"user": self.user, "group": self.user, "extra_groups": []}

    def start(self) -> None:
        """initdb, start the server (a child of this process), create the database."""
        data = self.folder / "data"
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            shutil.chown(self.folder, self.user, self.user)
        _private_file(self.password_file, self.password + "\n")
        if self.user is not None:
            shutil.chown(self.password_file, self.user, self.user)
        log = self.folder / "initdb.log"
        with open(log, "wb") as out:
            done = subprocess.run(
                [
                    *(str(self.bindir / "initdb"), "-D", str(data), "-U", PG_USER),
                    *("--pwfile", str(self.password_file), "--auth=scram-sha-256"),
                    *("-E", "UTF8", "--no-locale"),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
                **self._as_user(),
            )
        if done.returncode != 0:
            raise ClusterError("start_failed", f"initdb failed: {log.read_text()[-1000:]}")
        if self.listen:
            with open(data / "pg_hba.conf", "a") as hba:
                hba.write("host all all samenet scram-sha-256\n")
        server_log = self.folder / "postgres.log"
        with open(server_log, "wb") as out:
            self.proc = subprocess.Popen(
                [
                    *(str(self.bindir / "postgres"), "-D", str(data), "-p", str(self.port)),
                    *("-k", str(self.folder)),
                    *("-c", "listen_addresses=" + ",".join(("127.0.0.1", *self.listen))),
                    *("-c", "fsync=off", "-c", "max_connections=200"),
                    *("-c", "max_locks_per_transaction=1024"),
                    # A vanished node's session (and its leases) is dropped within seconds.
                    *server_flags(),
                    *(arg for setting in self.settings for arg in ("-c", setting)),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=lambda: die_with_parent(sig=signal.SIGINT),  # fast shutdown
                **self._as_user(),
            )
        self._create_database(server_log)

    def _create_database(self, log: Path) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise ClusterError("start_failed", f"PostgreSQL stopped: {log.read_text()[-1000:]}")
            try:
                with psycopg.connect(
                    host="127.0.0.1",
                    port=self.port,
                    user=PG_USER,
                    password=self.password,
                    dbname="postgres",
                    autocommit=True,
                    connect_timeout=2,
                ) as conn:
                    conn.execute("CREATE DATABASE blink")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise ClusterError("start_failed", "PostgreSQL did not start in time") from None
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (fast shutdown); remove its folder if it made it."""
        _stop(self.proc, signal.SIGINT)
        if self.own:
            shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Node:
    """One ``blink serve --cluster`` of the cluster."""

    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    host: str = "127.0.0.1"
    """The address it listens on."""

    @property
    def address(self) -> str:
        """``HOST:PORT``."""
        return f"{self.host}:{self.port}"

    @property
    def http(self) -> str:
        """The node's own base URL (past the router)."""
        return f"http://{self.address}"

    def stop_gracefully(self, timeout: float = 60.0) -> int:
        """SIGTERM: the node fails its health check, hands its rooms over and stops. Its exit
        status (after ``timeout`` seconds it is killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=30)

    def kill9(self) -> None:
        """SIGKILL: the node is gone at once, its leases with its database connection."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


@dataclass(frozen=True)
class Placement:
    """Where a node runs: its command's prefix (``ip netns exec NS``: another network
    namespace), the address it listens on (HAProxy reaches it there), and the address at which
    it reaches PostgreSQL and Redis (both listen there too)."""

    prefix: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    services: str = "127.0.0.1"


@dataclass
class LocalCluster:
    """PostgreSQL, ``nodes`` nodes and HAProxy on loopback (:meth:`start`, :meth:`stop`).

    ``node_args`` are more ``blink serve`` options for every node; ``check_interval_ms``,
    ``fall`` and ``rise`` are HAProxy's health checks; ``port`` is HAProxy's (0: a free one);
    ``placements[i]`` is where node ``i`` runs (by default on loopback, as the others);
    ``postgres_settings`` are more PostgreSQL settings (``name=value``).
    """

    nodes: int = 2
    port: int = 0
    node_args: tuple[str, ...] = ()
    check_interval_ms: int = 2000
    fall: int = 2
    rise: int = 2
    folder: Path | None = None
    placements: tuple[Placement, ...] = ()
    postgres_settings: tuple[str, ...] = ()
    running: list[Node] = field(default_factory=list)
    postgres: LocalPostgres | None = None
    redis: LocalRedis | None = None
    haproxy: subprocess.Popen[bytes] | None = None
    max_sockets_per_address: int | None = Settings.max_sockets_per_address
    """The router's cap on each client address's open connections, for every node
    (:attr:`blink.cluster.haproxy.HaproxyConfig.max_sockets_per_address`)."""
    proxy_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    """The secret HAProxy sets on every request it passes, without which a node believes no
    ``X-Forwarded-For`` nor ``X-Blink-Room`` (``--proxy-secret``): any process of the machine
    reaches the nodes' ports from the router's address. In the nodes' environment and in
    :attr:`secret_file` and HAProxy's configuration, both of mode 0600; never on a command
    line."""
    _tmp: tempfile.TemporaryDirectory[str] | None = None
    _logs: list[IO[bytes]] = field(default_factory=list)
    _spawner: ThreadPoolExecutor | None = None
    """The one thread that starts the nodes. A child dies with the thread that started it
    (``PR_SET_PDEATHSIG`` follows the thread, not the process), so a node started again
    from a passing thread (``asyncio.to_thread``) would die with that thread: every node is
    started from this thread, which lives as long as the cluster."""

    @property
    def url(self) -> str:
        """The router's base URL: what to open."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def secret_file(self) -> Path:
        """Where the router's secret is kept (mode 0600)."""
        assert self.folder is not None
        return self.folder / "router-secret"

    def start(self) -> LocalCluster:
        """Start everything, or stop what started and raise :class:`ClusterError`."""
        haproxy = find_haproxy()
        if haproxy is None:
            raise ClusterError(
                "no_haproxy",
                "HAProxy is not installed: install Debian's haproxy package "
                "(apt-get install haproxy)",
            )
        redis = find_redis()
        if redis is None:
            raise ClusterError(
                "no_redis",
                "Redis is not installed: install Debian's redis-server package "
                "(apt-get install redis-server)",
            )
        if self.nodes < 1:
            raise ClusterError("bad_options", "a cluster needs at least one node")
        if self.folder is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="blink-cluster-")
            self.folder = Path(self._tmp.name)
            os.chmod(self.folder, 0o755)  # PostgreSQL's user reaches its own folder inside
        try:
            _private_file(self.secret_file, self.proxy_secret + "\n")
            listen = tuple(sorted({p.services for p in self.placements} - {"127.0.0.1"}))
            self.postgres = LocalPostgres(self.folder / "postgres", listen, self.postgres_settings)
            self.postgres.start()
            self.redis = LocalRedis(redis, self.folder / "redis", listen)
            self.redis.start()
            for i in range(self.nodes):
                placed = self.placements[i] if i < len(self.placements) else None
                self.running.append(self.start_node(placement=placed))
            self._start_haproxy(haproxy)
        except BaseException:
            self.stop()
            raise
        return self

    def start_node(self, port: int | None = None, placement: Placement | None = None) -> Node:
        """Start one more node on the cluster's database (on ``port``, else a free one;
        where ``placement`` says, else on loopback)."""
        assert self.postgres is not None and self.redis is not None and self.folder is not None
        place = placement or Placement()
        port = port or free_port()
        log = self.folder / f"node-{port}-{time.monotonic_ns()}.log"
        out = open(log, "wb")  # noqa: SIM115  # closed by stop()
        self._logs.append(out)
        args = [*place.prefix, sys.executable, "-m", "blink", "serve", "--host", place.host]
        args += ["--port", str(port), "--cluster"]
        # The players' addresses from the router's X-Forwarded-For, believed from the router
        # alone: it connects to a node from the address the node reaches this machine at
        # (127.0.0.1 on loopback, this end of the link for a node in another namespace).
        args += ["--proxy-headers", "--forwarded-allow-ips", place.services]
        # The passwords of Redis and PostgreSQL, and the router's secret (without which the
        # node believes none of those headers: any process of this machine reaches its port
        # from 127.0.0.1), go in the environment, which only this user reads, not on the
        # command line, which every user of the machine does.
        env = {
            **os.environ,
            "BLINK_PROXY_SECRET": self.proxy_secret,
            "BLINK_REDIS_URL": self.redis.url_at(place.services),
            "BLINK_DATABASE_URL": self.postgres.url_at(place.services),
        }
        if self._spawner is None:
            self._spawner = ThreadPoolExecutor(1, thread_name_prefix="blink-cluster-spawner")
        proc = self._spawner.submit(
            subprocess.Popen,
            [*args, *self.node_args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: die_with_parent(sig=signal.SIGINT),  # a fast stop: no hand-over
        ).result()
        node = Node(port, proc, log, place.host)
        _wait_health(f"{node.http}/api/health", proc, f"the node on port {port}", log)
        return node

    def _start_haproxy(self, haproxy: str) -> None:
        assert self.folder is not None
        self.port = self.port or free_port()
        cfg = HaproxyConfig(
            nodes=tuple(n.address for n in self.running),
            bind=f"127.0.0.1:{self.port}",
            check_interval_ms=self.check_interval_ms,
            fall=self.fall,
            rise=self.rise,
            max_sockets_per_address=self.max_sockets_per_address,
            proxy_secret=self.proxy_secret,
        )
        path = self.folder / "haproxy.cfg"
        _private_file(path, render(cfg))  # it holds the router's secret
        log = self.folder / "haproxy.log"
        out = open(log, "wb")  # noqa: SIM115  # closed by stop()
        self._logs.append(out)
        self.haproxy = subprocess.Popen(
            [haproxy, "-db", "-f", str(path)],
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: die_with_parent(sig=signal.SIGTERM),
        )
        _wait_health(f"{self.url}/api/health", self.haproxy, "HAProxy", log)

    def stop(self) -> None:
        """Stop HAProxy, the nodes, Redis and PostgreSQL; remove the temporary folder."""
        _stop(self.haproxy)  # a hard stop: a soft one would wait for every WebSocket
        for node in self.running:
            _stop(node.proc, signal.SIGINT)  # HAProxy is gone: nothing to hand over to
        if self._spawner is not None:
            self._spawner.shutdown()
            self._spawner = None
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.stop()
        for out in self._logs:
            out.close()
        self._logs.clear()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
