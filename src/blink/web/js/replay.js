// The replay viewer: a "blink-record" (or "blink-series") replayed on its deal, step by step or
// at speed, with a timeline. Records come from the server or from a local file. Go Blink records
// ("game": "goblink") are shown by goreplay.js.

import { boardHTML, face } from "./board.js";
import { Game, readRecord } from "./engine.js";
import { cardName, t } from "./i18n.js";
import { escapeXml } from "./cards.js";
import { mountGoReplay } from "./goreplay.js";

const svg = (d) => `<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" fill="currentColor">${d}</svg>`;
const ICON = {
  back: svg('<path d="M3 2h2v12H3zM14 2v12L6 8z"/>'),
  fwd: svg('<path d="M11 2h2v12h-2zM2 2v12l8-6z"/>'),
  play: svg('<path d="M4 2v12l10-6z"/>'),
  pause: svg('<path d="M3 2h4v12H3zM9 2h4v12H9z"/>'),
};

const SPEEDS = [
  { key: "1", label: "×1", factor: 1 },
  { key: "2", label: "×2", factor: 2 },
  { key: "4", label: "×4", factor: 4 },
  { key: "step", label: "1/s", factor: 0 },
];

/** Replay state at step `k`: the game after the first k actions, and the last events. */
export function stateAt(rec, k) {
  const game = new Game(rec.deck, rec.players, rec.ruleset, rec.sizes);
  let events = [];
  for (let i = 0; i < k; i++) events = game.apply(rec.actions[i]);
  return { game, events };
}

/** Mount the viewer in `root` for a parsed record object; returns a cleanup function. */
export function mountReplay(root, data, title = "") {
  if (data && data.game === "goblink") return mountGoReplay(root, data, title);
  let parsed;
  try {
    parsed = readRecord(data);
  } catch (e) {
    root.innerHTML = `<p class="error-msg" role="alert">${escapeXml(t("bad_record", { msg: e.message }))}</p>`;
    return () => {};
  }
  const games = parsed.series || [parsed];
  let rec = games[0];
  let step = 0;
  let timer = null;
  let speed = "1";

  root.innerHTML = `
  <section class="replay" aria-labelledby="rp-title">
    <div class="rp-head">
      <h1 id="rp-title">${escapeXml(t("replay_title"))}${title ? ` · ${escapeXml(title)}` : ""}</h1>
      ${games.length > 1 ? `<label>${escapeXml(t("game_n", { n: "" }))}<select id="rp-game">${games.map((_, i) => `<option value="${i}">${i + 1}</option>`).join("")}</select></label>` : ""}
    </div>
    <div id="rp-board" class="rp-board"></div>
    <p class="rp-log" id="rp-log" aria-live="polite"></p>
    <div class="rp-controls">
      <input type="range" id="rp-range" min="0" value="0" aria-label="${escapeXml(t("timeline"))}">
      <button type="button" id="rp-back" aria-label="${escapeXml(t("step_back"))}" title="${escapeXml(t("step_back"))}">${ICON.back}</button>
      <button type="button" id="rp-play" class="primary" aria-label="${escapeXml(t("play_pause"))}" title="${escapeXml(t("play_pause"))}">${ICON.play}</button>
      <button type="button" id="rp-fwd" aria-label="${escapeXml(t("step_fwd"))}" title="${escapeXml(t("step_fwd"))}">${ICON.fwd}</button>
      <label class="sr-only" for="rp-speed">${escapeXml(t("speed"))}</label>
      <select id="rp-speed">${SPEEDS.map((s) => `<option value="${s.key}">${s.label}</option>`).join("")}</select>
      <span class="rp-step" id="rp-step"></span>
    </div>
  </section>`;
  const $ = (id) => root.querySelector(id);
  const range = $("#rp-range");

  function describe(k) {
    if (k === 0) return t("a_start");
    const a = rec.actions[k - 1];
    const name = rec.names[a.seat] || "";
    let s = "";
    if (a.type === "reveal") s = t("a_reveal");
    else if (a.type === "play") s = t("a_play", { name, card: cardName(String(a.card).toUpperCase()), pile: a.pile + 1 });
    else if (a.type === "flip") s = t("a_flip");
    else if (a.type === "choose") s = t("a_choose", { name, card: cardName(String(a.card).toUpperCase()) });
    return s;
  }

  function render() {
    let st;
    try {
      st = stateAt(rec, step);
    } catch (e) {
      $("#rp-log").textContent = t("bad_record", { msg: e.message });
      return;
    }
    const g = st.game;
    const landed = new Set(st.events.filter((e) => e.pile !== undefined).map((e) => e.pile));
    const winners = g.outcome ? g.outcome.winners : [];
    const board = boardHTML({
      players: g.players, seat: 0, names: rec.names,
      tops: g.phase === "dealt" ? g.piles.map(() => null) : g.piles.map((p) => p[p.length - 1]),
      depth: g.piles.map((p) => p.length), hands: null,
      handCounts: g.hands.map((h) => h.length), drawCounts: g.draws.map((d) => d.length),
      landed, winners, noOpponents: true, dimFar: false, pileNumbers: true,
    });
    const seats = g.hands.map((h, p) =>
      `<div class="rp-seat${winners.includes(p) ? " won" : ""}" data-seat="${p}">` +
      `<span class="name">${escapeXml(rec.names[p])}</span>` +
      `<div class="minihand">${h.map((c) => face(c)).join("")}</div>` +
      `<span class="counts">${escapeXml(t("draw"))} ${g.draws[p].length} · ${escapeXml(t("n_plays", { n: g.playsBy[p] }))}</span></div>`,
    ).join("");
    $("#rp-board").innerHTML = board + seats;
    let log = describe(step);
    if (g.outcome) {
      const reason = t(`reason_${g.outcome.reason}`);
      log += " " + (g.outcome.winners.length === 1
        ? t("a_end_win", { name: rec.names[g.outcome.winners[0]], reason })
        : t("a_end_tie", { reason }));
    }
    $("#rp-log").textContent = log;
    $("#rp-step").textContent = t("step_of", { i: step, n: rec.actions.length });
    range.max = String(rec.actions.length);
    range.value = String(step);
    $("#rp-play").innerHTML = timer ? ICON.pause : ICON.play;
  }

  function go(k) {
    step = Math.max(0, Math.min(rec.actions.length, k));
    render();
  }

  function delay() {
    const next = rec.actions[step];
    const prev = rec.actions[step - 1];
    const s = SPEEDS.find((x) => x.key === speed);
    if (!s.factor || !next || next.t === undefined) return 700;
    const dt = next.t - ((prev && prev.t) || 0);
    return Math.max(60, Math.min(3000, dt / s.factor));
  }

  function schedule() {
    clearTimeout(timer);
    if (step >= rec.actions.length) {
      timer = null;
      render();
      return;
    }
    timer = setTimeout(() => {
      go(step + 1);
      schedule();
    }, delay());
  }

  function toggle() {
    if (timer) {
      clearTimeout(timer);
      timer = null;
      render();
    } else {
      if (step >= rec.actions.length) step = 0;
      timer = 1; // marks playing while the first step is scheduled
      render();
      schedule();
    }
  }

  range.addEventListener("input", () => go(Number(range.value)));
  $("#rp-back").addEventListener("click", () => go(step - 1));
  $("#rp-fwd").addEventListener("click", () => go(step + 1));
  $("#rp-play").addEventListener("click", toggle);
  $("#rp-speed").addEventListener("change", (e) => { speed = e.target.value; });
  const sel = root.querySelector("#rp-game");
  if (sel) sel.addEventListener("change", () => { rec = games[Number(sel.value)]; go(0); });
  const onKey = (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(rec.actions.length);
    else if (e.key === " " && e.target === document.body) { toggle(); e.preventDefault(); }
  };
  document.addEventListener("keydown", onKey);
  go(0);
  return () => {
    clearTimeout(timer);
    document.removeEventListener("keydown", onKey);
  };
}
