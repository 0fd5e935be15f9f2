"""The test files pytest imports by their bare name are named apart.

A test folder without ``__init__.py`` is put on ``sys.path`` and its files are imported by their
file name alone, so two such files with one name make the whole run stop at collection
("import file mismatch"). A file inside a package (a folder with ``__init__.py``) is imported
by its dotted name and may share its file name with another.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_bare_test_modules_have_distinct_names() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if not (path.parent / "__init__.py").exists():
            seen[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"test files that pytest would import under one name: {clashes}"
