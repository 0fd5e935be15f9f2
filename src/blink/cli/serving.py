"""Starting ``blink serve``: the listening sockets, the database, uvicorn.

Everything that can stop a start is tried before the server runs (:func:`prepare`), and each
failure is a :class:`ServeError`: a code and one sentence for people that says what to do. First
the database's URL is read and the SQLite file's folder checked (a URL SQLAlchemy cannot read, a
missing folder, a file where a folder should be; only the default file's folder is made), then
the sockets are bound and listening (a port in use, a port too low, an address this machine
does not have), then the database is opened and migrated once, as
the server will (a file SQLite cannot open, a driver that is not installed, a database SQLAlchemy
does not know, a database server that does not answer). Only then does uvicorn start, on those
sockets, and ``Open http://...`` is printed once it serves (uvicorn's startup done: the app's
lifespan has run and the sockets accept connections), with the port it really listens on
(``--port 0``: a free one).

Logging is configured before all of this (:func:`configure_logging`) and given to uvicorn
(:func:`log_config`), in text or JSON. A stop (SIGTERM, Ctrl+C) calls back before uvicorn
closes anything (:func:`run`: the server refuses new rooms), and a SIGTERM that stopped the
server ends the process with status 0.

SQLAlchemy, uvicorn and the server are imported inside the functions: ``blink`` starts without
them.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

__all__ = [
    "BACKLOG",
    "ServeError",
    "configure_logging",
    "database",
    "forwarding",
    "listen",
    "log_config",
    "open_database",
    "prepare",
    "run",
    "shown_address",
    "trusted",
]

BACKLOG = 2048
"""Connections the kernel queues before the server accepts them (uvicorn's default)."""

POSTGRES_EXAMPLE = "postgresql+psycopg://user@host/db"
INSTALL_POSTGRES = 'pip install ".[postgres]"'


class ServeError(Exception):
    """Why ``blink serve`` cannot start: ``code`` names the problem for programs, ``str()`` is
    one sentence for people, with what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def prepare(
    db: Path | None, database_url: str | None, host: str, port: int
) -> tuple[str, str, list[socket.socket]]:
    """Everything the server needs before it runs, tried in that order: the database's URL
    and how to show it (:func:`database`), the listening sockets (:func:`listen`), the database
    opened once (:func:`open_database`); :class:`ServeError` at the first that fails."""
    url, shown = database(db, database_url)
    sockets = listen(host, port)
    try:
        open_database(url, shown)
    except ServeError:
        for sock in sockets:
            sock.close()
        raise
    return url, shown, sockets


# --- the sockets ------------------------------------------------------------------------------


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to ``port`` on every address of ``host`` and listening (``port`` 0: one free
    port, the same on each); :class:`ServeError` when that cannot be.

    Like asyncio's server, one socket per address the name resolves to; ``::`` takes IPv4 as
    well (dual stack), so the loopback address printed for it answers.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ServeError(
            "unknown_host",
            f"cannot listen on {host} ({reason}): give --host an address of this machine, "
            "such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)",
        ) from None
    addresses = list(dict.fromkeys((info[0], info[4]) for info in infos))
    sockets: list[socket.socket] = []
    try:
        for family, address in addresses:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(host != "::"))
            sock.bind((address[0], port, *address[2:]))
            port = port or sock.getsockname()[1]
            sock.listen(BACKLOG)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise _listen_error(host, port, exc) from None
    return sockets


def _listen_error(host: str, port: int, exc: OSError) -> ServeError:
    """The :class:`ServeError` for a socket that cannot listen on ``host``, ``port``."""
    if exc.errno == errno.EADDRINUSE:
        return ServeError(
            "port_in_use",
            f"port {port} on {host} is already in use (another blink serve?): choose another "
            "with --port, or stop the program that holds it",
        )
    if exc.errno == errno.EACCES:
        return ServeError(
            "port_forbidden",
            f"this user may not listen on port {port} (ports below 1024 are for root): "
            "choose one from 1024 up with --port, such as --port 8000",
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return ServeError(
            "address_unavailable",
            f"{host} is not an address of this machine: give --host one of its addresses, "
            "such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)",
        )
    return ServeError(
        "listen_failed",
        f"cannot listen on {host} port {port} ({exc.strerror or exc}): choose another --host "
        "or --port",
    )


def shown_address(host: str, sockets: list[socket.socket]) -> str:
    """The address to open in a browser: the loopback one when listening on every interface,
    and the port the first socket really listens on."""
    port = sockets[0].getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


# --- the database -----------------------------------------------------------------------------


def database(db: Path | None, database_url: str | None) -> tuple[str, str]:
    """The database URL to serve from and how to show it: a URL without its password, or the
    SQLite file's path. The folder of a ``--db`` file must exist (as for every path option of
    the commands: a mistyped folder is refused, not made); the default file's folder (the user
    data folder) is made here. :class:`ServeError` when the URL cannot be read or the folder
    is missing or cannot be made."""
    from blink.server.settings import default_database_path, sqlite_url

    if database_url:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            return database_url, make_url(database_url).render_as_string(hide_password=True)
        except ArgumentError:
            raise ServeError(
                "db_url",
                "the --database-url (or BLINK_DATABASE_URL) is not a database URL: write one "
                f"such as {POSTGRES_EXAMPLE}, or give --db FILE for SQLite",
            ) from None
    if db is not None:  # the folder of a file given must exist, as for every path option
        path = db.expanduser().resolve()
        if not path.parent.is_dir():
            raise _folder_error(path.parent, None)
        return sqlite_url(path), str(path)
    path = default_database_path().expanduser().resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _folder_error(path.parent, exc) from None
    return sqlite_url(path), str(path)


def _folder_error(folder: Path, exc: OSError | None) -> ServeError:
    """The :class:`ServeError` for the SQLite file's ``folder`` that is missing (``exc`` None:
    a --db given) or cannot be made (the default's)."""
    blocker = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        reason = f"{blocker} is a file, not a folder"
    elif exc is None:
        return ServeError(
            "db_folder",
            f"there is no folder {folder} for the database: make it first, or give --db a "
            "file in a folder that exists",
        )
    else:
        reason = (exc.strerror or str(exc)).lower()
    return ServeError(
        "db_folder",
        f"cannot use the folder {folder} for the database ({reason}): give --db a file "
        "in a folder you can write to",
    )


def open_database(url: str, shown: str) -> None:
    """Open the database once as the server will (connect, create or migrate its tables),
    then close it; :class:`ServeError` when that fails."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import NoSuchModuleError

    from blink.server.storage import make_engine, migrate

    parsed = make_url(url)
    try:
        engine = make_engine(url)
    except NoSuchModuleError:
        raise ServeError(
            "db_url",
            f"SQLAlchemy knows no database {parsed.drivername!r} (in {shown}): write a URL "
            f"such as {POSTGRES_EXAMPLE}, or give --db FILE for SQLite",
        ) from None
    except ImportError as exc:
        raise _driver_error(parsed.get_backend_name(), parsed.drivername, exc) from None
    try:
        migrate(engine)
    except Exception as exc:
        sqlite_file = parsed.database if parsed.get_backend_name() == "sqlite" else None
        raise _open_error(sqlite_file, shown, exc) from None
    finally:
        engine.dispose()


def _driver_error(backend: str, drivername: str, exc: ImportError) -> ServeError:
    """The :class:`ServeError` for a database driver that cannot be imported."""
    name = exc.name or str(exc)
    if backend != "postgresql":
        return ServeError(
            "db_driver",
            f"the driver {name} that {drivername} needs is not installed: install it with pip",
        )
    if drivername == "postgresql+psycopg":
        return ServeError(
            "db_driver",
            f"PostgreSQL needs the driver psycopg, which is not installed: {INSTALL_POSTGRES}",
        )
    return ServeError(
        "db_driver",
        f"{drivername} needs the driver {name}, which is not installed: write the URL as "
        f"{POSTGRES_EXAMPLE}, whose driver {INSTALL_POSTGRES} installs",
    )


def _open_error(sqlite_file: str | None, shown: str, exc: Exception) -> ServeError:
    """The :class:`ServeError` for a database that cannot be opened or migrated."""
    orig: Any = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines()
    reason = lines[0].strip() if lines else type(orig).__name__
    kinds = {c.__name__ for c in type(exc).__mro__}
    if sqlite_file is not None:
        path = Path(sqlite_file)
        if path.is_dir():
            return ServeError(
                "db_file",
                f"{path} is a folder: give --db a file, such as {path / 'blink.db'}",
            )
        if "file is not a database" in reason:
            return ServeError(
                "db_file",
                f"{path} is not an SQLite database: give --db another file (a new one is made)",
            )
        if kinds & {"OperationalError", "DatabaseError"}:
            return ServeError(
                "db_file",
                f"cannot open the SQLite file {path} ({reason}): give --db a file in a folder "
                "you can write to",
            )
    elif kinds & {"OperationalError", "InterfaceError"}:
        return ServeError(
            "db_unreachable",
            f"cannot connect to {shown} ({reason}): check that the database server runs and "
            "the URL's host, port, user and password",
        )
    return ServeError(
        "db_schema",
        f"cannot prepare the database {shown} ({reason}): it may come from a newer blink "
        "(upgrade blink), or give another with --db or --database-url",
    )


# --- uvicorn ----------------------------------------------------------------------------------


def run(
    app: Any,
    sockets: list[socket.socket],
    ready: Callable[[], None],
    stopping: Callable[[], None] = lambda: None,
    drain: Callable[[], Awaitable[None]] | None = None,
    **options: Any,
) -> bool:
    """Serve ``app`` with uvicorn (``uvicorn.Config`` ``options``) on ``sockets`` until stopped;
    ``ready()`` once it serves, ``stopping()`` as soon as a stop is asked for (SIGTERM,
    Ctrl+C), before uvicorn closes anything. With ``drain``, a SIGTERM first awaits
    ``drain()`` on the server's loop, serving meanwhile, and only then stops (a second
    SIGTERM, or Ctrl+C, stops at once). Whether it started (``False``: uvicorn's startup
    failed, and said why).

    A stop is uvicorn's: the listening sockets close, every WebSocket is closed with 1012
    (service restart), HTTP connections end after their response, and then the app's lifespan
    ends (the server's: the storage writer commits everything queued).
    """
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, calling ``ready`` once its startup is done and ``stopping`` when
        a stop is asked for."""

        loop: asyncio.AbstractEventLoop | None = None
        draining: asyncio.Task[None] | None = None

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            self.loop = asyncio.get_running_loop()
            await super().startup(sockets=sockets)
            if self.started:
                ready()

        def handle_exit(self, sig: int, frame: Any) -> None:
            if not self.should_exit and self.draining is None:
                stopping()
                if drain is not None and sig == signal.SIGTERM and self.loop is not None:
                    self.loop.call_soon_threadsafe(self._drain, sig, frame)
                    return
            self._exit(sig, frame)

        def _drain(self, sig: int, frame: Any) -> None:
            assert drain is not None
            self.draining = asyncio.ensure_future(drain())

            def drained(task: asyncio.Task[None]) -> None:
                if not task.cancelled() and task.exception() is not None:
                    logging.getLogger("blink.server").error(
                        "the graceful stop failed", exc_info=task.exception()
                    )
                self._exit(sig, frame)

            self.draining.add_done_callback(drained)

        def _exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            if sig == signal.SIGTERM:
                # uvicorn raises the signals it caught again once it has stopped, and an
                # uncaught SIGTERM ends the process with status -15: a stop it was asked for
                # and completed is exit 0 (Ctrl+C still ends as KeyboardInterrupt, caught below).
                caught: list[int] = getattr(self, "_captured_signals", [])
                with contextlib.suppress(ValueError):
                    caught.remove(sig)

    server = Server(uvicorn.Config(app, **options))
    try:
        server.run(sockets=sockets)
    except KeyboardInterrupt:  # uvicorn raises the Ctrl+C it caught again once it has stopped
        pass
    finally:
        for sock in sockets:
            sock.close()
    return server.started


def forwarding(
    app: Any,
    proxies: list[str],
    trusted: Callable[[str], bool] | None,
    secret: str | None = None,
) -> Any:
    """``app`` as the server serves it: with ``trusted`` (``--proxy-headers``), uvicorn's
    ``ProxyHeadersMiddleware`` takes the client's address from the trusted ``proxies``'
    ``X-Forwarded-For``, on their requests that carry ``secret`` (``--proxy-secret``; ``None``:
    on all of them); outside it :class:`blink.server.forwarded.Forwarded` decides, while the
    scope's client is still the socket's peer, which requests are the proxy's, and reads the
    room it pinned them to."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from blink.server.forwarded import Forwarded

    proxied = app
    if trusted is not None:
        proxied = ProxyHeadersMiddleware(app, trusted_hosts=",".join(proxies))
    return Forwarded(app, trusted, proxied, secret)


def trusted(proxies: list[str]) -> Callable[[str], bool]:
    """Whether a socket's peer address is one of ``proxies`` (addresses, networks, ``*``), as
    uvicorn's ``--forwarded-allow-ips`` reads them."""
    from blink.server.metrics import AddressFilter

    match = AddressFilter(proxies, loopback=False)
    return match.allows


# --- logging ----------------------------------------------------------------------------------

JSON_FIELDS = "%(levelname)s %(name)s %(message)s"
"""The fields of every JSON log line, besides ``time`` (ISO 8601, UTC, microseconds), and then
any extra ones of the record."""
JSON_NAMES = {"levelname": "level", "name": "logger"}


def log_config(fmt: str, level: str) -> dict[str, Any]:
    """The logging configuration (``logging.config.dictConfig``) of ``blink serve``, given to
    uvicorn as its ``log_config`` so that its loggers (``uvicorn``, ``uvicorn.error``,
    ``uvicorn.access``) and the server's (``blink``, every other one through the root logger)
    write one format to stderr: ``text`` (uvicorn's) or ``json`` (one object a line, by
    python-json-logger)."""
    numeric = "DEBUG" if level == "trace" else level.upper()
    if fmt == "json":
        from pythonjsonlogger.core import RESERVED_ATTRS

        formatter: dict[str, Any] = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "rename_fields": JSON_NAMES,
            "timestamp": "time",
            # uvicorn adds its message with terminal colours as an extra field: left out.
            "reserved_attrs": [*RESERVED_ATTRS, "color_message"],
        }
        formatters = {"default": formatter, "access": formatter}
    else:
        formatters = {
            "default": {
                "()": "uvicorn.logging.DefaultFormatter",
                "fmt": "%(levelprefix)s %(message)s",
                "use_colors": None,
            },
            "access": {
                "()": "uvicorn.logging.AccessFormatter",
                "fmt": '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
            },
        }
    handler = {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters,
        "handlers": {
            "default": {**handler, "formatter": "default"},
            "access": {**handler, "formatter": "access"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": numeric, "propagate": False},
            "uvicorn.error": {"level": numeric},
            "uvicorn.access": {"handlers": ["access"], "level": numeric, "propagate": False},
        },
        "root": {"handlers": ["default"], "level": numeric},
    }


def configure_logging(fmt: str, level: str) -> None:
    """Configure logging now (uvicorn configures it again with the same :func:`log_config`
    when it starts), so that what is logged before the server runs has the same format."""
    import logging.config

    logging.config.dictConfig(log_config(fmt, level))
