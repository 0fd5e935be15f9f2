"""Fixtures for the server tests: a real uvicorn server on a free port with a real database.

The database fixture runs every test against SQLite, and also against PostgreSQL when
``BLINK_TEST_DATABASE_URL`` is set (scripts/postgres.sh starts a throwaway cluster).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from srvkit import ServerThread, fast_settings, pg_create_db, pg_drop_db

PG_URL = os.environ.get("BLINK_TEST_DATABASE_URL")
DB_KINDS = ["sqlite"] + (["postgres"] if PG_URL else [])


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'blink.db'}"
        return
    assert PG_URL is not None
    name = "blink_t_" + secrets.token_hex(6)
    url = pg_create_db(PG_URL, name)
    try:
        yield url
    finally:
        pg_drop_db(PG_URL, name)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL server's URL: ``BLINK_TEST_DATABASE_URL``'s, else a throwaway server of the
    session's own (so a PostgreSQL-only test always runs, never skips)."""
    if PG_URL:
        yield PG_URL
        return
    from blink.cluster.local import LocalPostgres

    pg = LocalPostgres()
    pg.start()
    try:
        yield pg.url
    finally:
        pg.stop()


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database, for what only PostgreSQL has."""
    name = "blink_t_" + secrets.token_hex(6)
    url = pg_create_db(pg_server, name)
    try:
        yield url
    finally:
        pg_drop_db(pg_server, name)


@pytest.fixture
def make_server(db_url: str) -> Iterator[Callable[..., ServerThread]]:
    """Start servers on free ports (stopped at the end of the test)."""
    started: list[ServerThread] = []

    def make(deflate: bool = False, **overrides: Any) -> ServerThread:
        s = ServerThread(fast_settings(db_url, **overrides), deflate=deflate)
        s.start()
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()


@pytest.fixture
def server(make_server: Callable[..., ServerThread]) -> ServerThread:
    """One running server with test settings."""
    return make_server()
