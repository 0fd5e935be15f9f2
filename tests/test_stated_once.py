"""Facts stated once: a default, a rule's number or a codec has one definition, which the
rest of the code imports or asks the game for (docs/architecture.md, "The Game object").

Each test reads the source itself and names the file that states the fact again.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "blink"


def _python_files(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "migrations" not in p.parts)


def _defining(pattern: str, under: Path = SRC) -> list[str]:
    rx = re.compile(pattern, re.MULTILINE)
    return [
        str(p.relative_to(ROOT)) for p in _python_files(under) if rx.search(p.read_text("utf-8"))
    ]


def test_the_default_game_is_defined_once_in_the_registry() -> None:
    assert _defining(r"^DEFAULT_GAME\b[^=\n]*=") == ["src/blink/model/registry.py"]
