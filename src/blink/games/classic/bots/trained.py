"""The bots of the ``trained`` level: a policy trained with ``blink train``, played with numpy.

The policy's weights ship in this package (the file the level names, its ``policy``:
written from a saved policy by ``scripts/export_policy.py``). A :class:`PolicyBot` encodes
its view exactly as the environments do (:class:`~blink.games.classic.codec.ClassicCodec`),
masks the actions its view allows (:func:`~blink.games.classic.codec.legal_in_view`) and
plays the most likely one: the forward pass of :class:`blink.train.policy.MaskedPolicy` (two
tanh layers, then one vector and bias per action), without PyTorch. It looks at the table on
a clock of ``step`` seconds, as the agent did in training (``step_seconds``: it acts at the
start of each step): a change seen at time ``t`` is answered at the next tick after ``t``,
its own play one tick after it was made. See docs/bots.md and docs/strategy.md (its
strength against the house bots).
"""

from __future__ import annotations

import functools
import io
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from blink.games.classic.bots.base import BotConfigError, Intent
from blink.games.classic.codec import WAIT, ClassicCodec, ClassicEncoder, legal_in_view
from blink.games.classic.engine import Choose, Play, PlayerView
from blink.games.classic.view import reach

__all__ = ["PolicyBot", "PolicyWeights", "load_weights"]

_ARRAYS = ("w1", "b1", "w2", "b2", "vectors", "bias")


@dataclass(frozen=True, eq=False)
class PolicyWeights:
    """A masked policy's weights as numpy arrays (float32), and what it was trained for.

    ``w1`` (hidden, obs_size) and ``b1``, ``w2`` (hidden, hidden) and ``b2``: the two tanh
    layers; ``vectors`` (actions, hidden) and ``bias`` (actions): each action's vector and
    bias, whose logit is the vector's dot product with the features plus the bias. ``info``:
    the saved policy's description (``blink train``'s ``PATH.json``).
    """

    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]
    vectors: NDArray[np.float32]
    bias: NDArray[np.float32]
    info: dict[str, Any]

    @property
    def obs_size(self) -> int:
        """The length of the observation array the policy reads."""
        return int(self.w1.shape[1])

    @property
    def actions(self) -> int:
        """The number of actions of the policy's action space."""
        return int(self.vectors.shape[0])

    @property
    def players(self) -> int:
        """The number of players of the games it was trained on."""
        return int(self.info["env_options"].get("players", 2))

    @property
    def step_seconds(self) -> float:
        """How often the agent acted in training (virtual seconds)."""
        return float(self.info["env_options"]["step_seconds"])

    def features(self, obs: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's features of one observation (``hidden`` numbers)."""
        h = np.tanh(self.w1 @ obs + self.b1)
        out: NDArray[np.float32] = np.tanh(self.w2 @ h + self.b2)
        return out

    def greedy(self, obs: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        """The most likely action of those ``mask`` allows (the first of equals, as torch's
        ``argmax``)."""
        legal = np.flatnonzero(mask)
        logits = self.vectors[legal] @ self.features(obs) + self.bias[legal]
        return int(legal[int(np.argmax(logits))])


@functools.cache
def load_weights(name: str) -> PolicyWeights:
    """The policy in this package's file ``name`` (read once, then shared)."""
    data = (resources.files("blink.games.classic.bots") / name).read_bytes()
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {k: np.ascontiguousarray(npz[k], dtype=np.float32) for k in _ARRAYS}
        info = json.loads(str(npz["info"]))
    return PolicyWeights(**arrays, info=info)


class PolicyBot:
    """A bot for ``seat`` that plays ``weights``' most likely legal action, on a clock of
    ``step`` seconds (see the module's docstring). Deterministic: it draws nothing (``seed``
    is kept for the driver's record only)."""

    def __init__(self, seat: int, weights: PolicyWeights, step: float, seed: int = 0) -> None:
        self.seat = seat
        self.weights = weights
        self.step = step
        self.seed = seed
        self._codec: ClassicCodec | None = None
        self._encoder: ClassicEncoder | None = None
        self._view: PlayerView | None = None
        self._action: Play | Choose | None = None
        self._due = -math.inf

    def __repr__(self) -> str:
        return f"PolicyBot(seat={self.seat}, step={self.step:g})"

    def reset(self) -> None:
        """Forget the last decision (for example after an action was refused)."""
        self._view = None
        self._action = None

    def choose(self, view: PlayerView) -> Play | Choose | None:
        """The policy's most likely action in ``view`` (``None``: it waits). Waiting is
        among its choices only when nothing else is legal: the policy answers the same view the
        same way, so a wait with a move at hand would last until another seat acts, for ever
        if none can (the environments end such a game by their idle rule; a table does not)."""
        codec = self._codec_for(view)
        if self._encoder is None:
            self._encoder = codec.encoder(self.seat)
        obs = self._encoder.observe(view)
        legal = legal_in_view(view)
        mask = codec.mask(legal, view)
        if legal:  # it never waits when it can act: a view does not change by waiting
            mask = mask.copy()
            mask[WAIT] = 0
        index = self.weights.greedy(obs, mask)
        if index == WAIT:
            return None
        move = codec.action(index, view)
        return move if isinstance(move, Play | Choose) else None

    def plan(self, view: PlayerView, now: float | None = None) -> Intent | None:
        """The policy's action in ``view`` seen at ``now`` and its delay: until the next tick
        of the bot's clock (one step without ``now``)."""
        if view.outcome is not None:
            return None
        if view != self._view:
            # Its own play made now: the next look is a tick later (a change by another seat
            # exactly on a tick, which has probability zero, is taken for one too).
            acted = self._action is not None and now is not None and abs(now - self._due) < 1e-9
            self._view = view
            self._action = self.choose(view)
            if now is None:
                self._due = self.step
            else:
                tick = self.step * math.ceil(now / self.step - 1e-9)
                self._due = tick + self.step if acted else tick
        if self._action is None:
            return None
        if now is None:
            return Intent(self._action, self.step)
        return Intent(self._action, max(0.0, self._due - now))

    def _codec_for(self, view: PlayerView) -> ClassicCodec:
        if self._codec is None:
            players, hand = view.players, view.ruleset.hand_size
            codec = ClassicCodec(players, hand, [reach(players, s) for s in range(players)])
            if (codec.size, codec.actions) != (self.weights.obs_size, self.weights.actions):
                raise BotConfigError(
                    f"the trained bot plays {self.weights.players}-player games of the hand "
                    f"size it was trained on, not {players} players with hands of {hand}",
                    "level",
                )
            self._codec = codec
        return self._codec
