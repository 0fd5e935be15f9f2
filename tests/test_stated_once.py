"""Facts stated once: a default, a rule's number or a codec has one definition, which the
rest of the code imports or asks the game for (docs/architecture.md, "The Game object").

Each test reads the source itself and names the file that states the fact again.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "blink"


def _python_files(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "migrations" not in p.parts)


def _defining(pattern: str, under: Path = SRC) -> list[str]:
    rx = re.compile(pattern, re.MULTILINE)
    return [
        str(p.relative_to(ROOT)) for p in _python_files(under) if rx.search(p.read_text("utf-8"))
    ]


def test_the_default_game_is_defined_once_in_the_registry() -> None:
    assert _defining(r"^DEFAULT_GAME\b[^=\n]*=") == ["src/blink/model/registry.py"]


def test_go_blinks_match_size_is_its_named_constant() -> None:
    # A size compared with a literal 3 (``len(group) < 3``, ``3 <= k``, ``3 - held``) restates
    # MIN_MATCH; only its own definition in values.py holds the number.
    size = re.compile(r"(?:[<>]=?\s*3\b|\b3\s*[<>]=?|\b3 - (?!attempt)|// 3\b)")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _python_files(SRC / "games" / "goblink")
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if size.search(line.split("#")[0])
    ]
    assert found == []


def test_the_model_layer_reads_no_file() -> None:
    # The registry finds games through the installed entry points only; the model layer does
    # no I/O (no pyproject.toml read as a fallback).
    assert _defining(r"tomllib|read_text|read_bytes|\bopen\(", SRC / "model") == []


def test_nothing_outside_the_games_imports_a_game_by_name() -> None:
    # Everything above the engines reaches a game through the registry (its Game, its
    # front-end modules), never with an import of blink.games.<name>.
    imports = re.compile(r"^\s*(?:from blink\.games\b|import blink\.games\b)", re.MULTILINE)
    found = [
        str(p.relative_to(ROOT))
        for p in _python_files(SRC)
        if "games" not in p.relative_to(SRC).parts[:1] and imports.search(p.read_text("utf-8"))
    ]
    assert found == []


def test_the_browser_takes_the_piles_reach_from_the_server() -> None:
    # The reach is the rules' (game_info[game].reach of /api/options, options.js' reachOf);
    # the board restates no player count's reach, and cards.js keeps no unused deck.
    js = SRC / "web" / "js"
    board = (js / "board.js").read_text("utf-8")
    assert "fallbackReach" not in board
    assert not re.search(r"players\s*===\s*\d|%\s*3\b", board)
    assert "reach(" in (js / "table.js").read_text("utf-8")
    assert "reachOf" in (js / "options.js").read_text("utf-8")
    unused = [p.name for p in sorted(js.glob("*.js")) if "standardDeck" in p.read_text("utf-8")]
    assert unused == []


def test_the_referees_delays_are_stated_once_by_their_games() -> None:
    # The default countdown is blink.model.base's COUNTDOWN; a stall's pause and a choosing
    # stall's deadline are classic Blink's (its rules' STALL_PAUSE and CHOICE_DEADLINE), a
    # turn's time Go Blink's (TURN_TIME), each in its game's timings (GameInfo.timings). The
    # server's settings and blink serve hold none of them (None: the game's own), and no module
    # gives one of them as a number again.
    names = r"countdown|stall_pause|choice_deadline|turn_time|turn|choice_timeout|choice_seconds"
    literal = re.compile(rf"\b(?:{names})\b\s*(?::[^=\n]*)?=\s*(?:3\.0|1\.5|10\.0|60\.0)\b")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _python_files(SRC)
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []
    from blink.games.classic.rules import CHOICE_DEADLINE, STALL_PAUSE
    from blink.games.goblink.values import TURN_TIME
    from blink.model.base import COUNTDOWN, Timings
    from blink.model.registry import get_game
    from blink.server.room.clock import timings
    from blink.server.settings import Settings

    settings = Settings()
    assert (settings.countdown, settings.stall_pause, settings.choice_deadline) == (None,) * 3
    assert settings.turn_time is None
    assert Timings() == Timings(COUNTDOWN, None, None, None)
    classic, goblink = get_game("classic").info.timings, get_game("goblink").info.timings
    assert classic == Timings(COUNTDOWN, STALL_PAUSE, CHOICE_DEADLINE, None)
    assert goblink == Timings(COUNTDOWN, None, None, TURN_TIME)
    # The server's delays are each game's own unless its settings give one.
    assert timings(settings, goblink) == goblink
    assert timings(Settings(turn_time=5.0, stall_pause=0.5), classic) == Timings(
        COUNTDOWN, 0.5, CHOICE_DEADLINE, 5.0
    )
