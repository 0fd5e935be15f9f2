"""Go Blink as a Gymnasium vector environment on the compiled kernels
(``gymnasium.make_vec("blink/GoBlink-v0", num_envs=N, vectorization_mode="vector_entry_point")``,
:class:`GoBlinkVector`).

``N`` games at once, stepped together in numba (:mod:`blink.games.goblink.fast.vector`): in
each, the learner plays ``seat`` and the other seats are the fast engine's bots (``random``,
``greedy``, ``memory``: :data:`blink.games.goblink.fast.KERNEL_BOTS`). A step, the observation
and its mask, the rewards, the turn limit and the truncation are the single-seat
environment's (:class:`~blink.games.goblink.envs.single.GoBlinkSingle`, docs/envs.md); the
deals, the dealers and the bots' random numbers are the fast engine's own streams (keyed by
each sub-environment's seed), so a seed gives the same episodes on every run, but not the
games the single-seat environment deals for that seed (the fast engine's bots make the same
decisions from the same facts, with other random numbers).

Auto-reset is Gymnasium's ``AutoresetMode.NEXT_STEP``: the step that ends a game returns its
last observation, whose mask allows action ``0`` alone (never all zeros, as the single-seat
environment's terminal mask), and the next step ignores that sub-environment's action and
returns the first observation of a new game, with reward 0 and neither terminated nor
truncated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from blink.envs.encoding import DECK_INDEX
from blink.envs.single import opponent_names, seat_spaces
from blink.envs.vector import CompiledVector
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT, GoCodec, codec
from blink.games.goblink.envs.factored_batch import FactoredBatch
from blink.games.goblink.fast import KERNEL_BOTS, REASONS, check_bots
from blink.model.registry import get_game
from blink.sim import compiled

__all__ = ["GoBlinkVector"]

_NOT_BOT = -1  # the learner's seat in the kernels' table of bots


def _offsets(c: GoCodec) -> NDArray[np.int64]:
    """The observation's offsets the kernels read (``O_*`` of the kernels' module)."""
    return np.array(
        [
            c._given, c._received, c._counts, c._draw, c._phase, c._current, c._dealer,
            c._scalars, c._log, c._row, c.ask_window, c.first_lay,
        ],
        dtype=np.int64,
    )  # fmt: skip


def _match_tables(c: GoCodec) -> tuple[NDArray[Any], ...]:
    """Each match of the action space as a bit set of cards (``mbits``, in action order), and
    the same sorted (``mkeys``) with each one's match number (``midx``)."""
    bits = np.array([sum(1 << DECK_INDEX[card] for card in m) for m in c.matches], dtype=np.uint64)
    order = np.argsort(bits, kind="stable")
    return bits, bits[order], order.astype(np.int64)


class GoBlinkVector(CompiledVector):
    """``num_envs`` Go Blink games, the learner in ``seat`` of each against ``opponents``.

    Options as :class:`~blink.games.goblink.envs.single.GoBlinkSingle`'s: ``players``,
    ``seat``, ``opponents`` (bots' names with a kernel form: random, greedy, memory; one for
    every other seat, or one each), ``turn_limit``, ``max_steps``, ``ask_window``; and
    ``records``: keep up to that many actions of each episode (:meth:`episode`, for replays;
    0, the default, keeps none); ``actions``: ``"flat"`` or ``"factored"`` (the single
    environment's factored space for every game, :mod:`blink.games.goblink.envs.factored_batch`:
    ``(N, 63)`` vectors, masks of the parts). Observations are the single environment's, batched:
    ``{"observation": (N, n) float32, "action_mask": (N, k) int8}``; the masks are also in
    ``infos`` (``"action_mask"``), beside ``"refused"`` (the action was refused: it changed
    nothing) and ``"outcome"`` (the reason each game ended in this step, ``""`` where it did
    not: ``blunk``, ``fewest_cards``, ``turn_limit``).
    """

    kernels = "blink.games.goblink.fast.vector"
    seed_label = "goblink-vector"

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 2,
        seat: int = 0,
        opponents: str | Sequence[str] = "memory",
        *,
        turn_limit: int | None = DEFAULT_TURN_LIMIT,
        max_steps: int = 2_000,
        ask_window: int = 16,
        records: int = 0,
        actions: str = "flat",
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs is at least 1, not {num_envs}")
        if turn_limit is not None and turn_limit < 1:
            raise ValueError(f"the turn limit must be positive, not {turn_limit}")
        if max_steps < 1 or records < 0:
            raise ValueError("max_steps is at least 1 and records at least 0")
        game = get_game("goblink")
        self.players = game.info.check_players(players)
        if not 0 <= seat < players:
            raise ValueError(f"the agent's seat must be 0 to {players - 1}, not {seat}")
        self.seat = seat
        self.num_envs = num_envs
        names = opponent_names(opponents, players - 1)
        if not all(isinstance(n, str) for n in names):
            raise ValueError(f"the vector environment's opponents are bots' names: {KERNEL_BOTS}")
        self.opponents = [str(n) for n in names]
        """Each opponent seat's bot, in seat order (the agent's skipped)."""
        table = [*self.opponents[:seat], next(iter(KERNEL_BOTS)), *self.opponents[seat:]]
        bots = np.array(check_bots(table), dtype=np.int64)
        bots[seat] = _NOT_BOT
        self._bots = bots
        self.turn_limit = turn_limit
        self.max_steps = int(max_steps)
        self.records = int(records)
        self.codec = codec(self.players, ask_window)
        self.single_observation_space, self.single_action_space = seat_spaces(
            self.codec.size, self.codec.actions
        )
        self.factored: FactoredBatch | None = None
        """The factored actions' batched codec (``actions="factored"``), else ``None``."""
        if actions == "factored":
            self.factored = FactoredBatch(self.codec)
            mask = spaces.Box(0, 1, (self.factored.mask_size,), dtype=np.int8)
            self.single_observation_space["action_mask"] = mask
            self.single_action_space = self.factored.single.space()
        elif actions != "flat":
            raise ValueError(f"actions must be 'flat' or 'factored', not {actions!r}")
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._k = compiled.load_kernels(self.kernels)
        self._offs = _offsets(self.codec)
        self._mbits, self._mkeys, self._midx = _match_tables(self.codec)
        self._scratch = (np.zeros(players * 17), np.zeros(players * 17, dtype=np.int64))
        self._state = self._k.new_games(num_envs, players, self.records)
        self._keys = np.zeros(num_envs, dtype=np.uint64)
        self._seeded = False
        self._obs = np.zeros((num_envs, self.codec.size), dtype=np.float32)
        self._mask = np.zeros((num_envs, self.codec.actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._flags = np.zeros((3, num_envs), dtype=np.bool_)
        self._reasons = np.zeros(num_envs, dtype=np.int64)
        self._allowed: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
        self._parts_mask: NDArray[np.int8] | None = None

    def _args(self) -> tuple[Any, ...]:
        return (
            self._keys, self._bots, self.turn_limit or 0, *self._scratch, self._offs, self.seat,
            self._mkeys, self._midx,
        )  # fmt: skip

    def _episode_counts(self) -> tuple[NDArray[Any], int]:
        return self._state[8], 2

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        """Every sub-environment's step (one action each; see the module's auto-reset)."""
        if self.factored is not None:
            acts = self.factored.to_flat(actions, self._allowed_now())
        else:
            acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        term, trunc, refused = self._flags
        self._k.step_games(
            self._state, acts, *self._args(), self._mbits, self.max_steps, self._obs,
            self._mask, self._rewards, term, trunc, refused, self._reasons,
        )  # fmt: skip
        self._check()
        out = self._out()
        outcome = np.array([""] + [r.value for r in REASONS])[self._reasons + 1]
        infos = {"action_mask": out["action_mask"], "refused": refused.copy(), "outcome": outcome}
        return out, self._rewards.copy(), term.copy(), trunc.copy(), infos

    def _allowed_now(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The allowed entries of the current flat masks (found once after each step)."""
        assert self.factored is not None
        if self._allowed is None:
            self._allowed = self.factored.allowed(self._mask)
        return self._allowed

    def _out(self) -> dict[str, Any]:
        self._allowed = self._parts_mask = None
        if self.factored is None:
            return super()._out()
        self._parts_mask = self.factored.masks(self.num_envs, self._allowed_now())
        return {"observation": self._obs.copy(), "action_mask": self._parts_mask.copy()}

    def action_masks(self) -> NDArray[np.bool_]:
        """The current masks as booleans (the factored parts' with ``actions="factored"``)."""
        if self._parts_mask is not None:
            return self._parts_mask.astype(bool)
        return super().action_masks()

    def _check(self) -> None:
        bad = np.flatnonzero(self._state[1][:, 15])  # G_STATUS: a bot's illegal action
        if bad.size:
            raise RuntimeError(f"a fast bot chose an illegal action in game {int(bad[0])}")

    def episode(self, index: int) -> tuple[list[int], int, list[tuple[int, int, int, int]]]:
        """Sub-environment ``index``'s current episode so far (with ``records``): its deal
        (card numbers of the standard deck, top first), its dealer and its actions (kind 0
        ask, 1 lay, 2 end; seat, ``target * 32 + value``, the cards laid as a bit set), the
        learner's included: enough to replay it through the rules engine."""
        g = self._state[1][index]
        count = min(int(g[10]), self._state[4].shape[1] if self.records else 0)
        log = self._state[4][index, :count]
        return self._state[3][index].tolist(), int(g[13]), [tuple(r) for r in log.tolist()]
