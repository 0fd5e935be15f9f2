"""Bot names: levels, strategies, specs and their errors."""

from __future__ import annotations

import pytest

from blink.games.classic.bots import (
    LEVELS,
    STRATEGIES,
    Bot,
    BotConfigError,
    BotSpec,
    HumanBot,
    Intent,
    make_bot,
)


def test_names() -> None:
    assert list(LEVELS) == [
        "beginner",
        "casual",
        "skilled",
        "expert",
        "champion",
        "trained",
        "inhuman",
    ]
    assert list(STRATEGIES) == ["random", "first", "blocker", "flexible"]


def test_levels_get_faster() -> None:
    # The levels of the reaction-time model (the trained policy's looks once a second).
    means = [LEVELS[n].mean_play for n in LEVELS if not LEVELS[n].policy]
    assert means == sorted(means, reverse=True)
    assert means[0] == pytest.approx(3.0)
    assert LEVELS["champion"].mean_play == pytest.approx(0.9)
    for name in ("beginner", "casual", "skilled", "expert", "champion"):
        assert LEVELS[name].floor == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("text", "level", "strategy", "speed"),
    [
        ("expert:blocker", "expert", "blocker", 1.0),
        ("expert", "expert", "first", 1.0),
        (" Champion:Flexible ", "champion", "flexible", 1.0),
        ("beginner:random@1.5", "beginner", "random", 1.5),
        ("casual@2", "casual", "first", 2.0),
    ],
)
def test_parse(text: str, level: str, strategy: str, speed: float) -> None:
    spec = BotSpec.parse(text)
    assert (spec.level, spec.strategy, spec.speed) == (level, strategy, speed)
    assert BotSpec.parse(str(spec)) == spec


def test_str() -> None:
    assert str(BotSpec("expert", "blocker")) == "expert:blocker"
    assert str(BotSpec("expert", "first", 1.5)) == "expert:first@1.5"


@pytest.mark.parametrize(
    ("text", "field", "listed"),
    [
        (
            "grandmaster:first",
            "level",
            "beginner, casual, skilled, expert, champion, trained, inhuman",
        ),
        ("expert:sneaky", "strategy", "random, first, blocker, flexible"),
        ("expert:first:x", "spec", "levels: beginner"),
        ("expert@fast", "speed", "@"),
        ("expert@-1", "speed", "positive"),
        ("", "spec", "level:strategy"),
    ],
)
def test_parse_errors_list_allowed(text: str, field: str, listed: str) -> None:
    with pytest.raises(BotConfigError) as info:
        BotSpec.parse(text)
    assert info.value.field == field
    assert listed in str(info.value)


def test_make_bot() -> None:
    bot = make_bot("expert", "blocker", seat=1, seed=5)
    assert isinstance(bot, HumanBot)
    assert isinstance(bot, Bot)
    assert bot.seat == 1
    with pytest.raises(BotConfigError) as info:
        make_bot("expert", "nope", 0, 0)
    assert info.value.allowed == tuple(STRATEGIES)
    with pytest.raises(BotConfigError):
        make_bot("nope", "first", 0, 0)


def test_build_matches_make_bot() -> None:
    spec = BotSpec.parse("skilled:flexible")
    bot = spec.build(0, 9)
    assert bot.level is LEVELS["skilled"]
    assert bot.strategy is STRATEGIES["flexible"]


def test_intent_is_a_value() -> None:
    from blink.cards import parse_card
    from blink.games.classic.engine import Play

    i = Intent(Play(0, parse_card("1RM"), 1), 0.5)
    assert i.action.pile == 1
    assert i.delay == 0.5
    assert i == Intent(*i)
