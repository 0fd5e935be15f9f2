"""Classic Blink's seat for the Bot API client (:mod:`blink.cli.botclient`, ``blink bot play``).

The default game's commands module offers it (``bot_client()``): the generic client speaks the
protocol and hands each frame to a :class:`Player`, which keeps classic Blink's view from the
frames and asks the *policy*: the view -> action interface of the house bots
(:class:`blink.games.classic.bots.base.Bot`). Each time the seat's view changes it calls
``plan(view)`` with a :class:`~blink.games.classic.view.PlayerView` and sends what it answers
(an :class:`~blink.games.classic.bots.base.Intent`, waited for its ``delay``, or a ``Play`` or
``Choose`` at once; ``None``: nothing now). :func:`codec_policy` makes such a policy of a
chooser over the environments' observation and mask (a saved ``blink train`` policy).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from blink.cards import Card, CardError, parse_card
from blink.games.classic.actions import Choose, Phase, Play
from blink.games.classic.bots import BotConfigError, BotSpec
from blink.games.classic.bots.base import Intent
from blink.games.classic.codec import ClassicCodec, legal_in_view
from blink.games.classic.engine import ClassicEnd, Outcome
from blink.games.classic.rules import OFFICIAL, RulesetError, get_ruleset
from blink.games.classic.view import PlayerView
from blink.model.registry import get_game

__all__ = ["Plan", "Player", "codec_policy", "house_policy", "table_sizes"]

Plan = Callable[[PlayerView], Any]
"""A policy: ``plan(view)`` -> an Intent, a Play or Choose, or None."""


def house_policy(spec: str, seed: int = 0) -> Callable[[int], Plan]:
    """A house bot's policy (``level:strategy``, or a strategy alone, which plays at the
    ``inhuman`` level: as fast as the server lets it) for a seat; raises
    ``ValueError`` (one sentence) for an unknown name."""
    text = spec if ":" in spec else f"inhuman:{spec}"
    try:
        parsed = BotSpec.parse(text)
    except BotConfigError as exc:
        raise ValueError(str(exc)) from None
    return lambda seat: parsed.build(seat, seed).plan


Chooser = Callable[[dict[str, Any]], int]
"""Picks an action index from an observation (``observation`` and ``action_mask``)."""


def _codec(players: int, hand_size: int) -> ClassicCodec:
    """The environments' codec of a table of ``players`` seats and hands of ``hand_size``."""
    game = get_game("classic")
    reach = [game.reach(players, s) for s in range(players)]
    return ClassicCodec(players, hand_size, reach)


def table_sizes(players: int) -> tuple[int, int]:
    """The observation size and number of actions of a seat at a table of ``players`` seats
    under the official rules: what :func:`codec_policy` asks its chooser for there (so a
    saved policy can be checked before a room is opened)."""
    codec = _codec(players, OFFICIAL.hand_size)
    return codec.size, codec.actions


def codec_policy(chooser: Callable[[int, int], Chooser]) -> Callable[[int], Plan]:
    """A policy for a seat that encodes each view as the environments do (their
    :class:`~blink.games.classic.codec.ClassicCodec`, built as the single-seat
    environment builds it) and plays the index ``chooser(obs_size, actions)`` picks (waiting:
    ``None``). ``chooser`` is asked once per table size and may raise to refuse it."""

    def for_seat(seat: int) -> Plan:
        made: dict[tuple[int, int], tuple[ClassicCodec, Chooser]] = {}

        def plan(view: PlayerView) -> Play | Choose | None:
            key = (view.players, view.ruleset.hand_size)
            if key not in made:
                codec = _codec(view.players, view.ruleset.hand_size)
                made[key] = (codec, chooser(codec.size, codec.actions))
            codec, choose = made[key]
            obs = {
                "observation": codec.observe(view),
                "action_mask": codec.mask(legal_in_view(view), view),
            }
            move = codec.action(choose(obs), view)
            return move if isinstance(move, Play | Choose) else None

        return plan

    return for_seat


def _card(text: Any) -> Card | None:
    if text is None:
        return None
    try:
        return parse_card(str(text))
    except CardError:
        return None


_PHASES: Final = {p.value: p for p in Phase}


@dataclass
class Player:
    """One bot seat in one room: the frames it has read, its view, what it sent."""

    policy: Callable[[int], Plan]
    games: int
    seat: int | None = None
    game: int | None = None
    seq: int = 0
    ended: int = 0
    piles: list[list[Card]] = field(default_factory=list)
    view: PlayerView | None = None
    wire: dict[str, Any] = field(default_factory=dict)
    ruleset: Any = OFFICIAL
    plan: Plan | None = None
    ids: int = 0
    pending: asyncio.TimerHandle | None = None
    send: Callable[[dict[str, Any]], None] | None = None

    def done(self) -> bool:
        """Whether the games asked for are over."""
        return self.ended >= self.games

    def frame(self, msg: dict[str, Any]) -> None:
        """Read one frame from the server."""
        kind = msg.get("type")
        if kind == "welcome":
            self.seat = msg.get("seat")
            if self.seat is not None:
                self.plan = self.policy(int(self.seat))
        elif kind == "snapshot":
            self._new_game(msg.get("game"))
            self.seq = int(msg.get("seq", 0))
            full = msg.get("view") or {}
            with contextlib.suppress(RulesetError):
                self.ruleset = get_ruleset(str(full.get("ruleset", "official")))
            self.piles = [
                [c for c in (_card(x) for x in pile) if c is not None]
                for pile in full.get("piles", [])
            ]
            self._view(full)
        elif kind == "update":
            if msg.get("game") != self.game:
                self._new_game(msg.get("game"))
            elif int(msg.get("seq", 0)) <= self.seq:
                return  # seen before the drop
            self.seq = int(msg.get("seq", 0))
            for e in msg.get("events", []):
                self._event(e)
            self._view(msg.get("view") or {})
        elif kind == "game_end":
            self.ended += 1 if not msg.get("again") else 0
            self._cancel()
            if not self.done() and (msg.get("series") or {}).get("winner") is not None:
                self._send({"type": "rematch", "id": self._id()})

    def _new_game(self, game: Any) -> None:
        self.game = None if game is None else int(game)
        self.seq = 0
        self.piles = []
        self.view = None

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "revealed":
            self.piles = [[c] if c is not None else [] for c in map(_card, e.get("tops", []))]
        elif kind in ("played", "flipped", "placed"):
            card, pile = _card(e.get("card")), int(e.get("pile", -1))
            if card is not None and 0 <= pile < len(self.piles):
                self.piles[pile].append(card)

    def _view(self, v: dict[str, Any]) -> None:
        if not v or v.get("seat") is None:
            return
        tops = tuple(_card(c) for c in v.get("tops", []))
        players = len(tops)
        while len(self.piles) < players:
            self.piles.append([])
        self.wire = v
        outcome = v.get("outcome")
        self.view = PlayerView(
            seat=int(v["seat"]),
            players=players,
            phase=_PHASES.get(str(v.get("phase")), Phase.DEALT),
            ruleset=self.ruleset,
            hand=tuple(c for c in map(_card, v.get("hand", [])) if c is not None),
            tops=tops,
            piles=tuple(tuple(p) for p in self.piles[:players]),
            hand_counts=tuple(int(n) for n in v.get("hand_counts", [])),
            draw_counts=tuple(int(n) for n in v.get("draw_counts", [])),
            set_aside=int(v.get("set_aside", 0)),
            chosen=tuple(bool(b) for b in v.get("chosen", [])),
            my_choice=_card(v.get("my_choice")),
            outcome=None
            if not isinstance(outcome, dict)
            else Outcome.of(outcome.get("winners", ()), str(outcome.get("reason", "")), ClassicEnd),
            plays=int(v.get("plays", 0)),
        )
        self.think()

    def think(self) -> None:
        """Ask the policy about the current view (a new answer replaces a waiting one)."""
        self._cancel()
        if (
            self.plan is None
            or self.view is None
            or self.view.phase
            not in (
                Phase.PLAYING,
                Phase.CHOOSING,
            )
        ):
            return
        answer = self.plan(self.view)
        delay = 0.0
        if isinstance(answer, Intent):
            delay = max(0.0, float(answer.delay))
            answer = answer.action
        if not isinstance(answer, Play | Choose):
            return
        message = self._message(answer)
        if delay <= 0:
            self._send(message)
        else:
            self.pending = asyncio.get_running_loop().call_later(delay, self._send, message)

    def _message(self, action: Play | Choose) -> dict[str, Any]:
        if isinstance(action, Choose):
            return {"type": "choose", "id": self._id(), "card": str(action.card)}
        versions = self.wire.get("versions") or []
        out = {"type": "play", "id": self._id(), "card": str(action.card), "pile": action.pile}
        if action.pile < len(versions):
            out["version"] = int(versions[action.pile])
        return out

    def _id(self) -> str:
        self.ids += 1
        return f"b{self.ids}"

    def _send(self, message: dict[str, Any]) -> None:
        self.pending = None
        if self.send is not None:
            self.send(message)

    def _cancel(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
