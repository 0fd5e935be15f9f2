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


def test_the_referees_delays_are_stated_once_in_the_model() -> None:
    # The default countdown, stall pause, choice deadline and turn time are blink.model.base's
    # COUNTDOWN, STALL_PAUSE, CHOICE_DEADLINE and TURN: the settings, blink serve, the terminal
    # table and the simulator take them and give none of them as a number again.
    names = r"countdown|stall_pause|choice_deadline|turn_time|turn|choice_timeout|choice_seconds"
    literal = re.compile(rf"\b(?:{names})\b\s*(?::[^=\n]*)?=\s*(?:3\.0|1\.5|10\.0|60\.0)\b")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _python_files(SRC)
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []
    from blink.model.base import CHOICE_DEADLINE, COUNTDOWN, STALL_PAUSE, TURN, Timings
    from blink.server.settings import Settings

    settings = Settings()
    assert Timings() == Timings(COUNTDOWN, STALL_PAUSE, CHOICE_DEADLINE, TURN)
    assert (settings.countdown, settings.stall_pause, settings.choice_deadline) == (
        COUNTDOWN, STALL_PAUSE, CHOICE_DEADLINE,
    )  # fmt: skip
    assert settings.turn_time == TURN
