"""The session cookie is ``Secure`` when the request came over HTTPS: behind a trusted proxy
(``blink serve --proxy-headers``) that is the proxy's ``X-Forwarded-Proto``; from an address
not trusted, the header is ignored (the connection is plain HTTP)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from serve_process import ServeProcess

pytestmark = pytest.mark.timeout(300)

TRUSTED = ("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1,::1")
UNTRUSTED = ("--proxy-headers", "--forwarded-allow-ips", "192.0.2.1")


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


def _cookie(proc: ServeProcess, name: str, **headers: str) -> str:
    r = proc.post("/api/accounts", {"name": name, "password": "long enough pw"}, **headers)
    assert r.status_code == 201, r.text
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("blink_session=") and "HttpOnly" in cookie, cookie
    assert "SameSite=lax" in cookie or "samesite=lax" in cookie.lower(), cookie
    return cookie


def test_the_cookie_is_secure_over_https_only(tmp_path: Path, started: list[ServeProcess]) -> None:
    trusted = ServeProcess(tmp_path / "t.db", *TRUSTED)
    started.append(trusted)
    trusted.start()
    assert "Secure" in _cookie(trusted, "Ines", **{"X-Forwarded-Proto": "https"})
    assert "Secure" not in _cookie(trusted, "Jorge")
    untrusted = ServeProcess(tmp_path / "u.db", *UNTRUSTED)
    started.append(untrusted)
    untrusted.start()
    assert "Secure" not in _cookie(untrusted, "Karla", **{"X-Forwarded-Proto": "https"})
