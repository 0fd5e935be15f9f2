"""What every game's vector environment on compiled kernels shares (:class:`CompiledVector`):
each sub-environment's seed, a reset of some or all of them, the copies handed to the
learner, the masks as booleans, and pickling without the kernels' module.

A game's vector environment (``blink.games.<game>.envs.vector``) subclasses it, builds its
own spaces and state, and says which compiled module its kernels are in, how its kernels'
arguments are laid out (:meth:`CompiledVector._args`) and where its state counts each
sub-environment's episodes (:meth:`CompiledVector._episode_counts`). Auto-reset is
Gymnasium's ``AutoresetMode.NEXT_STEP``, done by the kernels.

Opponent policies (:data:`VectorOpponent`): a game whose kernels can stop at an opponent
policy's turn gives its waiting games (:meth:`CompiledVector._waiting`), that seat's
observations and masks (:meth:`CompiledVector._views`) and a kernel that plays the policy's
answers (:meth:`CompiledVector._play`); the base asks each policy once per seat for all the
games waiting on it, checks the answers and plays them, until every game waits on the learner
(:meth:`CompiledVector._opponents_act`). Without opponent policies nothing of this runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias, cast

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from numpy.typing import NDArray

from blink.envs.single import Policy, resolve_opponents
from blink.sim import compiled
from blink.sim.seeds import derive_seeds_of

__all__ = ["BatchPolicy", "CompiledVector", "VectorOpponent", "resolve_vector_opponents"]

BatchPolicy: TypeAlias = Callable[[NDArray[np.float32], NDArray[np.int8]], Any]
"""A policy playing an opponent seat of a vector environment, for many games at once: called
with that seat's observations (``(n, size)`` float32, one row a game waiting on the seat) and
their action masks (``(n, k)`` int8, as the learner's), it returns ``n`` actions (an array or
a sequence: action indices, or with factored actions the parts' vectors, ``(n, parts)``).
The learner's own policy can play them too (self-play)."""

VectorOpponent: TypeAlias = str | os.PathLike[str] | BatchPolicy
"""An opponent seat of a vector environment: a bot's name, a saved ``blink train`` policy (a
path, a string ending in ``.pt``, or a loaded policy; asked one game at a time), or a
:data:`BatchPolicy`."""


def resolve_vector_opponents(
    value: Any,
    count: int,
    *,
    check_bot: Callable[[str], object],
    load: Callable[[object], Policy],
) -> list[str | BatchPolicy]:
    """One opponent per opponent seat, as
    :func:`~blink.envs.single.resolve_opponents` (the same checks and sentences): a bot's
    name, or a :data:`BatchPolicy` (a callable as it is; a saved policy, loaded by ``load``,
    asked for each game's row in turn)."""
    # a callable passes through as it is: here it is a BatchPolicy, not a Policy
    resolved = resolve_opponents(
        value, count, check_bot=check_bot, load=lambda source: cast("Policy", rows_of(load(source)))
    )
    return cast("list[str | BatchPolicy]", resolved)


def rows_of(policy: Policy) -> BatchPolicy:
    """A single environment's policy (one observation dict a call) as a :data:`BatchPolicy`."""

    def answer(obs: NDArray[np.float32], mask: NDArray[np.int8]) -> list[Any]:
        return [
            policy({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)
        ]

    return answer


def checked_actions(seat: int, answer: Any, mask: NDArray[np.int8]) -> NDArray[np.int64]:
    """An opponent policy's ``answer`` for ``seat`` as action indices, one per row of
    ``mask``; ``ValueError`` naming the seat and the first action that is not legal."""
    n, width = mask.shape
    try:
        acts = np.asarray(answer)
        ints = acts.shape == (n,) and np.issubdtype(acts.dtype, np.integer)
    except (TypeError, ValueError):
        ints = False
    if not ints:
        raise ValueError(
            f"the opponent policy in seat {seat} answered {_short(answer)}, not {n} action indices"
        )
    flat = acts.astype(np.int64)
    inside = (flat >= 0) & (flat < width)
    legal = inside & (mask[np.arange(n), np.where(inside, flat, 0)] != 0)
    if not legal.all():
        bad = flat[int(np.argmin(legal))]
        raise ValueError(
            f"the opponent policy in seat {seat} answered {int(bad)!r}, not a legal action"
        )
    return flat


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 and "\n" not in text else f"a {type(value).__name__}"


class CompiledVector(gymnasium.vector.VectorEnv[dict[str, Any], NDArray[np.int64], NDArray[Any]]):
    """The shared part of a vector environment stepped by compiled kernels.

    A subclass sets :attr:`kernels` and :attr:`seed_label`, and in its ``__init__``
    ``num_envs``, ``_k`` (``compiled.load_kernels(self.kernels)``), ``_state`` (the
    kernels' arrays), ``_keys`` (one ``uint64`` per sub-environment), ``_seeded`` (``False``),
    ``_obs`` and ``_mask`` (the kernels write them).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    kernels: ClassVar[str]
    """The compiled module's name (loaded again after unpickling)."""
    seed_label: ClassVar[str]
    """What derives each sub-environment's key from its seed (the game's own stream)."""

    num_envs: int
    _k: Any
    _state: Any
    _keys: NDArray[np.uint64]
    _seeded: bool
    _obs: NDArray[np.float32]
    _mask: NDArray[np.int8]
    _policies: Mapping[int, BatchPolicy]
    """Each opponent policy's seat and policy (empty: bots only)."""

    def _args(self) -> tuple[Any, ...]:
        """The kernels' arguments between the state and the step's own (the setting)."""
        raise NotImplementedError

    def _episode_counts(self) -> tuple[NDArray[Any], int]:
        """The state's array and column that count each sub-environment's episodes of its
        key (set to 0 when a new seed gives it a new key)."""
        raise NotImplementedError

    def _check(self) -> None:
        """Raise if the kernels report a fault (after each reset and step); none by default."""

    def _waiting(self) -> NDArray[np.int64]:
        """The seat each game waits on: an opponent policy's, or -1 (the learner's turn, or a
        finished step)."""
        raise NotImplementedError

    def _views(
        self, seat: int, games: NDArray[np.int64]
    ) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """``seat``'s observations and flat masks in ``games`` (which wait on it)."""
        raise NotImplementedError

    def _play(self, games: NDArray[np.int64], actions: NDArray[np.int64]) -> None:
        """The waiting policy of each of ``games`` plays its flat action, then the game goes
        on to the next policy's turn or the learner's (finishing its step)."""
        raise NotImplementedError

    def _answers(
        self, seat: int, obs: NDArray[np.float32], mask: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        """``seat``'s policy's flat actions for ``obs`` and ``mask`` (checked; a game with
        factored actions converts them)."""
        return checked_actions(seat, self._policies[seat](obs, mask), mask)

    def _opponents_act(self) -> None:
        """While games wait on opponent policies: each policy in turn, in seat order, answers
        once for all the games then waiting on its seat, and the kernels play the answers
        (``ValueError`` for an action that is not legal: the environment must then be
        reset)."""
        while True:
            asked = False
            for seat in sorted(self._policies):
                games = np.flatnonzero(self._waiting() == seat)
                if games.size:
                    obs, mask = self._views(seat, games)
                    self._play(games, self._answers(seat, obs, mask))
                    asked = True
            if not asked:
                return
            self._check()

    def _seed(self, seed: int | Sequence[int | None] | None) -> None:
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds given for {self.num_envs} environments")
        fresh = np.random.SeedSequence().generate_state(self.num_envs, dtype=np.uint64)
        counts, column = self._episode_counts()
        for i, s in enumerate(seeds):
            if s is None and self._seeded:
                continue
            key = derive_seeds_of([s], self.seed_label)[0] if s is not None else int(fresh[i])
            self._keys[i] = np.uint64(key)
            counts[i, column] = 0
        self._seeded = True

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game in every sub-environment, the other seats playing up to the
        learner's first decision (``seed``: an int seeds sub-environment ``i`` with
        ``seed + i``, a list gives each its own; ``None`` continues each one's sequence of
        deals). ``options={"reset_mask": m}`` deals only where ``m`` is true."""
        self._seed(seed)
        which = np.ones(self.num_envs, dtype=np.bool_)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
        self._k.reset_games(self._state, which, *self._args(), self._obs, self._mask)
        self._check()
        if self._policies:
            self._opponents_act()
        out = self._out()
        return out, {"action_mask": out["action_mask"]}

    def _out(self) -> dict[str, Any]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def action_masks(self) -> NDArray[np.bool_]:
        """The current masks as booleans (the method sb3-contrib's MaskablePPO calls)."""
        return self._mask.astype(bool)

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the kernels' module (pickled mid-episode: a checkpoint, a copy)."""
        state = self.__dict__.copy()
        del state["_k"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The pickled environment, its kernels loaded again."""
        self.__dict__.update(state)
        self._k = compiled.load_kernels(self.kernels)
