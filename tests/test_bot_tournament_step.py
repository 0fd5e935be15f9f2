"""What ``blink bot play --tournament`` does next from a tournament's state
(:func:`blink.cli.botclient.tournament_step`): check in while check-in is open, play each match
room opened for it once, wait otherwise, and stop when it is out or the tournament is over."""

from __future__ import annotations

from typing import Any

from blink.cli.botclient import tournament_step


def _state(status: str = "running", **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "status": status,
        "players": [{"name": n, "withdrawn": False, "checked_in": None} for n in ("A", "B", "C")],
        "check_in": {"open": False},
        "rooms": {},
        "tournament": {"matches": []},
    }
    return base | over


def _match(
    mid: str, players: list[str | None], status: str, kind: str = "elimination", **m: Any
) -> Any:
    return {"id": mid, "players": players, "status": status, "kind": kind, "winner": None} | m


def test_it_checks_in_then_waits() -> None:
    st = _state("signup", check_in={"open": True})
    assert tournament_step(st, "A", set()) == "check_in"
    st["players"][0]["checked_in"] = True
    assert tournament_step(st, "A", set()) is None


def test_it_plays_each_room_of_its_matches_once() -> None:
    st = _state(
        rooms={"R1-1": {"code": "ABCD"}, "R1-2": {"code": "EFGH"}},
        tournament={
            "matches": [_match("R1-1", ["A", "B"], "ready"), _match("R1-2", ["C", "D"], "ready")]
        },
    )
    assert tournament_step(st, "A", set()) == "ABCD"
    assert tournament_step(st, "A", {"ABCD"}) is None  # played: wait for the result
    assert tournament_step(st, "C", set()) == "EFGH"


def test_it_stops_once_out_or_over() -> None:
    lost = _match("R1-1", ["A", "B"], "decided", winner="B")
    st = _state(tournament={"matches": [lost, _match("F", ["B", None], "waiting", "final")]})
    assert tournament_step(st, "A", {"ABCD"}) == "over"
    assert tournament_step(st, "B", {"ABCD"}) is None  # the winner waits for its final
    assert tournament_step(_state("finished"), "B", set()) == "over"
    assert tournament_step(_state(), "Z", set()) == "over"  # left out of the draw
    gone = _state()
    gone["players"][0]["withdrawn"] = True
    assert tournament_step(gone, "A", set()) == "over"
