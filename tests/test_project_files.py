"""The files every project has: a changelog in the Keep a Changelog form, how to contribute,
the security policy, and a pre-commit configuration that runs what scripts/test runs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import blink

ROOT = Path(__file__).resolve().parent.parent


def test_the_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "https://keepachangelog.com/" in text
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert versions and versions[0] == ("Unreleased", "")
    for version, day in versions[1:]:
        assert re.fullmatch(r"\d+\.\d+\.\d+", version) and day, (version, day)
    # Only Keep a Changelog's kinds of change, each under a version.
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds and kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    # A released version is the package's or older; each has its link at the end.
    if len(versions) > 1:
        assert versions[1][0] == blink.__version__
    for version, _ in versions:
        assert re.search(rf"^\[{re.escape(version)}\]: https://", text, re.M), version


def test_contributing_says_how() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    for needed in (
        "bash scripts/test",
        "bash scripts/lowest",
        "docs/architecture.md",
        "## Adding a game",
        "src/blink/model/registry.py",
        "SECURITY.md",
    ):
        assert needed in text, needed


def test_security_says_how_to_report_and_what_is_in_scope() -> None:
    text = (ROOT / "SECURITY.md").read_text()
    for heading in ("## Reporting a vulnerability", "## Supported versions", "## Scope"):
        assert heading in text, heading
    assert "docs/security.md" in text


def test_pre_commit_runs_what_the_test_command_runs() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    entries = [hook["entry"] for repo in config["repos"] for hook in repo["hooks"]]
    script = (ROOT / "scripts" / "test").read_text()
    for command in (
        "python -m ruff check src tests benchmarks",
        "python -m mypy",
        "lint-imports --no-cache",
    ):
        assert command in entries, command
        assert command.replace("python -m", "python3 -m") in script, command
    assert "python -m ruff format --check" in entries


def test_the_cpu_only_training_install_uses_the_extras_pin() -> None:
    import subprocess
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    script = ROOT / "scripts" / "install-train-cpu"
    for extra in ("train", "test"):
        pin = next(d for d in extras[extra] if d.startswith("torch"))
        out = subprocess.run(
            ["bash", str(script), "--dry-run", extra], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        assert out == [
            f"python3 -m pip install {pin} --index-url https://download.pytorch.org/whl/cpu",
            f"python3 -m pip install -e .[{extra}]",
        ]
    bad = subprocess.run(["bash", str(script), "--dry-run", "gpu"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "gpu" in bad.stderr
