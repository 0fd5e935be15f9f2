"""The tournament page's organiser operations in headless Chromium against a real `blink
serve`: a correction of a game and a withdrawal from the page, the walkover in the bracket and
the audit trail, in English and in Spanish; a player entered by name claims the seat from the
claim link."""

from __future__ import annotations

import re

from blinkweb import Server, collect_errors
from playwright.sync_api import BrowserContext, expect

TIMEOUT = 20_000


def test_organiser_corrects_a_game_and_withdraws_a_player_from_the_page(
    server: Server, context: BrowserContext
) -> None:
    made = server.api("/api/tournaments", {"name": "Ops night", "kind": "cards"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    for name in ("Opa", "Opb", "Opc", "Opd", "Ope"):
        server.api(f"/api/tournaments/{tid}/players", {"organiser_secret": secret, "name": name})
    s = server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 4})
    matches = {m["id"]: m for m in s["tournament"]["matches"]}  # type: ignore[index, union-attr]
    a, b = matches["R1-1"]["players"]
    c, _d = matches["R1-2"]["players"]
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/tournament.html")
    page.evaluate(f"localStorage.setItem('blink.tournament.org.{tid}', '{secret}')")
    page.goto(f"{server.url}/tournament.html?id={tid}")
    box = page.locator('.match[data-match="R1-1"]')
    expect(box.locator(f'button[data-win="{a}"]')).to_be_visible(timeout=TIMEOUT)
    box.locator(f'button[data-win="{a}"]').click()
    expect(box).to_have_attribute("data-status", "playing", timeout=TIMEOUT)
    # The organiser corrects game 1: b won it.
    form = page.locator("#correct-R1-1")
    form.locator('select[name="game"]').select_option("1")
    form.locator('select[name="winner"]').select_option(b)
    form.locator('button[type="submit"]').click()
    expect(page.locator('#changes li[data-kind="correction"]')).to_contain_text(
        f"game 1 of R1-1 corrected: {a} → {b}", timeout=TIMEOUT
    )
    expect(page.locator("#changes li")).to_contain_text(["organiser"])
    # c withdraws: R1-2 is a walkover to the other player.
    page.locator(f'button[data-withdraw="{c}"]').click()
    r12 = page.locator('.match[data-match="R1-2"]')
    expect(r12).to_have_attribute("data-status", "decided", timeout=TIMEOUT)
    expect(r12.locator(".score")).to_contain_text("goes through on a walkover")
    expect(r12).to_contain_text(f"{c} · forfeit")
    expect(page.locator(f'#players li[data-player="{c}"]')).to_contain_text("withdrawn")
    expect(page.locator('#changes li[data-kind="withdrawal"]')).to_contain_text(f"{c} withdrew")
    assert page.locator(f'button[data-withdraw="{c}"]').count() == 0
    # The same in Spanish.
    page.select_option("#lang", "es")
    expect(page.locator('#changes li[data-kind="correction"]')).to_contain_text(
        "partida 1 de R1-1 corregida", timeout=TIMEOUT
    )
    expect(r12.locator(".score")).to_contain_text("pasa por incomparecencia")
    expect(page.locator('#changes li[data-kind="withdrawal"]')).to_contain_text(f"{c} se retiró")
    expect(page.locator(f'#players li[data-player="{c}"]')).to_contain_text("retirado")
    page.select_option("#lang", "en")
    assert errors == []


def test_a_player_entered_by_name_claims_the_seat_from_the_link(
    server: Server, context: BrowserContext
) -> None:
    made = server.api("/api/tournaments", {"name": "Claim cup", "kind": "online"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    org = context.new_page()
    errors = collect_errors(org)
    org.goto(f"{server.url}/tournament.html")
    org.evaluate(f"localStorage.setItem('blink.tournament.org.{tid}', '{secret}')")
    org.goto(f"{server.url}/tournament.html?id={tid}")
    # The organiser enters a player by name, then fetches the claim links.
    org.fill('#add-player input[name="name"]', "Cla")
    org.click('#add-player button[type="submit"]')
    expect(org.locator('#players li[data-player="Cla"]')).to_contain_text(
        "seat to claim", timeout=TIMEOUT
    )
    org.click("#claim-links")
    link = org.locator("#claims a")
    expect(link).to_have_count(1, timeout=TIMEOUT)
    url = link.get_attribute("href")
    assert url is not None and "claim=" in url
    # The player opens it in a browser of their own and claims the seat with a new profile.
    other = context.browser.new_context(viewport={"width": 1000, "height": 700})  # type: ignore[union-attr]
    page = other.new_page()
    p_errors = collect_errors(page)
    page.goto(f"{server.url}{url}")
    expect(page.locator("#claim")).to_be_visible(timeout=TIMEOUT)
    page.fill('#claim input[name="name"]', "Claimer")
    page.click('#claim button[type="submit"]')
    expect(page.locator("#claim")).to_have_count(0, timeout=TIMEOUT)
    state = server.api(f"/api/tournaments/{tid}")
    row = state["players"][0]  # type: ignore[index]
    assert row["name"] == "Cla" and row["profile"] is not None and not row["claimable"]
    expect(page).not_to_have_url(re.compile("claim="), timeout=TIMEOUT)
    # The organiser's page follows: the seat is claimed.
    expect(org.locator('#players li[data-player="Cla"]')).not_to_contain_text(
        "seat to claim", timeout=TIMEOUT
    )
    other.close()
    assert errors == [] and p_errors == []


def test_organiser_runs_check_in_then_enters_a_no_show_from_the_page(
    server: Server, context: BrowserContext
) -> None:
    made = server.api("/api/tournaments", {"name": "Desk night", "kind": "cards"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    for name in ("Dka", "Dkb", "Dkc", "Dkd", "Dke", "Dkf"):
        server.api(f"/api/tournaments/{tid}/players", {"organiser_secret": secret, "name": name})
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/tournament.html")
    page.evaluate(f"localStorage.setItem('blink.tournament.org.{tid}', '{secret}')")
    page.goto(f"{server.url}/tournament.html?id={tid}")
    page.click('#check-in-open button[type="submit"]')
    expect(page.locator("#check-in-state")).to_contain_text("0 of 6 checked in", timeout=TIMEOUT)
    for name in ("Dka", "Dkb", "Dkc", "Dkd", "Dke"):
        row = page.locator(f'#players li[data-player="{name}"]')
        row.locator("button", has_text="Check in").click()
        expect(row).to_contain_text("· checked in", timeout=TIMEOUT)
    expect(page.locator('#players li[data-player="Dkf"]')).to_contain_text("not checked in")
    page.fill('#draw input[name="seed"]', "2")
    page.click('#draw button[type="submit"]')
    expect(page.locator("#bracket")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("#players li")).to_have_count(5)
    expect(page.locator('#changes li[data-kind="check-in-missed"]')).to_contain_text("Dkf")
    # A player of a ready match did not come: a walkover.
    box = page.locator(".match[data-status=ready]").first
    mid = box.get_attribute("data-match")
    absent = box.locator("button[data-no-show]").first.get_attribute("data-no-show")
    assert mid is not None and absent
    box.locator(f'button[data-no-show="{absent}"]').click()
    decided = page.locator(f'.match[data-match="{mid}"]')
    expect(decided).to_have_attribute("data-status", "decided", timeout=TIMEOUT)
    expect(decided.locator(".score")).to_contain_text("goes through on a walkover")
    expect(page.locator('#changes li[data-kind="forfeit"]')).to_contain_text(
        f"{absent} forfeited {mid}"
    )
    page.select_option("#lang", "es")
    expect(page.locator('#changes li[data-kind="forfeit"]')).to_contain_text(
        f"{absent} no se presentó a {mid}", timeout=TIMEOUT
    )
    expect(page.locator('#changes li[data-kind="check-in-missed"]')).to_contain_text(
        "sin confirmar al sortear"
    )
    page.select_option("#lang", "en")
    assert errors == []


def test_the_final_round_table_shows_walkovers_and_a_vacant_seat(
    server: Server, context: BrowserContext
) -> None:
    made = server.api("/api/tournaments", {"name": "Vacant night", "kind": "cards"})
    tid, secret = str(made["id"]), str(made["organiser_secret"])
    for name in ("Vaa", "Vab", "Vac", "Vad", "Vae", "Vaf", "Vag", "Vah"):
        server.api(f"/api/tournaments/{tid}/players", {"organiser_secret": secret, "name": name})
    s = server.api(f"/api/tournaments/{tid}/draw", {"organiser_secret": secret, "seed": 11})
    r12 = next(m for m in s["tournament"]["matches"] if m["id"] == "R1-2")  # type: ignore[index, union-attr]
    server.api(
        f"/api/tournaments/{tid}/forfeit",
        {"organiser_secret": secret, "match": "R1-2", "players": r12["players"]},
    )
    r11 = next(m for m in s["tournament"]["matches"] if m["id"] == "R1-1")  # type: ignore[index, union-attr]
    win = {"organiser_secret": secret, "match": "R1-1", "winners": [r11["players"][0]]}
    for _ in range(2):
        server.api(f"/api/tournaments/{tid}/result", win)
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/tournament.html?id={tid}")
    table = page.locator("#final-table")
    expect(table).to_contain_text("nobody (double forfeit)", timeout=TIMEOUT)
    # The winner of R1-1 has its set against the vacant seat as a walkover: 3 wins.
    expect(table.locator("tbody tr").first).to_contain_text("3 wins, 0 losses · walkover")
    r12_box = page.locator('.match[data-match="R1-2"]')
    expect(r12_box.locator(".score")).to_contain_text("Double forfeit: nobody goes through")
    page.select_option("#lang", "es")
    expect(table).to_contain_text("nadie (doble incomparecencia)", timeout=TIMEOUT)
    page.select_option("#lang", "en")
    assert errors == []
