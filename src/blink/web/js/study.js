// A game to study (docs/replay.md): GET /api/games/{id}/study answers, for a finished game
// stored on the server, every play's reaction time, the plays each player could have made and
// missed, both hands over time and a summary per seat (the Python analysis, blink.model.study;
// this file holds no rule). Here: fetching it, the replay viewer's study panel (a move list
// whose moves jump the replay to their step, reactions, missed plays, a small timeline of the
// hands drawn as SVG, the summary), and the end screen's line for one seat.

import { cardName, getLang, t, tCount } from "./i18n.js";
import { escapeXml } from "./cards.js";

/** The study URL of a stored game's record URL (`/api/games/{id}/record`, with its room for a
 * private room's game), else null (a record file has no study). */
export function studyUrl(recordUrl) {
  const m = String(recordUrl || "").match(/^\/api\/games\/(\d+)\/record\/?(\?room=[A-Za-z0-9]+)?$/);
  return m ? `/api/games/${m[1]}/study${m[2] || ""}` : null;
}

/** A refused study request: the server's code and sentence. */
export class StudyError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The study of the stored game behind `recordUrl`; a game just finished may not be stored
 * yet (409 or 404): asked again `retries` times, `waitMs` apart. */
export async function fetchStudy(recordUrl, retries = 0, waitMs = 700) {
  const url = studyUrl(recordUrl);
  if (!url) throw new StudyError(0, "no_study", "not a stored game");
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(url);
    } catch (e) {
      throw new StudyError(0, "network", e.message || "network error");
    }
    let data = null;
    try { data = await res.json(); } catch { /* not JSON */ }
    if (res.ok) return data;
    if (attempt < retries && (res.status === 409 || res.status === 404)) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      continue;
    }
    const err = (data && data.error) || {};
    throw new StudyError(res.status, err.code || `http_${res.status}`, err.message || res.statusText);
  }
}

/** Ask for the finished game of ``msg`` (an end frame) its study into ``S.study``, then
 * ``render``: for the end screen's line of the player's own figures (asked again a few times:
 * the game may be stored a moment after its end is announced). Spectators get no line. */
export function loadOwnStudy(S, msg, render) {
  if (S.spectate || S.seat === null || !studyUrl(msg.record_url)) return;
  if (S.study && S.study.game === msg.game) return;
  S.study = { game: msg.game, doc: null };
  fetchStudy(msg.record_url, 5).then((doc) => {
    if (!S.study || S.study.game !== msg.game) return;
    S.study = { game: msg.game, doc };
    render();
  }, () => { /* no line: the end screen's link still opens the study, which says why */ });
}

/** A duration in milliseconds, in the page's language ("640 ms", "1.240 ms"); "—" for none. */
export function msText(ms) {
  if (ms === null || ms === undefined) return "—";
  return t("st_ms", { n: new Intl.NumberFormat(getLang()).format(ms) });
}

/** The end screen's sentence for the seat `seat` of a game study `g`: "You missed 7 plays,
 * median reaction 640 ms". */
export function ownSummary(g, seat) {
  const s = g && g.summary && g.summary[seat];
  if (!s) return "";
  return tCount("st_you", s.missed, { ms: msText(s.median_reaction_ms) });
}

/** One seat's summary line for the panel: "Ana: 23 plays, missed 7, median reaction 640 ms". */
function seatSummary(s, name) {
  return tCount("st_seat", s.missed, {
    name, plays: tCount("n_plays", s.plays), ms: msText(s.median_reaction_ms),
  });
}

function cardsText(cards) {
  return cards.map(cardName).join(` ${t("st_or")} `);
}

/** A missed chance in words. */
function missedText(m, name) {
  const vars = { name, cards: cardsText(m.cards), ms: msText(m.duration_ms) };
  return m.pile === null || m.pile === undefined
    ? t("st_missed_match", vars)
    : t("st_missed_pile", { ...vars, pile: m.pile + 1 });
}

const SEAT_COLOURS = ["#ffb454", "#6cc4ff", "#ff8fd0", "#9be08a", "#c9a6ff", "#f2e36b"];

/** Both hands over time as a small SVG: each seat's cards left (its hand and draw pile) by
 * step, missed chances marked on their seat's line, and a marker at the current step. */
function timelineSVG(sg, names) {
  const W = 600;
  const H = 120;
  const pts = sg.timeline;
  const last = Math.max(1, pts.length - 1);
  const top = Math.max(1, ...pts.flatMap((p) => p.left));
  const x = (k) => ((k / last) * (W - 8) + 4).toFixed(1);
  const y = (v) => (H - 6 - (v / top) * (H - 12)).toFixed(1);
  const lines = names.map((_, s) => {
    const d = pts.map((p, k) => `${k ? "L" : "M"}${x(p.step)} ${y(p.left[s])}`).join("");
    return `<path d="${d}" fill="none" stroke="${SEAT_COLOURS[s % 6]}" stroke-width="2" data-seat="${s}"/>`;
  }).join("");
  const marks = sg.missed.map((m) => {
    const p = pts[m.end - 1] || pts[pts.length - 1];
    return `<circle cx="${x(m.end - 1)}" cy="${y(p.left[m.seat])}" r="2.5" fill="${SEAT_COLOURS[m.seat % 6]}" class="st-miss-dot"/>`;
  }).join("");
  const legend = names.map((n, s) =>
    `<li><i style="background:${SEAT_COLOURS[s % 6]}"></i>${escapeXml(n)}</li>`).join("");
  return `<figure class="st-timeline">
    <svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${escapeXml(t("st_timeline_label"))}">
      <rect x="0" y="0" width="${W}" height="${H}" fill="none"/>${lines}${marks}
      <line id="st-now" x1="4" x2="4" y1="0" y2="${H}" stroke="currentColor" stroke-opacity=".5"/>
    </svg>
    <figcaption>${escapeXml(t("st_timeline"))}<ul class="st-legend" aria-label="${escapeXml(t("st_legend"))}">${legend}</ul></figcaption></figure>`;
}

/**
 * The study panel of game study `sg` beside the replay of game `g` (seats named in the page's
 * language; `log(k)`: frame k's sentence). Its moves are buttons with `data-step`, which the
 * viewer turns into a jump to that step (`markStep` marks the current one).
 */
export function studyPanelHTML(sg, g, log) {
  const names = g.names;
  const name = (s) => names[s] || t("player_n", { n: s + 1 });
  const reaction = new Map(sg.plays.map((p) => [p.step, p]));
  const missedAt = new Map();
  for (const m of sg.missed) {
    if (!missedAt.has(m.end)) missedAt.set(m.end, []);
    missedAt.get(m.end).push(m);
  }
  const items = [];
  for (let k = 1; k < g.frames.length; k++) {
    for (const m of missedAt.get(k) || []) {
      items.push(`<li class="st-missed"><button type="button" data-step="${m.start}" data-seat="${m.seat}">` +
        `<span class="st-k" title="${escapeXml(t("st_step", { k: m.start }))}">${m.start}–${m.end}</span><span class="st-what">${escapeXml(missedText(m, name(m.seat)))}</span>` +
        `<span class="st-tag">${escapeXml(t("st_missed_tag"))}</span></button></li>`);
    }
    const p = reaction.get(k);
    const ms = p ? `<span class="st-ms" title="${escapeXml(t("st_reaction_of", { name: name(p.seat), ms: msText(p.reaction_ms) }))}">${escapeXml(msText(p.reaction_ms))}</span>` : "";
    items.push(`<li${p ? ' class="st-play"' : ""}><button type="button" data-step="${k}"${p ? ` data-seat="${p.seat}"` : ""}>` +
      `<span class="st-k" title="${escapeXml(t("st_step", { k }))}">${k}</span><span class="st-what">${escapeXml(log(k))}</span>${ms}</button></li>`);
  }
  const summary = sg.summary.map((s) => `<li data-seat="${s.seat}">${escapeXml(seatSummary(s, name(s.seat)))}</li>`).join("");
  return `<section class="study" id="rp-study" aria-labelledby="st-title">
    <h2 id="st-title" tabindex="-1">${escapeXml(t("st_title"))}</h2>
    <ul class="st-summary" id="st-summary">${summary}</ul>
    ${timelineSVG(sg, sg.names.map((_, s) => name(s)))}
    <h3 id="st-moves-title">${escapeXml(t("st_moves"))}</h3>
    <ol class="st-moves" id="st-moves" aria-labelledby="st-moves-title">${items.join("")}</ol>
  </section>`;
}

/** Mark step `k` as the current one in the panel under `root` (its move, the timeline). */
export function markStep(root, k, steps) {
  const list = root.querySelector("#st-moves");
  if (!list) return;
  for (const b of list.querySelectorAll("button[aria-current]")) b.removeAttribute("aria-current");
  const cur = list.querySelector(`li:not(.st-missed) button[data-step="${k}"]`);
  if (cur) {
    cur.setAttribute("aria-current", "step");
    const box = list.getBoundingClientRect();
    const r = cur.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) list.scrollTop += r.top - box.top - box.height / 2;
  }
  const now = root.querySelector("#st-now");
  if (now) {
    const xv = ((k / Math.max(1, steps)) * 592 + 4).toFixed(1);
    now.setAttribute("x1", xv);
    now.setAttribute("x2", xv);
  }
}

/** A study that could not be had, in one sentence of the page's language. */
export function studyErrorHTML(e) {
  const key = e && e.code === "no_study" ? "st_none" : "st_failed";
  return `<p class="error-msg" role="alert" data-code="${escapeXml((e && e.code) || "")}" title="${escapeXml((e && e.message) || "")}">${escapeXml(t(key))}</p>`;
}
