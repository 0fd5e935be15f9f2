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

An opponent seat can also be a policy (:data:`~blink.envs.vector.VectorOpponent`): a
callable asked for all the games waiting on its seat at once (their observations and masks,
from its seat, as the learner's), or a saved ``blink train`` policy. The kernels stop each
game at a policy's turn; the step asks each policy seat once for its waiting games and plays
the answers, until every game waits on the learner (docs/envs.md).

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
from blink.envs.single import Policy, seat_spaces
from blink.envs.vector import (
    BatchPolicy,
    CompiledVector,
    VectorOpponent,
    resolve_vector_opponents,
)
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT, GoCodec, codec
from blink.games.goblink.envs.factored_batch import FactoredBatch
from blink.games.goblink.fast import KERNEL_BOTS, REASONS, check_bots
from blink.model.registry import get_game
from blink.sim import compiled

__all__ = ["GoBlinkVector"]

_NOT_BOT = -1  # the learner's seat in the kernels' table of bots
_POLICY = -2  # an opponent policy's seat in it (the kernels' POLICY)


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
    ``seat``, ``opponents`` (one for every other seat, or one each: a bot's name with a kernel
    form, random, greedy or memory; a saved ``blink train`` policy; or a callable
    :data:`~blink.envs.vector.BatchPolicy`), ``turn_limit``, ``max_steps``, ``ask_window``; and
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
        opponents: VectorOpponent | Sequence[VectorOpponent] = "memory",
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
        self.turn_limit = turn_limit
        self.max_steps = int(max_steps)
        self.records = int(records)
        self.codec = codec(self.players, ask_window)
        self._factored_asked = actions == "factored"
        self.opponents = resolve_vector_opponents(
            opponents, players - 1, check_bot=lambda n: check_bots([n, n]), load=self._load
        )
        """Each opponent seat's bot name or policy, in seat order (the agent's skipped)."""
        self._bots, self._policies = self._table(seat)
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
        size = self.codec.size if self._policies else 0
        self._state = self._k.new_games(num_envs, players, self.records, size)
        self._keys = np.zeros(num_envs, dtype=np.uint64)
        self._seeded = False
        self._obs = np.zeros((num_envs, self.codec.size), dtype=np.float32)
        self._mask = np.zeros((num_envs, self.codec.actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._flags = np.zeros((3, num_envs), dtype=np.bool_)
        self._reasons = np.zeros(num_envs, dtype=np.int64)
        self._allowed: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
        self._parts_mask: NDArray[np.int8] | None = None

    def _load(self, source: object) -> Policy:
        """A saved ``blink train`` policy as an opponent (it plays the flat action space)."""
        if self._factored_asked:
            raise ValueError("a saved policy plays the flat actions, not actions='factored'")
        from blink.train.opponent import policy_opponent  # PyTorch: blink[train]

        return policy_opponent(source, "goblink", self.codec.size, self.codec.actions)

    def _table(self, seat: int) -> tuple[NDArray[np.int64], dict[int, BatchPolicy]]:
        """The kernels' table of each seat's bot (the learner's and the policies' marked) and
        each policy's seat."""
        others = [s for s in range(self.players) if s != seat]
        names = [o if isinstance(o, str) else next(iter(KERNEL_BOTS)) for o in self.opponents]
        bots = np.array(check_bots([*names[:seat], names[0], *names[seat:]]), dtype=np.int64)
        bots[seat] = _NOT_BOT
        policies: dict[int, BatchPolicy] = {}
        for s, opponent in zip(others, self.opponents, strict=True):
            if not isinstance(opponent, str):
                bots[s] = _POLICY
                policies[s] = opponent
        return bots, policies

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
        if self._policies:
            self._opponents_act()
        out = self._out()
        outcome = np.array([""] + [r.value for r in REASONS])[self._reasons + 1]
        infos = {"action_mask": out["action_mask"], "refused": refused.copy(), "outcome": outcome}
        return out, self._rewards.copy(), term.copy(), trunc.copy(), infos

    def _waiting(self) -> NDArray[np.int64]:
        k = self._k
        pending = self._state[k.S_EX][:, k.X_PENDING] != 0
        return np.where(pending, self._state[k.S_G][:, k.G_CUR], -1)

    def _views(
        self, seat: int, games: NDArray[np.int64]
    ) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        obs = np.zeros((games.size, self.codec.size), dtype=np.float32)
        mask = np.zeros((games.size, self.codec.actions), dtype=np.int8)
        self._k.opponent_views(
            self._state, games, seat, self._offs, self._mkeys, self._midx, obs, mask
        )
        return obs, mask

    def _answers(
        self, seat: int, obs: NDArray[np.float32], mask: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        """With factored actions, the policy reads the parts' masks and answers vectors."""
        if self.factored is None:
            return super()._answers(seat, obs, mask)
        n = len(mask)
        allowed = self.factored.allowed(mask)
        answer = self._policies[seat](obs, self.factored.masks(n, allowed))
        try:
            parts = np.asarray(answer, dtype=np.int64)
            shaped = parts.shape == (n, len(self.factored.nvec))
        except (TypeError, ValueError):
            shaped = False
        if not shaped:
            raise ValueError(
                f"the opponent policy in seat {seat} answered {answer!r:.60}, not {n} vectors "
                f"of {len(self.factored.nvec)} parts"
            )
        flat = self.factored.to_flat(parts, allowed)
        inside = flat >= 0
        legal = inside & (mask[np.arange(n), np.where(inside, flat, 0)] != 0)
        if not legal.all():
            bad = parts[int(np.argmin(legal))].tolist()
            raise ValueError(
                f"the opponent policy in seat {seat} answered {bad!r}, not a legal action"
            )
        return flat

    def _play(self, games: NDArray[np.int64], actions: NDArray[np.int64]) -> None:
        term, trunc, _ = self._flags
        self._k.opponents_play(
            self._state, games, actions, self._bots, *self._scratch, self._offs, self.seat,
            self._mkeys, self._midx, self._mbits, self.max_steps, self._obs, self._mask,
            self._rewards, term, trunc, self._reasons,
        )  # fmt: skip

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
