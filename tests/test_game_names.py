"""Only Go Blink's own package names it: everything else gets a game from the registry.

Every game-specific part (engine, bots, simulator, live table, commands, terminal and browser
clients) lives in the game's package under ``src/blink/games/``; the generic code above asks
the registry, which finds the game through its ``blink.games`` entry point (``pyproject.toml``,
the one place that maps its name to its package). This
test reads the files itself (no ``git grep``, which may be missing) and names every file outside
the allowed places that spells the game's name, in any case.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORD = b"goblink"

ALLOWED_DIRS = (
    "src/blink/games/goblink/",
    "tests/",
    "docs/",
    # The terminal clients' message catalog, generated: it names the source file of each
    # message, and the game's own terminal client is one of them.
    "src/blink/tui/locale/",
)
ALLOWED_FILES = {
    "README.md",
    # The game's blink.games entry point: the one place that maps its name to its package.
    "pyproject.toml",
    # A historical data migration: it turned the rooms whose ruleset was "goblink" into rooms
    # of that game, and must keep the literal it read.
    "src/blink/server/migrations/versions/0003_room_game.py",
}
# Not the project's files: version control, tools' caches (every hidden folder but the
# project's own), build output, local runs.
PROJECT_HIDDEN_DIRS = {".ci", ".github"}
SKIPPED_DIRS = {
    "__pycache__",
    "build",
    "dist",
    "node_modules",
}


def _skipped(folder: str) -> bool:
    hidden = folder.startswith(".") and folder not in PROJECT_HIDDEN_DIRS
    return hidden or folder in SKIPPED_DIRS or folder.endswith(".egg-info")


def _files(root: Path) -> list[Path]:
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(_skipped(p) for p in rel.parts[:-1]):
            continue
        if path.is_file() and not path.is_symlink():
            out.append(path)
    return out


def naming_files(root: Path = ROOT) -> list[str]:
    """The files under ``root`` outside the allowed places whose text (or name) holds the word."""
    found = []
    for path in _files(root):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(ALLOWED_DIRS) or rel in ALLOWED_FILES:
            continue
        if path.suffix in {".db", ".sqlite3", ".png", ".pyc"} or path.stat().st_size > 4_000_000:
            continue
        if WORD in rel.lower().encode() or WORD in path.read_bytes().lower():
            found.append(rel)
    return found


def test_only_the_game_s_package_names_it() -> None:
    found = naming_files()
    assert not found, "outside Go Blink's package, these files name it: " + ", ".join(found)


def test_the_check_sees_a_file_that_names_it(tmp_path: Path) -> None:
    (tmp_path / "src" / "blink" / "games" / "goblink").mkdir(parents=True)
    (tmp_path / "src" / "blink" / "games" / "goblink" / "engine.py").write_text("GoBlink\n")
    (tmp_path / "src" / "blink" / "cli").mkdir(parents=True)
    (tmp_path / "src" / "blink" / "cli" / "play.py").write_text("x = 'GOBLINK'\n")
    (tmp_path / "src" / "blink" / "web").mkdir(parents=True)
    (tmp_path / "src" / "blink" / "web" / "goblink.css").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("goblink\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("goblink\n")
    assert naming_files(tmp_path) == ["src/blink/cli/play.py", "src/blink/web/goblink.css"]
