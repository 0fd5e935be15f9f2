"""The writer commits everything queued in one loop turn together; one wrong job in a batch
loses none of the others (every writer of each database: inline and thread, and on PostgreSQL
the asynchronous connection, whose failed pipeline is redone job by job)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from blink.server import jobs
from blink.server.schema import actions
from blink.server.storage import Storage


def _writer(db_url: str, kind: str) -> str:
    """``kind``, with "async" standing for "inline" on SQLite (it has no async writer)."""
    return "inline" if kind == "async" and db_url.startswith("sqlite") else kind


@pytest.mark.parametrize("kind", ["inline", "thread", "async"])
async def test_a_wrong_job_in_a_batch_loses_none_of_the_others(db_url: str, kind: str) -> None:
    storage = Storage(db_url, writer=_writer(db_url, kind))
    storage.start(asyncio.get_running_loop())
    try:
        results: dict[int, Any] = {}
        queued = [
            jobs.job_append_action(7, 1, {"type": "play"}, 0, "a"),
            jobs.job_append_action(7, 2, {"type": "play"}, 1, "b"),
            jobs.job_append_action(7, 1, {"type": "play"}, 0, "again"),  # (7, 1) is taken
            jobs.job_update_room("NOROOM", status="playing"),
            jobs.job_append_action(7, 3, {"type": "play"}, 0, "c"),
        ]
        for i, job in enumerate(queued):  # one loop turn: one batch
            storage.submit(job, lambda r, i=i: results.__setitem__(i, r))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while len(results) < len(queued):
            assert loop.time() < deadline, f"only {sorted(results)} were answered"
            await asyncio.sleep(0.01)
        assert isinstance(results.pop(2), Exception)
        assert all(r is None for r in results.values())
        with storage.engine.connect() as conn:
            rows = conn.execute(
                select(actions.c.seq, actions.c.client_id).order_by(actions.c.seq)
            ).all()
        assert [tuple(r) for r in rows] == [(1, "a"), (2, "b"), (3, "c")]
    finally:
        storage.stop()


@pytest.mark.parametrize("kind", ["inline", "thread", "async"])
async def test_the_queued_jobs_are_committed_by_stop(db_url: str, kind: str) -> None:
    storage = Storage(db_url, writer=_writer(db_url, kind))
    storage.start(asyncio.get_running_loop())
    done: list[Any] = []
    for seq in range(1, 51):
        storage.submit(jobs.job_append_action(9, seq, {"type": "play"}, 0, None), done.append)
    await asyncio.to_thread(storage.stop)  # as the server's lifespan stops it
    assert done == [None] * 50
    again = Storage(db_url)
    try:
        with again.engine.connect() as conn:
            seqs = conn.execute(select(actions.c.seq).where(actions.c.game_id == 9)).scalars()
            assert sorted(seqs) == list(range(1, 51))
    finally:
        again.stop()


async def test_an_async_batch_is_one_round_trip_and_one_implicit_transaction(
    pg_url: str, tmp_path: Path
) -> None:
    """PostgreSQL's async writer sends a batch as one pipeline ended by one Sync: no BEGIN,
    no COMMIT, one round trip (read from libpq's own trace of the connection's messages). The
    statements before the Sync are one transaction: a batch whose last statement fails leaves
    nothing of its earlier ones."""
    import psycopg

    storage = Storage(pg_url, writer="async")
    storage.start(asyncio.get_running_loop())
    writer = storage._pg
    assert writer is not None
    try:
        conn = await writer._connection()
        trace = tmp_path / "libpq.trace"
        with open(trace, "w") as out:
            conn.pgconn.trace(out.fileno())
            conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            good = [
                jobs.job_append_action(11, 1, {"type": "play"}, 0, "a"),
                jobs.job_append_action(11, 2, {"type": "play"}, 1, "b"),
                jobs.job_update_room("NOROOM", status="playing"),  # an UPDATE of no row
            ]
            assert await writer.commit(good) == [None, None, None]
            conn.pgconn.untrace()
        sent = [line.split("\t") for line in trace.read_text().splitlines()]
        frontend = [f[2] for f in sent if len(f) > 2 and f[0] == "F"]
        text = trace.read_text()
        assert frontend.count("Sync") == 1, frontend
        assert "BEGIN" not in text and "COMMIT" not in text
        # Committed: another connection sees both rows.
        with storage.engine.connect() as other:
            seqs = other.execute(select(actions.c.seq).where(actions.c.game_id == 11)).all()
        assert sorted(r[0] for r in seqs) == [1, 2]

        bad = [
            jobs.job_append_action(12, 1, {"type": "play"}, 0, "c"),
            jobs.job_append_action(11, 2, {"type": "play"}, 1, "taken"),  # (11, 2) is taken
        ]
        with pytest.raises(psycopg.errors.UniqueViolation):
            await writer.commit(bad)
        with storage.engine.connect() as other:
            left = other.execute(select(actions.c.seq).where(actions.c.game_id == 12)).all()
        assert left == []
    finally:
        storage.stop()


async def test_a_batch_of_plays_is_one_statement_behind_its_fence(
    pg_url: str, tmp_path: Path
) -> None:
    """A batch of appended actions alone (a game being played: nearly every batch) goes out as
    one statement and one Sync: its rows as arrays, read through the fence of the rooms it
    writes. Its rows are stored as given, missing seats and client ids included; when a room's
    lease moved, the fence refuses the statement and none of its rows is stored."""
    import psycopg

    from blink.server.lease import PgLeases

    mine, other = PgLeases(pg_url), PgLeases(pg_url)
    storage = Storage(pg_url, writer="async")
    storage.start(asyncio.get_running_loop())
    writer = storage._pg
    assert writer is not None
    try:
        assert mine.acquire("ROOM21") and mine.acquire("ROOM22")
        conn = await writer._connection()
        # The statement is prepared by a connection's first batch of its parameters' types (a
        # round trip of its own); a column of missing values only is an array of NULLs.
        first = jobs.Fenced(jobs.job_append_action(20, 1, {"type": "play"}, 0, "z"), "ROOM21", 1)
        nulls = jobs.Fenced(
            jobs.job_append_action(20, 2, {"type": "stall"}, None, None), "ROOM21", 1
        )
        assert await writer.commit([first]) == [None]
        assert await writer.commit([nulls]) == [None]
        trace = tmp_path / "libpq.trace"
        with open(trace, "w") as out:
            conn.pgconn.trace(out.fileno())
            conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            plays = [
                jobs.Fenced(jobs.job_append_action(21, 1, {"type": "play"}, 0, "a"), "ROOM21", 1),
                jobs.Fenced(
                    jobs.job_append_action(22, 1, {"type": "stall"}, None, None), "ROOM22", 1
                ),
                jobs.Fenced(jobs.job_append_action(21, 2, {"type": "play"}, 1, None), "ROOM21", 1),
            ]
            assert await writer.commit(plays) == [None, None, None]
            conn.pgconn.untrace()
        frontend = [
            f[2]
            for f in (line.split("\t") for line in trace.read_text().splitlines())
            if len(f) > 2 and f[0] == "F"
        ]
        assert frontend == ["Bind", "Describe", "Execute", "Sync"], frontend
        with storage.engine.connect() as db:
            rows = db.execute(
                select(
                    actions.c.game_id,
                    actions.c.seq,
                    actions.c.action,
                    actions.c.seat,
                    actions.c.client_id,
                )
                .where(actions.c.game_id >= 20)
                .order_by(actions.c.game_id, actions.c.seq)
            ).all()
        assert [tuple(r) for r in rows] == [
            (20, 1, '{"type":"play"}', 0, "z"),
            (20, 2, '{"type":"stall"}', None, None),
            (21, 1, '{"type":"play"}', 0, "a"),
            (21, 2, '{"type":"play"}', 1, None),
            (22, 1, '{"type":"stall"}', None, None),
        ]

        mine.release("ROOM22")
        assert other.acquire("ROOM22")  # epoch 2: the writes made under 1 are stale
        stale = [
            jobs.Fenced(jobs.job_append_action(21, 3, {"type": "play"}, 0, "c"), "ROOM21", 1),
            jobs.Fenced(jobs.job_append_action(22, 2, {"type": "play"}, 0, "d"), "ROOM22", 1),
        ]
        with pytest.raises(psycopg.Error) as refused:
            await writer.commit(stale)
        assert refused.value.sqlstate == jobs.FENCED_SQLSTATE
        with storage.engine.connect() as db:
            count = db.execute(select(actions.c.seq).where(actions.c.seq >= 3)).all()
            later = db.execute(select(actions.c.seq).where(actions.c.game_id == 22)).all()
        assert count == [] and [r[0] for r in later] == [1]
    finally:
        storage.stop()
        mine.close()
        other.close()
