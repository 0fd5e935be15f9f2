"""A database written before rooms named their game (schema 0002) is upgraded and restored:
its classic and Go Blink rooms come back as such, with their unfinished games and options."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, column, create_engine, insert, table
from srvkit import fast_settings

from blink.cards import STANDARD_DECK, shuffled_deck
from blink.games.classic.engine import ClassicGame, Play
from blink.games.classic.record import action_to_dict
from blink.games.classic.rules import OFFICIAL
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import go_action_to_dict
from blink.server import schema
from blink.server.hub import Hub
from blink.server.storage import Storage
from blink.server.stored import record_of


def _insert(conn: Connection, name: str, /, **row: object) -> None:
    """Insert a row of the schema of the time (columns named, not the newest tables')."""
    conn.execute(insert(table(name, *(column(c) for c in row))).values(**row))


def _old_database(url: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002_profiles_tournaments")
    deck = shuffled_deck(5, STANDARD_DECK)
    classic = ClassicGame(deck, 2, OFFICIAL, (25, 25))
    classic.reveal(0)
    first = classic.legal_plays(0)[0] if classic.legal_plays(0) else classic.legal_plays(1)[0]
    classic.apply(Play(first.player, first.card, first.pile), 400)
    go = GoGame(deck, 2, 0)
    go_actions = []
    for t in (100, 200):
        action = go.default_action()
        assert action is not None
        go.apply(action, t)
        go_actions.append(go_action_to_dict(action, t))
    room = {
        "created_at": 1.0,
        "players": 2,
        "best_of": 1,
        "public": True,
        "series_number": 1,
        "status": "playing",
    }
    with engine.begin() as conn:
        _insert(conn, "rooms", code="CLASSC", ruleset="official", sizes="[25, 25]", **room)
        _insert(conn, "rooms", code="GOROOM", ruleset="goblink", sizes=None, **room)
        for code in ("CLASSC", "GOROOM"):
            for seat in (0, 1):
                conn.execute(
                    insert(schema.seats).values(
                        room_code=code,
                        seat=seat,
                        kind="human",
                        name=f"P{seat}",
                        token_hash=f"h{seat}",
                        left=False,
                    )
                )
        game = {
            "series_number": 1,
            "number": 1,
            "players": 2,
            "started_at": 2.0,
            "deck": " ".join(str(c) for c in deck),
            "names": json.dumps(["P0", "P1"]),
        }
        classic_rules = json.dumps(OFFICIAL.to_dict())
        _insert(
            conn, "games", id=1, room_code="CLASSC", ruleset=classic_rules, sizes="[25, 25]", **game
        )
        go_options = json.dumps({"game": "goblink", "dealer": 0})
        _insert(conn, "games", id=2, room_code="GOROOM", sizes=None, ruleset=go_options, **game)
        for seq, (action, t) in enumerate(classic.history, 1):
            conn.execute(
                insert(schema.actions).values(
                    game_id=1, seq=seq, action=json.dumps(action_to_dict(action, t))
                )
            )
        for seq, raw in enumerate(go_actions, 1):
            conn.execute(insert(schema.actions).values(game_id=2, seq=seq, action=json.dumps(raw)))
    engine.dispose()


async def test_an_old_database_is_upgraded_and_restored(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _old_database(url)
    settings = fast_settings(url, countdown=60.0, turn_time=600.0)
    storage = Storage(url)
    storage.start(asyncio.get_running_loop())
    try:
        hub = Hub(settings, storage, "test")
        hub.restore()
        classic, go = hub.rooms["CLASSC"], hub.rooms["GOROOM"]
        assert classic.game_name == "classic" and go.game_name == "goblink"
        assert classic.options == {"ruleset": "official", "sizes": [25, 25]}
        assert classic.info().sizes == [25, 25] and go.options == {}
        assert classic.game is not None and classic.game.seq == 2
        assert go.game is not None and go.game.seq == 2 and go.info().turn_ms == 600_000
        assert classic.game.game.sizes == (25, 25)
        lg = storage.load_game(2)
        assert lg is not None and record_of(lg).game_name == "goblink"
    finally:
        storage.stop()
