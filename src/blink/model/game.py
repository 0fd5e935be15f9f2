"""One game, as everything above the engines needs it: the :class:`Game` object.

A game registers one :class:`Game` (through the ``blink.games`` entry-point group, see
:mod:`blink.model.registry`). It holds:

- the game's name and its title in each language (:attr:`Game.titles`), and through its rules
  its facts (:attr:`Game.info`: player counts, real time or turns, options) and its own end
  reasons (:attr:`Game.ends`, a :class:`~blink.model.base.Termination` enum of its own);
- its rules (:attr:`Game.rules`, a :class:`~blink.model.base.GameDefinition`: the referee's
  entry points, the wire and view codecs, the record codec and the replay layout);
- its live-table behaviour (:attr:`Game.table`, a :class:`~blink.model.table.Table`: client
  messages, room options, figures, bots), when rooms can play it;
- its study (:attr:`Game.study`), when its records can be studied;
- its deal rules (:attr:`Game.deals`), when a tournament's matches of it can be dealt with a
  handicap;
- its own front-end parts (:attr:`Game.front`, a :class:`FrontEnd`: module names only).

The parts are given either as objects or as ``"module:attribute"`` references, imported the
first time they are asked for: the module that builds a :class:`Game` stays cheap to import,
so that reading every game's entry (its name, its front-end parts) imports no engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, Protocol

from blink.model.base import GameDefinition, GameInfo, Termination
from blink.model.table import Table

if TYPE_CHECKING:
    from blink.model.study_data import GameStudy

__all__ = ["DealRules", "FrontEnd", "Game", "NoDeals", "NoStudy", "NoTable", "Study"]

Study = Callable[[Any], "GameStudy"]
"""A game's study: its record (verified by it) studied (:func:`blink.model.study.analyse`)."""


class DealRules(Protocol):
    """What a tournament needs of a game's deal: its deck's size, and whether a handicap is
    possible."""

    @property
    def deck_size(self) -> int:
        """The cards a game is dealt from (a handicap's draw piles share them)."""
        ...

    def check_sizes(self, players: int, deck_size: int, sizes: Sequence[int]) -> None:
        """Raise ``ValueError`` (one sentence) unless a game of ``players`` may be dealt from
        ``deck_size`` cards with these draw-pile ``sizes`` (a handicap), one per seat."""
        ...

    def parse_sizes(self, text: str, players: int) -> tuple[int, ...] | None:
        """The draw-pile sizes a handicap written by a person means (``"35:25"``, ``"+5"``),
        ``None`` for an equal deal; ``ValueError`` (one sentence) for one that cannot be
        dealt."""
        ...


@dataclass(frozen=True)
class FrontEnd:
    """Where a game's own front-end parts are; each is optional (``None``: the game has none,
    and the generic front ends play it as they play any game)."""

    commands: str | None = None
    """The module of the game's ``blink <name>`` command group: it offers ``register(app)``
    (adds the group to the ``blink`` Typer app) and ``run_simulation(options)`` (``blink
    simulate --game <name>``, options a ``blink.cli.simrun.SimulationOptions``), and imports
    nothing heavy at the top. The default game's also offers ``simulate_app()`` (``blink
    simulate`` itself, with its own options), ``play_command()`` (``blink play``) and
    ``online_client()`` (the terminal's online client, on which quick play and the daily
    challenge play: ``play_seat``, ``run_online``, ``bot_name``); a game whose bots play
    tournaments of bots, ``bot_tournament()`` (:class:`blink.cli.tournament.bots.BotGames`)."""
    web: str | None = None
    """The package whose ``web/`` folder holds the game's browser module (``main.js``, served
    at ``/games/<name>/``; docs/architecture.md, "The browser client")."""
    pages: tuple[str, str] | None = None
    """The browser client's page of a room of the game, for its players and its spectators
    (the room code follows); ``None``: the client's main page (``/play/CODE``)."""
    env: str | None = None
    """The module of the game's PettingZoo environment (``blink.envs.<env_name>``): it offers
    ``env(**options)`` and ``raw_env``, and ``parallel_env(**options)`` when the environment
    is a ParallelEnv (a race) rather than an AEC one (turn by turn)."""
    env_name: str | None = None
    """The environment's PettingZoo name (``<game>_v0``), by which :mod:`blink.envs` offers
    :attr:`env`; ``None`` exactly when :attr:`env` is."""
    gym_id: str | None = None
    """The Gymnasium id of the game's single-seat environment (one seat against the game's
    bots), which importing :mod:`blink.envs` registers."""
    gym_entry_point: str | None = None
    """That environment's class, as Gymnasium's ``module:Class``; ``None`` exactly when
    :attr:`gym_id` is."""
    gym_vector_entry_point: str | None = None
    """The game's vector environment (many games stepped at once), as Gymnasium's
    ``module:Class``, registered with :attr:`gym_id` for ``gymnasium.make_vec(...,
    vectorization_mode="vector_entry_point")``; ``None``: the game has none."""
    spiel: str | None = None
    """The module of the game's OpenSpiel game: it offers ``GAME_TYPE`` (a ``pyspiel.GameType``)
    and ``GAME_CLASS`` (its ``pyspiel.Game``), which :mod:`blink.envs.spiel` registers."""
    spiel_name: str | None = None
    """The OpenSpiel short name of that game (``python_<game>``), for ``pyspiel.load_game``;
    ``None`` exactly when :attr:`spiel` is."""


class NoTable(ValueError):
    """A registered game with no live table (it cannot be played in a room): ``no_table``."""

    code: Final = "no_table"

    def __init__(self, name: str) -> None:
        super().__init__(f"the game {name!r} cannot be played at a live table")
        self.name = name


class NoStudy(ValueError):
    """A registered game with no study (its records can be replayed, not studied):
    ``no_study``."""

    code: Final = "no_study"

    def __init__(self, name: str) -> None:
        super().__init__(f"the game {name!r} cannot be studied")
        self.name = name


class NoDeals(ValueError):
    """A registered game with no deal rules (its tournaments' matches cannot be dealt with a
    handicap): ``no_deals``."""

    code: Final = "no_deals"

    def __init__(self, name: str) -> None:
        super().__init__(f"the game {name!r} has no deal rules, so it has no handicaps")
        self.name = name


def _load(ref: object) -> Any:
    """``ref`` itself, or the object a ``"module:attribute"`` reference names (imported)."""
    if not isinstance(ref, str):
        return ref
    module, _, attribute = ref.partition(":")
    found = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


class Game:
    """One game: its facts, rules, live table, study, deal rules and front-end parts.

    ``rules``, ``table``, ``study`` and ``deals`` are the objects or ``"module:attribute"``
    references to them (imported when first asked for); ``titles`` maps a language code
    (``"en"``, ``"es"``) to the game's name in it.
    """

    def __init__(
        self,
        name: str,
        rules: GameDefinition[Any, Any, Any, Any] | str,
        *,
        table: Table | str | None = None,
        study: Study | str | None = None,
        deals: DealRules | str | None = None,
        front: FrontEnd | None = None,
        titles: Mapping[str, str] | None = None,
    ) -> None:
        self.name: Final = name
        """The registry name, also stored in records and rooms."""
        self.front: Final = front or FrontEnd()
        """The game's own front-end parts (module names; an empty :class:`FrontEnd`: none)."""
        self.titles: Final[Mapping[str, str]] = dict(titles or {})
        """The game's name for people, by language code."""
        self._rules = rules
        self._table = table
        self._study = study
        self._deals = deals

    def __repr__(self) -> str:
        return f"Game({self.name!r})"

    @cached_property
    def rules(self) -> GameDefinition[Any, Any, Any, Any]:
        """The game's rules: its definition (imported the first time)."""
        rules: GameDefinition[Any, Any, Any, Any] = _load(self._rules)
        if rules.info.name != self.name:
            raise ValueError(f"the game {self.name!r} names rules of {rules.info.name!r}")
        return rules

    @property
    def info(self) -> GameInfo:
        """The game's facts (players, title, options), from its rules."""
        return self.rules.info

    @property
    def ends(self) -> type[Termination]:
        """The game's own end reasons (the ``reason`` of its outcomes)."""
        return self.rules.info.ends

    def title(self, language: str = "en") -> str:
        """The game's name in ``language`` (its rules' title when it has none in it)."""
        return self.titles.get(language) or self.info.title

    @property
    def has_table(self) -> bool:
        """True when rooms can play the game (it has a live table)."""
        return self._table is not None

    @cached_property
    def table(self) -> Table:
        """The game's live table (imported the first time); :class:`NoTable` without one."""
        if self._table is None:
            raise NoTable(self.name)
        table: Table = _load(self._table)
        return table

    @property
    def has_study(self) -> bool:
        """True when the game has a study (:attr:`study`)."""
        return self._study is not None

    @cached_property
    def study(self) -> Study:
        """The game's study (imported the first time); :class:`NoStudy` without one."""
        if self._study is None:
            raise NoStudy(self.name)
        study: Study = _load(self._study)
        return study

    @cached_property
    def deals(self) -> DealRules:
        """The game's deal rules for tournaments' handicaps; :class:`NoDeals` without them."""
        if self._deals is None:
            raise NoDeals(self.name)
        deals: DealRules = _load(self._deals)
        return deals
