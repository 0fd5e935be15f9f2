"""Proximal policy optimisation (PPO, clipped) of a :class:`~blink.train.policy.MaskedPolicy`
on a game's single-seat environment against a bot.

A few environments run in lockstep (one batched forward pass per step); after each rollout of
``rollout`` steps in every environment, advantages are estimated by GAE and the policy is
updated for ``epochs`` passes over shuffled minibatches. Everything random is seeded from the
run's seed: torch, the minibatch order, and each environment's first ``reset`` (the later
resets go on from it), so the same seed and the same step count give the same policy.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from blink.envs.single import Observation, SingleSeat
from blink.train.policy import MaskedPolicy, PolicyInfo, legal_batch
from blink.train.setup import GameSetup, TrainError, make_env, sizes

__all__ = ["PPOConfig", "TrainProgress", "TrainResult", "train"]


@dataclass(frozen=True)
class PPOConfig:
    """The hyperparameters of a run."""

    envs: int = 8
    rollout: int = 128
    epochs: int = 4
    minibatch: int = 256
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128


@dataclass(frozen=True)
class TrainProgress:
    """Where a run is after an update: steps taken, episodes finished, and the share of the
    last 100 episodes the agent won."""

    steps: int
    updates: int
    episodes: int
    recent_wins: float


@dataclass(frozen=True)
class TrainResult:
    """A trained policy and its description."""

    policy: MaskedPolicy
    info: PolicyInfo


@dataclass
class _Rollout:
    obs: NDArray[np.float32]
    legal: list[NDArray[np.int64]]
    choice: NDArray[np.int64]
    logp: NDArray[np.float32]
    value: NDArray[np.float32]
    reward: NDArray[np.float32]
    done: NDArray[np.float32]


def masked_log_probs(
    logits: torch.Tensor, valid: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The log-probabilities over the legal actions (-inf at padding) and the entropy."""
    logp = torch.log_softmax(logits, dim=-1)
    entropy = -(logp.exp() * logp.masked_fill(~valid, 0.0)).sum(-1)
    return logp, entropy


class _Runner:
    """The environments in lockstep, their current observations and the finished episodes."""

    def __init__(self, setup: GameSetup, bot: str, count: int, seed: int) -> None:
        self.envs: list[SingleSeat] = [make_env(setup, bot) for _ in range(count)]
        self.current: list[Observation] = [
            env.reset(seed=seed * 1_000 + i)[0] for i, env in enumerate(self.envs)
        ]
        self.episodes = 0
        self.recent: deque[float] = deque(maxlen=100)

    def collect(self, policy: MaskedPolicy, steps: int) -> tuple[_Rollout, NDArray[np.float32]]:
        """``steps`` steps in every environment, and the values of the observations after."""
        n, size = len(self.envs), sizes(self.envs[0])[0]
        out = _Rollout(
            obs=np.zeros((steps, n, size), np.float32),
            legal=[],
            choice=np.zeros((steps, n), np.int64),
            logp=np.zeros((steps, n), np.float32),
            value=np.zeros((steps, n), np.float32),
            reward=np.zeros((steps, n), np.float32),
            done=np.zeros((steps, n), np.float32),
        )
        for t in range(steps):
            obs = np.stack([o["observation"] for o in self.current])
            masks = [np.flatnonzero(o["action_mask"]) for o in self.current]
            legal, valid = legal_batch(masks)
            with torch.no_grad():
                logits, value = policy(torch.from_numpy(obs), legal, valid)
                logp, _ = masked_log_probs(logits, valid)
                choice = torch.multinomial(logp.exp(), 1)[:, 0]
            out.obs[t], out.value[t] = obs, value.numpy()
            out.choice[t] = choice.numpy()
            out.logp[t] = logp.gather(1, choice[:, None])[:, 0].numpy()
            out.legal.extend(masks)
            for i, env in enumerate(self.envs):
                action = int(masks[i][out.choice[t, i]])
                self.current[i], reward, over, truncated, _ = env.step(np.int64(action))
                out.reward[t, i] = float(reward)
                if over or truncated:
                    out.done[t, i] = 1.0
                    self.episodes += 1
                    self.recent.append(1.0 if float(reward) > 0 else 0.0)
                    self.current[i], _ = env.reset()
        with torch.no_grad():
            obs = np.stack([o["observation"] for o in self.current])
            legal, valid = legal_batch([np.flatnonzero(o["action_mask"]) for o in self.current])
            last = policy(torch.from_numpy(obs), legal, valid)[1].numpy()
        return out, last


def advantages(
    roll: _Rollout, last: NDArray[np.float32], gamma: float, lam: float
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Generalised advantage estimates and the returns (advantage + value) of a rollout; an
    episode's end (or truncation) is not bootstrapped."""
    adv = np.zeros_like(roll.reward)
    running = np.zeros_like(last)
    next_value = last
    for t in range(len(roll.reward) - 1, -1, -1):
        keep = 1.0 - roll.done[t]
        delta = roll.reward[t] + gamma * next_value * keep - roll.value[t]
        running = delta + gamma * lam * keep * running
        adv[t] = running
        next_value = roll.value[t]
    return adv, adv + roll.value


def _update(
    policy: MaskedPolicy,
    optimisers: tuple[torch.optim.Optimizer, torch.optim.Optimizer],
    roll: _Rollout,
    last: NDArray[np.float32],
    config: PPOConfig,
    order: np.random.Generator,
) -> None:
    adv, returns = advantages(roll, last, config.gamma, config.gae_lambda)
    size = roll.obs.shape[0] * roll.obs.shape[1]
    obs = torch.from_numpy(roll.obs.reshape(size, -1))
    choice = torch.from_numpy(roll.choice.reshape(size))
    old_logp = torch.from_numpy(roll.logp.reshape(size))
    adv_t = torch.from_numpy(adv.reshape(size))
    returns_t = torch.from_numpy(returns.reshape(size))
    for _ in range(config.epochs):
        shuffled = order.permutation(size)
        for start in range(0, size, config.minibatch):
            rows = shuffled[start : start + config.minibatch]
            index = torch.from_numpy(rows)
            legal, valid = legal_batch([roll.legal[r] for r in rows])
            logits, value = policy(obs[index], legal, valid)
            logp, entropy = masked_log_probs(logits, valid)
            new_logp = logp.gather(1, choice[index][:, None])[:, 0]
            a = adv_t[index]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(rows) > 1 else a
            ratio = (new_logp - old_logp[index]).exp()
            clipped = ratio.clamp(1.0 - config.clip, 1.0 + config.clip)
            policy_loss = -torch.min(ratio * a, clipped * a).mean()
            value_loss = (value - returns_t[index]).pow(2).mean()
            loss = policy_loss + config.value_coef * value_loss - config.entropy * entropy.mean()
            for optimiser in optimisers:
                optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.dense_parameters(), config.max_grad_norm)
            for optimiser in optimisers:
                optimiser.step()


def train(
    setup: GameSetup,
    *,
    steps: int,
    seed: int,
    config: PPOConfig | None = None,
    bot: str | None = None,
    minutes: float | None = None,
    threads: int = 1,
    clock: Callable[[], float] = time.monotonic,
    on_update: Callable[[TrainProgress], None] | None = None,
) -> TrainResult:
    """Train a policy for ``setup``'s game against ``bot`` (the setup's own by default) for
    ``steps`` environment steps (rounded up to whole rollouts), or until ``minutes`` have
    passed on ``clock`` if that comes first; ``on_update`` is told after each update."""
    config = config or PPOConfig()
    if steps < 1:
        raise TrainError("bad_steps", f"train for at least one step, not {steps}")
    if minutes is not None and not minutes > 0:
        raise TrainError("bad_minutes", f"train for a positive time, not {minutes} minutes")
    bot = bot or setup.train_bot
    # One thread: the batches are small, and two threads on two busy cores ran ten times slower.
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    order = np.random.default_rng(seed)
    runner = _Runner(setup, bot, config.envs, seed)
    obs_size, actions = sizes(runner.envs[0])
    policy = MaskedPolicy(obs_size, actions, config.hidden)
    optimisers = (
        torch.optim.Adam(policy.dense_parameters(), lr=config.learning_rate),
        torch.optim.SparseAdam(policy.sparse_parameters(), lr=config.learning_rate),
    )
    start, done, updates = clock(), 0, 0
    while done < steps:
        roll, last = runner.collect(policy, config.rollout)
        _update(policy, optimisers, roll, last, config, order)
        done += config.rollout * config.envs
        updates += 1
        if on_update is not None:
            recent = sum(runner.recent) / len(runner.recent) if runner.recent else 0.0
            on_update(TrainProgress(done, updates, runner.episodes, recent))
        if minutes is not None and clock() - start >= minutes * 60:
            break
    policy.eval()
    info = PolicyInfo(
        game=setup.game,
        obs_size=obs_size,
        actions=actions,
        hidden=config.hidden,
        train_bot=bot,
        env_options=dict(setup.env_options),
        hyperparameters=asdict(config),
        steps=done,
        updates=updates,
        seed=seed,
        seconds=round(clock() - start, 3),
    )
    return TrainResult(policy, info)
