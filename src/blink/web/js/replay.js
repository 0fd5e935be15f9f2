// The replay viewer. The server verifies a record with the Python engines and answers its
// frames (docs/protocol.md): POST /api/replays for a record file (or any other record URL),
// GET /api/games/{id}/replay for a finished game of the server. This file holds no rule: it
// shows the frames step by step or at speed, with a timeline, a series' game picker and the
// keyboard; a stored game's replay has its study beside it (study.js: "#study=<record url>"
// opens on it). Classic frames are drawn here; another game's by the renderer its browser module
// gives (games.js: `replayRenderer`).

import { boardHTML, face } from "./board.js";
import { cardName, t, tCount } from "./i18n.js";
import { escapeXml } from "./cards.js";
import { gameModule } from "./games.js";
import { loadOptions, reachOf } from "./options.js";
import { recordFileName } from "./net.js";
import { botSeatName, botTitle } from "./botnames.js";
import { botMarkHTML, playerHref } from "./playerlink.js";
import { fetchStudy, markStep, studyErrorHTML, studyPanelHTML, studyUrl } from "./study.js";

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

/** A refused replay request: the server's code, sentence and failing action index. */
export class ReplayError extends Error {
  constructor(status, code, message, index = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.index = index;
  }
}

async function request(path, opts) {
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ReplayError(0, "network", e.message || "network error");
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ReplayError(res.status, err.code || `http_${res.status}`, err.message || res.statusText, err.index ?? null);
  }
  return data;
}

/** The replay of a record (JSON text or an object), verified by the server. */
export function postRecord(record) {
  return request("/api/replays", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof record === "string" ? record : JSON.stringify(record),
  });
}

/** The replay behind a record URL: one GET for a stored game, else the record then a POST. */
export async function fetchReplay(url) {
  // A private room's game names its room: /api/games/{id}/record?room=CODE.
  const m = url.match(/^\/api\/games\/(\d+)\/record\/?(\?room=[A-Za-z0-9]+)?$/);
  if (m) return request(`/api/games/${m[1]}/replay${m[2] || ""}`);
  return postRecord(await request(url));
}

/** Whose profiles sat in a stored game's seats (GET /api/games/ID/profiles), for a record URL
 * of one stored game; null for any other record, or when the server cannot say. */
function gameProfiles(url) {
  const m = url.match(/^\/api\/games\/(\d+)\/record/);
  if (!m) return Promise.resolve(null);
  return fetch(`/api/games/${m[1]}/profiles`).then((r) => (r.ok ? r.json() : null))
    .then((d) => (d ? { names: d.profiles, bots: d.bot_accounts || [] } : null)).catch(() => null);
}

/** A record the server refused, in one sentence of the interface's language. */
function errorHTML(e) {
  const known = { 400: "bad_json", 413: "record_too_large", 422: "bad_record" };
  let key = e instanceof ReplayError && e.code !== "network" ? known[e.status] : null;
  if (e instanceof ReplayError && e.code === "game_unreadable") key = "game_unreadable";
  if (key === "bad_record" && e.index !== null && e.index !== undefined) key = "bad_record_at";
  const msg = key ? t(key, { n: Number(e.index) + 1 }) : t("error", { msg: e.message });
  // The server's own words (English, for whoever debugs the file) stay out of the sentence.
  const detail = key ? ` title="${escapeXml(e.message)}"` : "";
  return `<p class="error-msg" role="alert" data-code="${escapeXml(e.code || "")}"${detail}>${escapeXml(msg)}</p>`;
}

/** Replay document `doc`'s game `g` with its seats named in the current language: a bot's
 * from its bot (a stored game's record says each seat's bot: `meta.bots`), a seat without a
 * name (the server's default words "Player" or "Player N") as "Player N" in the current
 * language; other names as recorded. */
function named(doc, g) {
  if (!g || !Array.isArray(g.names)) return g;
  const meta = (doc && doc.meta) || {};
  const bots = Array.isArray(meta.bots) && meta.bots.length === g.names.length ? meta.bots : null;
  const names = g.names.map((n, i) => {
    if (bots && typeof bots[i] === "string") return botSeatName(bots, i, botTitle(doc.game, bots[i]));
    return !n || n === "Player" || n === `Player ${i + 1}` ? t("player_n", { n: i + 1 }) : n;
  });
  const seated = doc && doc.profiles && Array.isArray(doc.profiles.names) && doc.profiles.names.length === g.names.length ? doc.profiles : null;
  return { ...g, names, links: seated ? seated.names : null, botAccounts: seated ? seated.bots : [] };
}

/** A replay's title: where it comes from (`file`, else its room and number or stored game),
 * then who played ("Ana vs Ben"). */
function titleOf(doc, file = "") {
  const meta = (doc && doc.meta) || {};
  let where = file;
  if (!where && meta.room) where = `${meta.room} #${meta.number ?? ""}`;
  else if (!where && meta.game !== undefined && meta.game !== null) where = `#${meta.game}`;
  const g = named(doc, doc && doc.games && doc.games[0]);
  const names = g && Array.isArray(g.names) ? g.names : [];
  return [where, names.join(` ${t("versus")} `)].filter(Boolean).join(" · ");
}

// --- classic frames -------------------------------------------------------------------------

function classicLog(g, f, k) {
  if (k === 0) return t("a_start");
  const name = (seat) => g.names[seat] || t("player_n", { n: seat + 1 });
  const out = [];
  let flipped = false;
  let placed = false;
  for (const e of f.events) {
    if (e.type === "revealed") out.push(t("a_reveal"));
    else if (e.type === "played") out.push(t("a_play", { name: name(e.seat), card: cardName(e.card), pile: e.pile + 1 }));
    else if (e.type === "flipped" && !flipped) { flipped = true; out.push(t("a_flip")); }
    else if (e.type === "chose") out.push(t("a_choose", { name: name(e.seat), card: cardName(e.card) }));
    else if (e.type === "placed" && !placed) { placed = true; out.push(t("a_placed")); }
    else if (e.type === "stalled") out.push(t(`a_stall_${e.kind}`));
    else if (e.type === "ended") {
      const reason = t(`reason_${e.reason}`);
      out.push(e.winners.length === 1 ? t("a_end_win", { name: name(e.winners[0]), reason }) : t("a_end_tie", { reason }));
    }
  }
  return out.join(" ");
}

function classicBoard(g, f) {
  const winners = f.outcome ? f.outcome.winners : [];
  const landed = new Set(f.events.filter((e) => e.pile !== undefined).map((e) => e.pile));
  const board = boardHTML({
    players: g.players, seat: 0, reach: reachOf(g.game ?? null, g.players, 0), names: g.names,
    tops: f.phase === "dealt" ? f.tops.map(() => null) : f.tops,
    depth: f.depth, hands: null,
    handCounts: f.hands.map((h) => h.length), drawCounts: f.draws,
    landed, winners, noOpponents: true, dimFar: false, pileNumbers: true,
  });
  const seats = f.hands.map((h, p) =>
    `<div class="rp-seat${winners.includes(p) ? " won" : ""}" data-seat="${p}">` +
    `<span class="name">${g.links && g.links[p] ? `<a class="player-link" href="${escapeXml(playerHref(g.links[p]))}">${escapeXml(g.names[p])}</a>` : escapeXml(g.names[p])}${g.botAccounts && g.botAccounts[p] ? ` ${botMarkHTML()}` : ""}</span>` +
    `<div class="minihand">${h.map((c) => face(c, f.chosen[p] === c ? t("choose_card") : "")).join("")}</div>` +
    `<span class="counts">${escapeXml(t("draw"))} ${f.draws[p]} · ${escapeXml(tCount("n_plays", f.plays[p]))}</span></div>`,
  ).join("");
  return board + seats;
}

const classicRenderer = { kind: "classic", className: "", prefix: () => "Blink", board: classicBoard, log: classicLog, extra: null };

/** How the frames of a replay document's game are drawn: its browser module's renderer, else
 * classic's. */
/** Whether game `name` has a study (`game_info[name].study` of /api/options; true when the
 * options cannot be read, so the server says). */
async function hasStudy(name) {
  try {
    const info = ((await loadOptions()).game_info || {})[name];
    return !info || info.study !== false;
  } catch {
    return true;
  }
}

async function rendererOf(doc) {
  const module = await gameModule(doc.game);
  return (module && module.replayRenderer) || classicRenderer;
}

// --- the viewer -----------------------------------------------------------------------------

/**
 * Mount the viewer in `root` for a replay document (the server's answer), its frames drawn by
 * `R` (classic's unless told); `title` is a string or a function giving it in the current
 * language (asked again on every switch); `download` ({ href, name }) offers the record as a
 * file. Returns a cleanup function with `.relang()` (re-render in the current language,
 * keeping the step) and `.setStudy(study)`: the game's study document (study.js) shown beside
 * the replay, a refusal (an Error) said in its place, or `"loading"`.
 */
export function mountReplayView(root, doc, title = "", R = classicRenderer, download = null) {
  const games = doc.games;
  let gi = 0;
  let step = 0;
  let timer = null;
  let speed = "1";
  let study = null; // the study document, an Error, "loading", or null (none: no panel)
  const frames = () => games[gi].frames;
  const last = () => frames().length - 1;

  const $ = (sel) => root.querySelector(sel);
  let onKey = null;

  function shell() {
    const prefix = R.prefix ? `${R.prefix()} · ` : "";
    const what = typeof title === "function" ? title() : title;
    const heading = `${prefix}${t("replay_title")}${what ? ` · ${what}` : ""}`;
    document.title = heading;
    root.innerHTML = `
  <section class="replay${R.className ? ` ${R.className}` : ""}" aria-labelledby="rp-title" data-game="${R.kind}">
    <div class="rp-head">
      <h1 id="rp-title">${escapeXml(heading)}</h1>
      ${download ? `<a class="btn" id="rp-download" href="${escapeXml(download.href)}" download="${escapeXml(download.name)}">${escapeXml(t("download_record"))}</a>` : ""}
      ${games.length > 1 ? `<label>${escapeXml(t("game_n", { n: "" }))}<select id="rp-game">${games.map((_, i) => `<option value="${i}"${i === gi ? " selected" : ""}>${i + 1}</option>`).join("")}</select></label>` : ""}
    </div>
    <div id="rp-board" class="rp-board"></div>
    <p class="rp-log" id="rp-log" aria-live="polite"></p>
    <div class="rp-controls">
      <input type="range" id="rp-range" min="0" value="0" aria-label="${escapeXml(t("timeline"))}">
      <button type="button" id="rp-back" aria-label="${escapeXml(t("step_back"))}" title="${escapeXml(t("step_back"))}">${ICON.back}</button>
      <button type="button" id="rp-play" class="primary" aria-label="${escapeXml(t("play_pause"))}" title="${escapeXml(t("play_pause"))}">${ICON.play}</button>
      <button type="button" id="rp-fwd" aria-label="${escapeXml(t("step_fwd"))}" title="${escapeXml(t("step_fwd"))}">${ICON.fwd}</button>
      <label class="sr-only" for="rp-speed">${escapeXml(t("speed"))}</label>
      <select id="rp-speed">${SPEEDS.map((s) => `<option value="${s.key}"${s.key === speed ? " selected" : ""}>${s.label}</option>`).join("")}</select>
      <span class="rp-step" id="rp-step"></span>
    </div>
    ${R.extra ? `<div id="rp-extra" class="rp-extra"></div>` : ""}
    <div id="rp-study-mount"></div>
  </section>`;
    $("#rp-range").addEventListener("input", (e) => go(Number(e.target.value)));
    $("#rp-back").addEventListener("click", () => go(step - 1));
    $("#rp-fwd").addEventListener("click", () => go(step + 1));
    $("#rp-play").addEventListener("click", toggle);
    $("#rp-speed").addEventListener("change", (e) => { speed = e.target.value; });
    const sel = $("#rp-game");
    if (sel) sel.addEventListener("change", () => { gi = Number(sel.value); drawStudy(); go(0); });
    drawStudy();
  }

  /** The study panel of the game shown (its moves jump to their step: see the click below). */
  function drawStudy() {
    const mount = $("#rp-study-mount");
    if (!mount) return;
    if (study === "loading") mount.innerHTML = `<p class="muted study-loading">${escapeXml(t("st_loading"))}</p>`;
    else if (study instanceof Error) mount.innerHTML = `<section class="study" id="rp-study">${studyErrorHTML(study)}</section>`;
    else if (study && study.games && study.games[gi]) {
      const g = named(doc, games[gi]);
      mount.innerHTML = studyPanelHTML(study.games[gi], g, (k) => R.log(g, g.frames[k], k));
    } else mount.innerHTML = "";
  }

  function render() {
    const g = named(doc, games[gi]);
    const f = g.frames[step];
    $("#rp-board").innerHTML = R.board(g, f, step);
    $("#rp-log").textContent = R.log(g, f, step);
    if (R.extra) $("#rp-extra").innerHTML = R.extra(g, f, step);
    $("#rp-step").textContent = t("step_of", { i: step, n: last() });
    const range = $("#rp-range");
    range.max = String(last());
    range.value = String(step);
    $("#rp-play").innerHTML = timer ? ICON.pause : ICON.play;
    markStep(root, step, last());
  }

  function go(k) {
    step = Math.max(0, Math.min(last(), k));
    render();
  }

  function delay() {
    const next = frames()[step + 1];
    const cur = frames()[step];
    const s = SPEEDS.find((x) => x.key === speed);
    if (!s.factor || !next || next.t === null || next.t === undefined) return 700;
    const dt = next.t - ((cur && cur.t) || 0);
    return Math.max(60, Math.min(3000, dt / s.factor));
  }

  function schedule() {
    clearTimeout(timer);
    if (step >= last()) {
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
      if (step >= last()) step = 0;
      timer = 1; // marks playing while the first step is scheduled
      render();
      schedule();
    }
  }

  onKey = (e) => {
    if (!root.isConnected) return;
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(last());
    else if (e.key === " " && e.target === document.body) { toggle(); e.preventDefault(); }
  };
  document.addEventListener("keydown", onKey);
  // A move of the study panel jumps the replay to its step (the panel is drawn again and
  // again: one listener on the root, which stays).
  const onMove = (e) => {
    const b = e.target.closest && e.target.closest("#rp-study button[data-step]");
    if (!b) return;
    if (timer) toggle();
    go(Number(b.dataset.step));
  };
  root.addEventListener("click", onMove);
  shell();
  go(0);
  const cleanup = () => {
    clearTimeout(timer);
    timer = null;
    document.removeEventListener("keydown", onKey);
    root.removeEventListener("click", onMove);
  };
  cleanup.relang = () => { shell(); render(); };
  cleanup.setStudy = (next) => { study = next; drawStudy(); markStep(root, step, last()); };
  return cleanup;
}

/** Mount the viewer for a record object or JSON text (verified by the server); returns a cleanup. */
export function mountReplay(root, record, title = "") {
  let stop = () => {};
  let gone = false;
  root.innerHTML = `<p class="muted">…</p>`;
  let blobUrl = null;
  let failed = null; // the refusal shown, drawn again in another language
  postRecord(record).then(async (doc) => {
    const R = await rendererOf(doc);
    if (gone) return;
    const text = typeof record === "string" ? record : JSON.stringify(record);
    blobUrl = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const name = /\.json$/i.test(title) ? title : recordFileName("", doc.meta && doc.meta.room, doc.meta && doc.meta.number);
    stop = mountReplayView(root, doc, () => titleOf(doc, title), R, { href: blobUrl, name });
  }).catch((e) => {
    failed = e;
    if (!gone) root.innerHTML = errorHTML(e);
  });
  const cleanup = () => { gone = true; stop(); if (blobUrl) URL.revokeObjectURL(blobUrl); };
  cleanup.relang = () => {
    if (failed) root.innerHTML = errorHTML(failed);
    else if (stop.relang) stop.relang();
  };
  return cleanup;
}

/**
 * The "#replay" route: with a record URL, the replay of that record (one request for a stored
 * game, and its study beside it); without, a file picker whose record is sent to the server.
 * The "#study" route (`focusStudy`) is the same replay, opened on its study panel. Returns a
 * cleanup function with `.relang()`.
 */
export function mountReplayRoute(root, url, focusStudy = false) {
  let stop = () => {};
  let gone = false;
  let failed = null; // the refusal shown, drawn again in another language
  const drawFailure = () => {
    root.innerHTML = `${errorHTML(failed)}<p><a href="/" data-link>${escapeXml(t("back_lobby"))}</a></p>`;
  };
  if (url) {
    root.innerHTML = `<p class="muted">…</p>`;
    const profiles = gameProfiles(url);
    fetchReplay(url).then(async (doc) => {
      // A stored game's study is asked for beside its replay, when its game has one (the
      // study route asks anyway: its page says why there is none).
      const studied = studyUrl(url) && (focusStudy || await hasStudy(doc.game))
        ? fetchStudy(url).catch((e) => e) : null;
      doc.profiles = await profiles;
      const R = await rendererOf(doc);
      const meta = doc.meta || {};
      if (gone) return;
      stop = mountReplayView(root, doc, () => titleOf(doc), R, { href: url, name: recordFileName(url, meta.room, meta.number) });
      if (!studied) return;
      stop.setStudy("loading");
      const study = await studied;
      if (gone) return;
      // A replay without its study stays a replay; the study's own route says why not.
      if (study instanceof Error && !focusStudy) stop.setStudy(null);
      else stop.setStudy(study);
      if (focusStudy) {
        const h = root.querySelector("#st-title") || root.querySelector("#rp-study");
        if (h) { h.scrollIntoView({ block: "start" }); if (h.focus) h.focus({ preventScroll: true }); }
      }
    }).catch((e) => {
      failed = e;
      if (!gone) drawFailure();
    });
  } else {
    root.innerHTML = `<section class="panel"><h1 id="rp-file-title">${escapeXml(t("replay_title"))}</h1>
      <label><span id="rp-file-label">${escapeXml(t("load_record"))}</span><input type="file" id="rp-file" accept=".json,application/json"></label>
      <div id="rp-mount"></div></section>`;
    root.querySelector("#rp-file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      const mount = root.querySelector("#rp-mount");
      stop();
      stop = mountReplay(mount, await file.text(), file.name);
    });
  }
  const cleanup = () => { gone = true; stop(); };
  cleanup.relang = () => {
    if (failed) {
      drawFailure();
      return;
    }
    const h = root.querySelector("#rp-file-title");
    if (h) h.textContent = t("replay_title");
    const l = root.querySelector("#rp-file-label");
    if (l) l.textContent = t("load_record");
    if (stop.relang) stop.relang();
  };
  return cleanup;
}
