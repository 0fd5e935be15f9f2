"""The terminal table in Spanish, as drawn (SVG snapshots, ``pytest --snapshot-update`` to
redraw them after a deliberate change): the longer Spanish words must fit the same 80x24
screen as the English ones."""

from __future__ import annotations

from typing import Any

from tests.tui.test_snapshots import Compare, _redraw, idle

from blink.games.classic.cli.play import local_app
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import ManualClock
from blink.tui.i18n import set_language


def _app(hotseat: bool, players: int, seed: int) -> BlinkApp:
    set_language("es")
    deal: dict[str, Any] = {"seed": seed, "countdown": 0.0, "clock": ManualClock()}
    if not hotseat:
        deal["live_bot"] = idle
    return local_app(hotseat, [], "expert", None if hotseat else "blocker", players, deal, {})


def test_three_players_against_bots_in_spanish(snap_compare: Compare) -> None:
    # The far pile's "(lejos)" and the arrows of the near ones widen the pile columns.
    assert snap_compare(_app(False, 3, 4), run_before=_redraw)


def test_hotseat_refusal_in_spanish(snap_compare: Compare) -> None:
    # Seed 8: Left's W fits neither pile: refused, the cards in words; Q waits for a pile key.
    assert snap_compare(_app(True, 2, 8), press=["w", "q"], run_before=_redraw)


def test_help_in_spanish(snap_compare: Compare) -> None:
    assert snap_compare(_app(False, 2, 4), press=["question_mark"], run_before=_redraw)
