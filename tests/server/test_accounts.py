"""Accounts on a real server: sign up, log in on another device and play as the same profile,
log out, recovery codes, sessions and "log out everywhere", claiming a browser's profile,
rate-limited logins, the account's data and its deletion."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import httpx
import pytest
import sqlalchemy as sa
from srvkit import ServerThread

PASSWORD = "correct horse battery"


@pytest.fixture
def browsers(server: ServerThread) -> Iterator[Callable[[], httpx.Client]]:
    """Clients with their own cookie jars (one browser each)."""
    made: list[httpx.Client] = []

    def make() -> httpx.Client:
        c = httpx.Client(base_url=server.http, timeout=30)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def _code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


def _sign_up(c: httpx.Client, name: str, **extra: str) -> dict:
    r = c.post("/api/accounts", json={"name": name, "password": PASSWORD, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_sign_up_and_log_in_on_another_device(
    browsers: Callable[[], httpx.Client],
) -> None:
    first, second = browsers(), browsers()
    made = _sign_up(first, "Alicia")
    cookie = first.cookies.jar
    setc = next(c for c in cookie if c.name == "blink_session")
    assert setc.has_nonstandard_attr("HttpOnly") and not setc.secure
    assert len(made["recovery_codes"]) == 8
    me = first.get("/api/me").json()
    assert me["name"] == "Alicia" and me["profile"] == made["profile"]
    assert second.get("/api/me").status_code == 401
    assert _code(second.get("/api/me")) == "not_logged_in"
    wrong = second.post("/api/session", json={"name": "Alicia", "password": "not it at all"})
    assert wrong.status_code == 401 and _code(wrong) == "bad_login"
    # Any spelling of the name logs in (one name however it is written).
    r = second.post("/api/session", json={"name": "ALICIA", "password": PASSWORD})
    assert r.status_code == 200, r.text
    assert r.json()["profile"] == made["profile"]
    assert second.get("/api/me").json()["profile"]["secret"] == made["profile"]["secret"]
    # The profile's secret takes a seat as the profile (a rated seat) on the second device.
    quick = second.post("/api/quick", json={"name": "x", "profile_secret": me["profile"]["secret"]})
    assert quick.status_code == 201 and quick.json()["token"] == made["profile"]["secret"]
    sessions = first.get("/api/me/sessions").json()["sessions"]
    assert len(sessions) == 2 and sum(s["current"] for s in sessions) == 1
    assert second.delete("/api/session").status_code == 204
    assert second.get("/api/me").status_code == 401
    assert first.get("/api/me").status_code == 200
    assert len(first.get("/api/me/sessions").json()["sessions"]) == 1


def test_a_weak_password_and_a_taken_name_are_refused(
    browsers: Callable[[], httpx.Client],
) -> None:
    c = browsers()
    r = c.post("/api/accounts", json={"name": "Bruno", "password": "short"})
    assert r.status_code == 400 and _code(r) == "weak_password"
    _sign_up(c, "Bruno")
    r = browsers().post("/api/accounts", json={"name": "bruno", "password": PASSWORD})
    assert r.status_code == 409 and _code(r) == "name_taken"
    # Accounts and profiles share one name space.
    r = browsers().post("/api/profiles", json={"name": "Brun0"})
    assert r.status_code == 409 and _code(r) == "name_lookalike"
    assert "Bruno" in r.json()["error"]["message"]


def test_a_browser_profile_is_claimed_with_its_games_and_rating(
    server: ServerThread, browsers: Callable[[], httpx.Client]
) -> None:
    made = server.post("/api/profiles", {"name": "Carla"}).json()
    before = server.get(f"/api/profiles/{made['id']}").json()
    c = browsers()
    r = c.post("/api/accounts", json={"password": PASSWORD, "profile_secret": made["secret"]})
    assert r.status_code == 201, r.text
    assert r.json()["profile"] == {"id": made["id"], "name": "Carla", "secret": made["secret"]}
    again = browsers().post(
        "/api/accounts", json={"password": PASSWORD, "profile_secret": made["secret"]}
    )
    assert again.status_code == 409 and _code(again) == "profile_claimed"
    unknown = browsers().post(
        "/api/accounts", json={"password": PASSWORD, "profile_secret": "nope"}
    )
    assert unknown.status_code == 400 and _code(unknown) == "no_such_profile"
    other = browsers()
    assert other.post("/api/session", json={"name": "Carla", "password": PASSWORD}).is_success
    assert other.get("/api/me").json()["profile"]["id"] == made["id"]
    after = server.get(f"/api/profiles/{made['id']}").json()
    assert after["rating"] == before["rating"] and after["name"] == "Carla"


def test_a_recovery_code_logs_in_once_and_sets_a_new_password(
    browsers: Callable[[], httpx.Client],
) -> None:
    made = _sign_up(browsers(), "Dario")
    code = made["recovery_codes"][3]
    lost = browsers()
    new = "a brand new password"
    bad = lost.post(
        "/api/session/recover",
        json={"name": "Dario", "code": "AAAA-BBBB-CCCC-DDDD", "password": new},
    )
    assert bad.status_code == 401 and _code(bad) == "bad_code"
    typed = code.lower().replace("-", " ")  # as a person may type it
    r = lost.post("/api/session/recover", json={"name": "Dario", "code": typed, "password": new})
    assert r.status_code == 200, r.text
    assert r.json()["profile"] == made["profile"]
    me = lost.get("/api/me").json()
    assert me["recovery_codes_left"] == 7
    again = browsers().post(
        "/api/session/recover", json={"name": "Dario", "code": code, "password": new}
    )
    assert again.status_code == 401 and _code(again) == "bad_code"
    old = browsers().post("/api/session", json={"name": "Dario", "password": PASSWORD})
    assert old.status_code == 401
    fresh = browsers()
    assert fresh.post("/api/session", json={"name": "Dario", "password": new}).is_success
    assert fresh.get("/api/me").json()["profile"] == made["profile"]


def test_logins_are_limited_per_account(browsers: Callable[[], httpx.Client]) -> None:
    _sign_up(browsers(), "Elena")
    c = browsers()
    for _ in range(10):
        r = c.post("/api/session", json={"name": "Elena", "password": "wrong password"})
        assert r.status_code == 401
    r = c.post("/api/session", json={"name": "Elena", "password": PASSWORD})
    assert r.status_code == 429 and _code(r) == "too_many_logins"
    assert int(r.headers["Retry-After"]) > 0


def test_logins_are_limited_per_address(browsers: Callable[[], httpx.Client]) -> None:
    c = browsers()
    for i in range(30):
        r = c.post("/api/session", json={"name": f"nobody{i}", "password": "whatever it is"})
        assert r.status_code == 401
    r = c.post("/api/session", json={"name": "nobody-else", "password": "whatever it is"})
    assert r.status_code == 429 and _code(r) == "too_many_logins"


def test_logging_out_everywhere_else_ends_the_other_sessions_and_the_old_secret(
    server: ServerThread, browsers: Callable[[], httpx.Client]
) -> None:
    here, there = browsers(), browsers()
    made = _sign_up(here, "Fabio")
    assert there.post("/api/session", json={"name": "Fabio", "password": PASSWORD}).is_success
    r = here.post("/api/me/sessions/end-others")
    assert r.status_code == 200 and r.json()["ended"] == 1
    secret = r.json()["profile"]["secret"]
    assert secret != made["profile"]["secret"]
    assert there.get("/api/me").status_code == 401
    assert here.get("/api/me").json()["profile"]["secret"] == secret
    old = server.post("/api/quick", {"name": "x", "profile_secret": made["profile"]["secret"]})
    assert old.status_code == 400 and _code(old) == "no_such_profile"
    assert server.post("/api/quick", {"name": "x", "profile_secret": secret}).status_code == 201
    # One session ended by its id.
    assert there.post("/api/session", json={"name": "Fabio", "password": PASSWORD}).is_success
    other = [s for s in here.get("/api/me/sessions").json()["sessions"] if not s["current"]]
    assert here.delete(f"/api/me/sessions/{other[0]['id']}").status_code == 204
    assert there.get("/api/me").status_code == 401
    missing = here.delete(f"/api/me/sessions/{other[0]['id']}")
    assert missing.status_code == 404 and _code(missing) == "no_such_session"


def test_the_account_data_and_its_deletion(
    server: ServerThread, browsers: Callable[[], httpx.Client]
) -> None:
    c = browsers()
    made = _sign_up(c, "Gina")
    data = c.get("/api/me/export")
    assert data.status_code == 200 and "attachment" in data.headers["Content-Disposition"]
    out = data.json()
    assert out["account"]["name"] == "Gina" and out["profile"]["id"] == made["profile"]["id"]
    assert len(out["sessions"]) == 1 and "history" in out["profile"]
    assert "secret" not in data.text and PASSWORD not in data.text
    wrong = c.request("DELETE", "/api/me", json={"password": "not the password"})
    assert wrong.status_code == 403 and _code(wrong) == "wrong_password"
    assert c.request("DELETE", "/api/me", json={"password": PASSWORD}).status_code == 204
    assert c.get("/api/me").status_code == 401
    gone = server.get(f"/api/profiles/{made['profile']['id']}").json()
    assert gone["name"] == "Deleted player"
    login = browsers().post("/api/session", json={"name": "Gina", "password": PASSWORD})
    assert login.status_code == 401
    # The name is free again.
    assert browsers().post("/api/accounts", json={"name": "Gina", "password": PASSWORD}).is_success


def test_the_database_keeps_only_hashes_and_sealed_boxes(
    server: ServerThread, browsers: Callable[[], httpx.Client]
) -> None:
    """The password as Argon2id, the session's token and the recovery codes as SHA-256, the
    profile's secret sealed: none of them is anywhere in the database as it was given."""
    c = browsers()
    made = _sign_up(c, "Hugo")
    token = c.cookies["blink_session"]
    engine = sa.create_engine(server.settings.database_url)
    try:
        with engine.connect() as conn:
            account = conn.execute(sa.text("SELECT * FROM accounts")).mappings().one()
            sessions = conn.execute(sa.text("SELECT * FROM account_sessions")).mappings().all()
            codes = conn.execute(sa.text("SELECT * FROM recovery_codes")).mappings().all()
            dump = " ".join(
                str(v)
                for table in ("accounts", "account_sessions", "recovery_codes", "profiles")
                for row in conn.execute(sa.text(f"SELECT * FROM {table}")).all()
                for v in row
            )
    finally:
        engine.dispose()
    assert account["password_hash"].startswith("$argon2id$")
    assert [s["token_hash"] for s in sessions] == [hashlib.sha256(token.encode()).hexdigest()]
    normal = {c.replace("-", "") for c in made["recovery_codes"]}
    assert {r["code_hash"] for r in codes} == {
        hashlib.sha256(n.encode()).hexdigest() for n in normal
    }
    for secret in (PASSWORD, token, made["profile"]["secret"], *made["recovery_codes"], *normal):
        assert secret not in dump
