"""A saved ``blink train`` policy as an opponent in a game's environment: it plays its most
likely legal action from its seat's observation (the environments' ``opponents`` option)."""

from __future__ import annotations

import os
from pathlib import Path

from blink.train.evaluate import Chooser, greedy_chooser
from blink.train.policy import MaskedPolicy, load_policy

__all__ = ["policy_opponent"]


def policy_opponent(source: object, game: str, obs_size: int, actions: int) -> Chooser:
    """The policy saved at ``source`` (a path) or ``source`` itself (a loaded
    :class:`MaskedPolicy`) as an opponent of ``game``'s environment, whose observation arrays
    have ``obs_size`` numbers and which has ``actions`` actions: ``ValueError`` (one sentence)
    when it cannot be loaded or was trained for another game or other sizes."""
    if isinstance(source, MaskedPolicy):
        policy = source
    elif isinstance(source, str | os.PathLike):
        policy, info = load_policy(Path(source))
        if info.game != game:
            raise ValueError(f"the policy was trained for {info.game}, not {game}")
    else:
        raise ValueError(f"{source!r} is not a blink train policy")
    first = policy.body[0]
    inputs = first.in_features if hasattr(first, "in_features") else -1
    outputs = policy.action_vectors.num_embeddings
    if (inputs, outputs) != (obs_size, actions):
        raise ValueError(
            f"the policy reads {inputs} numbers and has {outputs} actions, but this "
            f"environment's seats see {obs_size} numbers and have {actions} actions"
        )
    policy.eval()
    return greedy_chooser(policy)
