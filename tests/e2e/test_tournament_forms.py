"""The tournament page's forms and layout in headless Chromium against a real `blink serve`: a
refusal is shown where the user acted (under the form, its field marked invalid and focused),
not only in the top bar; on a phone, the organiser's forms have room, the champion is in the
first screen and the final round's Total column in view; in English and Spanish."""

from __future__ import annotations

import itertools
from typing import Any

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


PHONE = {"width": 390, "height": 844}


def finished_cards_tournament(server: Server, players: int) -> tuple[str, dict[str, Any]]:
    """A real-cards tournament of ``players`` entered through the API to its end (the first
    player of each open match wins every game): its id and final state."""
    names = [{"name": f"Jugador {chr(65 + i)}"} for i in range(players)]
    made = server.api("/api/tournaments", {"name": "Copa larga", "kind": "cards", "players": names})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 3})
    for _ in range(300):
        x = server.api(f"/api/tournaments/{tid}")
        if x["status"] == "finished":
            return tid, x
        m = next(m for m in x["tournament"]["matches"] if m["status"] in ("ready", "playing"))
        body = {"organiser_secret": secret, "match": m["id"], "winners": [m["players"][0]]}
        server.api(f"/api/tournaments/{tid}/result", body)
    raise AssertionError("the tournament did not finish")


def test_a_finished_tournament_on_a_phone(server: Server, browser: Browser) -> None:
    """On a phone: the champion is in the first screen (it was 2,000 px down, in the
    standings' caption), and the final round's Total column is in view beside each row (it
    was off to the right of the cross table); in English and Spanish."""
    tid, x = finished_cards_tournament(server, 13)  # four finalists: a wide cross table
    champion = x["tournament"]["champion"]
    second = next(s["name"] for s in x["tournament"]["standings"] if s["place"] == 2)
    for lang, head in (("en-GB", "Champion"), ("es-ES", "Campeón")):
        ctx = browser.new_context(viewport=PHONE, locale=lang)
        page = ctx.new_page()
        page.goto(f"{server.url}/tournament.html?id={tid}")
        banner = page.locator("#champion")
        expect(banner.locator("h2")).to_have_text(head, timeout=TIMEOUT)
        expect(banner.locator(".champion-name")).to_have_text(champion)
        expect(banner).to_contain_text(f"2. {second}")
        box = banner.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
        # The cross table: every Total cell (and its heading) is on the screen, uncovered.
        table = page.locator("#final-table")
        table.scroll_into_view_if_needed()
        totals = page.locator("#final-table .total")
        expect(totals).to_have_count(5)
        for i in range(5):
            cell = totals.nth(i)
            b = cell.bounding_box()
            assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"], (i, b)
            on_top = page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.closest('td, th')?.className ?? ''",
                [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2],
            )
            assert "total" in on_top, (i, on_top)
        ctx.close()


def test_the_organisers_forms_on_a_phone(server: Server, browser: Browser) -> None:
    """The organiser's forms before the draw (add a player, draw, check-in) on a phone: each
    apart from the next (they ran into each other), fields and buttons a finger's size, and
    the check-in box beside its words."""
    made = server.api("/api/tournaments", {"name": "Roomy", "kind": "cards"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    page = ctx.new_page()
    page.goto(f"{server.url}/tournament.html")
    page.evaluate(f"localStorage.setItem('blink.tournament.org.{tid}', '{secret}')")
    page.goto(f"{server.url}/tournament.html?id={tid}")
    forms = page.locator("#organiser form")
    expect(forms).to_have_count(3, timeout=TIMEOUT)
    boxes = [forms.nth(i).bounding_box() for i in range(3)]
    for upper, lower in itertools.pairwise(boxes):
        assert upper is not None and lower is not None
        assert lower["y"] - (upper["y"] + upper["height"]) >= 12, (upper, lower)
    controls = page.locator(
        "#organiser form input:not([type=checkbox]), #organiser form button, #organiser form select"
    )
    for i in range(controls.count()):
        b = controls.nth(i).bounding_box()
        assert b is not None and b["height"] >= 40, (i, b)
    # Inside a form, one control does not touch the next.
    for f in range(3):
        items = forms.nth(f).locator("input:not([type=checkbox]), button, select")
        rects = [items.nth(i).bounding_box() for i in range(items.count())]
        for a, b in itertools.combinations(rects, 2):
            assert a is not None and b is not None
            gap_x = max(b["x"] - (a["x"] + a["width"]), a["x"] - (b["x"] + b["width"]))
            gap_y = max(b["y"] - (a["y"] + a["height"]), a["y"] - (b["y"] + b["height"]))
            assert max(gap_x, gap_y) >= 8, (f, a, b)
    check = page.locator('#organiser input[name="draw"]').bounding_box()
    words = page.locator('#organiser label:has(input[name="draw"]) span').bounding_box()
    assert check is not None and words is not None
    assert check["x"] + check["width"] <= words["x"]  # the box before its words
    middle = check["y"] + check["height"] / 2
    assert words["y"] <= middle <= words["y"] + words["height"]  # on their line
    ctx.close()
