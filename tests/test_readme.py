"""The README's first screen tells a newcomer, in this order: what blink is, the two commands
(exactly: the first installs and runs the server, the second installs the test tools and runs
the suite), what they need (Python 3.11+, a virtual environment), and where to go next."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVE = "pip install . && blink serve"
TEST = "bash scripts/test"
FIRST_SCREEN = 45
"""Lines a newcomer reads before scrolling (a tall terminal or a browser window)."""


def first_screen() -> str:
    return "\n".join((ROOT / "README.md").read_text().splitlines()[:FIRST_SCREEN])


def test_the_first_screen_in_order() -> None:
    text = first_screen()
    what = text.index('Blink, "the world\'s fastest game", in Python')
    needs = text.index("Python 3.11 or newer")
    venv = text.index("virtual environment")
    serve = text.index(f"```bash\n{SERVE} ")
    test = text.index(f"```bash\n{TEST} ")
    nxt = text.index("**Next**")
    assert what < needs < venv < serve < test < nxt
    # Where to go next: links that exist.
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text[nxt:])
    assert {"docs/deploy.md", "docs/architecture.md", "CONTRIBUTING.md"} <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link


def test_the_commands_do_what_the_readme_says() -> None:
    # The first installs the package (its console script is blink, its server command serve);
    # the second is the test command, which installs the [test] extra and runs pytest.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["blink"] == "blink.cli:main"
    assert int(project["requires-python"].removeprefix(">=3.")) == 11
    script = (ROOT / "scripts" / "test").read_text()
    assert 'pip install -q --disable-pip-version-check -e ".[test]"' in script
    assert "python3 -m pytest" in script
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec bash scripts/test")
