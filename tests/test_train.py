"""Training a policy (blink.train, blink train): a few hundred steps for each game, a policy
written and read back, evaluation games against the bots, the same seed the same policy, and
the command's errors. Fixed step counts only: nothing here depends on the machine's speed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from blink.cli import app
from blink.train.evaluate import evaluate, greedy_chooser, random_chooser, wilson
from blink.train.policy import info_path, load_policy, save_policy
from blink.train.ppo import PPOConfig, TrainResult, train
from blink.train.setup import SETUPS, TrainError, get_setup

SMALL = PPOConfig(envs=2, rollout=64, epochs=2, minibatch=64, hidden=32)


def _train(game: str, seed: int, steps: int = 256) -> TrainResult:
    return train(get_setup(game), steps=steps, seed=seed, config=SMALL)


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_train_save_load_evaluate(game: str, tmp_path: Path) -> None:
    result = _train(game, seed=3)
    assert result.info.steps == 256 and result.info.updates == 2
    path = tmp_path / "policy.pt"
    save_policy(path, result.policy, result.info)
    assert path.stat().st_size > 0
    description = json.loads(info_path(path).read_text())
    assert description["game"] == game and description["steps"] == 256
    assert description["hyperparameters"]["rollout"] == 64
    policy, info = load_policy(path)
    assert info == result.info
    assert _same_weights(policy, result.policy)
    for bot in get_setup(game).eval_bots:
        found = evaluate(info, greedy_chooser(policy), bot, 3, seed=5)
        assert found.games == 3 and 0 <= found.wins + found.ties <= 3
        again = evaluate(info, greedy_chooser(policy), bot, 3, seed=5)
        assert again == found


def test_same_seed_same_policy() -> None:
    first, again, other = _train("goblink", 7), _train("goblink", 7), _train("goblink", 8)
    assert _same_weights(first.policy, again.policy)
    assert not _same_weights(first.policy, other.policy)


def test_classic_policy_learns_not_to_wait() -> None:
    """At one step a second the champion outpaces an agent that waits at random: after 16
    updates the policy wins most games where a uniformly random one wins almost none."""
    result = _train("classic", seed=1, steps=16 * 128)
    policy = evaluate(result.info, greedy_chooser(result.policy), "champion:first", 30, seed=9)
    baseline = evaluate(result.info, random_chooser(2), "champion:first", 30, seed=9)
    assert baseline.wins <= 5 < 20 <= policy.wins


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_load_refuses_what_is_not_a_policy(tmp_path: Path) -> None:
    with pytest.raises(TrainError) as missing:
        load_policy(tmp_path / "none.pt")
    assert missing.value.code == "no_policy"
    (tmp_path / "bad.pt").write_bytes(b"not torch")
    (tmp_path / "bad.pt.json").write_text("{}")
    with pytest.raises(TrainError) as bad:
        load_policy(tmp_path / "bad.pt")
    assert bad.value.code == "bad_policy"


def test_blink_train_command(tmp_path: Path) -> None:
    out = tmp_path / "p.pt"
    args = ["train", "--game", "goblink", "--steps", "100", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--eval-games", "2", "--eval-bot", "greedy"])
    assert result.exit_code == 0, result.output
    assert out.is_file() and info_path(out).is_file()
    assert "policy against greedy: won" in result.output
    again = CliRunner().invoke(app, [*args, "--eval-only", "--eval-games", "2", "--baseline"])
    assert again.exit_code == 0, again.output
    assert "random policy against random: won" in again.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game", "chess"], "no game 'chess'"),
        (["--steps", "0"], "--steps must be at least 1"),
        (["--bot", "nobody", "--steps", "1"], "unknown Go Blink bot 'nobody'"),
        (["--eval-bot", "nobody", "--steps", "1"], "unknown Go Blink bot 'nobody'"),
        (["--eval-only", "--out", "missing.pt"], "no policy at missing.pt"),
    ],
)
def test_blink_train_errors(args: list[str], says: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train", "--game", "goblink", *args])
    assert result.exit_code == 2
    assert says in result.output and "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


def test_an_unwritable_out_is_refused_before_training(tmp_path: Path) -> None:
    """A folder, or a path under a file, is refused at once: with a billion steps asked, the
    command would not return if it trained first."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    missing = tmp_path / "no" / "such"
    for out, says in [
        (tmp_path, "is a folder"),
        (blocker / "p.pt", "file"),
        (missing / "p.pt", f"there is no folder {missing}"),
    ]:
        args = ["train", "--game", "goblink", "--steps", "1000000000", "--out", str(out)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert says in result.output and "Traceback" not in result.output
        assert "saved" not in result.output
    assert not missing.exists()  # a missing folder is refused, as everywhere, not made


_FULL_DISK_SAVE = """
import resource, signal, sys
from pathlib import Path
from blink.train.policy import load_policy, save_policy
policy, info = load_policy(Path(sys.argv[1]))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))
try:
    save_policy(Path(sys.argv[1]), policy, info)
except OSError as exc:
    print("refused:", exc.errno)
"""


def test_a_failed_save_leaves_the_saved_policy_whole(tmp_path: Path) -> None:
    """A write that the system refuses part way (a file size limit, as a full disk would)
    leaves the policy saved before exactly as it was, and no partial file beside it."""
    import subprocess
    import sys

    out = tmp_path / "p.pt"
    result = _train("goblink", seed=3, steps=64)
    save_policy(out, result.policy, result.info)
    before = out.read_bytes(), info_path(out).read_bytes()
    ran = subprocess.run(
        [sys.executable, "-c", _FULL_DISK_SAVE, str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert "refused: 27" in ran.stdout, ran.stdout + ran.stderr  # EFBIG
    assert (out.read_bytes(), info_path(out).read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pt", "p.pt.json"]
    load_policy(out)
