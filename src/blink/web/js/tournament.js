// Tournaments in the browser (tournament.html): the list and the creation form, and for one
// tournament (?id=...) the live bracket (pushed: an EventSource on
// GET /api/tournaments/{id}/events, which sends the whole state at each new version),
// sign-up with the player's profile (online), links to play, watch or replay each match's
// games, and the organiser's panel (players and ranks, draw, start, each game's result for real
// cards, take back, printable bracket). The bracket itself is bracket.js. Every string is in
// i18n.js (English and Spanish). Each tournament is of one game, named by its title (GET
// /api/options). See docs/protocol.md, "Tournaments and profiles".

import { api, ensureProfile, errorText, myProfile } from "./tournament-api.js";
import { drawConnectors, drawnParts, el } from "./bracket.js";
import { getLang, t, tCount } from "./i18n.js";
import { botMark, playerHref, playerLink } from "./playerlink.js";
import { setupTopbar } from "./topbar.js";

const main = document.getElementById("tmain");
const status = document.getElementById("tstatus");
const params = new URLSearchParams(location.search);
const tid = params.get("id");

function orgSecret(id) {
  try { return localStorage.getItem(`blink.tournament.org.${id}`); } catch { return null; }
}

function saveOrgSecret(id, secret) {
  try { localStorage.setItem(`blink.tournament.org.${id}`, secret); } catch { /* ignore */ }
}

function showError(err) {
  status.textContent = errorText(err);
  status.className = "net terr bad";
}

/** A refusal shown where the user acted: under `form` (its first field marked invalid,
 * described by the sentence, and focused); the top bar only when the form is gone. */
function showErrorAt(form, err) {
  if (!form || !form.isConnected) {
    showError(err);
    return;
  }
  let p = form.querySelector(".form-error");
  if (!p) {
    p = el("p", { class: "terr form-error", role: "alert", id: `${form.id || "form"}-error` });
    form.append(p);
  }
  p.textContent = errorText(err);
  const field = form.querySelector("input:not([type=hidden]), select");
  if (field) {
    field.setAttribute("aria-invalid", "true");
    field.setAttribute("aria-describedby", p.id);
    field.focus();
  }
}

// --- the list ---------------------------------------------------------------------------------

// Each game's facts as GET /api/options gives them (`game_info`: the games rooms can play, each
// with its title by language), read once before the page is drawn.
let gameInfo = {};

async function loadGames() {
  try {
    gameInfo = (await api("GET", "/api/options")).game_info || {};
  } catch { gameInfo = {}; }
}

/** A game's title in the page's language (its registry name when the server gives none). */
function gameTitle(name) {
  const g = gameInfo[name] || {};
  const titles = g.titles || {};
  return titles[getLang()] || titles.en || g.title || name;
}

/** The new-tournament form's choice of game, when the server has more than one. */
function gameChoice() {
  const names = Object.keys(gameInfo);
  if (names.length < 2) return [];
  return [el("label", {}, `${t("t_game")} `,
    el("select", { name: "game" }, ...names.map((n) => el("option", { value: n }, gameTitle(n)))))];
}

function kindWord(kind) {
  return kind === "online" ? t("t_online") : t("t_cards");
}

function playersWord(n) {
  return tCount("t_players", n);
}

/** The "bot" mark and words of a bot tournament (entrants: "bots"), nothing for people's. */
function botTournamentMark(x) {
  return x.entrants === "bots" ? [" ", botMark(), ` ${t("t_bot_tournament")}`] : [];
}

let listed = null;

function drawList(data) {
  main.replaceChildren(
    el("h1", {}, t("tournaments")),
    el("section", { class: "tpanel" },
      el("h2", {}, t("t_new")),
      el("form", { id: "create", onsubmit: onCreate },
        el("label", {}, `${t("t_name")} `, el("input", { name: "name", value: t("t_default_name"), maxlength: "64", required: true })),
        ...gameChoice(),
        el("label", {}, `${t("t_kind")} `,
          el("select", { name: "kind" },
            el("option", { value: "online" }, t("t_kind_online")),
            el("option", { value: "cards" }, t("t_kind_cards")))),
        el("label", {}, `${t("t_entrants")} `,
          el("select", { name: "entrants" },
            el("option", { value: "people" }, t("t_entrants_people")),
            el("option", { value: "bots" }, t("t_entrants_bots")))),
        el("label", {}, `${t("t_no_show_label")} `,
          el("input", { name: "no_show", type: "number", min: "1", max: "10080", size: "5" })),
        el("button", { type: "submit", class: "primary" }, t("t_create")))),
    data.tournaments.length
      ? el("ul", { id: "tlist", class: "tlist" }, ...data.tournaments.map((x) =>
        el("li", { "data-status": x.status, "data-entrants": x.entrants }, el("a", { href: x.url }, x.name), ...botTournamentMark(x),
          el("span", { class: "meta", "data-game": x.game }, ` ${gameTitle(x.game)} · ${kindWord(x.kind)} · ${t(`t_st_${x.status}`)} · ${playersWord(x.players)}`))))
      : el("p", { id: "tlist", class: "meta" }, t("t_none")),
  );
}

async function listPage() {
  listed = await api("GET", "/api/tournaments");
  drawList(listed);
}

async function onCreate(ev) {
  ev.preventDefault();
  const f = new FormData(ev.target);
  try {
    const minutes = Number(f.get("no_show")) || null;
    const made = await api("POST", "/api/tournaments", {
      name: f.get("name"), game: f.get("game") || undefined, kind: f.get("kind"), entrants: f.get("entrants"),
      no_show_after: minutes && minutes * 60,
    });
    saveOrgSecret(made.id, made.organiser_secret);
    location.href = `/tournament.html?id=${encodeURIComponent(made.id)}`;
  } catch (err) { showErrorAt(ev.target, err); }
}

// --- one tournament ----------------------------------------------------------------------------

let current = null;
// What the organiser has typed into the page's forms, by form id and field name: a live update
// rebuilds the page, and must not wipe a form being filled in (nor bring back an older state).
const drafts = {};

function rememberDraft(ev) {
  const field = ev.target;
  const form = field && field.form;
  if (!form || !form.id || !field.name) return;
  (drafts[form.id] ||= {})[field.name] = field.value;
}

function restoreDrafts(root, focused) {
  for (const [formId, fields] of Object.entries(drafts)) {
    const form = root.querySelector(`form#${formId}`);
    if (!form) continue;
    for (const [name, value] of Object.entries(fields)) {
      const field = form.elements.namedItem(name);
      if (field && "value" in field) field.value = value;
    }
  }
  if (focused) {
    const again = root.querySelector(`form#${focused.form}`)?.elements.namedItem(focused.name);
    if (again && "focus" in again) again.focus();
  }
}

function newer(x) {
  return !current || x.version >= current.version;
}

function live(text, bad = false) {
  status.textContent = text;
  status.className = bad ? "net terr bad" : "net";
  status.dataset.state = bad ? "down" : "live";
}

// The live bracket: the server pushes the state at each new version (Server-Sent Events);
// EventSource reconnects by itself, sending the last version it had (Last-Event-ID).
function follow() {
  const events = new EventSource(`/api/tournaments/${encodeURIComponent(tid)}/events`);
  events.addEventListener("tournament", (ev) => {
    const x = JSON.parse(ev.data);
    if (newer(x)) {
      current = x;
      render(x);
    }
  });
  events.onopen = () => live(t("stream_live"));
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) {
      // Refused (no such tournament, too many streams): say why, and try again later.
      api("GET", `/api/tournaments/${encodeURIComponent(tid)}`).catch(showError);
      setTimeout(follow, 5000);
    } else {
      live(t("stream_down"), true);
    }
  };
}

async function act(path, body, formId = null) {
  try {
    const x = await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/${path}`,
      { organiser_secret: orgSecret(tid), ...body });
    if (formId) {
      // Sent: the form starts empty again, even when no render follows (a newer version was
      // pushed while this request was in flight, and drew the draft back in).
      delete drafts[formId];
      const form = document.getElementById(formId);
      if (form instanceof HTMLFormElement) form.reset();
    }
    if (newer(x)) {
      current = x;
      render(x);
    }
  } catch (err) { showErrorAt(formId && document.getElementById(formId), err); }
}

/** A player's own request (check in, withdraw, claim) with this browser's profile. */
async function selfAct(path, body = {}) {
  try {
    const me = myProfile();
    const x = await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/${path}`,
      { profile_secret: me && me.secret, ...body });
    if (newer(x)) {
      current = x;
      render(x);
    }
    return x;
  } catch (err) { showError(err); return null; }
}

/** A time of day in the page's language (seconds since the epoch). */
function clockTime(at) {
  return new Date(at * 1000).toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" });
}

const ROOM_GAME = /^[A-Za-z0-9]+\/\d+$/;

/** The replay page of a game played in a match room ("CODE/ID" is the game's reference). */
function replayUrl(ref) {
  const [code, id] = ref.split("/");
  const record = `/api/games/${encodeURIComponent(id)}/record?room=${encodeURIComponent(code)}`;
  return `/#replay=${encodeURIComponent(record)}`;
}

/** A match box's links (watch, replays, play) and the organiser's buttons. */
function matchActs(x, m, org) {
  const me = myProfile();
  const room = x.rooms[m.id];
  const out = [];
  if (room && m.status !== "decided") {
    out.push(el("a", { href: room.watch_url, class: "watch btn" }, t("t_watch")));
    if (room.no_show_at && !m.games.length) {
      out.push(el("span", { class: "meta no-show" }, t("t_no_show_at", { time: clockTime(room.no_show_at) })));
    }
    const mine = me && x.players.find((p) => p.profile === me.id);
    const seat = mine ? m.players.indexOf(mine.name) : -1;
    if (seat >= 0) {
      out.push(el("a", {
        href: room.play_url, class: "play btn primary",
        onclick: () => {
          try {
            sessionStorage.setItem(`blink.seat.${room.code}`, JSON.stringify({ token: me.secret, seat }));
          } catch { /* ignore */ }
        },
      }, t("t_play_match")));
    }
  }
  m.games.forEach((g, i) => {
    if (g.ref && ROOM_GAME.test(g.ref)) out.push(el("a", { href: replayUrl(g.ref), class: "replay" }, t("t_replay_n", { n: i + 1 })));
  });
  if (org && (m.status === "ready" || m.status === "playing")) {
    for (const p of m.players) {
      out.push(el("button", { type: "button", "data-win": p, onclick: () => act("result", { match: m.id, winners: [p] }) },
        t("t_won_game", { name: p })));
    }
    out.push(el("button", { type: "button", "data-tie": m.id, onclick: () => act("result", { match: m.id, tie: true }) }, t("t_tie_btn")));
  }
  if (org && m.status === "ready" && !m.games.length) {
    for (const p of m.players) {
      out.push(el("button", { type: "button", "data-no-show": p, onclick: () => act("forfeit", { match: m.id, players: [p] }) },
        t("t_no_show", { name: p })));
    }
    out.push(el("button", { type: "button", "data-no-show": "", onclick: () => act("forfeit", { match: m.id, players: m.players }) },
      t("t_both_absent")));
  }
  if (org && m.games.length && !m.walkover) out.push(correctForm(m));
  if (org && x.kind === "cards" && m.games.length) {
    out.push(el("button", { type: "button", "data-undo": m.id, onclick: () => act("undo", { match: m.id }) }, t("t_undo")));
  }
  if (org && x.handicaps && m.players.length === 2 && m.status === "ready") {
    out.push(el("button", { type: "button", onclick: () => act("handicap", { match: m.id, suggest: true }) }, t("t_suggest")));
  }
  return out;
}

/** The organiser's correction of one game of a match: which game, and its winner (or a tie). */
function correctForm(m) {
  const id = `correct-${m.id}`;
  return el("form", {
    id, class: "correct",
    onsubmit: (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.target);
      const who = f.get("winner");
      const body = { match: m.id, game: Number(f.get("game")) };
      act("correct", who === "" ? { ...body, tie: true } : { ...body, winners: [who] }, id);
    },
  },
  el("label", {}, `${t("t_correct_game")} `,
    el("select", { name: "game" }, ...m.games.map((g, i) => el("option", { value: String(i + 1) }, String(i + 1))))),
  el("label", {}, `${t("t_correct_winner")} `,
    el("select", { name: "winner" },
      ...m.players.filter(Boolean).map((p) => el("option", { value: p }, p)),
      el("option", { value: "" }, t("t_tie_option")))),
  el("button", { type: "submit" }, t("t_correct")));
}

let claimLinks = null;

async function showClaims() {
  try {
    const got = await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/claims`, { organiser_secret: orgSecret(tid) });
    claimLinks = got.claims;
    if (current) render(current);
  } catch (err) { showError(err); }
}

/** Check-in before the draw: open it (for some minutes, or until the draw), or how it goes. */
function checkInPart(x) {
  const c = x.check_in;
  if (c.open) {
    const n = (c.players || []).length;
    const line = [t("t_check_in_state", { n, total: x.players.length })];
    if (c.closes_at) line.push(t("t_check_in_until", { time: clockTime(c.closes_at) }));
    if (c.draw_at_close) line.push(t("t_draw_at_close_set"));
    return el("p", { id: "check-in-state" }, line.join(" "));
  }
  return el("form", {
    id: "check-in-open",
    onsubmit: (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.target);
      const minutes = Number(f.get("minutes")) || undefined;
      act("check-in/open", { minutes, draw_at_close: Boolean(minutes && f.get("draw")) }, "check-in-open");
    },
  },
  el("label", {}, `${t("t_check_in_minutes")} `, el("input", { name: "minutes", type: "number", min: "1", size: "5" })),
  el("label", { class: "check" }, el("input", { name: "draw", type: "checkbox", value: "1" }), el("span", {}, t("t_draw_at_close"))),
  el("button", { type: "submit" }, t("t_check_in_open_btn")));
}

function organiserPanel(x) {
  const panel = el("section", { class: "tpanel", id: "organiser" }, el("h2", {}, t("t_organiser")));
  if (!x.tournament.draw) {
    // Online too: a player entered by name gets a claim link for their seat.
    panel.append(el("form", {
      id: "add-player",
      onsubmit: (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        const rank = f.get("rank") ? Number(f.get("rank")) : null;
        act("players", { name: f.get("name"), rank }, "add-player");
      },
    },
    el("label", {}, `${t("t_player")} `, el("input", { name: "name", maxlength: "40", required: true })),
    el("label", {}, `${t("t_rank_label")} `, el("input", { name: "rank", type: "number", min: "1", size: "4" })),
    el("button", { type: "submit" }, t("t_add"))));
    panel.append(el("form", {
      id: "draw",
      onsubmit: (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        const seed = f.get("seed") ? Number(f.get("seed")) : undefined;
        act(x.kind === "online" ? "start" : "draw", { seed }, "draw");
      },
    },
    el("label", {}, `${t("t_seed")} `, el("input", { name: "seed", type: "number", min: "0", size: "8" })),
    el("button", { type: "submit", class: "primary" }, x.kind === "online" ? t("t_draw_start") : t("t_draw_first"))));
    panel.append(checkInPart(x));
  } else if (x.kind === "online" && x.status === "drawn") {
    panel.append(el("button", { type: "button", class: "primary", onclick: () => act("start", {}) }, t("t_open_rooms")));
  } else if (x.status === "finished") {
    panel.append(el("p", {}, t("t_over")));
  } else if (x.kind === "cards") {
    panel.append(el("p", {}, t("t_cards_help")));
  } else {
    panel.append(el("p", {}, t("t_online_help")));
  }
  if (x.players.some((p) => p.claimable)) {
    panel.append(el("button", { type: "button", id: "claim-links", onclick: showClaims }, t("t_claim_links")));
    if (claimLinks) {
      panel.append(el("ul", { id: "claims" }, ...Object.entries(claimLinks).map(([n, url]) =>
        el("li", {}, `${n}: `, el("a", { href: url }, new URL(url, location.href).href)))));
    }
  }
  return panel;
}

/** A signed-up player's own part: check in while check-in is open; withdraw once drawn. */
function myPart(x) {
  const me = myProfile();
  const mine = me && x.players.find((p) => p.profile === me.id);
  if (!mine) return null;
  const part = el("section", { class: "tpanel", id: "mine" }, el("h2", {}, mine.name));
  if (x.check_in.open) {
    part.append(mine.checked_in
      ? el("p", {}, t("t_you_checked_in"))
      : el("button", { type: "button", class: "primary", id: "check-in-me", onclick: () => selfAct("check-in") }, t("t_check_in_btn")));
  }
  if (x.tournament.draw && x.status !== "finished" && !mine.withdrawn) {
    part.append(el("button", {
      type: "button", id: "withdraw-me",
      onclick: () => { if (confirm(t("t_withdraw_sure"))) selfAct("withdraw"); },
    }, t("t_withdraw_me")));
  }
  return part.childNodes.length > 1 ? part : null;
}

/** Opened from a claim link (?claim=...): the seat entered by name becomes this profile's. */
function claimPanel(x) {
  const token = params.get("claim");
  if (!token || !x.players.some((p) => p.claimable)) return null;
  const me = myProfile();
  return el("section", { class: "tpanel", id: "claim" },
    el("h2", {}, t("t_claim_title")),
    el("p", {}, t("t_claim_help")),
    el("form", {
      id: "claim-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const p = await ensureProfile(new FormData(ev.target).get("name"));
          const done = await selfAct("claim", { claim: token, profile_secret: p.secret });
          if (done) history.replaceState(null, "", `/tournament.html?id=${encodeURIComponent(tid)}`);
        } catch (err) { showErrorAt(ev.target, err); }
      },
    },
    me ? el("input", { type: "hidden", name: "name", value: me.name }) : el("label", {}, `${t("name")} `, el("input", { name: "name", maxlength: "24", required: true })),
    el("button", { type: "submit", class: "primary" }, t("t_claim_btn"))));
}

/** One change of the audit trail in words. */
function changeWords(c) {
  const who = c.players.join(", ");
  const names = (w) => (w && w.length === 1 ? w[0] : t("t_ch_tie"));
  const what = {
    withdrawal: () => t("t_ch_withdrawal", { who }),
    forfeit: () => t("t_ch_forfeit", { who, m: c.match }),
    correction: () => t("t_ch_correction", { n: c.game, m: c.match, from: names(c.before), to: names(c.after) }),
    "take-back": () => t("t_ch_take_back", { n: c.game, m: c.match, from: names(c.before) }),
    "check-in-missed": () => t("t_ch_check_in_missed", { who }),
  }[c.kind];
  const at = c.at ? new Date(c.at * 1000).toLocaleString(getLang()) : "";
  return t("t_ch_line", { at, by: c.by || "", what: what ? what() : c.kind });
}

function changesPart(x) {
  if (!x.changes || !x.changes.length) return null;
  return el("section", { class: "tpanel", id: "changes" }, el("h2", {}, t("t_changes")),
    el("ol", {}, ...x.changes.map((c) => el("li", { "data-kind": c.kind }, changeWords(c)))));
}

function joinPanel(x) {
  const me = myProfile();
  const joined = me && x.players.some((p) => p.profile === me.id);
  const panel = el("section", { class: "tpanel", id: "join" }, el("h2", {}, t("t_signup")));
  if (x.entrants === "bots") {
    panel.append(el("p", { id: "bots-enter" }, t("t_bots_enter")));
    return panel;
  }
  if (joined) {
    panel.append(el("p", {}, t("t_you_in", { name: me.name })));
    return panel;
  }
  panel.append(el("form", {
    id: "join-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.target);
      try {
        const p = await ensureProfile(f.get("name"));
        const res = await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/join`, { profile_secret: p.secret });
        current = res;
        render(res);
      } catch (err) { showErrorAt(ev.target, err); }
    },
  },
  me ? el("span", {}, `${t("t_join_as", { name: me.name })} `) : el("label", {}, `${t("name")} `, el("input", { name: "name", maxlength: "24", required: true })),
  me ? el("input", { type: "hidden", name: "name", value: me.name }) : null,
  el("button", { type: "submit", class: "primary" }, t("t_join"))));
  return panel;
}

/** The players entered with a profile: name -> the profile's page (/@/ID leads to it). */
function profileLinks(x) {
  return new Map(x.players.filter((p) => p.profile).map((p) => [p.name, playerHref(p.profile)]));
}

function playerLine(p, x, org) {
  const td = x.tournament;
  let line = "";
  if (p.rank) line += ` (${t("t_rank_n", { n: p.rank })})`;
  if (td.draw && td.draw.byes.includes(p.name)) line += ` · ${t("t_bye")}`;
  if (p.withdrawn) line += ` · ${t("t_withdrawn_mark")}`;
  if (x.check_in.open) line += ` · ${t(p.checked_in ? "t_checked_in_mark" : "t_not_checked_in_mark")}`;
  if (p.claimable) line += ` · ${t("t_claimable_mark")}`;
  const li = el("li", { "data-player": p.name }, p.profile ? playerLink(p.profile, p.name) : p.name,
    ...(p.bot ? [" ", botMark()] : []), line);
  if (org && x.check_in.open && !p.checked_in) {
    li.append(" ", el("button", { type: "button", onclick: () => act("check-in", { name: p.name }) }, t("t_check_in_for", { name: p.name })));
  }
  const out = td.standings.some((s) => s.name === p.name && (s.status === "eliminated" || s.status === "placed" || s.status === "champion"));
  if (org && td.draw && x.status !== "finished" && !p.withdrawn && !out) {
    li.append(" ", el("button", { type: "button", "data-withdraw": p.name, onclick: () => act("withdraw", { name: p.name }) }, t("t_withdraw", { name: p.name })));
  }
  return li;
}

let resize = null;

/** A finished tournament's result at the top of the page: the champion, then the next places
 * (the whole standings stay at the bottom, linked). */
function championPart(td) {
  if (!td.finished || !td.champion) return null;
  const next = (td.standings || []).filter((s) => s.place > 1 && s.place <= 3 && s.place === s.place_to);
  return el("section", { class: "tpanel champion", id: "champion" },
    el("h2", {}, t("t_champion_head")),
    el("p", { class: "champion-name" }, td.champion),
    next.length ? el("p", { class: "meta podium" }, next.map((s) => `${s.place}. ${s.name}`).join(" · ")) : null,
    el("a", { href: "#standings" }, t("t_all_standings")));
}

/** A printable bracket's URL in the page's language (the server prints English or Spanish). */
function inLang(url) {
  return `${url}${url.includes("?") ? "&" : "?"}lang=${getLang()}`;
}

function render(x) {
  const org = Boolean(orgSecret(tid));
  const td = x.tournament;
  document.title = `${x.name} · Blink`;
  const parts = [
    el("h1", {}, x.name),
    el("p", { class: "meta", id: "tstate", "data-status": x.status, "data-version": String(x.version), "data-entrants": x.entrants, "data-game": x.game },
      `${gameTitle(x.game)} · ${kindWord(x.kind)} · ${t(`t_st_${x.status}`)} · ${playersWord(x.players.length)}`, ...botTournamentMark(x)),
    el("p", { class: "tlinks" },
      el("a", { href: inLang(x.bracket_html), target: "_blank", id: "printable", class: "btn" }, t("t_printable")),
      el("a", { href: inLang(x.bracket_png), target: "_blank", id: "bracket-png", class: "btn" }, t("t_png")),
      el("a", { href: x.export_url, class: "btn" }, t("t_export"))),
  ];
  const champ = championPart(td);
  if (champ) parts.push(champ);
  if (org) parts.push(organiserPanel(x));
  const claim = claimPanel(x);
  if (claim) parts.push(claim);
  else if (x.kind === "online" && x.status === "signup") parts.push(joinPanel(x));
  const mine = myPart(x);
  if (mine) parts.push(mine);
  parts.push(el("section", { class: "tpanel" }, el("h2", {}, t("players")),
    el("ul", { id: "players" }, ...x.players.map((p) => playerLine(p, x, org)))));
  if (td.draw) {
    parts.push(el("p", { class: "meta" }, t("t_draw_seed", { seed: td.draw.seed })),
      drawnParts(td, (m) => matchActs(x, m, org), profileLinks(x)));
  }
  const changes = changesPart(x);
  if (changes) parts.push(changes);
  const active = document.activeElement;
  const focused = active && active.form && active.form.id && active.name
    ? { form: active.form.id, name: active.name } : null;
  main.replaceChildren(...parts);
  restoreDrafts(main, focused);
  connect();
}

/** Draw the bracket's connectors once laid out, and again when its size changes. */
function connect() {
  if (resize) resize.disconnect();
  const grid = main.querySelector(".bracket-grid");
  if (!grid) return;
  resize = new ResizeObserver(() => drawConnectors(grid));
  resize.observe(grid);
}

setupTopbar({
  onRules: () => { location.href = "/#rules"; },
  onLang: () => {
    if (tid && current) render(current);
    else if (!tid && listed) drawList(listed);
    if (status.dataset.state) live(t(status.dataset.state === "down" ? "stream_down" : "stream_live"), status.dataset.state === "down");
  },
});
document.title = t("t_page_title");
loadGames().then(() => {
  if (tid) {
    main.addEventListener("input", rememberDraft);
    follow();
  } else {
    listPage().catch(showError);
  }
});
