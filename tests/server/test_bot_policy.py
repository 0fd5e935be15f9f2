"""``blink bot play --policy FILE`` against a real server on a free port: a saved ``blink
train`` policy (untrained here: the plumbing is under test, not the play) plays a whole game
against a house bot as the bot account's seat; a policy of other sizes (before any request,
when the command opens or asks for the table itself), a missing file and ``--policy`` with
``--strategy`` are refused with exit 2 and one sentence, in both languages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import torch
from srvkit import ServerThread, free_port

from blink.cli import botclient
from blink.games.classic.envs.single import ClassicSingle
from blink.train.policy import MaskedPolicy, PolicyInfo, save_policy

PASSWORD = "correct horse battery"
BLINK = [sys.executable, "-m", "blink.cli"]


def _bot(server: ServerThread, owner: str, name: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.http, timeout=30) as c:
        assert c.post("/api/accounts", json={"name": owner, "password": PASSWORD}).is_success
        made = c.post("/api/bots", json={"name": name})
        assert made.status_code == 201, made.text
        out: dict[str, Any] = made.json()
        return out


def _run(*args: str, language: str = "en") -> subprocess.CompletedProcess[str]:
    path = str(Path(botclient.__file__).parents[2])
    return subprocess.run(
        [*BLINK, "bot", "play", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path, "LANGUAGE": language},
        timeout=300,
    )


def _policy(path: Path, players: int, game: str = "classic") -> Path:
    """An untrained policy of the sizes of ``players`` seats' classic environment."""
    codec = ClassicSingle(players=players).codec
    torch.manual_seed(0)
    policy = MaskedPolicy(codec.size, codec.actions, hidden=16)
    info = PolicyInfo(
        game=game,
        obs_size=codec.size,
        actions=codec.actions,
        hidden=16,
        train_bot="champion:first",
        env_options={"players": players},
        hyperparameters={},
        steps=0,
        updates=0,
        seed=0,
        seconds=0.0,
    )
    save_policy(path, policy, info)
    return path


def test_a_saved_policy_plays_a_game_against_a_house_bot(
    server: ServerThread, tmp_path: Path
) -> None:
    bot = _bot(server, "Ada", "Tensor")
    saved = _policy(tmp_path / "policy.pt", players=2)
    done = _run(
        "--server", server.http, "--token", bot["token"], "--games", "1",
        "--opponent", "inhuman:first", "--policy", str(saved),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "played 1 game"
    page = server.get(f"/api/profiles/{bot['id']}").json()
    assert page["games"] >= 1 and page["bot"] is True


def test_a_policy_that_does_not_fit_is_refused(server: ServerThread, tmp_path: Path) -> None:
    bot = _bot(server, "Bea", "Misfit")
    three = _policy(tmp_path / "three.pt", players=3)
    other = _policy(tmp_path / "other.pt", players=2, game="elsewhere")
    cases = [
        (
            ["--opponent", "inhuman:first", "--policy", str(three)],
            "the policy was trained for other",
        ),
        (
            ["--opponent", "inhuman:first", "--policy", str(other)],
            "the policy was trained for elsewhere",
        ),
        (["--policy", str(tmp_path / "none.pt")], "no blink train policy at"),
        (["--policy", str(three), "--strategy", "first"], "give --policy alone"),
    ]
    for args, words in cases:
        done = _run("--server", server.http, "--token", bot["token"], *args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert lines == [lines[0]] and lines[0].startswith(f"blink bot play: {words}"), lines


def test_a_policy_that_does_not_fit_is_refused_before_any_request(tmp_path: Path) -> None:
    """No server listens: every way of playing whose table the command opens or asks for
    refuses a three-player policy before it would reach the server, with the sizes' sentence."""
    nowhere = f"http://127.0.0.1:{free_port()}"
    three = _policy(tmp_path / "three.pt", players=3)
    for way in (["--opponent", "inhuman:first"], ["--host"], ["--arena"], ["--challenge", "Rivet"]):
        done = _run("--server", nowhere, "--token", "t0k", *way, "--policy", str(three))
        assert done.returncode == 2, (way, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert lines == [lines[0]], (way, lines)
        assert lines[0].startswith("blink bot play: the policy was trained for other table"), lines
    # A room another bot made may have three seats: that one is checked at its table.
    done = _run("--server", nowhere, "--token", "t0k", "--join", "ABCD", "--policy", str(three))
    assert done.returncode == 2 and "cannot reach" in done.stderr, done.stderr


def test_the_refusals_are_in_spanish_too(server: ServerThread, tmp_path: Path) -> None:
    bot = _bot(server, "Cy", "Desajuste")
    three = _policy(tmp_path / "three.pt", players=3)
    cases = [
        (
            ["--opponent", "inhuman:first", "--policy", str(three)],
            "la política se entrenó para otros",
        ),
        (["--policy", str(tmp_path / "none.pt")], "no hay ninguna política de blink train en"),
    ]
    for args, words in cases:
        done = _run("--server", server.http, "--token", bot["token"], *args, language="es")
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith(f"blink bot play: {words}"), done.stderr


def test_without_pytorch_it_says_how_to_install_it(server: ServerThread, tmp_path: Path) -> None:
    # A torch that cannot be imported, first on the path: as on an install without the extra.
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
    saved = _policy(tmp_path / "policy.pt", players=2)
    src = str(Path(botclient.__file__).parents[2])
    done = subprocess.run(
        [*BLINK, "bot", "play", "--server", server.http, "--token", "t", "--policy", str(saved)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{src}", "LANGUAGE": "en"},
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr
        == 'blink bot play: --policy needs PyTorch: install it with pip install ".[train]"\n'
    )


def test_the_command_imports_pytorch_only_for_a_policy() -> None:
    code = "import sys, blink.cli.bot, blink.cli.botclient; print('torch' in sys.modules)"
    src = str(Path(botclient.__file__).parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
        timeout=120,
    )
    assert done.stdout.strip() == "False", done.stderr
