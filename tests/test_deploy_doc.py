"""docs/deploy.md's systemd units are real units: each ```ini block that starts with its path
(``# /etc/systemd/system/NAME``) is taken from the page and checked with ``systemd-analyze
verify`` where systemd is installed, and its required keys are checked everywhere."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "deploy.md"
VENV_BLINK = "/opt/blink/venv/bin/blink"


def units() -> dict[str, str]:
    """The units of the page by name: the code blocks whose first line is their path."""
    found: dict[str, str] = {}
    for block in re.finditer(r"^( *)```ini\n(.*?)^\1```", DOC.read_text(), re.M | re.S):
        indent = len(block.group(1))
        lines = [line[indent:] for line in block.group(2).splitlines()]
        head = re.fullmatch(r"# /etc/systemd/system/(\S+)", lines[0])
        if head:
            found[head.group(1)] = "\n".join(lines[1:]) + "\n"
    return found


def parsed(text: str) -> configparser.RawConfigParser:
    """A unit's sections and keys (a repeated key, such as Environment=, keeps its last)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def test_the_page_has_the_server_and_the_backup_units() -> None:
    assert sorted(units()) == ["blink-backup.service", "blink-backup.timer", "blink.service"]


def test_the_server_unit_has_what_it_needs() -> None:
    unit = parsed(units()["blink.service"])
    service = unit["Service"]
    assert unit["Unit"]["Description"]
    assert "network-online.target" in unit["Unit"]["After"]
    assert service["ExecStart"] == f"{VENV_BLINK} serve"
    assert service["ExecStartPre"] == f"{VENV_BLINK} db migrate"
    assert service["User"] == "blink" and service["StateDirectory"] == "blink"
    assert service["KillSignal"] == "SIGTERM"
    assert int(service["TimeoutStopSec"]) >= 35  # the 30 s the graceful stop may take
    assert service["Restart"] == "on-failure"
    assert service["ProtectSystem"] == "strict"
    assert "MemoryDenyWriteExecute" not in service  # numba makes machine code at run time
    environment = " ".join(
        line.split("=", 1)[1]
        for line in units()["blink.service"].splitlines()
        if line.startswith("Environment=")
    )
    for setting in (
        "BLINK_HOST=127.0.0.1",
        "BLINK_DB=/var/lib/blink/blink.db",
        "BLINK_PROXY_HEADERS=1",
        "BLINK_ALLOW_HOST=blink.example.org",
        "NUMBA_CACHE_DIR=/var/cache/blink",
    ):
        assert setting in environment.split(), setting
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    # Caddy forwards to the address the unit listens on.
    assert "reverse_proxy 127.0.0.1:8000" in DOC.read_text()


def test_the_backup_units() -> None:
    service = parsed(units()["blink-backup.service"])["Service"]
    assert service["Type"] == "oneshot"
    assert f"{VENV_BLINK} db backup /var/lib/blink/backups/" in service["ExecStart"]
    timer = parsed(units()["blink-backup.timer"])
    assert timer["Timer"]["OnCalendar"] and timer["Install"]["WantedBy"] == "timers.target"


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (the keys are checked above)")
    # systemd checks that each command exists: the page's blink, in a virtual environment
    # this machine does not have, is a stand-in script here.
    stand_in = tmp_path / "blink"
    stand_in.write_text("#!/bin/sh\nexit 0\n")
    stand_in.chmod(0o755)
    files = []
    for name, text in units().items():
        path = tmp_path / name
        path.write_text(text.replace(VENV_BLINK, str(stand_in)))
        files.append(str(path))
    done = subprocess.run(
        [analyze, "verify", *files], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    # Unknown keys and bad values are warnings with exit status 0: none may be about our units.
    ours = [line for line in done.stderr.splitlines() if "blink" in line]
    assert not ours, "\n".join(ours)
