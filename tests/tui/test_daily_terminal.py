"""``blink play --server URL --daily`` against a real server (``blink serve``): the day's room
with an account's profile is its ranked attempt, a second one is played as a guest on the
day's practice deal (the ranked deal cannot be rehearsed), and the terminal client plays
both."""

from __future__ import annotations

import httpx
from tests.tui.helpers import stage, wait_for

from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import OnlineError, OnlineTable
from blink.games.classic.tui.table import Stage
from blink.tui.daily import prepare_daily


async def test_the_daily_challenge_in_the_terminal(server_url: str) -> None:
    account = {"name": "Termi", "password": "Termi plays the daily deal"}
    made = httpx.post(f"{server_url}/api/accounts", json=account, timeout=10).json()["profile"]
    first = prepare_daily(server_url, name="Termi", profile_secret=made["secret"])
    assert first.notice is not None and "(ranked)" in first.notice and first.seat == 0
    # The attempt of the day is spent: the day is played again as a guest, and said so, on
    # the day's practice deal.
    second = prepare_daily(server_url, name="Termi", profile_secret=made["secret"])
    assert second.notice is not None and "playing as a guest" in second.notice
    assert "(unranked)" in second.notice and second.code != first.code
    rooms = [
        httpx.get(f"{server_url}/api/rooms/{s.code}", timeout=10).json() for s in (first, second)
    ]
    assert rooms[0]["options"]["daily"] == rooms[1]["options"]["daily"]
    assert all("deal_seed" not in r["options"] for r in rooms)
    hands = []
    for seat in (first, second):
        table = OnlineTable(seat, name="Termi")
        app = BlinkApp(table, title=f"room {seat.code}")
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda t=table: t.view(0) is not None)
            view = table.view(0)
            assert view is not None
            hands.append(list(view.hand))
            await wait_for(pilot, lambda a=app: stage(a) in (Stage.COUNTDOWN, Stage.PLAYING))
    assert hands[0] and hands[1] and hands[0] != hands[1]  # the practice deal is another
    try:
        prepare_daily(server_url, name="Termi", date="2020-01-01")
    except OnlineError as exc:
        assert exc.code == "no_such_day"
    else:
        raise AssertionError("a day nobody played was made a room")
