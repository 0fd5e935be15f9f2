"""The tournament page's forms in headless Chromium against a real `blink serve`: a refusal is
shown where the user acted (under the form, its field marked invalid and focused), not only in
the top bar; in English and Spanish."""

from __future__ import annotations

from blinkweb import Server
from playwright.sync_api import Browser, expect

TIMEOUT = 20_000


def test_a_taken_name_at_sign_up_is_shown_at_the_form(server: Server, browser: Browser) -> None:
    server.api("/api/profiles", {"name": "Taken Tom"})
    made = server.api("/api/tournaments", {"name": "Sign-up cup", "kind": "online"})
    tid = str(made["id"])
    for lang, words, other in (
        (
            "en-GB",
            "A profile already has this name (or one that looks like it): choose another.",
            "Tom Free",
        ),
        ("es-ES", "Ya hay un perfil con este nombre (o uno parecido): elige otro.", "Tomás Libre"),
    ):
        ctx = browser.new_context(viewport={"width": 390, "height": 800}, locale=lang)
        page = ctx.new_page()
        page.goto(f"{server.url}/tournament.html?id={tid}")
        form = page.locator("#join-form")
        form.locator('input[name="name"]').fill("taken tom")
        form.locator('button[type="submit"]').click()
        error = form.locator(".form-error")
        expect(error).to_have_text(words, timeout=TIMEOUT)
        expect(error).to_have_attribute("role", "alert")
        field = form.locator('input[name="name"]')
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(field).to_have_attribute("aria-describedby", str(error.get_attribute("id")))
        expect(field).to_be_focused()
        # On a phone's screen the sentence is beside the form, in view, not up in the bar.
        box = error.bounding_box()
        assert box is not None and 0 <= box["y"] < 800 and box["height"] > 0
        assert words not in page.locator("#tstatus").inner_text()
        # Another name signs up, and the refusal is gone.
        field.fill(other)
        form.locator('button[type="submit"]').click()
        expect(page.locator("#join")).to_contain_text(other, timeout=TIMEOUT)
        expect(page.locator(".form-error")).to_have_count(0)
        ctx.close()
