"""The account endpoints: ``/api/accounts`` (sign up, or claim a browser's profile),
``/api/session`` (log in, log out, recover with a code) and ``/api/me`` (who is logged in, the
sessions, the account's data, deleting it).

A session is a cookie (:data:`COOKIE`): ``HttpOnly`` (no script reads it), ``SameSite=Lax``
(another site's forms and scripts do not send it), ``Secure`` when the request came over
HTTPS (directly or, with ``--proxy-headers``, through a trusted proxy's
``X-Forwarded-Proto``). What accounts do is :mod:`blink.server.accounts.service`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Cookie, Depends, Request, Response
from pydantic import BaseModel, Field

from blink.server import daily
from blink.server.accounts import reset, service
from blink.server.accounts.logins import LoginLimiter
from blink.server.accounts.passwords import MAX_PASSWORD
from blink.server.accounts.service import Current, Opened
from blink.server.bot_accounts.service import revoke_all
from blink.server.names import MAX_NAME
from blink.server.routes.deps import HubDep, WritableHubDep, check_creation

__all__ = ["COOKIE", "router"]

COOKIE = "blink_session"
"""The session cookie's name."""

router = APIRouter(tags=["accounts"])


class NewAccount(BaseModel):
    """An account to make: a new profile's ``name``, or the ``profile_secret`` of the
    browser's profile to claim (its name is then the account's)."""

    name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    password: str = Field(max_length=MAX_PASSWORD)
    profile_secret: str | None = Field(default=None, max_length=64)


class Login(BaseModel):
    """A name and its password."""

    name: str = Field(min_length=1, max_length=64)
    password: str = Field(max_length=MAX_PASSWORD)


class Recovery(BaseModel):
    """A name, one of its recovery codes, and the new password."""

    name: str = Field(min_length=1, max_length=64)
    code: str = Field(min_length=1, max_length=64)
    password: str = Field(max_length=MAX_PASSWORD)


class Password(BaseModel):
    """The account's password (to delete it)."""

    password: str = Field(max_length=MAX_PASSWORD)


class NewEmail(BaseModel):
    """The account's address to record (``""``: forget it), with its password."""

    email: str = Field(max_length=reset.MAX_EMAIL)
    password: str = Field(max_length=MAX_PASSWORD)


class EmailAnswer(BaseModel):
    """The address the account now has (``None``: none)."""

    email: str | None


class ResetRequest(BaseModel):
    """An account's name, or the address it recorded."""

    name: str | None = Field(default=None, min_length=1, max_length=64)
    email: str | None = Field(default=None, min_length=1, max_length=reset.MAX_EMAIL)


class ResetRequested(BaseModel):
    """The one answer a reset request gets, whoever it named."""

    status: str


class ResetConfirm(BaseModel):
    """A mailed reset token and the new password."""

    token: str = Field(min_length=1, max_length=100)
    password: str = Field(max_length=MAX_PASSWORD)


class ResetDone(BaseModel):
    """The password is set and every session ended: the account's new recovery codes (the
    old ones opened the old key), shown this once."""

    name: str
    recovery_codes: list[str]


class ProfileKey(BaseModel):
    """The account's profile, with its secret for this browser (the seat token of its games)."""

    id: str
    name: str
    secret: str


class SessionAnswer(BaseModel):
    """A session just opened."""

    name: str
    profile: ProfileKey
    session: str


class SignedUp(SessionAnswer):
    """A new account: its recovery codes are shown this once."""

    recovery_codes: list[str]


class Me(SessionAnswer):
    """Who is logged in."""

    created_at: float
    recovery_codes_left: int
    email: str | None = None


class SessionInfo(BaseModel):
    """One logged-in browser of the account."""

    id: str
    created_at: float
    seen_at: float
    agent: str
    current: bool


class Sessions(BaseModel):
    """The account's sessions, the latest used first."""

    sessions: list[SessionInfo]


class EndedOthers(BaseModel):
    """Every other session ended; the profile's new secret for this browser."""

    profile: ProfileKey
    ended: int


class AccountFacts(BaseModel):
    """The account's own facts."""

    name: str
    created_at: float
    recovery_codes_left: int
    email: str | None = None


class Export(BaseModel):
    """Everything the server keeps about an account (nothing kept only hashed or sealed)."""

    account: AccountFacts
    sessions: list[SessionInfo]
    profile: dict[str, Any]
    exported_at: float


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else ""


def _agent(request: Request) -> str:
    return request.headers.get("user-agent", "")


def _limiter(request: Request) -> LoginLimiter:
    state = request.app.state
    limiter: LoginLimiter | None = getattr(state, "login_limiter", None)
    if limiter is None:
        limiter = state.login_limiter = LoginLimiter()
    limiter.shared = getattr(state, "shared_windows", None)  # the cluster's, while it runs
    return limiter


def _reset_limiter(request: Request) -> LoginLimiter:
    state = request.app.state
    limiter: LoginLimiter | None = getattr(state, "reset_limiter", None)
    if limiter is None:
        limiter = state.reset_limiter = reset.reset_limiter()
    limiter.shared = getattr(state, "shared_windows", None)
    return limiter


def _set_cookie(request: Request, response: Response, opened: Opened) -> None:
    response.set_cookie(
        COOKIE,
        opened.token,
        max_age=service.SESSION_DAYS * 86_400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


async def _current(h: HubDep, blink_session: Annotated[str | None, Cookie()] = None) -> Current:
    return service.need(service.current(h, blink_session))


CurrentDep = Annotated[Current, Depends(_current)]


@router.post(
    "/api/accounts",
    status_code=201,
    dependencies=[Depends(check_creation)],
    response_model=SignedUp,
)
async def sign_up(
    h: WritableHubDep, body: NewAccount, request: Request, response: Response
) -> dict[str, Any]:
    """Make an account and log in: over a new profile (``name``), or over this browser's
    profile (``profile_secret``: its games and rating stay). The recovery codes are in this
    answer only."""
    opened = await service.sign_up(
        h, body.name, body.password, body.profile_secret, _agent(request)
    )
    if not body.profile_secret:
        h.feeds.profile_made()  # type: ignore[attr-defined]
    _set_cookie(request, response, opened)
    return opened.answer


@router.post("/api/session", response_model=SessionAnswer)
async def log_in(
    h: WritableHubDep, body: Login, request: Request, response: Response
) -> dict[str, Any]:
    """Log in with a name and its password (on any device): the session's cookie, and the
    profile's secret for this browser."""
    opened = await service.log_in(
        h, _limiter(request), _address(request), body.name, body.password, _agent(request)
    )
    _set_cookie(request, response, opened)
    return opened.answer


@router.post("/api/session/recover", response_model=SessionAnswer)
async def recover(
    h: WritableHubDep, body: Recovery, request: Request, response: Response
) -> dict[str, Any]:
    """Log in with one of the account's recovery codes (spent by this) and set a new
    password."""
    opened = await service.recover(
        h,
        _limiter(request),
        _address(request),
        body.name,
        body.code,
        body.password,
        _agent(request),
    )
    _set_cookie(request, response, opened)
    return opened.answer


@router.delete("/api/session", status_code=204)
async def log_out(
    h: HubDep,
    request: Request,
    response: Response,
    blink_session: Annotated[str | None, Cookie()] = None,
) -> None:
    """Log out: this session ends and its cookie is cleared (204 even with no session)."""
    cur = service.current(h, blink_session)
    if cur is not None:
        await service.log_out(h, cur)
    _clear_cookie(request, response)


@router.get("/api/me", response_model=Me)
async def me(h: HubDep, cur: CurrentDep) -> dict[str, Any]:
    """Who is logged in: the account's name, its profile (with the secret this browser plays
    with) and how many recovery codes are left. 401 ``not_logged_in`` without a session."""
    return await service.me(h, cur)


@router.get("/api/me/sessions", response_model=Sessions)
async def list_sessions(h: HubDep, cur: CurrentDep) -> dict[str, Any]:
    """The account's logged-in browsers."""
    return {"sessions": service.sessions(h, cur)}


@router.delete("/api/me/sessions/{sid}", status_code=204)
async def end_session(h: WritableHubDep, cur: CurrentDep, sid: str) -> None:
    """End one of the account's sessions (404 ``no_such_session``)."""
    await service.end_session(h, cur, sid)


@router.post("/api/me/sessions/end-others", response_model=EndedOthers)
async def end_others(h: WritableHubDep, cur: CurrentDep) -> dict[str, Any]:
    """Log out everywhere else: every other session ends, and the profile gets a new secret
    (given here for this browser), so no other browser's copy takes a seat as it any more."""
    return await service.log_out_everywhere(h, cur)


@router.get("/api/me/export", response_model=Export)
async def export(h: HubDep, cur: CurrentDep, response: Response) -> dict[str, Any]:
    """Everything the server keeps about the account, as JSON (a download)."""
    out = service.export(h, cur)
    out["profile"]["daily_streak"] = daily.streak(h, cur.account.profile_id, daily.today(h))
    response.headers["Content-Disposition"] = 'attachment; filename="blink-account.json"'
    return out


@router.delete("/api/me", status_code=204)
async def delete_me(
    h: WritableHubDep, cur: CurrentDep, body: Password, request: Request, response: Response
) -> None:
    """Delete the account (with its password): sessions and codes go; its games stay, its
    profile named "Deleted player" and its name free."""
    await service.delete_account(h, _limiter(request), _address(request), cur, body.password)
    await revoke_all(h, cur.account.id)  # its bots stop playing
    _clear_cookie(request, response)


@router.put("/api/me/email", response_model=EmailAnswer)
async def set_email(
    h: WritableHubDep, cur: CurrentDep, body: NewEmail, request: Request
) -> dict[str, Any]:
    """Record the account's mail address (``""``: forget it), with its password: password
    reset mails go there."""
    return await reset.set_email(
        h, _limiter(request), _address(request), cur, body.email, body.password
    )


@router.post("/api/password-reset", status_code=202, response_model=ResetRequested)
async def password_reset(h: WritableHubDep, body: ResetRequest, request: Request) -> dict[str, Any]:
    """Mail a password reset link to the account named (by ``name`` or ``email``), if it has
    an address: always the same 202, whether or not it does. 503 ``mail_not_configured``
    when the server sends no mail (recovery codes remain)."""
    who = body.email or body.name or ""
    await reset.request_reset(h, _reset_limiter(request), _address(request), who)
    return {"status": "requested"}


@router.post("/api/password-reset/confirm", response_model=ResetDone)
async def password_reset_confirm(
    h: WritableHubDep, body: ResetConfirm, request: Request
) -> dict[str, Any]:
    """Set a new password with a mailed token: the token is spent, every session of the
    account ends, and new recovery codes replace the old ones (in this answer only)."""
    return await reset.confirm_reset(
        h, _reset_limiter(request), _address(request), body.token, body.password
    )
