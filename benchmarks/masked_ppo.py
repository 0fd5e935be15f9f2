"""A small masked PPO in the manner of sb3-contrib's MaskablePPO, for a ``Discrete`` or a
``MultiDiscrete`` action space (sb3-contrib is not a dependency of blink).

As MaskablePPO's default ``MlpPolicy``: separate policy and value networks of two tanh layers
of 64, an action head that computes **every** logit (one linear layer to ``sum(nvec)``
outputs), each part a categorical whose masked entries get a logit of -1e8, one
environment, rollouts of ``n_steps``, GAE (0.99, 0.95), ``epochs`` passes of minibatches of
``batch``, the clipped objective (0.2), Adam at 3e-4, one torch thread. Used by
benchmarks/bench_factored_actions.py and tests/envs/test_factored_training.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn


class MaskedActorCritic(nn.Module):
    """The policy and value networks; ``nvec`` the size of each part of the action."""

    index: torch.Tensor

    def __init__(self, obs_size: int, nvec: list[int], hidden: int = 64) -> None:
        super().__init__()
        self.nvec = nvec
        self.pi = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.vf = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.head = nn.Linear(hidden, sum(nvec))
        self.value = nn.Linear(hidden, 1)

        width = max(nvec)
        # Each part's logits placed in a row of ``width`` (the rest padding): every part's
        # softmax in one call, where MaskablePPO makes one distribution object per part.
        index = [p * width + i for p, n in enumerate(nvec) for i in range(n)]
        self.register_buffer("index", torch.as_tensor(index))
        self.width = width

    def dists(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Each part's masked log-probabilities, ``[batch, parts, width]``, and the value."""
        logits = self.head(self.pi(obs))
        logits = torch.where(mask, logits, torch.full_like(logits, -1e8))
        padded = torch.full((obs.shape[0], len(self.nvec) * self.width), -1e9, dtype=logits.dtype)
        padded[:, self.index] = logits
        logp = torch.log_softmax(padded.view(obs.shape[0], len(self.nvec), self.width), -1)
        return logp, self.value(self.vf(obs)).squeeze(-1)


def _act(
    model: MaskedActorCritic, obs: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, float, float]:
    with torch.no_grad():
        logp, value = model.dists(torch.as_tensor(obs)[None], torch.as_tensor(mask)[None])
        parts = torch.multinomial(logp[0].exp(), 1)  # one entry per part
        chosen = logp[0].gather(1, parts).sum()
    return parts[:, 0].numpy(), float(chosen), float(value)


def _log_prob(logp: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The log-probability of each row's action, and each row's entropy."""
    chosen = logp.gather(2, actions[:, :, None]).squeeze(2).sum(1)
    entropy = -(logp.exp() * logp).sum((1, 2))
    return chosen, entropy


def learn(
    env: Any,
    steps: int,
    *,
    seed: int = 0,
    n_steps: int = 256,
    batch: int = 64,
    epochs: int = 10,
    on_step: Any = None,
) -> MaskedActorCritic:
    """Train a policy on ``env`` (observations ``{"observation", "action_mask"}``) for
    ``steps`` steps; ``on_step(obs, action, info)`` is called after each step."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    space = env.action_space
    flat = not hasattr(space, "nvec")
    nvec = [int(space.n)] if flat else [int(n) for n in space.nvec]
    obs, _ = env.reset(seed=seed)
    model = MaskedActorCritic(obs["observation"].shape[0], nvec)
    optim = torch.optim.Adam(model.parameters(), lr=3e-4)
    rng = np.random.default_rng(seed)
    done = 0
    while done < steps:
        rows: list[tuple[Any, ...]] = []
        for _ in range(n_steps):
            mask = obs["action_mask"].astype(bool)
            action, logp, value = _act(model, obs["observation"], mask)
            before = obs
            obs, reward, terminated, truncated, info = env.step(action[0] if flat else action)
            if on_step is not None:
                on_step(before, action, info)
            rows.append((before["observation"], mask, action, logp, value, reward, terminated))
            if terminated or truncated:
                obs, _ = env.reset()
        done += n_steps
        _update(model, optim, rows, obs, rng, batch, epochs)
    return model


def _update(
    model: MaskedActorCritic,
    optim: torch.optim.Optimizer,
    rows: list[tuple[Any, ...]],
    last: Any,
    rng: np.random.Generator,
    batch: int,
    epochs: int,
) -> None:
    obs = torch.as_tensor(np.stack([r[0] for r in rows]))
    masks = torch.as_tensor(np.stack([r[1] for r in rows]))
    actions = torch.as_tensor(np.stack([r[2] for r in rows]))
    old_logp = torch.as_tensor([r[3] for r in rows], dtype=torch.float32)
    values = np.array([r[4] for r in rows], dtype=np.float32)
    rewards = np.array([r[5] for r in rows], dtype=np.float32)
    ends = np.array([r[6] for r in rows], dtype=np.float32)
    with torch.no_grad():
        _d, next_value = model.dists(
            torch.as_tensor(last["observation"])[None],
            torch.as_tensor(last["action_mask"].astype(bool))[None],
        )
    adv = np.zeros_like(rewards)
    gae, nxt = 0.0, float(next_value)
    for t in range(len(rows) - 1, -1, -1):
        delta = rewards[t] + 0.99 * nxt * (1 - ends[t]) - values[t]
        gae = delta + 0.99 * 0.95 * (1 - ends[t]) * gae
        adv[t], nxt = gae, values[t]
    returns = torch.as_tensor(adv + values)
    advantages = torch.as_tensor(adv)
    for _ in range(epochs):
        order = rng.permutation(len(rows))
        for start in range(0, len(rows), batch):
            idx = torch.as_tensor(order[start : start + batch])
            all_logp, value = model.dists(obs[idx], masks[idx])
            logp, entropy = _log_prob(all_logp, actions[idx])
            a = advantages[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            ratio = torch.exp(logp - old_logp[idx])
            loss = -torch.min(ratio * a, torch.clamp(ratio, 0.8, 1.2) * a).mean()
            loss = loss + 0.5 * ((returns[idx] - value) ** 2).mean() - 0.0 * entropy.mean()
            optim.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optim.step()
