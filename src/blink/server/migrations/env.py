"""Alembic environment for the blink server schema (run by blink.server.schema.migrate)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from blink.server.schema import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


_conn = config.attributes.get("connection")
if _conn is not None:
    _run(_conn)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("set sqlalchemy.url (alembic -x or alembic.ini) to migrate by hand")
    _engine = create_engine(url, poolclass=pool.NullPool)
    with _engine.connect() as _c:
        _run(_c)
        _c.commit()
