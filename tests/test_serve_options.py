"""``blink serve``'s options from ``BLINK_*`` environment variables, and its logging
(``--log-format text|json``), on real ``blink serve`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from blink.cli import app
from serve_process import ServeProcess

pytestmark = pytest.mark.timeout(300)


def serve(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``blink serve ARGS`` to its end, with more environment variables ``env``."""
    return subprocess.run(
        [sys.executable, "-m", "blink", "serve", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100", **env},
    )


def serve_options() -> list[Any]:
    """The options of the ``serve`` command as typer builds it (its own click's objects)."""
    group: Any = typer.main.get_command(app)
    command = group.commands["serve"]
    return [p for p in command.params if p.param_type_name == "option"]


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    """Servers started by the test, stopped at its end."""
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


def test_every_option_has_its_environment_variable() -> None:
    """A new option of ``blink serve`` cannot forget its ``BLINK_*`` variable."""
    options = serve_options()
    assert len(options) > 20
    for option in options:
        if option.name == "help":
            continue
        long = next(o for o in option.opts if o.startswith("--"))
        want = "BLINK_" + long[2:].replace("-", "_").upper()
        assert option.envvar == want, (option.name, option.envvar)


def test_help_shows_the_variables() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "blink", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    for name in ("BLINK_STALL_PAUSE", "BLINK_DB", "BLINK_LOG_FORMAT", "BLINK_PROXY_HEADERS"):
        assert name in done.stdout, name


@pytest.mark.parametrize(
    ("option", "variable", "value", "words"),
    [
        ("--port", "BLINK_PORT", "99999", ["--port", "65535"]),
        ("--stall-pause", "BLINK_STALL_PAUSE", "soon", ["--stall-pause", "valid number"]),
        ("--log-format", "BLINK_LOG_FORMAT", "xml", ["--log-format", "text, json"]),
        ("--creation-rate", "BLINK_CREATION_RATE", "lots", ["--creation-rate", "60/minute"]),
        ("--message-rate", "BLINK_MESSAGE_RATE", "lots", ["--message-rate", "80/2seconds"]),
        ("--metrics-allow", "BLINK_METRICS_ALLOW", "example.org", ["--metrics-allow", "10.0"]),
        ("--daily-bot", "BLINK_DAILY_BOT", "nope", ["--daily-bot", "unknown bot level"]),
        (
            "--tournament-check-interval",
            "BLINK_TOURNAMENT_CHECK_INTERVAL",
            "0",
            ["--tournament-check-interval", "0.1"],
        ),
    ],
)
def test_a_bad_value_in_a_variable_is_refused_like_the_option(
    tmp_path: Path, option: str, variable: str, value: str, words: list[str]
) -> None:
    """The same error as on the command line, exit 2, no traceback and no server."""
    db = str(tmp_path / "b.db")
    by_option = serve("--db", db, option, value)
    by_variable = serve("--db", db, **{variable: value})
    for done in (by_option, by_variable):
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "Open" not in done.stdout
        error = " ".join(done.stderr.replace("│", " ").split())
        for word in words:
            assert word in error, error
    assert variable in by_variable.stderr  # click names where the value came from
    assert not (tmp_path / "b.db").exists()


def test_a_bad_log_format_is_one_sentence(tmp_path: Path) -> None:
    done = serve("--db", str(tmp_path / "b.db"), "--log-format", "xml")
    assert done.returncode == 2
    error = " ".join(done.stderr.replace("│", " ").replace("╰", "").split())
    assert "'xml' is not a log format: choose text, json" in error


def test_variables_reach_the_server(tmp_path: Path, started: list[ServeProcess]) -> None:
    """``BLINK_DB`` chooses the file and ``BLINK_CREATION_RATE`` the creation limit."""
    db = tmp_path / "from-env.db"
    env = {"BLINK_DB": str(db), "BLINK_CREATION_RATE": "1/minute"}
    proc = ServeProcess(tmp_path / "log.db", env=env, pass_db=False)
    started.append(proc)
    proc.start()
    assert db.exists()
    assert proc.post("/api/quick", {}).status_code == 201
    assert proc.post("/api/quick", {}).status_code == 429  # BLINK_CREATION_RATE: 1/minute


def test_json_logs_are_one_object_a_line(tmp_path: Path, started: list[ServeProcess]) -> None:
    """uvicorn's own lines (startup, access) and the server's are JSON objects with time,
    level, logger and message."""
    proc = ServeProcess(tmp_path / "b.db", "--log-format", "json", "--log-level", "info")
    started.append(proc)
    proc.start()
    assert proc.get("/api/health").status_code == 200
    proc.terminate()
    assert proc.wait() == 0
    lines = [line for line in proc.stderr().splitlines() if line.strip()]
    assert lines
    records = [json.loads(line) for line in lines]  # every line parses
    for r in records:
        assert {"time", "level", "logger", "message"} <= r.keys(), r
        assert "color_message" not in r
    loggers = {r["logger"] for r in records}
    assert {"uvicorn.error", "uvicorn.access"} <= loggers
    assert any("GET /api/health" in r["message"] for r in records)
    assert any(r["message"] == "Application startup complete." for r in records)


def test_text_logs_by_default(tmp_path: Path, started: list[ServeProcess]) -> None:
    proc = ServeProcess(tmp_path / "b.db", "--log-level", "info")
    started.append(proc)
    proc.start()
    proc.terminate()
    assert proc.wait() == 0
    text = proc.stderr()
    assert "INFO:" in text and "Application startup complete." in text
    assert not text.lstrip().startswith("{")


def test_json_lines_carry_the_extra_fields() -> None:
    """A record's extra fields (``log.info(..., extra={...})``) are fields of its object."""
    import logging

    from pythonjsonlogger.json import JsonFormatter

    from blink.cli.serving import log_config

    options = dict(log_config("json", "info")["formatters"]["default"])
    del options["()"]
    formatter = JsonFormatter(**options)
    record = logging.LogRecord(
        "blink.server", logging.WARNING, __file__, 1, "room %s", ("K7",), None
    )
    record.room = "K7QX2M"
    line = json.loads(formatter.format(record))
    assert line["level"] == "WARNING" and line["logger"] == "blink.server"
    assert line["message"] == "room K7" and line["room"] == "K7QX2M"
    assert line["time"].endswith("+00:00")


def test_the_daily_bots_reach_the_server(tmp_path: Path, started: list[ServeProcess]) -> None:
    """``--daily-bot`` (repeated) is the list the day's bot is picked from."""
    proc = ServeProcess(tmp_path / "daily.db", "--daily-bot", "expert:blocker")
    started.append(proc)
    proc.start()
    bot = proc.get("/api/daily").json()["bot"]
    assert bot == {"spec": "expert:blocker", "name": "Expert blocking bot"}
