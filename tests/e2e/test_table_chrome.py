"""What a table shows around the cards: the quick chat's button is the project's own icon (an
emoji needs an emoji font), the colour letters never cover a card's symbols, and a lost
connection's banner takes no room from the hand and its key hints while every presence dot
turns grey (this page knows of nobody's connection then)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from blinkweb import Server, collect_errors
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute, expect

TIMEOUT = 20_000

OVERLAPS_JS = """async () => {
  const { cardSVG } = await import('/js/cards.js');
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;left:0;top:0;width:200px';
  document.body.appendChild(box);
  document.body.classList.add('cb');  // colour letters on
  const out = [];
  for (const n of '12345') for (const c of 'ROYGBP') for (const s of 'MPSWFL') {
    box.innerHTML = cardSVG(n + c + s, { letter: 'W' });
    // A capital's glyph lies between its baseline and the cap height (0.72 of the font's size,
    // 17 units), not across the line's whole box.
    const svg = box.querySelector('svg').getBoundingClientRect();
    const k = svg.width / 100;
    const letters = [...box.querySelectorAll('.cb-letter text')].map((e) => {
      const r = e.getBoundingClientRect();
      const y = Number(e.getAttribute('y'));
      return { l: r.left, r: r.right, t: svg.top + (y - 0.72 * 17) * k, b: svg.top + y * k };
    });
    const symbols = [...box.querySelectorAll('g[transform]')].map((e) => e.getBoundingClientRect())
      .map((r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom }));
    for (const a of letters) for (const b of symbols) {
      if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) out.push(n + c + s);
    }
    const none = letters.length !== 2 || letters.some((a) => a.r - a.l < 5);
    if (none) out.push(`${n}${c}${s}: no letters`);
  }
  box.remove();
  return [...new Set(out)];
}"""


@pytest.fixture
def desktop(browser: Browser) -> Iterator[BrowserContext]:
    """A 1280x720 screen: the smallest common desktop."""
    c = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    yield c
    c.close()


# The key hints' and the hand cards' boxes, read at one moment (the table redraws itself).
BOXES_JS = """() => ['.keyhint', '.hcard'].flatMap((sel) =>
  [...document.querySelectorAll(sel)].map((e) => {
    const r = e.getBoundingClientRect();
    return {sel, top: r.top, bottom: r.bottom, height: r.height};
  }))"""


def seated(ctx: BrowserContext, server: Server, body: dict[str, object]) -> tuple[Page, str]:
    """A private room made through the API with seat 0 taken, and a page in that seat."""
    made = server.api("/api/rooms", {"players": 2, "public": False, **body})
    code, token = str(made["code"]), str(made["token"])
    page = ctx.new_page()
    page.add_init_script(
        f"sessionStorage.setItem('blink.seat.{code}', "
        f"JSON.stringify({{token: '{token}', seat: 0}}))"
    )
    page.goto(f"{server.url}/play/{code}")
    return page, code


def test_colour_letters_clear_of_the_symbols(context: BrowserContext, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled(timeout=TIMEOUT)
    assert page.evaluate(OVERLAPS_JS) == []


def test_chat_button_and_a_lost_connection(desktop: BrowserContext, server: Server) -> None:
    ann, code = seated(desktop, server, {"seats": [None, None]})
    errors = collect_errors(ann)
    bob = desktop.new_page()
    bob.goto(f"{server.url}/play/{code}")
    expect(ann.locator('.table[data-phase="playing"]')).to_be_visible(timeout=TIMEOUT)
    expect(ann.locator("#overlay")).to_be_hidden()

    # The chat button: an SVG icon in the text's colour, and no emoji to draw.
    summary = ann.locator(".quickchat summary")
    expect(summary.locator("svg")).to_be_visible()
    shown = summary.evaluate(
        "(e) => [...e.childNodes].filter((n) => !(n.classList && n.classList.contains('sr-only')))"
        ".map((n) => n.textContent).join('').trim()"
    )
    assert shown == "", shown
    box = summary.locator("svg").bounding_box()
    assert box is not None and box["width"] >= 12 and box["height"] >= 12

    dot = ann.locator(".opp .dot")
    expect(dot).to_have_attribute("data-presence", "on")
    before = ann.evaluate(BOXES_JS)
    assert [b["sel"] for b in before] == [".keyhint"] + [".hcard"] * 3, before

    # The connection is lost, and every attempt to get it back fails until the test allows it.
    blocked = {"on": True}

    def handle(ws: WebSocketRoute) -> None:
        if blocked["on"]:
            ws.close()
        else:
            ws.connect_to_server()

    ann.route_web_socket("**/ws/**", handle)
    ann.evaluate("window.blinkConnection.drop()")
    banner = ann.locator(".table > .banner")
    expect(banner).to_have_text("Connection lost, reconnecting…", timeout=TIMEOUT)
    expect(dot).to_have_attribute("data-presence", "off")
    after = ann.evaluate(BOXES_JS)
    assert [b["sel"] for b in after] == [b["sel"] for b in before], after
    for a, b in zip(after, before, strict=True):
        assert a["height"] > 0 and a["bottom"] <= 720, (a, b)
        assert abs(a["top"] - b["top"]) < 1, (a, b)  # nothing moved

    blocked["on"] = False
    expect(banner).to_have_count(0, timeout=TIMEOUT)
    expect(dot).to_have_attribute("data-presence", "on")
    assert not errors, errors


def test_a_silent_connection_is_found_lost(desktop: BrowserContext, server: Server) -> None:
    """A connection that goes silent (no close, nothing answered: a network that dropped
    every packet) is lost once its pings have gone unanswered for 8 s: the banner says so,
    every presence dot turns grey, and the page connects again. The page's clock is driven."""
    made = server.api("/api/rooms", {"players": 2, "public": False, "seats": [None, None]})
    code, token = str(made["code"]), str(made["token"])
    ann = desktop.new_page()
    errors = collect_errors(ann)
    ann.add_init_script(
        f"sessionStorage.setItem('blink.seat.{code}', "
        f"JSON.stringify({{token: '{token}', seat: 0}}))"
    )
    ann.clock.install()
    # Every socket passes through here: the live one can be made silent (nothing passes either
    # way, and it is not closed), and new ones refused until the test allows them.
    sockets: list[dict[str, bool]] = []
    blocked = {"on": False}

    def handle(ws: WebSocketRoute) -> None:
        if blocked["on"]:
            ws.close()
            return
        server_ws = ws.connect_to_server()
        state = {"silent": False}
        sockets.append(state)
        ws.on_message(lambda m: None if state["silent"] else server_ws.send(m))
        server_ws.on_message(lambda m: None if state["silent"] else ws.send(m))

    ann.route_web_socket("**/ws/**", handle)
    ann.goto(f"{server.url}/play/{code}")
    bob = desktop.new_page()
    bob.goto(f"{server.url}/play/{code}")
    expect(ann.locator('.table[data-phase="playing"]')).to_be_visible(timeout=TIMEOUT)
    dot = ann.locator(".opp .dot")
    expect(dot).to_have_attribute("data-presence", "on")
    banner = ann.locator(".table > .banner")

    sockets[-1]["silent"] = True
    blocked["on"] = True
    ann.clock.run_for(6000)  # pings unanswered for a little less than 8 s: still connected
    expect(banner).to_have_count(0)
    expect(dot).to_have_attribute("data-presence", "on")
    ann.clock.run_for(4500)
    expect(banner).to_have_text("Connection lost, reconnecting…", timeout=TIMEOUT)
    expect(dot).to_have_attribute("data-presence", "off")

    blocked["on"] = False
    ann.clock.run_for(5000)  # past the reconnection's backoff
    expect(banner).to_have_count(0, timeout=TIMEOUT)
    expect(dot).to_have_attribute("data-presence", "on")
    assert len(sockets) == 2
    assert not errors, errors
