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
from typing import Final

from blink.cards import Card, CardError, Color, Shape, parse_card
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
from blink.games.goblink.values import Value
from blink.tui.i18n import N_, _, card_name, join_and, language, ngettext

__all__ = [
    "GO_BOT_NAMES",
    "GO_REFUSALS",
    "YOU",
    "CommandError",
    "GoTable",
    "UnknownCommand",
    "cards_words",
    "count_of",
    "describe_event",
    "hand_letter",
    "parse_value_words",
    "value_words",
    "winners_text",
    "you",
]


class CommandError(ValueError):
    """A typed command that cannot be understood or is not allowed (the message says why)."""


class UnknownCommand(CommandError):
    """A typed command whose first word is no command: the screen clears it (there is nothing
    in it to correct) and says which commands there are."""


YOU = N_("You")
"""The name of the only person at the screen (in English; :func:`you` in the language spoken
now): the log speaks to them ("You ask...")."""

GO_REFUSALS: Final = {
    "out_of_turn": N_("It is not your turn."),
    "ask_yourself": N_("Ask an opponent, not yourself."),
    "attribute_not_held": N_("You may only ask for something you hold."),
    "not_a_match": N_(
        "That is not a match: three or more cards sharing one colour, shape or count."
    ),
    "empties_hand_in_opening": N_("In the opening you must keep at least one card."),
    "ask_first": N_("Ask an opponent first."),
    "already_asked": N_("You have already asked this turn."),
    "no_ask_in_opening": N_("No asking in the opening: lay down matches or end it."),
    "card_not_in_hand": N_("That card is not in your hand."),
    "game_over": N_("The game is over."),
    "no_such_player": N_("There is no such player."),
    "bad_value": N_("That is not a colour, shape or count."),
}
"""The engine's refusals by code, in the browser client's words (``err_<code>``)."""

_ES_VALUES: Final[dict[Value, str]] = {
    Color.RED: "rojos",
    Color.ORANGE: "naranjas",
    Color.YELLOW: "amarillos",
    Color.GREEN: "verdes",
    Color.BLUE: "azules",
    Color.PURPLE: "morados",
    Shape.MOON: "lunas",
    Shape.PYRAMID: "pirámides",
    Shape.STAR: "estrellas",
    Shape.WATER: "aguas",
    Shape.FLOWER: "flores",
    Shape.LIGHTNING: "rayos",
    1: "unos",
    2: "doses",
    3: "treses",
    4: "cuatros",
    5: "cincos",
}
"""Spanish values to ask for, as the browser's Go Blink says them (``v_<value>``)."""

_ES_WORDS: Final[dict[str, Value]] = {
    **{word: value for value, word in _ES_VALUES.items()},
    **{"rojo": Color.RED, "naranja": Color.ORANGE, "amarillo": Color.YELLOW},
    **{"verde": Color.GREEN, "azul": Color.BLUE, "morado": Color.PURPLE},
    **{"luna": Shape.MOON, "pirámide": Shape.PYRAMID, "piramide": Shape.PYRAMID},
    **{"estrella": Shape.STAR, "agua": Shape.WATER, "flor": Shape.FLOWER, "rayo": Shape.LIGHTNING},
    **{"piramides": Shape.PYRAMID, "roja": Color.RED, "rojas": Color.RED},
    **{"amarilla": Color.YELLOW, "amarillas": Color.YELLOW, "morada": Color.PURPLE},
    **{"moradas": Color.PURPLE, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5},
}
"""Spanish words a person may type for a value (singular or plural, either gender)."""

GO_BOT_NAMES: Final = {
    "random": N_("Random bot"),
    "greedy": N_("Greedy bot"),
    "memory": N_("Remembering bot"),
    "master": N_("Master bot"),
}
"""Each Go Blink bot kind's name at the table (its ``display_name``; Spanish: the browser's
titles, "Bot Memorión")."""

_VERBS: Final = {
    "end": ("end", "e", "done", "pass", "terminar", "fin", "t"),
    "ask": ("ask", "a", "pedir", "pide", "p"),
    "lay": ("lay", "l", "match", "m", "bajar", "baja", "b"),
}
"""The commands' words, English and Spanish."""


def you() -> str:
    """The only person's name in the language spoken now: "You", "Tú"."""
    return _(YOU)


def value_words(value: Value) -> str:
    """A value to ask for in words: "yellows", "stars", "fours" (Spanish: "amarillos")."""
    return _ES_VALUES[value] if language() == "es" else value_label(value)


def parse_value_words(text: str) -> Value:
    """A value typed in English ("yellow", "stars", "4") or Spanish ("amarillos", "luna")."""
    found = _ES_WORDS.get(text.strip().lower())
    if found is not None:
        return found
    try:
        return parse_value(text)
    except ValueError:
        raise CommandError(
            _("{text} is not a colour, shape or count (for example: yellow, star, 4)").format(
                text=repr(text)
            )
        ) from None


def cards_words(cards: Sequence[Card]) -> str:
    """Cards in words, separated by commas."""
    return ", ".join(card_name(c) for c in cards)


def count_of(number: int, noun: str = "card") -> str:
    """``"1 card"``, ``"2 cards"`` (``noun`` is always a card)."""
    return ngettext("{n} card", "{n} cards", number).format(n=number)


def winners_text(names: Sequence[str], winners: Sequence[int]) -> str:
    """Who won, with its verb: "Ann wins", "You win", "Ann and Bob share the win"."""
    who = join_and([names[w] for w in winners])
    if len(winners) > 1:
        return _("{names} share the win").format(names=who)
    return _("You win") if who == you() else _("{name} wins").format(name=who)


def hand_letter(index: int) -> str:
    """The letter that names hand position ``index`` in commands (a, b, c...)."""
    return ascii_lowercase[index] if index < 26 else str(index)


def _says(names: Sequence[str], seat: int, mine: str, theirs: str, **words: str) -> str:
    """``mine`` when ``seat`` is the person at the screen, else ``theirs`` with ``{player}``."""
    if names[seat] == you():
        return _(mine).format(**words)
    return _(theirs).format(player=names[seat], **words)


def _ask_line(e: Asked, names: Sequence[str]) -> str:
    value = value_words(e.value)
    if names[e.target] == you():
        return _("{player} asks you for {value}.").format(player=names[e.player], value=value)
    return _says(
        names,
        e.player,
        N_("You ask {target} for {value}."),
        N_("{player} asks {target} for {value}."),
        target=names[e.target],
        value=value,
    )


def _pass_line(e: Passed, names: Sequence[str]) -> str:
    shown = f": {cards_words(e.cards)}" if e.cards is not None else ""
    cards = count_of(e.number)
    if names[e.receiver] == you():
        return _("{player} passes {cards} to you{shown}.").format(
            player=names[e.giver], cards=cards, shown=shown
        )
    return _says(
        names,
        e.giver,
        N_("You pass {cards} to {receiver}{shown}."),
        N_("{player} passes {cards} to {receiver}{shown}."),
        cards=cards,
        receiver=names[e.receiver],
        shown=shown,
    )


def _turn_line(e: TurnBegan, names: Sequence[str]) -> str:
    if e.opening:
        return _says(names, e.player, N_("-- Your opening --"), N_("-- {player}'s opening --"))
    return _says(names, e.player, N_("-- Your turn --"), N_("-- {player}'s turn --"))


def _end_line(e: Ended, names: Sequence[str]) -> str:
    o = e.outcome
    result = winners_text(names, o.winners)
    if o.reason == "blunk":
        who = join_and([names[w] for w in o.winners])
        return _('{names}: "I Blunk!" {result}.').format(names=who, result=result)
    return _(
        "Game over, the draw pile is empty and no one can match: {result} (fewest cards)."
    ).format(result=result)


def describe_event(event: GoEvent, names: Sequence[str], viewer: int | None) -> str | None:
    """One log line for ``event`` as ``viewer`` may see it (None: nothing worth a line); cards
    are named in words."""
    e = redact(event, viewer)
    if isinstance(e, Asked):
        return _ask_line(e, names)
    if isinstance(e, Passed):
        return _pass_line(e, names)
    if isinstance(e, GoBlinked):
        return _('{name}: "Go Blink!"').format(name=names[e.target])
    if isinstance(e, Drew):
        what = card_name(e.card) if e.card is not None else _("a card")
        why = _(" (hand emptied)") if e.cause == "emptied" else ""
        return _says(
            names,
            e.player,
            N_("You draw {card}{why}."),
            N_("{player} draws {card}{why}."),
            card=what,
            why=why,
        )
    if isinstance(e, LaidDown):
        return _says(
            names,
            e.player,
            N_("You lay down {cards} ({value})."),
            N_("{player} lays down {cards} ({value})."),
            cards=cards_words(e.cards),
            value=value_words(e.value),
        )
    if isinstance(e, Skipped):
        return _says(
            names,
            e.player,
            N_("You have no cards and the draw pile is empty: turn skipped."),
            N_("{player} has no cards and the draw pile is empty: turn skipped."),
        )
    if isinstance(e, TurnBegan):
        return _turn_line(e, names)
    if isinstance(e, Ended):
        return _end_line(e, names)
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
        self.bot_kinds: dict[int, str] = {}
        """The kind of bot (its name in :data:`~blink.games.goblink.bots.GOBOTS`) of each bot
        seat."""
        self.bots: dict[int, GoBot] = {}
        """The bots made so far, by seat: each is made on its first decision (see
        :meth:`bot`), since making some kinds is slow (the master loads numba). A bot put here
        before that plays the seat instead."""
        bot_names = list(bots) or [DEFAULT_OPPONENT]
        k = 0
        for seat in range(players):
            if seat not in self.humans:
                self.bot_kinds[seat] = get_gobot_kind(bot_names[k % len(bot_names)]).name
                k += 1
        if names is None:
            out = []
            for seat in range(players):
                if seat in self.bot_kinds:
                    kind = get_gobot_kind(self.bot_kinds[seat])
                    title = GO_BOT_NAMES.get(kind.name)
                    out.append(f"{_(title) if title else kind.display_name} {seat + 1}")
                elif len(self.humans) == 1:
                    out.append(you())
                else:
                    out.append(_("Player {n}").format(n=seat + 1))
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
        return not self.game.over and self.game.current in self.bot_kinds

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

    def bot(self, seat: int) -> GoBot:
        """The bot of ``seat``, made the first time it is asked for (slow for some kinds: see
        :attr:`bots`)."""
        bot = self.bots.get(seat)
        if bot is None:
            bot = make_gobot(self.bot_kinds[seat], seat, self.seed * 10 + seat)
            self.bots[seat] = bot
        return bot

    def bot_view(self) -> GoView | None:
        """The view the current bot decides in (None when it is not a bot's turn).

        Take it where the game is played (the screen's thread), then :meth:`decide` in it
        anywhere, and :meth:`apply_bot` the action back where the game is played.
        """
        if not self.is_bot_turn():
            return None
        return self.game.view(self.game.current)

    def decide(self, view: GoView) -> GoAction:
        """The action of the bot of ``view``'s seat in ``view``, without touching the game: safe
        in a worker thread while the game is read elsewhere (one decision at a time; makes the
        bot the first time). It may take a while (the master bot's first decision loads its
        compiled search)."""
        assert view.seat is not None
        return self.bot(view.seat).act(view)

    def apply_bot(self, view: GoView, action: GoAction) -> list[GoEvent] | None:
        """Apply a bot's ``action`` decided in ``view`` if the game is still where it was then
        (its seat's view is the same); None, applying nothing, when the game has moved on."""
        if not self.is_bot_turn() or self.game.view(view.seat) != view:
            return None
        return self.game.apply(action)

    def bot_step(self) -> list[GoEvent]:
        """Let the current bot take one action (nothing when it is not a bot's turn): decide and
        apply at once, on the calling thread."""
        view = self.bot_view()
        if view is None:
            return []
        events = self.apply_bot(view, self.decide(view))
        assert events is not None
        return events

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
            raise CommandError(_("type a command: ask, lay or end (or help)"))
        verb, args = words[0].lower(), words[1:]
        view = self.game.view(seat)
        if verb in _VERBS["end"]:
            return EndTurn(seat)
        if verb in _VERBS["ask"]:
            if len(args) < 2:
                raise CommandError(_("ask whom for what? For example: ask 2 yellow"))
            target = self._player(args[0], seat)
            return Ask(seat, target, parse_value_words(" ".join(args[1:])))
        if verb in _VERBS["lay"]:
            if not args:
                raise CommandError(_("lay which cards? For example: lay a b c"))
            return LayDown(seat, tuple(self._card(w, view.hand) for w in args))
        raise UnknownCommand(
            _("unknown command {verb}: use ask, lay, end, hint or help").format(verb=repr(verb))
        )

    def _player(self, word: str, seat: int) -> int:
        if word.isdigit():
            n = int(word) - 1
            if not 0 <= n < self.players:
                raise CommandError(
                    _("there is no player {word} (1 to {n})").format(word=word, n=self.players)
                )
            return n
        low = word.lower()
        found = [i for i, n in enumerate(self.names) if n.lower().startswith(low)]
        if len(found) != 1:
            raise CommandError(
                _("{word} does not name one player; use their number").format(word=repr(word))
            )
        return found[0]

    def _card(self, word: str, hand: Sequence[Card]) -> Card:
        if len(word) == 1 and word.isalpha():
            i = ascii_lowercase.index(word.lower())
            if i >= len(hand):
                raise CommandError(
                    _("there is no card {word} in your hand").format(word=repr(word))
                )
            return hand[i]
        try:
            return parse_card(word)
        except CardError:
            raise CommandError(
                _("{word} is neither a hand letter nor a card code like 1RS").format(
                    word=repr(word)
                )
            ) from None

    def act(self, seat: int, text: str) -> list[GoEvent]:
        """Parse and apply a person's command; errors come back as :class:`CommandError`."""
        action = self.parse(seat, text)
        try:
            return self.game.apply(action)
        except IllegalAction as exc:
            words = GO_REFUSALS.get(exc.code)
            if words is None and language() == "en":
                raise CommandError(exc.message) from None
            raise CommandError(
                _(words) if words else _("Refused ({code})").format(code=exc.code)
            ) from None

    def prompt(self, seat: int) -> str:
        """What ``seat`` may do now, in a sentence or two."""
        view = self.game.view(seat)
        if view.phase is Phase.OVER or view.current != seat:
            return ""
        if view.phase is Phase.OPENING:
            return _(
                "Your opening: lay down matches from the deal (never all your cards), e.g. "
                "'lay a b c', then 'end'."
            )
        if view.phase is Phase.ASKING:
            held: list[str] = []
            for c in view.hand:
                for v in (c.color, c.shape, c.count):
                    word = value_words(v) if language() == "es" else str(getattr(v, "label", v))
                    if word not in held:
                        held.append(word)
            whom = ", ".join(f"{p + 1}={self.names[p]}" for p in range(self.players) if p != seat)
            return _("Ask someone ({whom}) for one of: {values}. e.g. 'ask 2 {value}'").format(
                whom=whom, values=", ".join(held), value=held[0]
            )
        return _("Lay down matches ('lay a b c'), then 'end' your turn.")
