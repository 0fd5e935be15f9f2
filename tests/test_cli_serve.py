"""``blink serve`` at its first start, run for real: a database, URL, port or address it cannot
use is one sentence on stderr that says what to do, exit status 2, and no "Open http://..."
(printed only once the server answers); its help fits 80 columns."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.timeout(300)

BLOCK_PSYCOPG = (
    "import sys; sys.modules['psycopg'] = None; "  # makes ``import psycopg`` fail
    "sys.argv[0] = 'blink'; from blink.cli import main; main()"
)


def serve(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``blink serve ARGS`` to its end (``code``: a ``python -c`` program instead of ``-m
    blink``)."""
    start = ["-c", code] if code else ["-m", "blink"]
    return subprocess.run(
        [sys.executable, *start, "serve", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """Check a start that was refused: exit 2, nothing on stdout, one line on stderr holding
    ``words``; that line."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Open" not in done.stdout and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# --- the database -----------------------------------------------------------------------------


def test_a_file_where_the_folder_should_be(tmp_path: Path) -> None:
    """Like ``--db /etc/passwd/blink.db`` (a FileExistsError before)."""
    (tmp_path / "notes").write_text("x")
    line = refused(serve("--db", str(tmp_path / "notes" / "blink.db")), "--db")
    assert line.startswith(f"blink serve: cannot use the folder {tmp_path / 'notes'} ")
    assert "is a file, not a folder" in line


def test_a_missing_folder_is_refused_not_made(tmp_path: Path) -> None:
    """``--db /missing/dir/x.db`` made the folders, where ``play --record`` refuses a missing
    folder: every path option refuses one now, and the help says so."""
    missing = tmp_path / "missing" / "dir"
    line = refused(serve("--db", str(missing / "x.db")), "--db", "make it first")
    assert line.startswith(f"blink serve: there is no folder {missing} for the database")
    assert not (tmp_path / "missing").exists()
    help_words = [w for w in serve("--help").stdout.split() if w != "│"]
    assert "its folder must exist" in " ".join(help_words)


def test_a_folder_for_a_file(tmp_path: Path) -> None:
    refused(serve("--db", str(tmp_path)), f"{tmp_path} is a folder", "--db")


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n" * 200)
    refused(serve("--db", str(tmp_path / "passwd")), "is not an SQLite database", "--db")


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="no sysfs (/sys) here")
def test_a_file_sqlite_cannot_open() -> None:
    """``--db /sys/blink.db``: sysfs takes no files, even from root (146 lines of traceback
    before)."""
    refused(serve("--db", "/sys/blink.db"), "cannot open the SQLite file /sys/blink.db", "--db")


def test_a_url_of_no_database() -> None:
    """``foo://bar`` (a NoSuchModuleError before)."""
    refused(serve("--database-url", "foo://bar"), "no database 'foo'", "postgresql+psycopg://")


def test_not_a_url() -> None:
    refused(serve("--database-url", "bar"), "not a database URL", "--db FILE")


def test_postgresql_without_its_driver() -> None:
    """psycopg not installed (a ModuleNotFoundError before)."""
    url = f"postgresql+psycopg://ann:s3cret@127.0.0.1:{free_port()}/blink"
    line = refused(serve("--database-url", url, code=BLOCK_PSYCOPG), "psycopg")
    assert line.endswith('pip install ".[postgres]"')


def test_a_database_server_that_does_not_answer() -> None:
    url = f"postgresql+psycopg://ann:s3cret@127.0.0.1:{free_port()}/blink"
    line = refused(serve("--database-url", url), "cannot connect to", "ann:***@127.0.0.1")
    assert "s3cret" not in line


def test_an_unknown_writer(tmp_path: Path) -> None:
    done = serve("--db", str(tmp_path / "b.db"), "--db-writer", "fast")
    assert done.returncode == 2 and "auto, inline, thread" in done.stderr
    assert "Traceback" not in done.stderr


# --- the port and the address -----------------------------------------------------------------


def test_a_port_out_of_range(tmp_path: Path) -> None:
    """``--port 99999`` printed 99999 and listened on 34463 (99999 - 65536)."""
    done = serve("--port", "99999", "--db", str(tmp_path / "b.db"))
    assert done.returncode == 2
    assert "--port" in done.stderr and "65535" in done.stderr
    assert "Open" not in done.stdout
    assert not (tmp_path / "b.db").exists()


def test_a_port_in_use(tmp_path: Path) -> None:
    """Before: "Open http://..." and then "[Errno 98] ..."."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = serve("--port", str(port), "--db", str(tmp_path / "b.db"))
    line = refused(done, f"port {port} on 127.0.0.1 is already in use", "--port")
    assert "Errno" not in line
    assert not (tmp_path / "b.db").exists()


def test_an_address_of_another_machine(tmp_path: Path) -> None:
    # 192.0.2.1 is for documentation (RFC 5737): no machine has it.
    refused(serve("--host", "192.0.2.1", "--db", str(tmp_path / "b.db")), "--host")


def test_open_is_printed_once_the_server_answers(tmp_path: Path) -> None:
    """With ``--port 0`` it listens on a free port and prints that one; the address answers as
    soon as it is printed (a single request, no retry)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "blink", "serve", "--port", "0", "--db", str(tmp_path / "b.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first == f"Database: {tmp_path / 'b.db'}\n"
        line = proc.stdout.readline()
        assert line.startswith("Open http://127.0.0.1:"), line
        url = line.split()[1]
        assert not url.endswith(":0/")
        health = httpx.get(f"{url}api/health", timeout=60)
        assert health.status_code == 200 and health.json()["status"] == "ok"
    finally:
        proc.terminate()
        proc.wait(timeout=60)


# --- help -------------------------------------------------------------------------------------


def test_help_fits_80_columns() -> None:
    """The PostgreSQL example used to end in "postgresql+psycopg://u…" at 80 columns."""
    done = subprocess.run(
        [sys.executable, "-m", "blink", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(line.strip() for line in lines)
    assert "blink serve --database-url postgresql+psycopg://user@host/db" in text
    assert 'pip install ".[postgres]"' in text
    assert "blink serve --port 8080" in text
    assert "(0: any free port)" in text


# --- the codes --------------------------------------------------------------------------------


def test_each_refusal_has_its_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same checks in this process: each failure is a value with its code."""
    from blink.cli.serving import ServeError, prepare

    def code(db: Path | None, url: str | None = None, port: int = 0) -> str:
        with pytest.raises(ServeError) as caught:
            prepare(db, url, "127.0.0.1", port)
        return caught.value.code

    (tmp_path / "notes").write_text("x")
    assert code(tmp_path / "notes" / "blink.db") == "db_folder"
    assert code(tmp_path) == "db_file"
    assert code(None, "foo://bar") == "db_url"
    assert code(None, "bar") == "db_url"
    pg = f"postgresql+psycopg://ann@127.0.0.1:{free_port()}/blink"
    assert code(None, pg) == "db_unreachable"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        assert code(tmp_path / "b.db", port=holder.getsockname()[1]) == "port_in_use"
    monkeypatch.setitem(sys.modules, "psycopg", None)  # makes ``import psycopg`` fail
    assert code(None, pg) == "db_driver"


def test_help_groups_its_options() -> None:
    """The help was 406 lines at 80 columns, every option in one narrow column of essays;
    related options now sit in panels with a line or two each, and no option's name is cut at
    100 columns."""
    panels = (
        "Address and database",
        "Games",
        "Quick play and the daily challenge",
        "Limits",
        "Browsers and proxies",
        "Cluster",
        "Running",
        "Mail (password reset)",
    )
    for columns, most in (("80", 250), ("100", 185)):
        done = subprocess.run(
            [sys.executable, "-m", "blink", "serve", "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "COLUMNS": columns},
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) <= most, len(lines)
        titles = [line.strip("╭─╮ ") for line in lines if line.startswith("╭─ ")]
        assert titles == ["Options", *panels], titles
    assert "…" not in done.stdout  # at 100 columns
    assert "[env var: BLINK_STALL_PAUSE]" in done.stdout
