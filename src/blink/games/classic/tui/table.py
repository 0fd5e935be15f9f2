"""Table controllers: what the screen draws and where its key presses go.

A :class:`Table` runs a game for the screen. The screen asks it for views
(:meth:`Table.view`) and a :class:`Status` (countdown, stall, deadline, score, result), and
hands it intentions (:meth:`Table.play`, :meth:`Table.choose`); the table answers through
:attr:`Table.version` (bumped on every change) and :meth:`Table.notices` (refusals and news,
for the line under the table). The screen never judges a play: the engine does.

:class:`LocalTable` owns a :class:`~blink.games.classic.engine.ClassicGame` and a
:class:`~blink.match.Series`. It stamps each action with its time in milliseconds since the
reveal, read from an injectable clock. What the table does by itself (the reveal after a
countdown, a stall's flip after a short pause, the default choice of every player who has not
chosen by a choosing stall's deadline) comes from the game's referee, on this table's delays.
Bots (from :mod:`blink.games.classic.bots`) play through the same entry point as people.
Call :meth:`LocalTable.tick` often (the app does, every 50 ms).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, Protocol

from blink.cards import Card
from blink.games.classic.definition import CLASSIC
from blink.games.classic.engine import (
    Action,
    Choose,
    ClassicGame,
    IllegalAction,
    Outcome,
    Phase,
    Play,
    PlayerView,
    Reason,
    reach,
)
from blink.games.classic.record import GameRecord
from blink.games.classic.rules import CHOICE_DEADLINE, OFFICIAL, Ruleset
from blink.match import Series
from blink.model.base import COUNTDOWN, RefereeClock, Timer, Timings
from blink.model.records import AnyRecord
from blink.tui.i18n import N_, _, card_name
from blink.tui.render import refusal_text

__all__ = [
    "PHRASES",
    "BotFactory",
    "Clock",
    "Figures",
    "LocalTable",
    "ManualClock",
    "Notice",
    "RatingLine",
    "Stage",
    "Status",
    "Table",
    "phrase_words",
]

Clock = Callable[[], float]
"""A monotonic clock in seconds."""


class ManualClock:
    """A clock that moves only when told to (for tests and replays)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now += seconds


class Stage(Enum):
    """Where the table is, as the screen shows it."""

    WAITING = "waiting"
    """Online: the room is waiting for players."""
    COUNTDOWN = "countdown"
    """Cards dealt; the reveal comes when the countdown ends."""
    PLAYING = "playing"
    STALLED = "stalled"
    """No one can play: the flip comes after a short pause."""
    CHOOSING = "choosing"
    """No one can play and a draw pile is empty: each player chooses a hand card."""
    OVER = "over"
    """The game has ended (``Status.outcome``)."""


@dataclass(frozen=True, slots=True)
class RatingLine:
    """A rated seat's rating change at a game's end (the server's ``ratings``): its
    conservative rating (``ordinal``) before and after, and the change."""

    seat: int
    before: float
    after: float
    delta: float


@dataclass(frozen=True, slots=True)
class Figures:
    """Figures of a finished game: its length, plays per seat and each seat's cards left."""

    time_ms: int
    plays: int
    plays_by_seat: tuple[int, ...]
    cards_left: tuple[int, ...] = ()

    @property
    def ms_per_play(self) -> float:
        """Average time per play over the whole table."""
        return self.time_ms / self.plays if self.plays else 0.0


@dataclass(frozen=True, slots=True)
class Status:
    """Everything the screen shows besides the cards."""

    stage: Stage
    players: int
    names: tuple[str, ...]
    local_seats: tuple[int, ...]
    best_of: int = 1
    score: tuple[int, ...] = ()
    game_number: int = 1
    seconds_left: float | None = None
    """Countdown before the reveal, or time left before the flip or to choose."""
    paused: bool = False
    can_pause: bool = False
    outcome: Outcome | None = None
    figures: Figures | None = None
    ratings: tuple[RatingLine, ...] = ()
    """Each rated seat's rating change (an online rated game's end, once stored)."""
    series_winner: int | None = None
    series_over: bool = False
    can_rematch: bool = False
    info: str = ""
    """A line about the table itself (online: the room code, who is missing)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A line for the player: a refused play (``refused``) or news."""

    text: str
    seat: int | None = None
    refused: bool = False


PHRASES: Final = {
    "good_game": N_("Good game"),
    "rematch": N_("Rematch?"),
    "well_played": N_("Well played"),
    "oops": N_("Oops!"),
}
"""The quick chat phrases of an online room, by the id the protocol sends, in English words
(:func:`phrase_words` says them in the language spoken now)."""


def phrase_words(phrase: str) -> str | None:
    """A quick chat phrase in the language spoken now (``None`` for an unknown id)."""
    words = PHRASES.get(phrase)
    return None if words is None else _(words)


class Table:
    """The interface the screen uses. Subclasses run a game locally or online."""

    players: int = 2
    local_seats: tuple[int, ...] = ()
    phrases: tuple[str, ...] = ()
    """The quick chat phrases this table can say (ids of :data:`PHRASES`; none offline)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        """The table's clock (seconds): deadlines, countdowns, how long a notice stays."""
        self.version = 0
        self._notices: list[Notice] = []

    def changed(self) -> None:
        """Mark the table as changed (the screen redraws)."""
        self.version += 1

    def notify_player(self, notice: Notice) -> None:
        """Queue a line for the screen."""
        self._notices.append(notice)
        self.changed()

    def notices(self) -> list[Notice]:
        """Take the queued lines."""
        out, self._notices = self._notices, []
        return out

    def view(self, seat: int | None) -> PlayerView | None:
        """The current view for a local seat (or a spectator), ``None`` before any deal."""
        raise NotImplementedError

    def status(self) -> Status:
        """The current status."""
        raise NotImplementedError

    def play(self, seat: int, card: Card, pile: int) -> None:
        """A local seat plays ``card`` on ``pile``; refusals come back as notices."""
        raise NotImplementedError

    def choose(self, seat: int, card: Card) -> None:
        """A local seat chooses a hand card in a choosing stall."""
        raise NotImplementedError

    def tick(self) -> None:
        """Advance timers (called often by the app)."""

    def say(self, phrase: str) -> None:
        """Say a quick chat phrase (one of :attr:`phrases`) to the others."""

    def rematch(self) -> None:
        """Start the next game of the series, or a new series once it is decided."""

    def set_paused(self, paused: bool) -> None:
        """Pause or resume (only where the status says the table can pause)."""

    async def start(self) -> None:
        """Start the table (connect, deal): called once the app runs."""

    async def close(self) -> None:
        """Stop everything the table started."""


class BotFactory(Protocol):
    """Anything with ``build(seat, seed)`` returning a bot, like
    ``blink.games.classic.bots.BotSpec``."""

    def build(self, seat: int, seed: int) -> Any:
        """A bot for ``seat``."""
        ...


LiveBotMaker = Callable[[Any, Callable[[], PlayerView], Callable[[Action], object]], Any]


def _default_live_bot(clock: Clock) -> LiveBotMaker:
    def make(
        bot: Any, get_view: Callable[[], PlayerView], submit: Callable[[Action], object]
    ) -> Any:
        from blink.games.classic.bots.live import LiveBot

        return LiveBot(bot, get_view, submit, clock=clock)

    return make


@dataclass
class _Game:
    game: ClassicGame
    number: int
    reveal_at: float
    referee: RefereeClock
    paused_since: float | None = None
    paused_total: float = 0.0
    bots: dict[int, Any] = field(default_factory=dict)
    live: dict[int, Any] = field(default_factory=dict)


class LocalTable(Table):
    """A game on this machine: people at the keyboard (``humans``) and bots at other seats.

    ``bots`` maps each bot seat to a factory (``BotSpec``); every seat is either human or bot.
    Times: ``countdown`` seconds before the reveal, ``flip_delay`` before a stall's flip,
    ``choice_seconds`` to choose a hand card in a choosing stall. ``sizes`` is a handicap deal;
    ``deck`` fixes the deck order of every game (tests, puzzles) instead of shuffling by seed.
    """

    def __init__(
        self,
        *,
        players: int = 2,
        humans: Sequence[int] = (0,),
        bots: Mapping[int, BotFactory] | None = None,
        names: Sequence[str] | None = None,
        seed: int | None = None,
        ruleset: Ruleset = OFFICIAL,
        sizes: Sequence[int] | None = None,
        best_of: int = 1,
        countdown: float = COUNTDOWN,
        flip_delay: float = 1.0,
        choice_seconds: float = CHOICE_DEADLINE,
        clock: Clock = time.monotonic,
        live_bot: LiveBotMaker | None = None,
        deck: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(clock)
        self.players = players
        self.local_seats = tuple(humans)
        self.bot_specs = dict(bots or {})
        seats = set(self.local_seats) | set(self.bot_specs)
        if seats != set(range(players)) or set(self.local_seats) & set(self.bot_specs):
            raise ValueError(f"every one of the {players} seats needs exactly one player")
        self.names = (
            tuple(names)
            if names
            else tuple(_("Player {n}").format(n=i + 1) for i in range(players))
        )
        self.seed = seed if seed is not None else random.randrange(1 << 30)
        self.ruleset = ruleset
        self.sizes = tuple(sizes) if sizes else None
        self.series = Series(best_of=best_of, players=players)
        self.countdown = countdown
        self.flip_delay = flip_delay
        self.choice_seconds = choice_seconds
        self._live_bot = live_bot or _default_live_bot(clock)
        self.deck = tuple(deck) if deck else None
        self.games_started = 0
        self._g: _Game | None = None
        self._series_recorded = False
        self.series_games: list[ClassicGame] = []
        """The games of the current series so far, the last one perhaps unfinished."""
        self.on_game_over: Callable[[], object] | None = None
        """Called once each game ends (``blink play --record`` writes its file then)."""

    # -- reading ----------------------------------------------------------------------------

    @property
    def game(self) -> ClassicGame | None:
        """The current game (full state: for tests and the owner, never drawn whole)."""
        return self._g.game if self._g else None

    @property
    def can_pause(self) -> bool:
        """Only a game against bots alone can pause: people never wait for each other."""
        return bool(self.bot_specs) and len(self.local_seats) == 1

    def view(self, seat: int | None) -> PlayerView | None:
        """The engine's view for ``seat``."""
        return self._g.game.view(seat) if self._g else None

    def now_ms(self) -> int:
        """Milliseconds since the reveal of the current game, pauses excluded."""
        g = self._g
        if g is None:
            return 0
        now = g.paused_since if g.paused_since is not None else self.clock()
        return max(0, round((now - g.reveal_at - g.paused_total) * 1000))

    def status(self) -> Status:
        """What the screen shows besides the cards."""
        g = self._g
        base: dict[str, Any] = {
            "players": self.players,
            "names": self.names,
            "local_seats": self.local_seats,
            "best_of": self.series.best_of,
            "score": self.series.score,
            "game_number": g.number if g else 1,
            "can_pause": self.can_pause,
            "series_winner": self.series.winner,
            "series_over": self.series.over,
        }
        if g is None:
            return Status(stage=Stage.COUNTDOWN, **base)
        now = g.paused_since if g.paused_since is not None else self.clock()
        paused = g.paused_since is not None
        phase = g.game.phase
        deadline = g.referee.deadline
        if phase is Phase.DEALT:
            return Status(
                stage=Stage.COUNTDOWN,
                seconds_left=max(0.0, (deadline if deadline is not None else now) - now),
                paused=paused,
                **base,
            )
        if phase is Phase.OVER:
            return Status(
                stage=Stage.OVER,
                outcome=g.game.outcome,
                figures=self._figures(g.game),
                can_rematch=True,
                **base,
            )
        left = max(0.0, deadline - now) if deadline is not None else None
        stage = {
            Phase.PLAYING: Stage.PLAYING,
            Phase.STALLED: Stage.STALLED,
            Phase.CHOOSING: Stage.CHOOSING,
        }[phase]
        return Status(stage=stage, seconds_left=left, paused=paused, **base)

    @staticmethod
    def _figures(game: ClassicGame) -> Figures:
        by_seat = [0] * game.players
        last = 0
        for action, t in game.history:
            if isinstance(action, Play):
                by_seat[action.player] += 1
            if t is not None:
                last = max(last, t)
        left = tuple(game.cards_left(p) for p in range(game.players))
        return Figures(
            time_ms=last, plays=game.plays, plays_by_seat=tuple(by_seat), cards_left=left
        )

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Deal the first game."""
        if self._g is None:
            self.deal()

    async def close(self) -> None:
        """Stop the bots."""
        self._stop_bots()

    def deal(self) -> None:
        """Deal the next game of the series and start its countdown."""
        self._stop_bots()
        n = self.games_started
        self.games_started += 1
        if self.deck is not None:
            game = ClassicGame(self.deck, self.players, self.ruleset, self.sizes)
        else:
            game = ClassicGame.new(
                self.players, seed=self.seed * 1000 + n, ruleset=self.ruleset, sizes=self.sizes
            )
        timings = Timings(
            countdown=self.countdown,
            stall_pause=self.flip_delay,
            choice_deadline=self.choice_seconds,
            turn=None,
        )
        now = self.clock()
        g = _Game(
            game=game,
            number=self.series.games_played + 1,
            reveal_at=now + self.countdown,
            referee=RefereeClock(CLASSIC, timings),
        )
        g.referee.update(game, now)
        for seat, spec in self.bot_specs.items():
            g.bots[seat] = spec.build(seat, self.seed * 1000 + n * 10 + seat)
        self._g = g
        self._series_recorded = False
        if self.series.games_played == 0:
            self.series_games = []
        self.series_games.append(game)
        self._start_bots()
        self.changed()
        self.tick()

    def game_records(self, meta: Mapping[str, Any]) -> list[AnyRecord]:
        """The record of each game of the current series so far (``meta`` in each), the last
        one maybe unfinished (:mod:`blink.tui.record_file` writes them)."""
        return [GameRecord.from_game(g, self.names, dict(meta)) for g in self.series_games]

    def rematch(self) -> None:
        """After a game: the next game of the series, or a fresh series once it is decided."""
        g = self._g
        if g is None or not g.game.over:
            return
        if self.series.over:
            self.series = Series(best_of=self.series.best_of, players=self.players)
        self.deal()

    def set_paused(self, paused: bool) -> None:
        """Pause (stops bots and timers) or resume; only against bots."""
        g = self._g
        if g is None or not self.can_pause or g.game.over:
            return
        if paused and g.paused_since is None:
            g.paused_since = self.clock()
            self._stop_bots()
        elif not paused and g.paused_since is not None:
            gap = self.clock() - g.paused_since
            g.paused_since = None
            g.paused_total += gap
            if g.game.phase is Phase.DEALT:
                g.reveal_at += gap
                g.paused_total -= gap
            g.referee.shift(gap)
            self._start_bots()
        self.changed()

    # -- the game loop ----------------------------------------------------------------------

    def tick(self) -> None:
        """Apply what the table does by itself (the referee's reveal, flips and default
        choices) once its time has come."""
        g = self._g
        if g is None or g.paused_since is not None:
            return
        game = g.game
        now = self.clock()
        pending = g.referee.update(game, now)
        if pending is None or not g.referee.due(now):
            return
        for seat, action in pending.actions:
            t = 0 if pending.timer is Timer.COUNTDOWN else None
            self._apply(lambda t, a=action: CLASSIC.apply(game, a, t), t)
            if seat in self.local_seats and isinstance(action, Choose):
                self.notify_player(
                    Notice(
                        _("time's up: {card} was placed").format(card=card_name(action.card)),
                        seat,
                    )
                )
            if game.over:
                break

    def _apply(self, act: Callable[..., object], t: int | None = None) -> None:
        """Apply one engine call, then update the referee's deadline, bots and the screen."""
        g = self._g
        assert g is not None
        act(self.now_ms() if t is None else t)
        game = g.game
        g.referee.update(game, self.clock())
        if game.over:
            self._finish(g)
        else:
            for bot in g.live.values():
                bot.notify()
        self.changed()

    def _finish(self, g: _Game) -> None:
        self._stop_bots()
        if not self._series_recorded and g.game.outcome is not None and not self.series.over:
            self.series.record(g.game.outcome.winners)
            self._series_recorded = True
            if self.on_game_over is not None:
                self.on_game_over()

    def _start_bots(self) -> None:
        g = self._g
        if g is None or g.game.over:
            return
        for seat, bot in g.bots.items():
            live = self._live_bot(bot, *self._bot_hooks(seat))
            g.live[seat] = live
            live.start()

    def _bot_hooks(self, seat: int) -> tuple[Callable[[], PlayerView], Callable[[Action], object]]:
        def get_view() -> PlayerView:
            return self._bot_view(seat)

        def submit(action: Action) -> None:
            self._bot_submit(seat, action)

        return get_view, submit

    def _stop_bots(self) -> None:
        g = self._g
        if g is None:
            return
        live, g.live = g.live, {}
        for bot in live.values():
            bot.stop()

    def _bot_view(self, seat: int) -> PlayerView:
        assert self._g is not None
        return self._g.game.view(seat)

    def _bot_submit(self, seat: int, action: Action) -> None:
        """A bot's action: applied like a person's; refusals raise back to the bot."""
        g = self._g
        if g is None or g.paused_since is not None:
            raise IllegalAction(Reason.NOT_REVEALED, "the game is paused")
        game = g.game
        if isinstance(action, Play) and action.player == seat:
            self._apply(lambda t: game.play(seat, action.card, action.pile, t))
        elif isinstance(action, Choose) and action.player == seat:
            self._apply(lambda t: game.choose(seat, action.card, t))
        else:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"seat {seat} may only play for itself")

    # -- people -----------------------------------------------------------------------------

    def play(self, seat: int, card: Card, pile: int) -> None:
        """A person at ``seat`` plays; a refusal becomes a notice with the engine's reason."""
        g = self._g
        if g is None or seat not in self.local_seats or g.paused_since is not None:
            return
        game = g.game
        try:
            self._apply(lambda t: game.play(seat, card, pile, t))
        except IllegalAction as exc:
            self.notify_player(Notice(refusal_text(exc), seat, refused=True))

    def choose(self, seat: int, card: Card) -> None:
        """A person at ``seat`` chooses a hand card in a choosing stall."""
        g = self._g
        if g is None or seat not in self.local_seats or g.paused_since is not None:
            return
        game = g.game
        try:
            self._apply(lambda t: game.choose(seat, card, t))
        except IllegalAction as exc:
            self.notify_player(Notice(refusal_text(exc), seat, refused=True))

    def reach(self, seat: int) -> tuple[int, int]:
        """The piles ``seat`` may play on."""
        return reach(self.players, seat)
