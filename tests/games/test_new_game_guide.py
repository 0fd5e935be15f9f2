"""docs/new-game.md is true: its game is written, installed and played as the page says.

The page's code blocks are taken from it by their markers, an HTML comment on the line before
the fence:

* ``<!-- file: PATH -->``: the block is (a part of, in order) the file ``PATH`` of the
  distribution the page builds;
* ``<!-- run -->``: the block runs, in order, in a fresh interpreter (``python``) or shell
  (``bash``) in a working folder, with the distribution installed;
* ``<!-- run: checkout -->``: the same, from blink's own checkout (the conformance test);
* ``<!-- server -->``: ``blink serve``, started here on a free port with a database in the
  temporary folder (``BLINK_URL`` then names it to the blocks that follow).

The distribution is installed with pip (``--target``, a folder of its own on the path, not
the environment's site-packages), so its ``pyproject.toml`` is the one that declares the
entry point. A ``python`` block with no marker must say ``# not run`` on its first line, and
still compiles. Every ``blink.`` dotted name and every file path of blink's the page mentions
must exist."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from blink.model.base import GameDefinition, GameInfo, GameState
from blink.model.game import FrontEnd, Game
from blink.model.table import Table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from installing import install_into  # noqa: E402
from serve_process import ServeProcess  # noqa: E402

GUIDE = ROOT / "docs" / "new-game.md"
pytestmark = pytest.mark.timeout(600)

BLOCK = re.compile(
    r"(?:^<!-- (?P<marker>[^>]*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.M | re.S
)


@dataclass(frozen=True)
class Block:
    """One fenced block of the page: its marker (``""`` for none), language and text."""

    marker: str
    lang: str
    body: str


def blocks() -> list[Block]:
    """The page's fenced blocks, in order."""
    return [
        Block(m.group("marker") or "", m.group("lang"), m.group("body"))
        for m in BLOCK.finditer(GUIDE.read_text())
    ]


def test_every_python_block_is_marked_and_compiles() -> None:
    found = blocks()
    assert sum(b.marker == "run" for b in found) >= 5
    assert sum(b.marker.startswith("file: ") for b in found) >= 6
    for block in found:
        if block.lang != "python":
            continue
        if not block.marker:
            assert block.body.startswith("# not run"), block.body[:80]
        else:
            assert block.marker == "run" or block.marker.startswith("file: "), block.marker
        compile(block.body, "<docs/new-game.md>", "exec")


def _files(folder: Path) -> None:
    """The distribution the page builds, written into ``folder``."""
    for block in blocks():
        if block.marker.startswith("file: "):
            path = folder / block.marker.removeprefix("file: ")
            path.parent.mkdir(parents=True, exist_ok=True)
            before = path.read_text() + "\n\n" if path.exists() else ""
            path.write_text(before + block.body)


def test_the_guides_files_pass_the_projects_lint_and_format(tmp_path: Path) -> None:
    _files(tmp_path)
    config = str(ROOT / "pyproject.toml")
    for check in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *check, "--config", config, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def _environment(site: Path, bin_dir: Path) -> dict[str, str]:
    """This interpreter's environment with the installed distribution on the path, and a
    ``blink`` command that is this checkout's."""
    bin_dir.mkdir()
    blink = bin_dir / "blink"
    blink.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m blink "$@"\n')
    blink.chmod(0o755)
    env = dict(os.environ, CI="true")
    path = [str(site), str(ROOT / "src"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    return env


def test_the_guides_game_is_installed_registered_and_played(tmp_path: Path) -> None:
    dist = tmp_path / "cardsum-dist"
    _files(dist)
    assert (dist / "pyproject.toml").exists() and (dist / "cardsum" / "game.py").exists()
    site = tmp_path / "site"
    install_into(dist, site)
    assert list(site.glob("cardsum-1.0.dist-info/entry_points.txt"))
    env = _environment(site, tmp_path / "bin")
    work = tmp_path / "work"
    work.mkdir()
    outputs: list[str] = []
    server: ServeProcess | None = None
    try:
        for block in blocks():
            if block.marker == "server":
                assert block.body.startswith("blink serve ")
                server = ServeProcess(tmp_path / "server.db", "--no-warm-bots", env=env).start()
                env["BLINK_URL"] = server.base
            if not block.marker.startswith("run"):
                continue
            cwd = ROOT if block.marker == "run: checkout" else work
            command = [sys.executable, "-c"] if block.lang == "python" else ["bash", "-e", "-c"]
            done = subprocess.run(
                [*command, block.body],
                capture_output=True,
                text=True,
                timeout=300,
                env=env,
                cwd=cwd,
            )
            assert done.returncode == 0, f"{block.body}\n{done.stdout}\n{done.stderr}"
            outputs.append(done.stdout)
    finally:
        if server is not None:
            server.stop()
    registry, conformance, record, replay, simulated, simulate, room = outputs
    assert registry.splitlines()[:3] == [
        "('classic', 'cardsum', 'goblink')",  # the default game first, then by name
        "Card Sum / Suma de cartas",
        "2 to 4",
    ]
    assert "passed" in conformance and "failed" not in conformance
    assert record.strip() == "7 frames"
    assert replay.startswith("Card Sum, 2 players") and "won by" in replay
    assert "by the referee" in simulated
    assert '"games": 50, "players": 3' in simulate
    assert room.startswith("cardsum won by [") and "totals" in room


DOTTED = re.compile(r"\bblink(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"`((?:src|tests|docs|benchmarks|scripts)/[\w./-]+)`")


def _resolves(dotted: str) -> bool:
    """True when ``dotted`` is a module of blink, or an attribute of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                found = getattr(found, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_blink_name_and_path_the_guide_mentions_exists() -> None:
    text = GUIDE.read_text()
    names = set(DOTTED.findall(text)) - {"blink.games"}  # the group (and a package)
    assert "blink.model.registry.game" in names and len(names) > 20
    missing = sorted(n for n in names if not _resolves(n))
    assert missing == []
    paths = set(PATH.findall(text))
    assert "tests/fixtures/highcard" in paths and "tests/e2e/test_third_party_game.py" in paths
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


def _members(protocol: type) -> set[str]:
    """The public names a Protocol declares: its methods, properties and annotated fields."""
    names = {n for n in vars(protocol) if not n.startswith("_")}
    return names | set(getattr(protocol, "__annotations__", {}))


def test_the_guide_names_every_member_of_the_games_types() -> None:
    text = GUIDE.read_text()
    expected = {
        "GameState": _members(GameState),
        "GameDefinition": _members(GameDefinition),
        "GameInfo": {f.name for f in dataclasses.fields(GameInfo)}
        | {"check_players", "check_options", "player_range"},
        "Table": _members(Table),
        "FrontEnd": {f.name for f in dataclasses.fields(FrontEnd)},
    }
    for kind, names in expected.items():
        assert len(names) > 4, kind
        unnamed = sorted(n for n in names if not re.search(rf"`{n}\b", text))
        assert unnamed == [], kind
    # The Game's signature, as the page quotes it.
    quoted = next(b.body for b in blocks() if "class Game:" in b.body)
    for name, parameter in inspect.signature(Game.__init__).parameters.items():
        assert re.search(rf"\b{name}: ", quoted) or name == "self", name
        if parameter.default is not inspect.Parameter.empty:
            assert f"{name}: " in quoted and "= None" in quoted.split(f"{name}: ")[1].split("\n")[0]
