"""What every game's vector environment on compiled kernels shares (:class:`CompiledVector`):
each sub-environment's seed, a reset of some or all of them, the copies handed to the
learner, the masks as booleans, and pickling without the kernels' module.

A game's vector environment (``blink.games.<game>.envs.vector``) subclasses it, builds its
own spaces and state, and says which compiled module its kernels are in, how its kernels'
arguments are laid out (:meth:`CompiledVector._args`) and where its state counts each
sub-environment's episodes (:meth:`CompiledVector._episode_counts`). Auto-reset is
Gymnasium's ``AutoresetMode.NEXT_STEP``, done by the kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from numpy.typing import NDArray

from blink.sim import compiled
from blink.sim.seeds import derive_seeds_of

__all__ = ["CompiledVector"]


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

    def _args(self) -> tuple[Any, ...]:
        """The kernels' arguments between the state and the step's own (the setting)."""
        raise NotImplementedError

    def _episode_counts(self) -> tuple[NDArray[Any], int]:
        """The state's array and column that count each sub-environment's episodes of its
        key (set to 0 when a new seed gives it a new key)."""
        raise NotImplementedError

    def _check(self) -> None:
        """Raise if the kernels report a fault (after each reset and step); none by default."""

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
