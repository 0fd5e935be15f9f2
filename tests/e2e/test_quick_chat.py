"""Quick chat in the browser: Ann's phrase appears by her name at Bob's table, in Bob's
language, and goes away after a few seconds; a spectator reads it but has no buttons."""

from __future__ import annotations

from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, expect


def test_a_phrase_appears_by_the_name_at_the_other_table(browser: Browser, server: Server) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="es-ES")
    watch_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.click("#p-create")
        link = ann.locator("#share-link").input_value()
        bob.goto(link)
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        watcher = watch_ctx.new_page()
        errors += collect_errors(watcher)
        watcher.goto(f"{server.url}/watch/{link.rstrip('/').split('/')[-1]}")
        expect(watcher.locator(".table[data-phase]")).to_be_visible(timeout=15000)
        expect(watcher.locator(".quickchat")).to_have_count(0)

        # The phrases open from one small button, over the table.
        ann.locator(".quickchat summary").click()
        ann.get_by_role("button", name="Well played").click()
        expect(ann.locator(".quickchat")).not_to_have_attribute("open", "")
        # At Bob's table, by Ann's name (seat 0), in Spanish.
        bubble = bob.locator('.opp[data-seat="0"] .chat-bubble[data-seat="0"]')
        expect(bubble).to_have_text("Bien jugado", timeout=10000)
        # Ann sees her own, by her name under her hand; the spectator sees it too.
        expect(ann.locator('.me .chat-bubble[data-seat="0"]')).to_have_text("Well played")
        expect(watcher.locator('.chat-bubble[data-seat="0"]')).to_have_text("Well played")
        # Bob answers in his language; Ann reads it in hers.
        bob.locator(".quickchat summary").click()
        bob.get_by_role("button", name="Buena partida").click()
        expect(ann.locator('.opp[data-seat="1"] .chat-bubble')).to_have_text("Good game")
        # The bubbles go after a few seconds.
        expect(bob.locator(".chat-bubble")).to_have_count(0, timeout=15000)
        assert not errors, errors
    finally:
        for ctx in (ann_ctx, bob_ctx, watch_ctx):
            ctx.close()
