"""Games are found through the ``blink.games`` entry-point group: a game in a distribution of
its own (here a tiny one made in a temporary folder, with its package metadata and its entry
point, on the path of a fresh interpreter) is in the registry, in ``blink simulate --help``
and in the lobby's list of games, with no change to blink's code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from blink.model.registry import game, game_names

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HIGHCARD = ROOT / "tests" / "fixtures" / "highcard"
"""High Card's distribution (its package alone is put on the path here, not its metadata)."""

PLUGIN = '''\
"""High Card as a distribution of its own would register it."""

from highcard import HIGH_CARD, HIGH_CARD_TABLE

from blink.model.game import FrontEnd, Game

GAME = Game(
    "highcard",
    HIGH_CARD,
    table=HIGH_CARD_TABLE,
    front=FrontEnd(commands="highcard_plugin"),
    titles={"en": "High Card", "es": "Carta alta"},
)


def register(app):
    """No command group of its own."""


def run_simulation(options):
    """Simulate (what ``blink simulate --game highcard`` calls)."""
    print("simulated", options.games)
'''


def _distribution(folder: Path, entry: str) -> Path:
    """A distribution ``highcard-plugin`` in ``folder``: its module and its metadata, with the
    ``blink.games`` entry point ``entry``."""
    folder.mkdir()
    (folder / "highcard_plugin.py").write_text(PLUGIN)
    info = folder / "highcard_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: highcard-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[blink.games]\n{entry}\n")
    return folder


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python args`` with the distribution and High Card's module on the path."""
    env = dict(os.environ)
    path = [str(folder), str(HIGHCARD), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_blink_registers_its_own_games_through_the_group() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    group = pyproject["project"]["entry-points"]["blink.games"]
    assert group == {
        "classic": "blink.games.classic.game:GAME",
        "goblink": "blink.games.goblink.game:GAME",
    }
    assert game_names()[:2] == ("classic", "goblink")
    for name in group:
        assert game(name).name == name == game(name).info.name
        assert game(name).title("es")


def test_a_game_of_another_distribution_is_registered(tmp_path: Path) -> None:
    folder = _distribution(tmp_path / "dist", "highcard = highcard_plugin:GAME")
    code = textwrap.dedent(
        """
        from blink.model.registry import game, game_names
        from blink.server.room_setup import room_games
        print(game_names())
        print(game("highcard").title("es"), game("highcard").info.player_range)
        print("highcard" in room_games())
        """
    )
    out = _run(folder, "-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "('classic', 'goblink', 'highcard')",
        "Carta alta 2 to 4",
        "True",
    ]
    help_text = _run(folder, "-m", "blink", "simulate", "--help")
    assert help_text.returncode == 0, help_text.stderr
    assert "highcard" in help_text.stdout
    simulated = _run(folder, "-m", "blink", "simulate", "--game", "highcard", "--games", "3")
    assert simulated.returncode == 0, simulated.stderr
    assert "simulated 3" in simulated.stdout


def test_an_entry_point_must_name_the_game_of_its_name(tmp_path: Path) -> None:
    folder = _distribution(tmp_path / "dist", "lowcard = highcard_plugin:GAME")
    out = _run(folder, "-c", "from blink.model.registry import game_names; game_names()")
    assert out.returncode != 0
    assert "does not name the Game 'lowcard'" in out.stderr


NOT_INSTALLED = """\
from blink.model.registry import NoGames, game, game_names
assert game_names() == (), game_names()
try:
    game()
except NoGames as exc:
    print(exc.code, exc)
"""


def test_without_blinks_metadata_no_game_is_registered_and_a_lookup_says_so(
    tmp_path: Path,
) -> None:
    # A fresh interpreter that sees every installed package but blink's own distribution (its
    # metadata, its editable finder): the registry reads no pyproject.toml in its place.
    site = tmp_path / "site"
    site.mkdir()
    for source in {Path(p) for p in sys.path if p.endswith("site-packages")}:
        for item in source.iterdir():
            hidden = item.name.startswith(("blink_card_game", "__editable__"))
            if not hidden and item.suffix != ".pth" and not (site / item.name).exists():
                (site / item.name).symlink_to(item)
    # The package alone, not src/ (where an editable install leaves its .egg-info metadata).
    code = tmp_path / "code"
    code.mkdir()
    (code / "blink").symlink_to(ROOT / "src" / "blink")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(code), str(site)]))
    done = subprocess.run(
        [sys.executable, "-S", "-c", NOT_INSTALLED],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no_games no game is registered in the blink.games entry points")
    assert "pip install -e ." in done.stdout
