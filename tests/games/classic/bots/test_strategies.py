"""Strategies are objects registered once: each describes itself, plays whole games, and is
what the bot consults; unknown names are refused everywhere, listing the known ones."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from blink.cards import Card
from blink.games.classic.bots import (
    DEFAULT_STRATEGY,
    LEVELS,
    STRATEGIES,
    BotConfigError,
    BotSpec,
    HumanBot,
    Knowledge,
    Strategy,
    get_level,
    get_strategy,
    make_bot,
    register_strategy,
    unregister_strategy,
)
from blink.games.classic.bots.strategies import (
    BLOCKER,
    FIRST,
    FLEXIBLE,
    RANDOM,
    FlexibleStrategy,
    KnowledgeSource,
)
from blink.games.classic.engine import Phase, Play
from blink.games.classic.rules import DEAD_END, OFFICIAL
from blink.games.classic.sim.core import play_game, simulate_game

from .helpers import position, temporary_strategy

KNOWN = ", ".join(STRATEGIES)


class Last(Strategy):
    """A test strategy: the last legal play and the last hand card; counts its calls."""

    name = "last"
    description = "plays the last legal play it found; places its last card"
    exhaustive = True

    def __init__(self) -> None:
        self.plays = 0
        self.choices = 0
        self.known: list[Knowledge] = []

    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """The last of ``legal``."""
        self.plays += 1
        self.known.append(know())
        return legal[-1]

    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """The last card of ``hand``."""
        self.choices += 1
        return hand[-1]


def test_the_registry_holds_objects_by_their_names() -> None:
    assert list(STRATEGIES) == ["random", "first", "blocker", "flexible"]
    assert list(STRATEGIES.values()) == [RANDOM, FIRST, BLOCKER, FLEXIBLE]
    for name, strategy in STRATEGIES.items():
        assert isinstance(strategy, Strategy)
        assert strategy.name == name
        assert get_strategy(name) is strategy
    assert FIRST.name == DEFAULT_STRATEGY
    assert FIRST.exhaustive is False
    assert all(s.exhaustive for s in (RANDOM, BLOCKER, FLEXIBLE))
    with pytest.raises(TypeError):
        STRATEGIES["sneaky"] = RANDOM  # type: ignore[index]


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_strategy_has_a_one_line_description(name: str) -> None:
    description = STRATEGIES[name].description
    assert description.strip() == description
    assert len(description) > 20 and "\n" not in description
    assert repr(STRATEGIES[name]) == f"<strategy {name}>"


@pytest.mark.parametrize("name", list(STRATEGIES))
@pytest.mark.parametrize("players", [2, 3])
def test_every_strategy_plays_a_game_to_the_end(name: str, players: int) -> None:
    specs = [BotSpec("expert", name)] * players
    for seed in range(3):
        game = simulate_game(specs, seed, ruleset=DEAD_END if seed == 2 else OFFICIAL)
        assert game.outcome.winners
        assert game.game is not None and game.game.over
        assert game.plays > 0


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_strategy_chooses_in_stalls_to_the_end(name: str) -> None:
    # Seat 0 may play 4BW on either pile, after which nobody can play and the draw piles are
    # empty: a choosing stall.
    for seed in range(3):
        game = position("4RS 3RW", ["4BW 1YP 1OM", "2GP 5YM 2OL"], draws=["", ""], reveal=False)
        bots = [make_bot("expert", name, s, seed * 2 + s) for s in (0, 1)]
        result = play_game(game, bots, seed)
        assert game.over and result.outcome.winners
        assert result.choices >= 1 and result.defaults == 0


def test_unknown_strategy_refused_in_parsing_listing_the_names() -> None:
    for text in ("expert:sneaky", "expert:Sneaky@2"):
        with pytest.raises(BotConfigError) as info:
            BotSpec.parse(text)
        assert info.value.field == "strategy"
        assert info.value.reason == "unknown_strategy"
        assert info.value.allowed == tuple(STRATEGIES)
        assert "'sneaky'" in str(info.value) and KNOWN in str(info.value)
    with pytest.raises(BotConfigError, match=KNOWN):
        BotSpec("expert", "sneaky")


def test_unknown_strategy_and_level_refused_by_make_bot_listing_the_names() -> None:
    with pytest.raises(BotConfigError) as info:
        make_bot("expert", "sneaky", 0, 0)
    assert info.value.field == "strategy" and KNOWN in str(info.value)
    with pytest.raises(BotConfigError) as info:
        make_bot("grandmaster", "first", 0, 0)
    assert info.value.field == "level" and ", ".join(LEVELS) in str(info.value)
    with pytest.raises(BotConfigError, match=KNOWN):
        get_strategy("flexibel")
    with pytest.raises(BotConfigError, match=", ".join(LEVELS)):
        get_level("Expert")  # names are exact here; BotSpec.parse lower-cases


def test_levels_are_registered_once_with_descriptions_and_ratings() -> None:
    for name, level in LEVELS.items():
        assert level.name == name and get_level(name) is level
        assert level.description
    ratings = [level.rating for level in LEVELS.values()]
    assert ratings == sorted(ratings)  # slowest first, weakest first
    from blink.ratings import BOT_RATINGS

    assert {n: r.mu for n, r in BOT_RATINGS.items()} == {n: lv.rating for n, lv in LEVELS.items()}


def test_a_registered_strategy_is_what_the_bot_consults() -> None:
    last = Last()
    with temporary_strategy(last):
        assert STRATEGIES["last"] is last
        spec = BotSpec.parse("expert:last")
        assert str(spec) == "expert:last"
        game = position("1RP 1OS", ["2RS 3RM 1GW", "4YF 5BF 4PL"])
        legal = game.legal_plays(0)
        assert len(legal) >= 2
        bot = spec.build(0, 1)
        assert isinstance(bot, HumanBot) and bot.strategy is last
        view = game.view(0)
        intent = bot.plan(view, now=0.0)
        assert intent is not None and intent.action == legal[-1]
        assert last.plays == 1
        # ``know`` gave what the bot knows in that view.
        assert last.known == [bot.knowledge(view)]
        result = simulate_game([spec, BotSpec("expert", "first")], 4)
        assert result.outcome.winners and last.plays > 1
    assert "last" not in STRATEGIES
    with pytest.raises(BotConfigError, match=KNOWN):
        BotSpec.parse("expert:last")


def test_a_single_option_is_taken_without_asking_the_strategy() -> None:
    last = Last()
    with temporary_strategy(last):
        # Only 3RW on pile 0 matches.
        game = position("1RP 2OS", ["3RW 4GF 5BL", "2YS 4YM 3PL"])
        intent = make_bot("expert", "last", 0, 1).plan(game.view(0), now=0.0)
        assert intent is not None and isinstance(intent.action, Play)
        assert last.plays == 0


def test_stall_choices_ask_the_strategy() -> None:
    last = Last()
    with temporary_strategy(last):
        game = position("1RM 1OM", ["2YS 3GF 4BL", "2PW 3YP 4GS"], draws=["", ""])
        assert game.phase is Phase.CHOOSING
        intent = make_bot("expert", "last", 0, 1).plan(game.view(0), now=0.0)
        assert intent is not None and intent.action.card == game.view(0).hand[-1]
        assert last.choices == 1


def test_registration_is_checked() -> None:
    class Renamed(FlexibleStrategy):
        def __init__(self, name: str, description: str = "flexible under another name") -> None:
            self.name = name
            self.description = description

    for bad in ("", "Upper", "a:b", "a@b", "two words", " pad"):
        with pytest.raises(ValueError, match="name"):
            register_strategy(Renamed(bad))
    with pytest.raises(ValueError, match="already registered"):
        register_strategy(Renamed("flexible"))
    with pytest.raises(ValueError, match="description"):
        register_strategy(Renamed("quiet", ""))
    with pytest.raises(ValueError, match="description"):
        register_strategy(Renamed("chatty", "one\ntwo"))
    with pytest.raises(BotConfigError, match=KNOWN):
        unregister_strategy("nothing")
    assert list(STRATEGIES) == ["random", "first", "blocker", "flexible"]


def test_a_strategy_without_its_behaviour_cannot_be_made() -> None:
    class Half(Strategy):
        name = "half"
        description = "chooses plays but not stall cards"
        exhaustive = True

        def pick_play(
            self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random
        ) -> Play:
            return legal[0]

    with pytest.raises(TypeError):
        Half()  # type: ignore[abstract]


def test_the_bot_uses_the_object_not_its_name() -> None:
    # An unregistered strategy that borrows a built-in name is still asked: nothing in the bot
    # compares names (the old dispatch played an unknown name at random).
    class Impostor(Last):
        name = "blocker"

    impostor = Impostor()
    bot = HumanBot(0, LEVELS["expert"], impostor, 1)
    game = position("1RP 1OS", ["2RS 3RM 1GW", "4YF 5BF 4PL"])
    intent = bot.plan(game.view(0), now=0.0)
    assert intent is not None and intent.action == game.legal_plays(0)[-1]
    assert impostor.plays == 1
