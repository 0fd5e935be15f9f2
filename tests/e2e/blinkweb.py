"""Browser-test helpers: the server process, reading the table, playing by keyboard."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from blink.cards import parse_card


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A running `blink serve` process (with more options ``extra``) and its base URL."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (tmp / "server.log").open("w")
        cmd = [
            sys.executable, "-m", "blink.cli", "serve",
            "--port", str(self.port),
            "--db", str(tmp / "blink.db"),
            "--countdown", "1",
            "--stall-pause", "0.3",
            "--choice-deadline", "4",
            "--between-games", "1",
            "--deal-seed", "11",
            "--creation-rate", "0",  # the tests open many rooms from one address
            # The browser is driven faster than a person reacts; its games are rated as a
            # person's are, and ranked after one (the leaderboard's test sets its own).
            "--reaction-floor", "0",
            "--provisional-games", "1",
            *extra,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"blink serve did not start; see {tmp / 'server.log'}")
            time.sleep(0.1)

    def api(self, path: str, body: dict[str, object] | None = None) -> dict[str, object]:
        """Call the REST API (POST when a body is given) and return the JSON answer."""
        if body is None:
            r = httpx.get(self.url + path, timeout=10)
        else:
            r = httpx.post(self.url + path, json=body, timeout=10)
        r.raise_for_status()
        data: dict[str, object] = r.json()
        return data

    def stop(self) -> None:
        """Stop the process."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


# What the player sees, read from the page: the phase, the hand and the reachable piles.
STATE_JS = """() => {
  const table = document.querySelector('.table[data-phase]');
  if (!table) return null;
  const hand = [...document.querySelectorAll('.hcard .card-svg')].map(e => e.dataset.card);
  const piles = [...document.querySelectorAll('button.pile[data-pile]')].map(e => ({
    pile: Number(e.dataset.pile),
    side: e.classList.contains('area-pl') ? 'left' : 'right',
    top: (e.querySelector('.card-svg[data-card]') || {dataset: {}}).dataset.card || null,
  }));
  return {phase: table.dataset.phase, hand, piles,
          refused: (document.querySelector('.center-msg .refused') || {}).textContent || null};
}"""

SIG_JS = """() => [...document.querySelectorAll('.hcard .card-svg, .pile .card-svg')]
  .map(e => e.dataset.card || '-').join(',') + '|' +
  ((document.querySelector('.table') || {}).dataset || {}).phase + '|' +
  (document.querySelector('.end') ? 'end' : '')"""


# An init script: every animation the page starts (``Element.animate``) is written down as it
# starts, in ``window.__anims`` (the element's class, its ``data-from``, whether it is a hand
# card springing back or something on a pile, the properties its keyframes change), so a
# 180 ms flight is seen however busy the machine is. And the start's flash, the moment it is
# drawn, in ``window.__go``: whether the countdown's overlay is up, and what lies at each
# pile's centre. ``window.__lit``: the seats ever lit for a play.
RECORD_JS = """(() => {
  window.__anims = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (keyframes, options) {
    const props = new Set();
    for (const f of Array.isArray(keyframes) ? keyframes : [keyframes]) {
      for (const k of Object.keys(f)) if (k !== 'offset' && k !== 'easing') props.add(k);
    }
    const hcard = this.closest && this.closest('.hcard');
    window.__anims.push({
      cls: typeof this.className === 'string' ? this.className : this.getAttribute('class') || '',
      from: (this.dataset && this.dataset.from) || null,
      hand: hcard ? hcard.classList.contains('springback') : false,
      pile: !!(this.closest && this.closest('.pile')),
      props: [...props],
    });
    return animate.call(this, keyframes, options);
  };
  // The start's flash, the moment it is drawn: what lies at each pile's centre.
  window.__go = null;
  window.__lit = [];
  new MutationObserver(() => {
    for (const o of document.querySelectorAll('.opp.played')) {
      if (!window.__lit.includes(o.dataset.seat)) window.__lit.push(o.dataset.seat);
    }
    if (window.__go || !document.querySelector('#go-flash')) return;
    const ov = document.querySelector('#overlay');
    window.__go = {
      overlay: !!ov && !ov.hidden,
      piles: [...document.querySelectorAll('.pile[data-pile]')].map((p) => {
        const r = p.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {pile: p.dataset.pile, hit: !!hit && hit.closest('.pile') === p,
                flash: document.querySelector('#go-flash').getBoundingClientRect().top >= r.bottom};
      }),
    };
  }).observe(document, {childList: true, subtree: true});
})();"""


def anims(page: Page) -> list[dict[str, Any]]:
    """The animations the page has started so far (``RECORD_JS`` must be installed)."""
    found: list[dict[str, Any]] = page.evaluate("window.__anims")
    return found


def matches(a: str, b: str) -> bool:
    """The rule, through the engine: two cards match on colour, shape or count."""
    return parse_card(a).matches(parse_card(b))


def state(page: Page) -> dict[str, Any] | None:
    """The table as the page shows it (None when no table is shown)."""
    result: dict[str, Any] | None = page.evaluate(STATE_JS)
    return result


def keyboard_step(page: Page, keys: str = "123") -> str | None:
    """Make one legal play (or stall choice) with the keyboard; return the keys pressed.

    Waits until the page shows the result (the hand or a pile changed, or the game ended).
    """
    st = state(page)
    if st is None:
        return None
    before = page.evaluate(SIG_JS)
    pressed: str | None = None
    if st["phase"] == "choosing":
        if page.query_selector(".hcard.pending"):
            return None
        page.keyboard.press(keys[0])
        pressed = keys[0]
    elif st["phase"] == "playing":
        for slot, card in enumerate(st["hand"]):
            fits = [p for p in st["piles"] if p["top"] and matches(card, p["top"])]
            if not fits:
                continue
            page.keyboard.press(keys[slot])
            pressed = keys[slot]
            if len({p["pile"] for p in fits}) > 1:
                arrow = "ArrowLeft" if fits[0]["side"] == "left" else "ArrowRight"
                page.keyboard.press(arrow)
                pressed += " " + arrow
            break
    if pressed is None:
        return None
    # A refused play may leave everything as it was: then the wait simply times out.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(f"(b) => ({SIG_JS})() !== b", arg=before, timeout=3000)
    return pressed


def finished_game(server: Server, seats: tuple[str, str] = ("casual:first@40",) * 2) -> int:
    """The id of a finished game of two quick server bots, stored on ``server``."""
    code = server.api("/api/rooms", {"players": 2, "seats": list(seats), "take_seat": None})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        games = server.api(f"/api/rooms/{code['code']}")["games"]
        assert isinstance(games, list)
        done = [g for g in games if g["status"] == "finished"]
        if done:
            return int(done[0]["id"])
        time.sleep(0.2)
    raise AssertionError("the bots did not finish a game")


def end_buttons_armed(page: Page, timeout: float = 15000) -> None:
    """Wait until the end screen's buttons take taps: for a moment after the end screen appears
    they refuse a pointer's tap (one meant for a card must not leave the game), so a test's
    click right after the end would be refused too."""
    expect(page.locator(".end #end-actions")).not_to_have_attribute(
        "data-arming", "", timeout=timeout
    )


def collect_errors(page: Page) -> list[str]:
    """Record JavaScript errors on the page (console errors and uncaught exceptions)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on(
        "console",
        lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None,
    )
    return errors


def play_card(page: Page, card: str, pile: int) -> None:
    """Play ``card`` on ``pile`` with the keyboard (slot key, then an arrow if both piles fit)."""
    st = state(page)
    assert st is not None and card in st["hand"], (card, st)
    slot = st["hand"].index(card)
    before = page.evaluate(SIG_JS)
    page.keyboard.press("123"[slot])
    fits = [p for p in st["piles"] if p["top"] and matches(card, p["top"])]
    if len({p["pile"] for p in fits}) > 1:
        side = next(p["side"] for p in st["piles"] if p["pile"] == pile)
        page.keyboard.press("ArrowLeft" if side == "left" else "ArrowRight")
    page.wait_for_function(f"(b) => ({SIG_JS})() !== b", arg=before, timeout=5000)


class AppThread:
    """The real app, built from ``settings``, served by uvicorn in a background thread."""

    def __init__(self, settings: Any) -> None:
        from blink.server.app import create_app
        from blink.server.direct import WS_IMPL

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws=WS_IMPL,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "no server"
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop and wait."""
        self.server.should_exit = True
        self.thread.join(timeout=30)
