"""Shared helpers for the tournament tests."""

from __future__ import annotations

import hashlib

from blink.tournament import Entrant, Match, Tournament


def ranked(n: int) -> list[Entrant]:
    """``n`` players P1..Pn, ranked 1..n by the organiser (P1 most experienced)."""
    return [Entrant(f"P{i}", rank=i) for i in range(1, n + 1)]


def favourite_wins(t: Tournament) -> None:
    """Play the tournament to the end: the better-ranked player wins every game."""
    rank = {e.name: e.rank or 0 for e in t.entrants}
    guard = 0
    while not t.finished:
        guard += 1
        assert guard < 10_000
        m = t.ready_matches()[0]
        best = min((p for p in m.players if p is not None), key=lambda p: rank[p])
        t.record_game(m.id, best)


def oracle(m: Match, salt: str = "") -> list[str]:
    """A deterministic result for the next game of ``m``: a winner, or a tie (both)."""
    players = [p for p in m.players if p is not None]
    h = hashlib.sha256(f"{salt}|{m.id}|{len(m.games)}|{'|'.join(players)}".encode()).digest()
    if h[0] < 20:
        return players
    return [players[h[1] % len(players)]]


def play_set(t: Tournament, match_id: str, first_wins: int) -> None:
    """Play a final-round set of three games: the first-listed player wins ``first_wins``."""
    m = t.match(match_id)
    a, b = m.players
    assert a is not None and b is not None
    for i in range(3):
        t.record_game(match_id, a if i < first_wins else b)


def play_match(t: Tournament, match_id: str, winner: str, loser_games: int = 0) -> None:
    """Play a two-out-of-three match won by ``winner`` (the loser winning ``loser_games``)."""
    m = t.match(match_id)
    loser = next(p for p in m.players if p != winner)
    assert loser is not None
    for _ in range(loser_games):
        t.record_game(match_id, loser)
    t.record_game(match_id, winner)
    t.record_game(match_id, winner)
