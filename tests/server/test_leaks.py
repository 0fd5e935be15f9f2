"""Leak test: play complete games and scan every frame each client received for cards it may
not see at that moment (another hand, any draw pile, another player's secret choice)."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from srvkit import Client, ServerThread, bot_loop, seat_clients

from blink.games.classic.engine import ClassicGame
from blink.games.classic.record import GameRecord

CARD = re.compile(r"^[1-5][ROYGBP][MPSWFL]$")


def _cards_in(obj: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= _cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _cards_in(v)
    return out


def _knowable(record: GameRecord, seat: int | None) -> list[set[str]]:
    """For each seq (0 = the deal), every card the receiver may have seen by then."""
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    seen: set[str] = set()

    def add_visible(g: ClassicGame) -> None:
        if g.phase.value != "dealt":
            for p in range(g.players):
                seen.update(str(c) for c in g.pile(p))
        if seat is not None:
            seen.update(str(c) for c in g.hand(seat))
            mine = g.choices.get(seat)
            if mine is not None:
                seen.add(str(mine))

    add_visible(game)
    out = [set(seen)]
    for action, t in record.actions:
        game.apply(action, t)
        add_visible(game)
        out.append(set(seen))
    return out


def _scan(client: Client, knowable: dict[int, list[set[str]]], seat: int | None) -> int:
    checked = 0
    game: int | None = None
    seq = 0
    for frame in client.frames:
        m = json.loads(frame)
        if m.get("type") in ("snapshot", "update", "countdown", "game_end"):
            game, seq = m["game"], m["seq"]
        cards = _cards_in(m)
        if not cards:
            continue
        assert game is not None, f"cards before any game: {frame}"
        if game not in knowable:
            # A later game of the series that started while we stopped: not scanned.
            assert game > max(knowable), frame
            continue
        allowed = knowable[game][seq]
        leaked = cards - allowed
        assert not leaked, f"seat {seat} saw {leaked} at game {game} seq {seq}: {frame}"
        checked += 1
    return checked


async def _play_and_scan(server: ServerThread, players: int, spectators: int, **room: Any) -> None:
    _code, clients, _ = await seat_clients(server, players=players, spectators=spectators, **room)
    seated, watchers = clients[:players], clients[players:]
    games = room.get("best_of", 1) // 2 + 1
    ends = await asyncio.gather(*(bot_loop(c, games=games) for c in seated))
    for w in watchers:
        await w.wait(lambda m: m["type"] == "game_end" and m["game"] == ends[0][-1]["game"])
    knowable: dict[int, dict[int | None, list[set[str]]]] = {}
    for end in ends[0]:
        record = GameRecord.from_dict(server.get(end["record_url"]).json())
        knowable[end["game"]] = {s: _knowable(record, s) for s in [*range(players), None]}
    total = 0
    for c in clients:
        per_game = {g: k[c.seat] for g, k in knowable.items()}
        total += _scan(c, per_game, c.seat)
    assert total > 50
    for c in clients:
        await c.close()


async def test_no_leaks_two_players_and_a_spectator(server: ServerThread) -> None:
    await _play_and_scan(server, 2, 1, best_of=3)


async def test_no_leaks_three_players_and_spectators(server: ServerThread) -> None:
    await _play_and_scan(server, 3, 2)


async def test_no_leaks_in_choosing_stalls(server: ServerThread) -> None:
    # Small draw piles make choosing stalls (secret choices) frequent.
    await _play_and_scan(server, 2, 1, handicap="5:5", best_of=5)
