"""The policy: a small network over an environment's observation array whose logits are
computed for the legal actions only (the environment's ``action_mask``), and its files.

Each action has a learned vector and bias; an action's logit is its vector's dot product with
the network's features of the observation. Only the legal actions' rows are looked up, so Go
Blink's 31,719 actions (a handful legal at a time) cost no more than classic's ten.

A saved policy is two files: ``PATH`` (the torch state dict) and ``PATH.json``
(:class:`PolicyInfo`: the game, the sizes, the hyperparameters and the steps trained).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from blink.files import write_atomic
from blink.train.setup import TrainError

__all__ = ["MaskedPolicy", "PolicyInfo", "info_path", "legal_batch", "load_policy", "save_policy"]

FORMAT = 1
"""The version of the JSON description written beside a state dict."""


class PolicyInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What a saved policy is: for which game and environment, of which sizes, trained how."""

    format: int = FORMAT
    game: str
    obs_size: int
    actions: int
    hidden: int
    train_bot: str
    env_options: dict[str, Any]
    hyperparameters: dict[str, Any]
    steps: int
    updates: int
    seed: int
    seconds: float


class MaskedPolicy(nn.Module):
    """Features of the observation (two tanh layers), a value head, and one vector and bias per
    action whose dot product with the features is the action's logit."""

    def __init__(self, obs_size: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.value = nn.Linear(hidden, 1)
        # Sparse: an update touches the rows of the actions in its batch only (SparseAdam),
        # not all of Go Blink's 31,719.
        self.action_vectors = nn.Embedding(actions, hidden, sparse=True)
        self.action_bias = nn.Embedding(actions, 1, sparse=True)
        nn.init.normal_(self.action_vectors.weight, std=0.01)
        nn.init.zeros_(self.action_bias.weight)

    def forward(
        self, obs: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits of the legal actions ``legal`` (B, L; padding where ``valid`` is false,
        whose logits are -inf) and the values (B) of the observations ``obs`` (B, n)."""
        features = self.body(obs)
        vectors = self.action_vectors(legal)
        logits = (vectors * features[:, None, :]).sum(-1) + self.action_bias(legal)[..., 0]
        logits = logits.masked_fill(~valid, float("-inf"))
        return logits, self.value(features)[:, 0]

    def dense_parameters(self) -> list[nn.Parameter]:
        """The parameters with dense gradients (all but the action table)."""
        return [*self.body.parameters(), *self.value.parameters()]

    def sparse_parameters(self) -> list[nn.Parameter]:
        """The action table's parameters, whose gradients are sparse."""
        return [*self.action_vectors.parameters(), *self.action_bias.parameters()]


def legal_batch(masks: list[NDArray[np.int64]]) -> tuple[torch.Tensor, torch.Tensor]:
    """The legal action indices of each row (from ``np.flatnonzero`` of a mask), padded to
    the longest with action 0, and which entries are real."""
    width = max(len(m) for m in masks)
    legal = np.zeros((len(masks), width), dtype=np.int64)
    valid = np.zeros((len(masks), width), dtype=bool)
    for row, m in enumerate(masks):
        legal[row, : len(m)] = m
        valid[row, : len(m)] = True
    return torch.from_numpy(legal), torch.from_numpy(valid)


def info_path(path: Path) -> Path:
    """The JSON description beside the state dict at ``path``."""
    return path.with_name(path.name + ".json")


def save_policy(path: Path, policy: MaskedPolicy, info: PolicyInfo) -> None:
    """Write the state dict to ``path`` and the description to ``PATH.json``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Each file is written beside its place and moved there whole (blink.files.write_atomic):
    # a full disk or a crash leaves the policy saved before (if any), never half a file.
    buffer = io.BytesIO()  # in memory first: a failed write is then an OSError
    torch.save(policy.state_dict(), buffer)
    write_atomic(path, buffer.getvalue())
    write_atomic(info_path(path), msgspec.json.format(msgspec.json.encode(info)) + b"\n")


def load_policy(path: Path) -> tuple[MaskedPolicy, PolicyInfo]:
    """The policy saved at ``path`` and its description, or :class:`TrainError` saying what
    is missing or wrong."""
    meta = info_path(path)
    if not path.is_file() or not meta.is_file():
        raise TrainError("no_policy", f"no policy at {path} (it needs {path.name} and {meta.name})")
    try:
        info = msgspec.json.decode(meta.read_bytes(), type=PolicyInfo)
    except msgspec.DecodeError as exc:
        raise TrainError("bad_policy", f"{meta} is not a policy's description: {exc}") from exc
    if info.format > FORMAT:
        raise TrainError(
            "newer_policy", f"{meta} is format {info.format}; this blink reads {FORMAT} and older"
        )
    policy = MaskedPolicy(info.obs_size, info.actions, info.hidden)
    try:
        policy.load_state_dict(torch.load(path, weights_only=True))
    except (RuntimeError, OSError, ValueError) as exc:
        raise TrainError("bad_policy", f"{path} does not hold this policy's weights") from exc
    policy.eval()
    return policy, info
