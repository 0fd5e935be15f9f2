"""Bot accounts on a real server: a logged-in account makes a bot whose token is shown once
(kept as its SHA-256 only), lists its bots without tokens, rotates and revokes the token; a
bot's profile says it is a bot and names its owner; the limits and refusals have codes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa
from srvkit import ServerThread

from blink.server.bot_accounts.service import MAX_BOTS

PASSWORD = "correct horse battery"


def _code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


@pytest.fixture
def owner(server: ServerThread) -> Iterator[httpx.Client]:
    """A browser logged in as the account "Ada"."""
    with httpx.Client(base_url=server.http, timeout=30) as c:
        r = c.post("/api/accounts", json={"name": "Ada", "password": PASSWORD})
        assert r.status_code == 201, r.text
        yield c


def test_a_bot_is_made_listed_and_its_token_shown_once(
    server: ServerThread, owner: httpx.Client
) -> None:
    r = owner.post("/api/bots", json={"name": "Robotnik"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["bot"] is True and made["name"] == "Robotnik" and len(made["token"]) > 20
    listed = owner.get("/api/bots").json()
    assert listed["limit"] == MAX_BOTS
    assert [b["name"] for b in listed["bots"]] == ["Robotnik"]
    assert "token" not in listed["bots"][0] and listed["bots"][0]["token_live"] is True
    assert made["token"] not in owner.get("/api/bots").text
    # The bot's profile says what it is and whose it is.
    page = server.get(f"/api/profiles/{made['id']}").json()
    assert page["bot"] is True and page["owner"] == "Ada" and page["name"] == "Robotnik"
    me = owner.get("/api/me").json()
    person = server.get(f"/api/profiles/{me['profile']['id']}").json()
    assert person["bot"] is False and person["owner"] is None
    # The database keeps the token's SHA-256, never the token.
    engine = sa.create_engine(server.settings.database_url)
    digest = hashlib.sha256(made["token"].encode()).hexdigest()
    with engine.connect() as conn:
        hashes = [r[0] for r in conn.execute(sa.text("SELECT token_hash FROM bot_tokens"))]
        dump = " ".join(
            str(v)
            for t in ("bots", "bot_tokens", "profiles")
            for row in conn.execute(sa.text(f"SELECT * FROM {t}"))
            for v in row
        )
    engine.dispose()
    assert hashes == [digest] and made["token"] not in dump
    paths = server.get("/openapi.json").json()["paths"]
    assert {"/api/bots", "/api/bots/{name}/token"} <= set(paths)


def test_rotate_and_revoke(server: ServerThread, owner: httpx.Client) -> None:
    made = owner.post("/api/bots", json={"name": "Rotor"}).json()
    old = made["token"]
    quick = server.post("/api/quick", {"profile_secret": old})
    assert quick.status_code == 201, quick.text
    r = owner.post("/api/bots/rotor/token")  # any spelling of the name
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    assert new != old and r.json()["id"] == made["id"]
    bearer = {"Authorization": f"Bearer {old}"}
    refused = httpx.post(f"{server.http}/api/quick", json={}, headers=bearer, timeout=30)
    assert refused.status_code == 401 and _code(refused) == "bad_bot_token"
    assert _code(server.post("/api/quick", {"profile_secret": old})) == "no_such_profile"
    ok = httpx.post(
        f"{server.http}/api/quick", json={}, headers={"Authorization": f"Bearer {new}"}, timeout=30
    )
    assert ok.status_code == 201, ok.text
    assert owner.delete("/api/bots/Rotor/token").status_code == 204
    gone = httpx.post(
        f"{server.http}/api/quick", json={}, headers={"Authorization": f"Bearer {new}"}, timeout=30
    )
    assert gone.status_code == 401 and _code(gone) == "bad_bot_token"
    assert owner.get("/api/bots").json()["bots"][0]["token_live"] is False
    again = owner.post("/api/bots/Rotor/token").json()["token"]
    assert owner.get("/api/bots").json()["bots"][0]["token_live"] is True
    assert again not in (old, new)


def test_refusals(server: ServerThread, owner: httpx.Client) -> None:
    anonymous = server.post("/api/bots", {"name": "Nobody"})
    assert anonymous.status_code == 401 and _code(anonymous) == "not_logged_in"
    assert server.get("/api/bots").status_code == 401
    assert _code(owner.post("/api/bots", json={"name": "Ada"})) == "name_taken"
    assert owner.post("/api/bots", json={"name": "Pepe"}).status_code == 201
    assert _code(owner.post("/api/bots", json={"name": "Рере"})) == "name_lookalike"
    for i in range(MAX_BOTS - 1):
        assert owner.post("/api/bots", json={"name": f"Unit{i}"}).status_code == 201
    over = owner.post("/api/bots", json={"name": "Unit99"})
    assert over.status_code == 409 and _code(over) == "too_many_bots"
    missing = owner.post("/api/bots/Nemo/token")
    assert missing.status_code == 404 and _code(missing) == "no_such_bot"
    # Another account cannot touch Ada's bots.
    with httpx.Client(base_url=server.http, timeout=30) as other:
        other.post("/api/accounts", json={"name": "Grace", "password": PASSWORD})
        assert _code(other.post("/api/bots/Unit0/token")) == "no_such_bot"
        assert other.get("/api/bots").json()["bots"] == []
    bad = httpx.post(
        f"{server.http}/api/quick", json={}, headers={"Authorization": "Basic x"}, timeout=30
    )
    assert bad.status_code == 401 and _code(bad) == "bad_bot_token"


def test_deleting_the_account_revokes_its_bots(server: ServerThread, owner: httpx.Client) -> None:
    made = owner.post("/api/bots", json={"name": "Orphan"}).json()
    bearer = {"Authorization": f"Bearer {made['token']}"}
    assert httpx.post(f"{server.http}/api/quick", json={}, headers=bearer).status_code == 201
    gone = owner.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert gone.status_code == 204, gone.text
    refused = httpx.post(f"{server.http}/api/quick", json={}, headers=bearer)
    assert refused.status_code == 401 and _code(refused) == "bad_bot_token"
    assert server.get(f"/api/profiles/{made['id']}").json()["bot"] is True
