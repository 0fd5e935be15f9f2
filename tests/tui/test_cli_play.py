"""``blink play`` option checks: bad input gives one line on stderr and exit status 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from blink.cli import app
from blink.games.classic.bots import BotSpec
from blink.games.classic.cli.play import _bot_specs, _online_seats

ENGLISH = {"LANGUAGE": None, "LC_ALL": "C.UTF-8", "LC_MESSAGES": None, "LANG": None}
"""An environment that asks for no language (the terminal then speaks English)."""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "4"], "2 or 3 players"),
        (["--best-of", "2"], "odd"),
        (["--bot", "nope"], "unknown bot level"),
        (["--level", "expert", "--strategy", "zigzag"], "unknown bot strategy"),
        (["--handicap", "99"], "draw pile"),
        (["--ruleset", "speedy"], "unknown ruleset"),
        (["--hotseat", "--bot", "expert"], "people only"),
        (["--join", "ABCDEF"], "--server"),
        (["--server", "http://127.0.0.1:9", "--join", "A", "--watch", "B"], "either"),
        (["--server", "http://127.0.0.1:9", "--hotseat"], "one keyboard"),
        (["--public"], "--server"),
        (["--server", "http://127.0.0.1:9", "--join", "ABCDEF", "--public"], "a room you make"),
        (["--daily"], "--server"),
        (["--server", "http://127.0.0.1:9", "--date", "2026-12-01"], "--daily"),
        (["--server", "http://127.0.0.1:9", "--daily", "--join", "ABCDEF"], "day's own room"),
    ],
)
def test_bad_options(args: list[str], words: str) -> None:
    result = CliRunner().invoke(app, ["play", *args], env=ENGLISH)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("blink play: ")
    assert words in lines[0]
    assert "Traceback" not in result.output


def test_bot_seats() -> None:
    assert _bot_specs([], None, None, 2) == [BotSpec("skilled", "first")]
    assert _bot_specs([], "expert", None, 3) == [BotSpec("expert", "first")] * 2
    assert _bot_specs(["expert:blocker"], None, None, 3) == [BotSpec("expert", "blocker")] * 2
    assert _bot_specs(["inhuman", "casual:random"], None, None, 3) == [
        BotSpec("inhuman", "first"),
        BotSpec("casual", "random"),
    ]
    # Online: open seats for people unless bots are asked for.
    assert _online_seats([], None, None, 2) == [None, None]
    assert _online_seats([], "expert", None, 3) == [None, "expert:first", "expert:first"]
    assert _online_seats(["inhuman:first"], None, None, 3) == [None, "inhuman:first", None]
