"""``blink serve``'s SMTP options: a missing From address or public URL exits 2 with a
sentence, the password comes from the environment only, and the ports follow the security."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer

from blink.cli.serve_mail import mail_settings


def test_no_host_no_mail() -> None:
    assert mail_settings(None, None, "starttls", None, None, None) is None


def test_the_settings_from_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BLINK_SMTP_PASSWORD", "s3cret")
    got = mail_settings("smtp.x.org", None, "SSL", "me", "noreply@x.org", "https://x.org")
    assert got is not None
    assert (got.port, got.security, got.user, got.password) == (465, "ssl", "me", "s3cret")
    assert "s3cret" not in repr(got)
    plain = mail_settings("relay", None, "none", None, "a@x.org", "http://x")
    assert plain is not None and plain.port == 25 and plain.password is None


def test_wrong_options_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BLINK_SMTP_PASSWORD", raising=False)
    for args in (
        ("h", None, "tls", None, "a@x.org", "https://x"),
        ("h", None, "ssl", None, None, "https://x"),
        ("h", None, "ssl", None, "a@x.org", "x.org"),
        ("h", None, "ssl", "me", "a@x.org", "https://x"),
    ):
        with pytest.raises(typer.Exit) as caught:
            mail_settings(*args)
        assert caught.value.exit_code == 2


def test_the_command_says_what_is_missing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "blink", "serve", "--smtp-host", "localhost", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BLINK_SMTP_FROM": ""},
    )
    assert done.returncode == 2
    assert "--smtp-from" in done.stderr and "Traceback" not in done.stderr
