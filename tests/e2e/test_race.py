"""A lost race: the pile changed before the play arrived, and the page says "too slow".

Ann's incoming messages are held back for a moment (as on a slow network) while Bob plays on
the pile Ann is going for; Ann's play, fair on the pile she sees, reaches the server second.
It names the pile's version she saw, so the server answers with its own code, ``too_slow``,
and the card that won; the page says so from that answer.
"""

from __future__ import annotations

import time

from blinkweb import RECORD_JS, SIG_JS, Server, collect_errors, keyboard_step, matches, state
from playwright.sync_api import Browser, Page, expect

from blink.cards import parse_card

HOLD_JS = """() => {
  const ws = window.blinkConnection.ws;
  window.heldFrames = [];
  window.realOnMessage = ws.onmessage;
  ws.onmessage = (ev) => window.heldFrames.push(ev);
}"""
SENT_JS = """() => {
  const ws = window.blinkConnection.ws;
  window.sentFrames = [];
  const send = ws.send.bind(ws);
  ws.send = (data) => { window.sentFrames.push(JSON.parse(data)); send(data); };
}"""
REFUSED_JS = """() => window.heldFrames.map((ev) => JSON.parse(ev.data))
  .filter((f) => f.type === "refused")"""
RELEASE_JS = """() => {
  const ws = window.blinkConnection.ws;
  ws.onmessage = window.realOnMessage;
  for (const ev of window.heldFrames) window.realOnMessage(ev);
}"""


def find_race(ann: Page, bob: Page) -> tuple[str, str, int] | None:
    """Cards (Ann's, Bob's) and a pile both fit, where Bob's card shuts Ann's out."""
    a, b = state(ann), state(bob)
    if not a or not b or a["phase"] != "playing" or b["phase"] != "playing":
        return None
    tops = {p["pile"]: p["top"] for p in a["piles"]}
    for pile, top in tops.items():
        for bc in b["hand"]:
            if not matches(bc, top):
                continue
            for ac in a["hand"]:
                if matches(ac, top) and not matches(ac, bc):
                    return ac, bc, pile
    return None


def test_too_slow_when_the_pile_changed_first(browser: Browser, server: Server) -> None:
    ann_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 1200, "height": 800}, locale="en-US")
    try:
        ann_ctx.add_init_script(RECORD_JS)
        ann = ann_ctx.new_page()
        bob = bob_ctx.new_page()
        errors = collect_errors(ann) + collect_errors(bob)
        ann.goto(server.url + "/")
        ann.click("#p-create")
        bob.goto(ann.locator("#share-link").input_value())
        for page in (ann, bob):
            expect(page.locator('.table[data-phase="playing"]')).to_be_visible(timeout=15000)
        race = find_race(ann, bob)
        deadline = time.monotonic() + 30
        while race is None and time.monotonic() < deadline:
            keyboard_step(bob) or keyboard_step(ann)
            race = find_race(ann, bob)
        assert race is not None, "no race found"
        ann_card, bob_card, pile = race

        ann.evaluate(HOLD_JS)
        ann.evaluate(SENT_JS)
        # Bob wins the pile.
        slot = state(bob)["hand"].index(bob_card)  # type: ignore[index]
        before = bob.evaluate(SIG_JS)
        bob.click(f'.hcard[data-slot="{slot}"]')
        bob.click(f'button.pile[data-pile="{pile}"]')
        bob.wait_for_function(f"(b) => ({SIG_JS})() !== b", arg=before, timeout=5000)
        # Ann still sees the old top and goes for it.
        st = state(ann)
        assert st is not None
        slot = st["hand"].index(ann_card)
        ann.click(f'.hcard[data-slot="{slot}"]')
        ann.click(f'button.pile[data-pile="{pile}"]')
        ann.wait_for_function(f"() => ({REFUSED_JS})().length > 0", timeout=10000)
        (play,) = [f for f in ann.evaluate("() => window.sentFrames") if f["type"] == "play"]
        (refused,) = ann.evaluate(REFUSED_JS)
        # The play named the version Ann saw; the server's answer is its own code.
        assert (play["card"], play["pile"]) == (ann_card, pile)
        assert isinstance(play["version"], int) and play["version"] >= 1
        assert refused["id"] == play["id"] and refused["code"] == "too_slow"
        assert refused["top"] == {"pile": pile, "card": bob_card, "version": play["version"] + 1}
        ann.evaluate(RELEASE_JS)
        expect(ann.locator(".center-msg .refused")).to_have_text(
            f"Too slow: the pile now has {parse_card(bob_card).long_name} on top"
        )
        # Her card springs back into her hand, which keeps it; the pile shows Bob's.
        ann.wait_for_function("window.__anims.some((a) => a.hand)", timeout=5000)
        assert ann_card in state(ann)["hand"]  # type: ignore[index]
        expect(ann.locator(f'.pile[data-pile="{pile}"] .card-svg')).to_have_attribute(
            "data-card", bob_card
        )
        assert not errors, errors
    finally:
        ann_ctx.close()
        bob_ctx.close()
