"""The Go Blink table without a screen: seats, bots, commands typed by people, and the log.

:class:`GoTable` owns a :class:`~blink.games.goblink.engine.GoGame`, knows which seats are people
and which
are bots, turns a typed command (``ask 2 yellow``, ``lay a b c``, ``end``) into an action with a
clear error for people, and describes events as a given viewer may see them. The Textual app
(:mod:`blink.games.goblink.tui.app`) only draws it and forwards keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_lowercase

from blink.cards import Card, CardError, parse_card
from blink.games.goblink.bots import (
    DEFAULT_OPPONENT,
    GoBot,
    MemoryBot,
    get_gobot_kind,
    make_gobot,
)
from blink.games.goblink.engine import (
    Ask,
    Asked,
    Drew,
    Ended,
    EndTurn,
    GoAction,
    GoBlinked,
    GoEvent,
    GoGame,
    GoView,
    IllegalAction,
    LaidDown,
    LayDown,
    Passed,
    Phase,
    Skipped,
    TurnBegan,
    parse_value,
    redact,
    value_label,
)
from blink.games.goblink.record import GoRecord

__all__ = [
    "YOU",
    "CommandError",
    "GoTable",
    "count_of",
    "describe_event",
    "hand_letter",
    "possessive",
    "subject",
    "whom",
    "winners_text",
]


class CommandError(ValueError):
    """A typed command that cannot be understood or is not allowed (the message says why)."""


YOU = "You"
"""The name of the only person at the screen: the log speaks to them ("You ask...")."""


def possessive(name: str) -> str:
    """ "Your" for "You", otherwise "Name's"."""
    return "Your" if name == YOU else f"{name}'s"


def subject(name: str, verb: str, verb_you: str) -> str:
    """``name`` with its verb: "Ann asks", but "You ask" (``verb_you``) for "You"."""
    return f"{name} {verb_you if name == YOU else verb}"


def whom(name: str) -> str:
    """``name`` as an object: "you" for "You"."""
    return "you" if name == YOU else name


def count_of(number: int, noun: str) -> str:
    """``"1 card"``, ``"2 cards"``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def winners_text(names: Sequence[str], winners: Sequence[int]) -> str:
    """Who won, with its verb: "Ann wins", "You win", "Ann and Bob share the win"."""
    who = " and ".join(names[w] for w in winners)
    if len(winners) > 1:
        return f"{who} share the win"
    return subject(who, "wins", "win")


def hand_letter(index: int) -> str:
    """The letter that names hand position ``index`` in commands (a, b, c...)."""
    return ascii_lowercase[index] if index < 26 else str(index)


def describe_event(event: GoEvent, names: Sequence[str], viewer: int | None) -> str | None:
    """One log line for ``event`` as ``viewer`` may see it (None: nothing worth a line)."""
    e = redact(event, viewer)
    if isinstance(e, Asked):
        asks = subject(names[e.player], "asks", "ask")
        return f"{asks} {whom(names[e.target])} for {value_label(e.value)}."
    if isinstance(e, Passed):
        shown = f": {' '.join(str(c) for c in e.cards)}" if e.cards is not None else ""
        passes = subject(names[e.giver], "passes", "pass")
        cards = count_of(e.number, "card")
        return f"{passes} {cards} to {whom(names[e.receiver])}{shown}."
    if isinstance(e, GoBlinked):
        return f'{names[e.target]}: "Go Blink!"'
    if isinstance(e, Drew):
        what = str(e.card) if e.card is not None else "a card"
        why = " (hand emptied)" if e.cause == "emptied" else ""
        return f"{subject(names[e.player], 'draws', 'draw')} {what}{why}."
    if isinstance(e, LaidDown):
        return (
            f"{subject(names[e.player], 'lays', 'lay')} down "
            f"{' '.join(str(c) for c in e.cards)} ({value_label(e.value)})."
        )
    if isinstance(e, Skipped):
        has = subject(names[e.player], "has", "have")
        return f"{has} no cards and the draw pile is empty: turn skipped."
    if isinstance(e, TurnBegan):
        return f"-- {possessive(names[e.player])} {'opening' if e.opening else 'turn'} --"
    if isinstance(e, Ended):
        o = e.outcome
        result = winners_text(names, o.winners)
        if o.reason == "blunk":
            who = " and ".join(names[w] for w in o.winners)
            return f'{who}: "I Blunk!" {result}.'
        return f"Game over, the draw pile is empty and no one can match: {result} (fewest cards)."
    return None


class GoTable:
    """A local Go Blink game: people (``humans``) and bots (``bots``: name per bot seat)."""

    def __init__(
        self,
        players: int = 3,
        humans: Sequence[int] = (0,),
        bots: Sequence[str] = (DEFAULT_OPPONENT,),
        names: Sequence[str] | None = None,
        seed: int = 0,
        dealer: int | None = None,
    ) -> None:
        """Seat ``humans`` at their seats and bots (cycling ``bots``) everywhere else."""
        if not 2 <= players <= 6:
            raise ValueError(f"Go Blink is for 2 to 6 players, not {players}")
        if any(not 0 <= h < players for h in humans) or len(set(humans)) != len(humans):
            raise ValueError("each human needs a distinct seat in range")
        self.players = players
        self.humans = tuple(sorted(humans))
        self.seed = seed
        self.dealer = (players - 1) if dealer is None else dealer
        self.game = GoGame.new(players, seed=seed, dealer=self.dealer)
        self.bots: dict[int, GoBot] = {}
        bot_names = list(bots) or [DEFAULT_OPPONENT]
        k = 0
        for seat in range(players):
            if seat not in self.humans:
                self.bots[seat] = make_gobot(bot_names[k % len(bot_names)], seat, seed * 10 + seat)
                k += 1
        if names is None:
            out = []
            for seat in range(players):
                if seat in self.bots:
                    kind = get_gobot_kind(self.bots[seat].name)
                    out.append(f"{kind.display_name} {seat + 1}")
                elif len(self.humans) == 1:
                    out.append(YOU)
                else:
                    out.append(f"Player {seat + 1}")
            names = out
        self.names = list(names)
        self._hint = MemoryBot(0, seed)

    # -- state ----------------------------------------------------------------------------

    @property
    def current(self) -> int | None:
        """Whose decision it is (None once the game is over)."""
        return self.game.current

    def is_bot_turn(self) -> bool:
        """True when a bot must act now."""
        return not self.game.over and self.game.current in self.bots

    def view(self, seat: int | None) -> GoView:
        """What ``seat`` may see."""
        return self.game.view(seat)

    def log_viewer(self) -> int | None:
        """Whose eyes the shared log uses: the only person, or nobody (public) in hotseat."""
        return self.humans[0] if len(self.humans) == 1 else None

    def log_lines(self, start: int = 0) -> list[str]:
        """Log lines for the events from index ``start`` on."""
        viewer = self.log_viewer()
        out = []
        for e in self.game.events[start:]:
            line = describe_event(e, self.names, viewer)
            if line is not None:
                out.append(line)
        return out

    def record(self) -> GoRecord:
        """The game's record so far."""
        return GoRecord.from_game(self.game, self.names, meta={"seed": self.seed})

    # -- acting ---------------------------------------------------------------------------

    def bot_step(self) -> list[GoEvent]:
        """Let the current bot take one action (nothing when it is not a bot's turn)."""
        if not self.is_bot_turn():
            return []
        seat = self.game.current
        assert seat is not None
        return self.game.apply(self.bots[seat].act(self.game.view(seat)))

    def hint(self, seat: int) -> GoAction:
        """What the remembering bot would do in ``seat``'s place."""
        bot = MemoryBot(seat, self.seed)
        bot.EXPLORE = 0.0
        return bot.act(self.game.view(seat))

    def parse(self, seat: int, text: str) -> GoAction:
        """Turn a typed command into an action for ``seat`` (raises :class:`CommandError`).

        ``ask <player> <value>`` (player by number or name; value: a colour, shape or count),
        ``lay <cards>`` (hand letters like ``a b d`` or codes like ``1RS 2RM 3RW``), ``end``.
        """
        words = text.replace(",", " ").split()
        if not words:
            raise CommandError("type a command: ask, lay or end (or help)")
        verb, args = words[0].lower(), words[1:]
        view = self.game.view(seat)
        if verb in ("end", "e", "done", "pass"):
            return EndTurn(seat)
        if verb in ("ask", "a"):
            if len(args) < 2:
                raise CommandError("ask whom for what? For example: ask 2 yellow")
            target = self._player(args[0], seat)
            try:
                value = parse_value(" ".join(args[1:]))
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            return Ask(seat, target, value)
        if verb in ("lay", "l", "match", "m"):
            if not args:
                raise CommandError("lay which cards? For example: lay a b c")
            return LayDown(seat, tuple(self._card(w, view.hand) for w in args))
        raise CommandError(f"unknown command {verb!r}: use ask, lay, end, hint or help")

    def _player(self, word: str, seat: int) -> int:
        if word.isdigit():
            n = int(word) - 1
            if not 0 <= n < self.players:
                raise CommandError(f"there is no player {word} (1 to {self.players})")
            return n
        low = word.lower()
        found = [i for i, n in enumerate(self.names) if n.lower().startswith(low)]
        if len(found) != 1:
            raise CommandError(f"{word!r} does not name one player; use their number")
        return found[0]

    def _card(self, word: str, hand: Sequence[Card]) -> Card:
        if len(word) == 1 and word.isalpha():
            i = ascii_lowercase.index(word.lower())
            if i >= len(hand):
                raise CommandError(f"there is no card {word!r} in your hand")
            return hand[i]
        try:
            return parse_card(word)
        except CardError as exc:
            raise CommandError(str(exc)) from None

    def act(self, seat: int, text: str) -> list[GoEvent]:
        """Parse and apply a person's command; errors come back as :class:`CommandError`."""
        action = self.parse(seat, text)
        try:
            return self.game.apply(action)
        except IllegalAction as exc:
            raise CommandError(exc.message) from None

    def prompt(self, seat: int) -> str:
        """What ``seat`` may do now, in a sentence or two."""
        view = self.game.view(seat)
        if view.phase is Phase.OVER or view.current != seat:
            return ""
        if view.phase is Phase.OPENING:
            return (
                "Your opening: lay down matches from the deal (never all your cards), e.g. "
                "'lay a b c', then 'end'."
            )
        if view.phase is Phase.ASKING:
            held: list[str] = []
            for c in view.hand:
                for v in (c.color.label, c.shape.label, str(c.count)):
                    if v not in held:
                        held.append(v)
            whom = ", ".join(f"{p + 1}={self.names[p]}" for p in range(self.players) if p != seat)
            return f"Ask someone ({whom}) for one of: {', '.join(held)}. e.g. 'ask 2 {held[0]}'"
        return "Lay down matches ('lay a b c'), then 'end' your turn."
