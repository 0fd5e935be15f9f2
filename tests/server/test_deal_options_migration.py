"""Migration 0016_deal_options on SQLite and PostgreSQL: the classic-named columns leave every
game's rows. A game's ``ruleset`` column becomes ``deal_options`` (an unnamed classic row gets
the named form, its ``sizes`` inside), the ``sizes`` columns and ``rooms.ruleset`` go (a room
without options gets them from its columns), and the stored games of both games replay as
before. The downgrade puts the columns back filled from the options, and a second upgrade
gives the same rows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.games.classic.engine import ClassicGame, Play
from blink.games.classic.record import action_to_dict
from blink.games.classic.rules import DEAD_END, OFFICIAL
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import go_action_to_dict
from blink.server import schema
from blink.server.room_writes import deal_options
from blink.server.storage import Storage
from blink.server.stored import record_of

BEFORE = "0015_tournament_leases"
AFTER = "0016_deal_options"


def _config(conn: sa.Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    return cfg


def _migrate(engine: sa.Engine, step: str, revision: str) -> None:
    with engine.begin() as conn:
        getattr(command, step)(_config(conn), revision)


def _insert(conn: sa.Connection, name: str, /, **row: object) -> None:
    """Insert a row of the schema before the migration (its columns named)."""
    conn.execute(sa.insert(sa.table(name, *(sa.column(c) for c in row))).values(**row))


def _rows(engine: sa.Engine, name: str, key: str) -> dict[Any, dict[str, Any]]:
    with engine.connect() as conn:
        found = conn.execute(sa.text(f"SELECT * FROM {name}")).mappings().all()
    return {r[key]: dict(r) for r in found}


def _columns(engine: sa.Engine, name: str) -> dict[str, bool]:
    """Each column of a table and whether it may be null."""
    with engine.connect() as conn:
        return {c["name"]: c["nullable"] for c in sa.inspect(conn).get_columns(name)}


def _played(n: int) -> tuple[list[Any], ClassicGame, ClassicGame, GoGame]:
    """A deck, two classic games (25+25 official, 30+22 dead end) and a Go Blink game, each
    ``n`` actions in."""
    deck = shuffled_deck(5, STANDARD_DECK)
    classics = [ClassicGame(deck, 2, OFFICIAL, (25, 25)), ClassicGame(deck, 2, DEAD_END, (30, 22))]
    for g in classics:
        g.reveal(0)
        for _ in range(n):
            plays = g.legal_plays(0) or g.legal_plays(1)
            g.apply(Play(plays[0].player, plays[0].card, plays[0].pile), 400)
    go = GoGame(deck, 2, 0)
    for t in range(n):
        action = go.default_action()
        assert action is not None
        go.apply(action, 100 * (t + 1))
    return deck, classics[0], classics[1], go


def _old_rows(engine: sa.Engine) -> tuple[ClassicGame, ClassicGame, GoGame]:
    """Rooms and games of both games as the server stored them before: an old classic room and
    game (no options; a ruleset object and its sizes in their columns), a named classic game
    with its sizes in both, Go Blink's with and without options."""
    deck, old, new, go = _played(1)
    room = {"created_at": 1.0, "players": 2, "best_of": 1, "public": True, "series_number": 1}
    room |= {"status": "playing"}
    dead_end = '{"ruleset":"dead-end","sizes":[30,22]}'
    game: dict[str, Any] = {"series_number": 1, "number": 1, "players": 2, "started_at": 2.0}
    game |= {"deck": " ".join(map(str, deck)), "names": '["P0","P1"]'}
    with engine.begin() as conn:
        for code, kind, ruleset, sizes, options in (
            ("OLDCLA", "classic", "official", "[25,25]", None),
            ("NEWCLA", "classic", "dead-end", "[30,22]", dead_end),
            ("OLDGOB", "goblink", "goblink", None, None),
            ("NEWGOB", "goblink", "goblink", None, '{"turn":30}'),
        ):
            _insert(conn, "rooms", code=code, game=kind, ruleset=ruleset, sizes=sizes,
                    options=options, **room)  # fmt: skip
            for seat in (0, 1):
                _insert(conn, "seats", room_code=code, seat=seat, kind="human", name=f"P{seat}",
                        token_hash=f"h{code}{seat}", left=False)  # fmt: skip
        for gid, code, ruleset, sizes in (
            (1, "OLDCLA", json.dumps(OFFICIAL.to_dict()), "[25,25]"),
            (2, "NEWCLA", deal_options("classic", new), "[30,22]"),
            (3, "NEWGOB", deal_options("goblink", go), None),
        ):
            _insert(conn, "games", id=gid, room_code=code, ruleset=ruleset, sizes=sizes, **game)
        for gid, raws in (
            (1, [action_to_dict(a, t) for a, t in old.history]),
            (2, [action_to_dict(a, t) for a, t in new.history]),
            (3, [go_action_to_dict(a, t) for a, t in go.history]),
        ):
            for seq, raw in enumerate(raws, 1):
                _insert(conn, "actions", game_id=gid, seq=seq, action=json.dumps(raw))
    return old, new, go


def _check_upgraded(engine: sa.Engine, new: ClassicGame, go: GoGame) -> None:
    rooms, games = _columns(engine, "rooms"), _columns(engine, "games")
    assert "ruleset" not in rooms and "sizes" not in rooms and rooms["options"] is False
    assert "ruleset" not in games and "sizes" not in games and games["deal_options"] is False
    options = {c: json.loads(r["options"]) for c, r in _rows(engine, "rooms", "code").items()}
    assert options == {
        "OLDCLA": {"ruleset": "official", "sizes": [25, 25]},
        "NEWCLA": {"ruleset": "dead-end", "sizes": [30, 22]},
        "OLDGOB": {},
        "NEWGOB": {"turn": 30},
    }
    deals = {i: json.loads(r["deal_options"]) for i, r in _rows(engine, "games", "id").items()}
    assert deals == {
        1: {
            "game": "classic",
            "variant": {"players": 2, "sizes": [25, 25]},
            "ruleset": OFFICIAL.to_dict(),
        },
        2: json.loads(deal_options("classic", new)),
        3: json.loads(deal_options("goblink", go)),
    }
    assert deals[2]["variant"]["sizes"] == [30, 22]


async def _check_replayed(url: str, games: tuple[ClassicGame, ClassicGame, GoGame]) -> None:
    """The stored games rebuild to the games played, through the newest code."""
    storage = Storage(url)
    storage.start(asyncio.get_running_loop())
    try:
        for gid, played in enumerate(games, 1):
            lg = storage.load_game(gid)
            assert lg is not None
            record = record_of(lg).to_dict()
            assert record["actions"] == [
                (go_action_to_dict if gid == 3 else action_to_dict)(a, t) for a, t in played.history
            ]
            if gid < 3:
                assert isinstance(played, ClassicGame)
                assert record["variant"]["sizes"] == list(played.sizes)
                assert record["ruleset"] == played.ruleset.to_dict()
    finally:
        storage.stop()


def _check_downgraded(engine: sa.Engine) -> None:
    rooms, games = _columns(engine, "rooms"), _columns(engine, "games")
    assert rooms["ruleset"] is False and rooms["sizes"] and rooms["options"]
    assert "deal_options" not in games and games["ruleset"] is False and games["sizes"]
    got = {c: (r["ruleset"], r["sizes"]) for c, r in _rows(engine, "rooms", "code").items()}
    assert got == {
        "OLDCLA": ("official", "[25,25]"),
        "NEWCLA": ("dead-end", "[30,22]"),
        "OLDGOB": ("goblink", None),
        "NEWGOB": ("goblink", None),
    }
    sizes = {i: r["sizes"] for i, r in _rows(engine, "games", "id").items()}
    assert sizes == {1: "[25,25]", 2: "[30,22]", 3: None}


async def test_upgrade_and_downgrade_keep_both_games_rows(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    try:
        _migrate(engine, "upgrade", BEFORE)
        old, new, go = _old_rows(engine)
        _migrate(engine, "upgrade", AFTER)
        _check_upgraded(engine, new, go)
        upgraded = (_rows(engine, "rooms", "code"), _rows(engine, "games", "id"))
        await _check_replayed(db_url, (old, new, go))
        _migrate(engine, "downgrade", BEFORE)
        _check_downgraded(engine)
        _migrate(engine, "upgrade", AFTER)
        assert (_rows(engine, "rooms", "code"), _rows(engine, "games", "id")) == upgraded
        await _check_replayed(db_url, (old, new, go))
    finally:
        engine.dispose()
