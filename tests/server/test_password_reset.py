"""Password reset by mail on a real server, with a real SMTP server (aiosmtpd) on a free
port: the address recorded with the password, the one 202 whoever is named, the mailed link
followed, the new password logging in, every old session ended, the token single-use and
expiring (the server's wall clock moved, no sleeping), the windows, and 503 without SMTP."""

from __future__ import annotations

import queue
import re
from collections.abc import Callable, Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from srvkit import ServerThread, free_port

from blink.server.settings import MailSettings

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new passphrase"
WAIT = 30.0


class Inbox:
    """aiosmtpd's handler: every mail received, in order."""

    def __init__(self) -> None:
        self.mails: queue.Queue[EmailMessage] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        self.mails.put(msg)
        return "250 OK"

    def next(self) -> EmailMessage:
        return self.mails.get(timeout=WAIT)


class Clock:
    """The server's wall clock, moved by the test."""

    def __init__(self) -> None:
        import time

        self.offset = 0.0
        self._time = time.time

    def __call__(self) -> float:
        return self._time() + self.offset


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    box = Inbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


def _token(msg: EmailMessage) -> str:
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    found = re.search(r"https://blink\.example/#reset=([A-Za-z0-9_-]+)", body.get_content())
    assert found is not None, body.get_content()
    return found[1]


def _code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


@pytest.fixture
def mailing(
    make_server: Callable[..., ServerThread], inbox: tuple[Inbox, int]
) -> tuple[ServerThread, Inbox, Clock]:
    box, port = inbox
    clock = Clock()
    mail = MailSettings(
        host="127.0.0.1",
        port=port,
        security="none",
        sender="noreply@blink.example",
        base_url="https://blink.example/",
    )
    return make_server(mail=mail, wall_clock=clock), box, clock


def _client(server: ServerThread) -> httpx.Client:
    return httpx.Client(base_url=server.http, timeout=WAIT)


def test_a_mailed_link_sets_a_new_password_once(
    mailing: tuple[ServerThread, Inbox, Clock],
) -> None:
    server, box, clock = mailing
    with _client(server) as first, _client(server) as second, _client(server) as third:
        made = first.post("/api/accounts", json={"name": "Alicia", "password": PASSWORD})
        assert made.status_code == 201, made.text
        old_codes = made.json()["recovery_codes"]
        wrong = first.put("/api/me/email", json={"email": "a@x.org", "password": "not it at all"})
        assert wrong.status_code == 403 and _code(wrong) == "wrong_password"
        bad = first.put("/api/me/email", json={"email": "not an address", "password": PASSWORD})
        assert bad.status_code == 400 and _code(bad) == "bad_email"
        r = first.put("/api/me/email", json={"email": "Alicia@Example.org", "password": PASSWORD})
        assert r.status_code == 200 and r.json() == {"email": "Alicia@Example.org"}
        assert first.get("/api/me").json()["email"] == "Alicia@Example.org"
        assert first.get("/api/me/export").json()["account"]["email"] == "Alicia@Example.org"
        assert second.post("/api/session", json={"name": "Alicia", "password": PASSWORD}).is_success

        # Nobody, an account without an address and a real one: the same answer.
        nobody = third.post("/api/password-reset", json={"name": "Nobody at all"})
        third.post("/api/accounts", json={"name": "Bruno", "password": PASSWORD})
        no_address = third.post("/api/password-reset", json={"name": "Bruno"})
        real = third.post("/api/password-reset", json={"email": "alicia@example.ORG"})
        assert nobody.status_code == no_address.status_code == real.status_code == 202
        assert nobody.json() == no_address.json() == real.json()
        msg = box.next()
        assert msg["To"] == "Alicia@Example.org" and "noreply@blink.example" in msg["From"]
        token = _token(msg)

        weak = third.post("/api/password-reset/confirm", json={"token": token, "password": "x"})
        assert weak.status_code == 400 and _code(weak) == "weak_password"
        done = third.post(
            "/api/password-reset/confirm", json={"token": token, "password": NEW_PASSWORD}
        )
        assert done.status_code == 200, done.text
        assert done.json()["name"] == "Alicia" and len(done.json()["recovery_codes"]) == 8
        again = third.post(
            "/api/password-reset/confirm", json={"token": token, "password": NEW_PASSWORD}
        )
        assert again.status_code == 400 and _code(again) == "bad_reset_token"

        # Every old session is gone; the old password and codes no longer log in.
        assert first.get("/api/me").status_code == 401
        assert second.get("/api/me").status_code == 401
        old = third.post("/api/session", json={"name": "Alicia", "password": PASSWORD})
        assert old.status_code == 401
        stale = third.post(
            "/api/session/recover",
            json={"name": "Alicia", "code": old_codes[0], "password": NEW_PASSWORD},
        )
        assert stale.status_code == 401
        r = third.post("/api/session", json={"name": "Alicia", "password": NEW_PASSWORD})
        assert r.status_code == 200, r.text
        me = third.get("/api/me").json()
        assert me["recovery_codes_left"] == 8 and me["email"] == "Alicia@Example.org"
        assert me["profile"]["id"] == made.json()["profile"]["id"]
        # The profile's new secret takes its seat (the vault opened with the new key).
        assert me["profile"]["secret"] != made.json()["profile"]["secret"]
        quick = third.post(
            "/api/quick", json={"name": "x", "profile_secret": me["profile"]["secret"]}
        )
        assert quick.status_code == 201 and quick.json()["token"] == me["profile"]["secret"]
        code = done.json()["recovery_codes"][0]
        r = first.post(
            "/api/session/recover", json={"name": "Alicia", "code": code, "password": PASSWORD}
        )
        assert r.status_code == 200, r.text

        # A token expires 30 minutes after it was mailed (the server's clock moved).
        assert third.post("/api/password-reset", json={"name": "alicia"}).status_code == 202
        late = _token(box.next())
        clock.offset += 30 * 60 + 1
        r = third.post(
            "/api/password-reset/confirm", json={"token": late, "password": NEW_PASSWORD}
        )
        assert r.status_code == 400 and _code(r) == "bad_reset_token"
        assert box.mails.empty()


def test_reset_requests_are_rate_limited(
    mailing: tuple[ServerThread, Inbox, Clock],
) -> None:
    server, box, _ = mailing
    with _client(server) as c:
        for name in ("Carla", "Dario"):
            c.post("/api/accounts", json={"name": name, "password": PASSWORD})
            r = c.put("/api/me/email", json={"email": f"{name}@x.org", "password": PASSWORD})
            assert r.status_code == 200
        # Three mails an hour to one account: the fourth request sends none.
        for _ in range(4):
            assert c.post("/api/password-reset", json={"name": "Carla"}).status_code == 202
        assert [box.next()["To"] for _ in range(3)] == ["Carla@x.org"] * 3
        assert c.post("/api/password-reset", json={"name": "Dario"}).status_code == 202
        assert box.next()["To"] == "Dario@x.org"
        assert box.mails.empty()
        # Ten requests in ten minutes from one address: the eleventh is refused.
        for _ in range(5):
            assert c.post("/api/password-reset", json={"name": "Nobody"}).status_code == 202
        r = c.post("/api/password-reset", json={"name": "Nobody"})
        assert r.status_code == 429 and _code(r) == "too_many_resets"
        assert int(r.headers["Retry-After"]) >= 1


def test_without_smtp_a_reset_points_to_recovery_codes(server: ServerThread) -> None:
    with _client(server) as c:
        r = c.post("/api/password-reset", json={"name": "Alicia"})
        assert r.status_code == 503 and _code(r) == "mail_not_configured"
        assert "recovery code" in r.json()["error"]["message"]
        r = c.post("/api/password-reset/confirm", json={"token": "abc", "password": NEW_PASSWORD})
        assert r.status_code == 400 and _code(r) == "bad_reset_token"
