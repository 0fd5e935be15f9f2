"""The ``blink`` command itself, run for real in a subprocess: ``--version``, ``python -m
blink``, shell completion, a light start, and help that shows flags as flags."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import blink

pytestmark = pytest.mark.timeout(300)

HEAVY = (
    "alembic",
    "fastapi",
    "matplotlib",
    "numpy",
    "sqlalchemy",
    "starlette",
    "textual",
    "uvicorn",
    "websockets",
)
"""Libraries only some commands need: loading none of them is what keeps ``blink`` quick.
(Pydantic is not among them: Typer's completion loads it.)"""

AS_BLINK = "import sys; sys.argv[0] = 'blink'; from blink.cli import main; main()"
"""``blink`` as its console script starts it (program name ``blink``)."""


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m blink ARGS``."""
    return subprocess.run(
        [sys.executable, "-m", "blink", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100", **(env or {})},
    )


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"blink {blink.__version__}\n"


def test_python_m_blink_is_the_command() -> None:
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert "python -m blink" in done.stdout
    for command in ("serve", "play", "simulate", "deck", "replay"):
        assert command in done.stdout
    deck = run("deck", "--json")
    assert deck.returncode == 0, deck.stderr
    assert len(json.loads(deck.stdout)) == 60


def test_help_offers_completion() -> None:
    done = run("--help")
    assert "--install-completion" in done.stdout and "--show-completion" in done.stdout


def test_completion_completes_commands_and_options() -> None:
    """What the completion script Typer installs asks of ``blink`` (bash's protocol)."""

    def complete(words: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", AS_BLINK],
            capture_output=True,
            text=True,
            timeout=120,
            env={
                **os.environ,
                "_BLINK_COMPLETE": "complete_bash",
                "COMP_WORDS": words,
                "COMP_CWORD": str(len(words.split()) - 1),
            },
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("blink se") == ["serve"]
    assert complete("blink serve --data") == ["--database-url"]
    assert "--hotseat" in complete("blink play --hot")


def test_help_and_completion_load_no_heavy_library() -> None:
    """``blink --help`` (and every completion) stays quick: it imports none of the
    libraries of the server, the terminal client or the plots."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['blink', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('blink', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    completing = {"_BLINK_COMPLETE": "complete_bash", "COMP_WORDS": "blink serve --"}
    for args, env in ((["--help"], {}), ([], {**completing, "COMP_CWORD": "2"})):
        done = subprocess.run(
            [sys.executable, "-c", probe, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **env},
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == "LOADED []"


def test_hotseat_is_a_flag_with_its_opposite() -> None:
    help_text = run("play", "--help").stdout
    assert "--hotseat" in help_text and "--no-hotseat" in help_text
    on = run("play", "--no-hotseat", "--hotseat", "--bot", "expert")
    assert on.returncode == 2
    assert on.stderr == "blink play: --hotseat is for people only; leave out --bot\n"
    off = run("play", "--hotseat", "--no-hotseat", "--players", "9")
    assert off.returncode == 2
    assert "hotseat" not in off.stderr and "9" in off.stderr


@pytest.mark.parametrize("command", [(), ("play",), ("serve",), ("simulate",)])
def test_help_shows_no_value_after_a_flag(command: tuple[str, ...]) -> None:
    """A flag takes no value, so its help names no type (Typer's shows ``<bool>``)."""
    done = run(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert "<bool>" not in done.stdout
    assert "--help" in done.stdout
