"""The ``trained`` level: the policy shipped in the package, played with numpy.

Its numpy forward pass picks the actions the torch policy picks (the same weights loaded into
:class:`blink.train.policy.MaskedPolicy`); its bots load and play whole games against the
house bots without torch, every action legal in the view it was chosen from; the level takes
no strategy and the fast engine refuses it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import blink.envs
from blink.cli import app
from blink.games.classic.actions import Reveal
from blink.games.classic.bots import LEVELS, BotConfigError, BotSpec, make_bot
from blink.games.classic.bots.base import Intent
from blink.games.classic.bots.trained import PolicyBot, PolicyWeights, load_weights
from blink.games.classic.codec import WAIT, legal_in_view
from blink.games.classic.engine import ClassicGame, PlayerView
from blink.games.classic.sim.core import SimConfig, play_game, simulate_game
from blink.games.classic.sim.fast import NoKernelFormError, check_specs
from blink.games.classic.sim.runner import default_engine
from blink.train.evaluate import greedy_chooser
from blink.train.policy import MaskedPolicy

ROOT = Path(__file__).resolve().parents[4]
LEVEL = LEVELS["trained"]
HOUSE = ("beginner:first", "expert:random", "champion:first", "champion:blocker")


def torch_policy(w: PolicyWeights) -> MaskedPolicy:
    """The same weights in the torch policy ``blink train`` saves (a zero value head)."""
    policy = MaskedPolicy(w.obs_size, w.actions, w.w2.shape[0])
    state = {
        "body.0.weight": w.w1,
        "body.0.bias": w.b1,
        "body.2.weight": w.w2,
        "body.2.bias": w.b2,
        "value.weight": np.zeros((1, w.w2.shape[0]), np.float32),
        "value.bias": np.zeros(1, np.float32),
        "action_vectors.weight": w.vectors,
        "action_bias.weight": w.bias[:, None],
    }
    policy.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
    return policy.eval()


def test_the_level_names_its_shipped_policy() -> None:
    w = load_weights(LEVEL.policy)
    assert (ROOT / "src/blink/games/classic/bots" / LEVEL.policy).stat().st_size < 400_000
    assert w.info["game"] == "classic" and w.players == 2
    assert w.step_seconds == LEVEL.mean_play  # it looks at the table as often as it trained
    assert w.info["train_bot"] == "champion:first" and w.info["steps"] > 100_000
    assert (w.obs_size, w.actions) == (181, 10)
    assert not LEVEL.tournaments
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    assert '"games/classic/bots/*.npz"' in pyproject  # shipped as package data


def test_numpy_forward_picks_the_torch_policys_actions() -> None:
    """A few hundred observations of games against the champion: the greedy action of the
    numpy forward pass is the torch policy's, and the bot's own encoding of its view is the
    environment's observation."""
    w = load_weights(LEVEL.policy)
    chooser = greedy_chooser(torch_policy(w))
    blink.envs.register_gym_ids()
    env = gymnasium.make("blink/Classic-v0", bots="champion:first", step_seconds=1.0).unwrapped
    rng = np.random.default_rng(3)
    compared = moves = 0
    for episode in range(40):
        obs, _ = env.reset(seed=episode)
        bot = PolicyBot(0, w, 1.0)
        done = False
        while not done and compared < 600:
            mask = obs["action_mask"]
            assert w.greedy(obs["observation"], mask) == chooser(obs)
            view = env.game.view(env.state_, 0)
            assert bot.choose(view) is not None or not legal_in_view(view)
            mine = bot._encoder.observe(view) if bot._encoder is not None else None
            if mine is not None:
                assert np.array_equal(mine, obs["observation"])
            compared += 1
            moves += int(mask[1:].any())
            legal = np.flatnonzero(mask)
            action = int(rng.choice(legal)) if rng.random() < 0.5 else chooser(obs)
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc
    assert compared == 600 and moves > 200


class Checked:
    """A bot whose every planned action must be legal in the view it was planned from."""

    def __init__(self, bot: PolicyBot) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.actions = 0

    def plan(self, view: PlayerView, now: float) -> Intent | None:
        intent = self.bot.plan(view, now)
        if intent is not None:
            assert intent.action in legal_in_view(view), (intent, view)
            assert intent.delay >= 0
            self.actions += 1
        return intent

    def reset(self) -> None:
        self.bot.reset()


@pytest.mark.parametrize("house", HOUSE)
def test_plays_legal_actions_through_whole_games(house: str) -> None:
    for seed in range(3):
        trained = make_bot("trained", "first", 0, seed)
        assert isinstance(trained, PolicyBot)
        checked = Checked(trained)
        game = ClassicGame.new(2, 100 + seed)
        other = BotSpec.parse(house).build(1, seed)
        result = play_game(game, [checked, other], seed, config=SimConfig(check_views=True))
        assert result.outcome is not None and checked.actions > 10
        assert result.plays_by_seat[0] > 0


def test_loads_and_plays_without_torch() -> None:
    """The base install has no PyTorch (nor the environments' Gymnasium): the level's bots
    load their weights and finish games against every house level."""
    script = textwrap.dedent(
        """
        import json, sys
        for name in ("torch", "gymnasium", "pettingzoo", "blink.train", "blink.envs"):
            sys.modules[name] = None  # importing it now fails
        from blink.games.classic.bots import LEVELS, BotSpec
        from blink.games.classic.sim.core import simulate_game
        wins = {}
        for level in ("beginner", "casual", "skilled", "expert", "champion"):
            results = [
                simulate_game([BotSpec.parse("trained"), BotSpec(level)], seed)
                for seed in range(4)
            ]
            wins[level] = sum(r.outcome.winners == (0,) for r in results)
        assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
        print(json.dumps(wins))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=300
    )
    assert out.returncode == 0, out.stderr
    wins = json.loads(out.stdout)
    assert set(wins) == {"beginner", "casual", "skilled", "expert", "champion"}
    assert wins["beginner"] == 4  # it beats the slowest level every time


def test_the_level_takes_no_strategy_and_names_itself_alone() -> None:
    assert str(BotSpec.parse("trained")) == "trained"
    assert BotSpec.parse("Trained@2").display_name == "Trained bot ×2"
    with pytest.raises(BotConfigError, match="takes no strategy") as info:
        BotSpec.parse("trained:blocker")
    assert info.value.field == "strategy" and info.value.allowed == ("first",)
    # Faster: its clock ticks twice as often.
    fast = BotSpec.parse("trained@2").build(1, 0)
    assert isinstance(fast, PolicyBot) and fast.step == 0.5


def test_the_fast_engine_refuses_it_and_the_exact_engine_plays_it() -> None:
    specs = (BotSpec.parse("trained"), BotSpec.parse("champion"))
    with pytest.raises(NoKernelFormError, match="'trained' level"):
        check_specs(specs)
    assert default_engine(specs) == "exact"
    result = simulate_game(specs, 5)
    assert result.outcome is not None


def test_waits_only_when_nothing_is_legal() -> None:
    w = load_weights(LEVEL.policy)
    game = ClassicGame.new(2, 7)
    result = play_game(game, [PolicyBot(0, w, 1.0), PolicyBot(1, w, 1.0)], 7)
    assert result.outcome is not None  # two policies finish a game: neither waits for ever
    # A view with a legal play: the policy's wait is not among the bot's choices.
    for seed in range(30):
        game = ClassicGame.new(2, seed)
        game.apply(Reveal())
        view = game.view(0)
        if legal_in_view(view):
            assert PolicyBot(0, w, 1.0).choose(view) in legal_in_view(view)
    assert WAIT == 0


def test_its_clock_ticks_once_a_step() -> None:
    """A change seen between ticks is answered at the next tick; its own play a tick later."""
    w = load_weights(LEVEL.policy)
    for seed in range(30):
        game = ClassicGame.new(2, seed)
        game.apply(Reveal())
        view = game.view(0)
        if not legal_in_view(view):
            continue
        first = PolicyBot(0, w, 1.0).plan(view, 0.0)
        assert first is not None and first.delay == 0.0  # the reveal is on a tick
        bot = PolicyBot(0, w, 1.0)
        later = bot.plan(view, 2.25)
        assert later is not None and later.delay == pytest.approx(0.75)
        assert bot.plan(view, 2.5) == (later.action, pytest.approx(0.5))  # same view, same due
        game.apply(later.action, 3000)  # played on its tick, at 3 s
        after = bot.plan(game.view(0), 3.0)
        assert after is None or after.delay == pytest.approx(1.0)
        return
    raise AssertionError("no deal with a play at the reveal")


def test_a_table_it_was_not_trained_for_is_refused() -> None:
    spec = BotSpec.parse("trained")
    spec.check_players(2)
    with pytest.raises(BotConfigError, match="2-player games only, not 3") as info:
        spec.check_players(3)
    assert info.value.field == "players" and info.value.allowed == ("2",)
    BotSpec.parse("champion").check_players(3)  # the reaction-time levels play any table
    result = CliRunner().invoke(app, ["simulate", "-n", "2", "-b", "trained", "-p", "3"])
    assert result.exit_code == 2 and "2-player games only" in result.output, result.output
    # A bot made for such a table anyway says so when it first looks.
    game = ClassicGame.new(3, 1)
    game.apply(Reveal())
    with pytest.raises(BotConfigError, match="not 3 players"):
        make_bot("trained", "first", 0, 1).plan(game.view(0), 0.0)
