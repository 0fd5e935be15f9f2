"""Accounts in the browser: sign up and see the recovery codes once, log in on a second
browser (another context: its own cookies and storage) and play as the same profile, log in
with a recovery code (in Spanish), and keep a browser's own profile in a new account."""

from __future__ import annotations

import json
import secrets
from typing import Any

from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, BrowserContext, Page, expect

PASSWORD = "correct horse battery"
# Argon2 takes a moment, longer on a busy machine: a login's answer is waited for this long (ms).
LOGIN = 30_000


def _stored(page: Page) -> Any:
    return json.loads(page.evaluate("localStorage.getItem('blink.profile')") or "null")


def _open_account(page: Page, server: Server) -> None:
    page.goto(server.url + "/")
    expect(page.locator("#btn-account[data-ready]")).to_be_visible()
    page.click("#btn-account")
    expect(page.locator("#account-dialog")).to_be_visible()


def _name() -> str:
    return "P" + secrets.token_hex(4)


def test_sign_up_then_log_in_on_a_second_browser(
    context: BrowserContext, browser: Browser, server: Server
) -> None:
    name = _name()
    page = context.new_page()
    errors = collect_errors(page)
    _open_account(page, server)
    expect(page.locator("#acc-claim")).to_have_count(0)  # no profile here yet
    page.fill("#acc-signup #acc-name", name)
    page.fill("#acc-signup #acc-password", PASSWORD)
    page.click("#acc-signup button[type=submit]")
    expect(page.locator("#acc-codes li")).to_have_count(8, timeout=LOGIN)
    page.click("#acc-codes-done")
    expect(page.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)
    mine = _stored(page)
    assert mine["name"] == name and mine["secret"]

    other = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page2 = other.new_page()
        errors2 = collect_errors(page2)
        _open_account(page2, server)
        expect(page2.locator("#btn-account")).to_have_text("Log in")
        page2.click("#acc-tab-login")
        page2.fill("#acc-login #acc-name", name.lower())
        page2.fill("#acc-login #acc-password", PASSWORD)
        page2.click("#acc-login button[type=submit]")
        expect(page2.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)
        assert _stored(page2) == mine  # the same profile: its games are rated as it
        page2.click("#btn-account")
        expect(page2.locator("#acc-sessions li")).to_have_count(2)
        page2.click("#acc-logout")
        expect(page2.locator("#btn-account[data-ready]")).to_have_text("Log in", timeout=LOGIN)
        assert _stored(page2) is None
        assert errors2 == []
    finally:
        other.close()
    assert errors == []


def test_a_recovery_code_logs_in_in_spanish(browser: Browser, server: Server) -> None:
    name = _name()
    made = server.api("/api/accounts", {"name": name, "password": PASSWORD})
    codes: list[str] = made["recovery_codes"]  # type: ignore[assignment]
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        errors = collect_errors(page)
        _open_account(page, server)
        expect(page.locator("#acc-tab-recover")).to_have_text("Código de recuperación")
        page.click("#acc-tab-recover")
        page.fill("#acc-recover #acc-name", name)
        page.fill("#acc-recover #acc-code", codes[0])
        page.fill("#acc-recover #acc-password", "una contraseña nueva")
        page.click("#acc-recover button[type=submit]")
        expect(page.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)
        assert _stored(page) == made["profile"]
        page.click("#btn-account")
        expect(page.locator("#acc-who")).to_have_text(f"Has entrado como {name}")
        assert errors == []
    finally:
        ctx.close()


def test_a_browser_profile_is_kept_in_a_new_account(
    context: BrowserContext, browser: Browser, server: Server
) -> None:
    name = _name()
    profile = server.api("/api/profiles", {"name": name})
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(server.url + "/")
    page.evaluate("p => localStorage.setItem('blink.profile', p)", json.dumps(profile))
    _open_account(page, server)
    expect(page.locator("#acc-claim")).to_be_checked()
    expect(page.locator("#acc-signup #acc-name")).to_be_hidden()
    page.fill("#acc-signup #acc-password", PASSWORD)
    page.click("#acc-signup button[type=submit]")
    expect(page.locator("#acc-codes li")).to_have_count(8, timeout=LOGIN)
    page.click("#acc-codes-done")
    expect(page.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)
    assert _stored(page) == profile  # the same profile, its secret unchanged
    assert errors == []

    other = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page2 = other.new_page()
        _open_account(page2, server)
        page2.click("#acc-tab-login")
        page2.fill("#acc-login #acc-name", name)
        page2.fill("#acc-login #acc-password", PASSWORD)
        page2.click("#acc-login button[type=submit]")
        expect(page2.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)
        assert _stored(page2)["id"] == profile["id"]
    finally:
        other.close()


def _log_in(page: Page, server: Server, name: str) -> None:
    _open_account(page, server)
    page.click("#acc-tab-login")
    page.fill("#acc-login #acc-name", name)
    page.fill("#acc-login #acc-password", PASSWORD)
    page.click("#acc-login button[type=submit]")
    expect(page.locator("#btn-account[data-ready]")).to_have_text(name, timeout=LOGIN)


def test_logging_out_everywhere_else(browser: Browser, server: Server) -> None:
    """The sessions list shows both browsers; "log out everywhere else" ends the other one,
    whose next page forgets the account's profile, and gives this one a new secret."""
    name = _name()
    made = server.api("/api/accounts", {"name": name, "password": PASSWORD})
    here = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    there = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        page, other = here.new_page(), there.new_page()
        errors = collect_errors(page)
        _log_in(page, server, name)
        _log_in(other, server, name)
        page.click("#btn-account")
        # Three: the sign-up's own (made over the API), the other browser's and this one.
        expect(page.locator("#acc-sessions li")).to_have_count(3)
        expect(page.locator("#acc-sessions .acc-end")).to_have_count(2)
        page.click("#acc-end-others")
        expect(page.locator("#acc-note")).to_have_text(
            "Logged out everywhere else: the other devices must log in again."
        )
        expect(page.locator("#acc-sessions li")).to_have_count(1)
        mine = _stored(page)
        assert mine["id"] == made["profile"]["id"]  # type: ignore[index]
        assert mine["secret"] != made["profile"]["secret"]  # type: ignore[index]
        other.reload()
        expect(other.locator("#btn-account[data-ready]")).to_have_text("Log in", timeout=LOGIN)
        assert _stored(other) is None
        assert errors == []
    finally:
        here.close()
        there.close()


def test_forgot_password_and_the_reset_page_without_mail(browser: Browser, server: Server) -> None:
    """This server sends no mail: "forgot your password?" says to use a recovery code (in
    Spanish), and a reset link's page refuses an unknown token in words."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    try:
        page = ctx.new_page()
        _open_account(page, server)
        expect(page.locator("#acc-tab-forgot")).to_have_text("¿Olvidaste la contraseña?")
        page.click("#acc-tab-forgot")
        page.fill("#acc-forgot #acc-who", "alguien@example.org")
        page.click("#acc-forgot button[type=submit]")
        expect(page.locator("#acc-forgot .error-msg")).to_contain_text("códigos de recuperación")
        page.goto(server.url + "/#reset=not-a-real-token")
        expect(page.locator("#acc-reset")).to_be_visible()
        assert "#reset" not in page.url  # the token leaves the address bar
        page.fill("#acc-reset #acc-password", "una contraseña nueva")
        page.click("#acc-reset button[type=submit]")
        expect(page.locator("#acc-reset .error-msg")).to_contain_text("ha caducado")
    finally:
        ctx.close()
