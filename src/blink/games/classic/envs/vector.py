"""Classic Blink as a Gymnasium vector environment on the compiled kernels
(``gymnasium.make_vec("blink/Classic-v0", num_envs=N, vectorization_mode="vector_entry_point")``,
:class:`ClassicVector`).

``N`` games at once, stepped together in numba (:mod:`blink.games.classic.sim.fast_vector`):
in each, the learner plays ``seat`` and the other seats are the fast simulator's bots
(``level:strategy`` specs, as :class:`~blink.games.classic.envs.single.ClassicSingle`'s
``bots``), racing in virtual time. A step, the observation and its mask, the rewards, the
inactivity rule and the truncation are the single-seat environment's (docs/envs.md); the
deals and the bots' random numbers are the fast simulator's own streams (keyed by each
sub-environment's seed), so a seed gives the same episodes on every run, but not the games
the single-seat environment deals for that seed.

An opponent seat can also be a policy (:data:`~blink.envs.vector.VectorOpponent`): a callable
asked for all the games waiting on its seat at once (their observations and masks, from its
seat, as the learner's), or a saved ``blink train`` policy. As in the single environment, a
policy acts once a step, at its start, after the learner and in seat order (a game over by
then asks no one): the kernels stop each game there, the step asks each policy seat once for
its waiting games and plays the answers at the step's start, then the race runs to the step's
end (docs/envs.md).

Auto-reset is Gymnasium's ``AutoresetMode.NEXT_STEP``: the step that ends a game returns its
last observation (its mask is never all zeros: waiting is always legal), and the next step
ignores that sub-environment's action and returns the first observation of a new game, with
reward 0 and neither terminated nor truncated.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from blink.envs.encoding import FEATURES
from blink.envs.single import Policy, seat_spaces
from blink.envs.vector import (
    BatchPolicy,
    CompiledVector,
    VectorOpponent,
    resolve_vector_opponents,
)
from blink.games.classic.bots import BotSpec, get_level, get_strategy
from blink.games.classic.envs.classic_v0 import deal_options
from blink.games.classic.envs.codec import ClassicCodec
from blink.games.classic.envs.idle import DEFAULT_IDLE_SECONDS, check_idle_seconds
from blink.games.classic.sim.core import SimConfig
from blink.model.registry import get_game
from blink.sim import compiled

__all__ = ["ClassicVector"]


class ClassicVector(CompiledVector):
    """``num_envs`` classic games, the learner in ``seat`` of each against ``bots``.

    Options as :class:`~blink.games.classic.envs.single.ClassicSingle`'s: ``players``,
    ``seat``, ``bots`` (one for every other seat, or one each: a spec whose strategy has a
    kernel form, random, first, blocker or flexible; a saved ``blink train`` policy; or a
    callable :data:`~blink.envs.vector.BatchPolicy`), ``ruleset``, ``handicap``,
    ``step_seconds``, ``max_steps``, ``config``, ``idle_seconds``. Observations are the single
    environment's, batched: ``{"observation": (N, n) float32, "action_mask": (N, k) int8}``;
    the masks are also in ``infos``
    (``"action_mask"``), beside ``"refused"`` (the action was refused: it changed nothing) and
    ``"idle"`` (the inactivity rule ended the game).
    """

    kernels = "blink.games.classic.sim.fast_vector"
    seed_label = "vector"

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 2,
        seat: int = 0,
        bots: VectorOpponent | Sequence[VectorOpponent] = "expert:first",
        *,
        ruleset: str = "official",
        handicap: str | list[int] | None = None,
        step_seconds: float = 0.1,
        max_steps: int = 10_000,
        config: SimConfig | None = None,
        idle_seconds: float | None = DEFAULT_IDLE_SECONDS,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs is at least 1, not {num_envs}")
        if not step_seconds > 0:
            raise ValueError(f"a step lasts a positive time, not {step_seconds!r}")
        game = get_game("classic")
        self.players = game.info.check_players(players)
        if not 0 <= seat < players:
            raise ValueError(f"the agent's seat must be 0 to {players - 1}, not {seat}")
        self.seat = seat
        self.num_envs = num_envs
        probe = game.new(players, 0, options=deal_options(ruleset, handicap))
        self.ruleset = probe.ruleset
        self.sizes = np.array(probe.sizes, dtype=np.int64)
        h = self.ruleset.hand_size
        reach = [game.reach(players, s) for s in range(players)]
        self.codec = codec = ClassicCodec(players, h, reach)
        self.opponents = resolve_vector_opponents(
            bots, players - 1, check_bot=BotSpec.parse, load=self._load
        )
        """Each opponent seat's bot spec or policy, in seat order (the agent's skipped)."""
        self.specs = [BotSpec.parse(o) for o in self.opponents if isinstance(o, str)]
        others = [s for s in range(players) if s != seat]
        self._policies: dict[int, BatchPolicy] = {
            s: o for s, o in zip(others, self.opponents, strict=True) if not isinstance(o, str)
        }
        self.step_seconds = float(step_seconds)
        self.max_steps = int(max_steps)
        self.config = config or SimConfig()
        self.idle_seconds = check_idle_seconds(idle_seconds)
        self.single_observation_space, self.single_action_space = seat_spaces(
            codec.size, codec.actions
        )
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._k = compiled.load_kernels(self.kernels)
        self._setting(reach, codec)
        self._keys = np.zeros(num_envs, dtype=np.uint64)
        self._seeded = False
        self._obs = np.zeros((num_envs, codec.size), dtype=np.float32)
        self._mask = np.zeros((num_envs, codec.actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._flags = np.zeros((4, num_envs), dtype=np.bool_)

    def _load(self, source: object) -> Policy:
        """A saved ``blink train`` policy as an opponent."""
        from blink.train.opponent import policy_opponent  # PyTorch: blink[train]

        return policy_opponent(source, "classic", self.codec.size, self.codec.actions)

    def _setting(self, reach: list[tuple[int, ...]], codec: ClassicCodec) -> None:
        fast = importlib.import_module("blink.games.classic.sim.fast")
        fr = importlib.import_module("blink.games.classic.sim.fast_rules")
        players, h, seat = self.players, self.ruleset.hand_size, self.seat
        specs = fast.check_specs(self.specs)
        rows = [[0.0] * 6 for _ in range(players)]
        strat = [0] * players
        bot_seats = [s for s in range(players) if s != seat and s not in self._policies]
        for s, spec in zip(bot_seats, specs, strict=True):
            x = get_level(spec.level).scaled(spec.speed)
            rows[s] = [x.floor, x.encode, x.per_comparison, x.per_bit, x.sigma, x.tau]
            strat[s] = fast.KERNEL_FORMS[get_strategy(spec.strategy)]
        for s in self._policies:
            strat[s] = self._k.OUTSIDE
        self._seats = (
            np.array(rows, dtype=np.float64),
            np.array(strat, dtype=np.int64),
            np.array(reach, dtype=np.int64),
        )
        self._dead_end = int(fr.DEAD_END_SCOPES[self.ruleset.dead_end])
        self._scratch = (
            np.zeros(2 * h + 3),
            np.zeros(2 * h, dtype=np.int64),
            np.zeros(players, dtype=np.int64),
            np.zeros(players),
            np.zeros(players, dtype=np.int64),
            np.zeros(players, dtype=np.bool_),
            np.zeros(h),
            np.zeros(2 * fr.N_CARDS, dtype=np.uint64),
            np.zeros(fr._BUCKETS, dtype=np.int64),
        )
        feat = np.zeros((fr.N_CARDS + 1, 18), dtype=np.float32)
        for j, card in enumerate(fast.DECK):
            feat[j, list(FEATURES[card])] = 1.0
        self._feat = feat
        self._orders = np.array(codec.piles, dtype=np.int64)
        self._order = self._orders[seat]
        dmax = max(int(n) - 1 - h for n in self.sizes)
        nlog = fr.N_CARDS + 8 * int(self.sizes.max()) + 64
        self._state = self._k.new_games(self.num_envs, players, h, dmax, nlog)

    def _args(self) -> tuple[Any, ...]:
        c = self.config
        return (
            self._keys, self.sizes, self.ruleset.hand_size, self._seats, self._scratch,
            self._dead_end, float(c.flip_pause), float(c.choice_timeout), self.seat,
            self._feat, self._order,
        )  # fmt: skip

    def _episode_counts(self) -> tuple[NDArray[Any], int]:
        return self._state[22], 5

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        """Every sub-environment's step (one action each; see the module's auto-reset)."""
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        term, trunc, refused, idle = self._flags
        idle_s = 0.0 if self.idle_seconds is None else float(self.idle_seconds)
        self._k.step_games(
            self._state, acts, *self._args(), self.step_seconds, idle_s, self.max_steps,
            self._obs, self._mask, self._rewards, term, trunc, refused, idle,
        )  # fmt: skip
        if self._policies:
            self._opponents_act()
        out = self._out()
        infos = {"action_mask": out["action_mask"], "refused": refused.copy(), "idle": idle.copy()}
        return out, self._rewards.copy(), term.copy(), trunc.copy(), infos

    def _waiting(self) -> NDArray[np.int64]:
        return np.asarray(self._state[22][:, self._k.X_WAIT], dtype=np.int64)

    def _views(
        self, seat: int, games: NDArray[np.int64]
    ) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        obs = np.zeros((games.size, self.codec.size), dtype=np.float32)
        mask = np.zeros((games.size, self.codec.actions), dtype=np.int8)
        self._k.opponent_views(
            self._state, games, seat, self.sizes, self.ruleset.hand_size, self._feat,
            self._orders[seat], obs, mask,
        )  # fmt: skip
        return obs, mask

    def _play(self, games: NDArray[np.int64], actions: NDArray[np.int64]) -> None:
        term, trunc, refused, idle = self._flags
        idle_s = 0.0 if self.idle_seconds is None else float(self.idle_seconds)
        self._k.opponents_play(
            self._state, games, actions, *self._args(), self.step_seconds, idle_s,
            self.max_steps, self._obs, self._mask, self._rewards, term, trunc, refused, idle,
        )  # fmt: skip

    def episode(self, index: int) -> tuple[list[int], list[tuple[int, int, int, int, int]]]:
        """Sub-environment ``index``'s current episode so far: its deal (card numbers of the
        standard deck, top first) and its actions (kind 0 play, 1 flip, 2 choose; seat, card,
        pile, ms), the learner's included: enough to replay it through the rules engine."""
        fr = importlib.import_module("blink.games.classic.sim.fast_rules")
        count = min(int(self._state[9][index, fr.C_NLOG]), self._state[12].shape[1])
        log = self._state[12][index, :count]
        return self._state[13][index].tolist(), [tuple(r) for r in log.tolist()]
