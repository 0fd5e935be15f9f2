"""Game ids in blocks (blink.server.ids): handed out from memory, the next block asked for
ahead through the writer, never below the ids already stored, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, column, create_engine, event, insert, table

from blink.server import schema
from blink.server.ids import BLOCK_SIZE, GameIds
from blink.server.storage import Storage


def _count_statements(engine: Engine) -> list[str]:
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _seen(_c: object, _cur: object, statement: str, *_rest: object) -> None:
        seen.append(statement)

    return seen


async def _until(cond: object, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not cond():  # type: ignore[operator]
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


async def test_ids_come_from_memory_and_the_next_block_is_ready_in_time(db_url: str) -> None:
    storage = Storage(db_url)
    storage.checkpoints.every = 3600.0  # no SQLite checkpoint among the statements counted
    storage.start(asyncio.get_running_loop())
    try:
        ids = GameIds(storage)
        ids.start()
        seen = _count_statements(storage.engine)
        got: list[int] = []
        for _ in range(3 * BLOCK_SIZE):
            got.append(ids.take())
            # Taking an id runs no SQL on the loop: the next block is asked of the writer.
            asking = ids._asking
            await _until(lambda: not ids._asking, "the next block")
            if not asking:
                assert not seen
            seen.clear()
        assert got == list(range(1, 3 * BLOCK_SIZE + 1))
        assert ids.waited == 0 and ids.blocks_taken == 3
        # Past a block with none ready (nothing ran the writer): read at once, still unique,
        # and twice as many blocks are asked for from then on.
        ids._ready.clear()
        ids._block, ids._pos = range(0), 0
        more = ids.take()
        assert more > got[-1] and ids.waited == 1
        for _ in range(BLOCK_SIZE // 2):
            ids.take()
        await _until(lambda: len(ids._ready) == 2, "two blocks")
        assert min(ids._ready[0]) > more and min(ids._ready[1]) > max(ids._ready[0])
    finally:
        storage.stop()


async def test_a_restart_skips_the_rest_of_its_block(db_url: str) -> None:
    first = Storage(db_url)
    first.start(asyncio.get_running_loop())
    a = GameIds(first)
    a.start()
    taken = [a.take() for _ in range(3)]
    first.stop()
    second = Storage(db_url)
    second.start(asyncio.get_running_loop())
    try:
        b = GameIds(second)
        b.start()
        assert b.take() > max(taken)
    finally:
        second.stop()


def _migrations() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    return cfg


def _game_row(gid: int, deal: str = "deal_options") -> dict[str, object]:
    """A game row (``deal``: the name of its deal options' column, ``ruleset`` before 0016)."""
    return {
        "id": gid,
        "room_code": "OLDONE",
        "series_number": 1,
        "number": 1,
        "players": 2,
        deal: json.dumps({"game": "classic"}),
        "deck": "",
        "names": "[]",
        "started_at": 1.0,
    }


async def test_an_existing_database_keeps_its_ids(db_url: str) -> None:
    engine = create_engine(db_url)
    cfg = _migrations()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004_game_bot_seeds")
        old = _game_row(57, "ruleset")
        conn.execute(insert(table("games", *(column(c) for c in old))).values(**old))
    storage = Storage(db_url)  # upgrades to the newest schema
    storage.start(asyncio.get_running_loop())
    try:
        ids = GameIds(storage)
        ids.start()
        assert ids.take() == 58
        if engine.dialect.name == "sqlite":
            # A row written past the SQLite counter (by hand, by an older server) is skipped.
            with engine.begin() as conn:
                conn.execute(insert(schema.games).values(**_game_row(5000)))
            ids._ready.clear()
            ids._block = range(0)
            assert ids.take() == 5001
    finally:
        storage.stop()
        engine.dispose()
