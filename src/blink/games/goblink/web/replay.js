// Go Blink frames for the replay viewer (the client's js/replay.js): every hand, whose turn it is, the draw
// pile, the asks log and the matches laid down, as the server's engine computed them
// (docs/protocol.md, POST /api/replays). No rule lives here: only drawing and words.

import { face } from "/js/board.js";
import { escapeXml } from "/js/cards.js";
import { gt } from "./strings.js";
import { t, tCount } from "/js/i18n.js";

function nameOf(g, seat) {
  return g.names[seat] || t("player_n", { n: seat + 1 });
}

/** "stars", "yellows", "fours" in the current language (the Go table's words). */
function valueLabel(value) {
  return gt(`v_${value}`);
}

function cardsWord(n) {
  return tCount("go_cards", n);
}

function endText(g, e) {
  const why = gt(`why_${e.reason}`);
  const names = e.winners.map((w) => nameOf(g, w));
  return e.winners.length === 1 ? t("go_win", { name: names[0], reason: why }) : t("go_tie", { names: names.join(", "), reason: why });
}

function log(g, f, k) {
  if (k === 0) return t("a_start");
  const prev = g.frames[k - 1];
  const a = f.action;
  const out = [];
  for (const e of f.events) {
    if (e.type === "asked") out.push(t("go_ask", { a: nameOf(g, e.seat), b: nameOf(g, e.target), v: valueLabel(e.value) }));
    else if (e.type === "passed") out.push(t("go_passed", { name: nameOf(g, e.giver), n: cardsWord(e.number) }));
    else if (e.type === "go_blink") out.push(t("go_blink"));
    else if (e.type === "drew") out.push(t(e.cause === "emptied" ? "go_emptied" : "go_drew", { name: nameOf(g, e.seat) }));
    else if (e.type === "laid_down") out.push(tCount("go_laid", e.cards.length, { name: nameOf(g, e.seat), v: valueLabel(e.value) }));
    else if (e.type === "skipped") out.push(t("go_skipped", { name: nameOf(g, e.seat) }));
    else if (e.type === "ended") out.push(endText(g, e));
  }
  if (a && a.type === "end") {
    out.unshift(t(prev.phase === "opening" ? "go_end_opening" : "go_end", { name: nameOf(g, a.seat) }));
  }
  return out.join(" ");
}

function board(g, f) {
  const winners = f.outcome ? f.outcome.winners : [];
  const seats = f.hands.map((h, p) => {
    const current = f.current === p;
    const label = `${nameOf(g, p)}: ${cardsWord(h.length)}${current ? `, ${t("go_to_act")}` : ""}`;
    return `<div class="rp-seat${winners.includes(p) ? " won" : ""}${current ? " current" : ""}" data-seat="${p}" aria-label="${escapeXml(label)}" role="group">` +
      `<span class="name">${escapeXml(nameOf(g, p))}${current ? ' <span aria-hidden="true">◀</span>' : ""}</span>` +
      `<div class="minihand">${h.map((c) => face(c)).join("")}</div>` +
      `<span class="counts">${escapeXml(cardsWord(h.length))}</span></div>`;
  }).join("");
  return `<p class="rp-draw" id="rp-draw">${escapeXml(t("go_draw_pile", { n: f.draw }))}</p>` + seats;
}

function askText(g, a) {
  const parts = [a.passed ? tCount("go_log_passed", a.passed) : t("go_blink")];
  if (a.drew) parts.push(t("go_log_drew"));
  if (a.target_drew) parts.push(t("go_log_target_drew", { name: nameOf(g, a.target) }));
  return `${nameOf(g, a.seat)} → ${nameOf(g, a.target)}: ${valueLabel(a.value)} · ${parts.join(", ")}`;
}

function extra(g, f) {
  const asks = g.asks.slice(0, f.asks).map((a) => `<li>${escapeXml(askText(g, a))}</li>`).join("");
  const matches = g.matches.slice(0, f.matches).map((m) =>
    `<li class="rp-match" data-seat="${m.seat}"><span class="name">${escapeXml(nameOf(g, m.seat))}</span><span class="minihand">${m.cards.map((c) => face(c)).join("")}</span></li>`,
  ).join("");
  return `<div class="rp-go-logs">
      <section><h2>${escapeXml(t("go_asks"))}</h2><ol id="rp-asks" class="rp-asks">${asks}</ol></section>
      <section><h2>${escapeXml(t("go_matches"))}</h2><ol id="rp-matches" class="rp-matches">${matches}</ol></section>
    </div>`;
}

/** How replay.js draws a Go Blink game's frames. */
export const goRenderer = { kind: "goblink", className: "go-replay", prefix: () => "Go Blink", board, log, extra };
