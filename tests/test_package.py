"""The package itself: its licence, its version (written once) and the metadata setuptools builds
from pyproject.toml."""

from __future__ import annotations

import email.parser
import re
import shutil
import subprocess
import sys
import tomllib
from email.message import Message
from pathlib import Path

import pytest
import trove_classifiers

import blink

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def metadata(tmp_path_factory: pytest.TempPathFactory) -> Message:
    """The core metadata (PKG-INFO) setuptools writes for a copy of the project's package
    files: pyproject.toml, the README, the licence and the package's ``__init__``."""
    tmp = tmp_path_factory.mktemp("package")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp / name)
    (tmp / "src" / "blink").mkdir(parents=True)
    shutil.copy(ROOT / "src" / "blink" / "__init__.py", tmp / "src" / "blink" / "__init__.py")
    out = tmp / "out"
    out.mkdir()
    setup = "from setuptools import setup; setup()"
    done = subprocess.run(
        [sys.executable, "-c", setup, "egg_info", "--egg-base", str(out)],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    info = (out / "blink.egg-info" / "PKG-INFO").read_text()
    return email.parser.Parser().parsestr(info)


def test_the_licence_is_the_mit_text_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} the blink authors$", text, re.M)
    assert "Permission is hereby granted, free of charge" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]


def test_the_version_is_written_once() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "blink.__version__"}
    literal = f'"{blink.__version__}"'
    holders = [
        p.relative_to(ROOT).as_posix()
        for p in [ROOT / "pyproject.toml", *sorted((ROOT / "src").rglob("*.py"))]
        if literal in p.read_text()
    ]
    assert holders == ["src/blink/__init__.py"]


def test_the_built_metadata(metadata: Message) -> None:
    assert metadata["Version"] == blink.__version__
    assert metadata["License"] == "MIT"
    assert "LICENSE" in metadata.get_all("License-File", [])
    keywords = metadata["Keywords"].split(",")
    assert "card game" in keywords and "blink" in keywords
    classifiers = metadata.get_all("Classifier", [])
    assert "Topic :: Games/Entertainment" in classifiers
    unknown = [c for c in classifiers if c not in trove_classifiers.classifiers]
    assert not unknown, f"not classifiers PyPI knows: {unknown}"
    # No public address yet, so no Project-URL: a path of the source tree is not a URL, and
    # package indexes would show it as a broken link.
    for link in metadata.get_all("Project-URL", []):
        label, url = link.split(", ", 1)
        assert url.startswith("https://"), f"{label}: {url} is not a web address"
