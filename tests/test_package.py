"""The package itself: its licence, its version (written once), the metadata setuptools builds
from pyproject.toml, and the wheel and sdist ``python -m build`` makes, checked as PyPI would
(``twine check --strict``)."""

from __future__ import annotations

import email.parser
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
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
    info = (out / "blink_card_game.egg-info" / "PKG-INFO").read_text()
    return email.parser.Parser().parsestr(info)


def test_the_licence_is_the_mit_text_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} the blink authors$", text, re.M)
    assert "Permission is hereby granted, free of charge" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # An SPDX expression and the licence's file (PEP 639): the licence table and the licence
    # classifier are deprecated, and setuptools refuses the classifier beside the expression.
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


def test_the_build_backend_is_bounded() -> None:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert build["build-backend"] == "setuptools.build_meta"
    (setuptools,) = [r for r in build["requires"] if r.startswith("setuptools")]
    # 77.0.3 reads the SPDX expression and license-files; an upper bound keeps a new major
    # release of the backend from changing a build that works.
    assert re.fullmatch(r"setuptools>=77\.0\.3,<\d+", setuptools), setuptools


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
    # "blink" on PyPI is another project: the distribution is blink-card-game, its command
    # and its import name blink.
    assert metadata["Name"] == "blink-card-game"
    assert metadata["Version"] == blink.__version__
    assert metadata["License-Expression"] == "MIT"
    assert "LICENSE" in metadata.get_all("License-File", [])
    keywords = metadata["Keywords"].split(",")
    assert "card game" in keywords and "blink" in keywords
    classifiers = metadata.get_all("Classifier", [])
    assert "Topic :: Games/Entertainment" in classifiers
    unknown = [c for c in classifiers if c not in trove_classifiers.classifiers]
    assert not unknown, f"not classifiers PyPI knows: {unknown}"
    assert "Programming Language :: Python :: 3.11" in classifiers
    # Every link is a web address (a path of the source tree would be a broken link on PyPI).
    links = dict(link.split(", ", 1) for link in metadata.get_all("Project-URL", []))
    assert {"Homepage", "Changelog"} <= set(links)
    for label, url in links.items():
        assert url.startswith("https://"), f"{label}: {url} is not a web address"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel ``python -m build`` makes (the wheel from the sdist, as it does),
    built once for the module from a copy of the project's files, so the work tree gets no
    build folders. The installed build backend builds them (``--no-isolation``: no download);
    it must satisfy pyproject's bounds, which ``build`` checks."""
    tmp = tmp_path_factory.mktemp("dist")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    out = tmp / "out"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_twine_accepts_the_wheel_and_the_sdist(dist: Path) -> None:
    files = sorted(p.name for p in dist.iterdir())
    version = blink.__version__
    assert files == [
        f"blink_card_game-{version}-py3-none-any.whl",
        f"blink_card_game-{version}.tar.gz",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *sorted(map(str, dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def _tracked_package_files() -> list[str]:
    """Every file of the package in git (the modules, the web assets, the migrations, each
    game's package and browser parts, the terminal's catalogs), relative to src/."""
    listed = subprocess.run(
        ["git", "ls-files", "src/blink"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [line.removeprefix("src/") for line in listed.stdout.splitlines()]


def test_the_wheel_holds_everything_the_server_needs(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in _tracked_package_files() if name not in names]
    assert not missing, f"not in the wheel: {missing}"
    # What the server reads at run time, named, so an empty checkout cannot pass.
    for needed in (
        "blink/web/index.html",
        "blink/web/js/i18n.js",
        "blink/server/alembic.ini",
        "blink/server/migrations/env.py",
        "blink/games/classic/definition.py",
        "blink/games/goblink/definition.py",
        "blink/py.typed",
    ):
        assert needed in names, needed
    assert any(n.startswith("blink/server/migrations/versions/0001_") for n in names)
    assert any(n.startswith("blink/games/goblink/web/") for n in names)
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "blink = blink.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_sdist_holds_the_package_and_its_licence(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "PKG-INFO"):
        assert needed in names, needed
    missing = [n for n in _tracked_package_files() if f"src/{n}" not in names]
    assert not missing, f"not in the sdist: {missing}"


# The lowest versions scripts/lowest proved blink needs (uv's lowest-direct resolution, then
# scripts/smoke.py): a lower bound below one of them lets an install break.
NEEDED = {
    "typer": "0.29",  # TyperOption.display_type_rich, which blink.cli replaces
    "rich": "13.8",  # what typer 0.29 needs
    "textual": "0.80",  # App.no_color, BindingsMap.key_to_bindings
    "websockets": "13",  # websockets.asyncio.client
    "msgspec": "0.18.6",  # msgspec.json.encode(order=...)
    "matplotlib": "3.8.4",  # the first built for numpy 2
    "platformdirs": "4.11.8",  # a relative XDG_DATA_HOME is ignored
}


def test_no_lower_bound_is_below_what_the_code_needs() -> None:
    from packaging.requirements import Requirement
    from packaging.version import Version

    floors: dict[str, Version] = {}
    for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        req = Requirement(line)
        lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==")]
        assert lows, f"{req.name} has no lower bound"
        floors[req.name.lower()] = lows[0]
    for name, needed in NEEDED.items():
        assert floors[name] >= Version(needed), f"{name}>={floors[name]}: it needs {needed}"
    lowest = (ROOT / "scripts" / "lowest").read_text()
    assert "--resolution lowest-direct" in lowest and "scripts/smoke.py" in lowest


def test_the_torch_pin_accepts_the_cpu_build() -> None:
    # docs/envs.md installs PyTorch's CPU-only build (2.13.0+cpu, from its own index) before
    # the extras: their pin must accept it, or pip would fetch the CUDA build from PyPI.
    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for extra in ("train", "test"):
        pins = [
            Requirement(r)
            for r in extras["optional-dependencies"][extra]
            if Requirement(r).name == "torch"
        ]
        assert len(pins) == 1, extra
        (pin,) = pins
        version = str(next(iter(pin.specifier)).version)
        assert pin.specifier.contains(f"{version}+cpu"), (extra, pin)
        assert (
            f"pip install torch=={version} --index-url" in (ROOT / "docs" / "envs.md").read_text()
        )
