// Tournaments in the browser (tournament.html): the list and the creation form, and for one
// tournament (?id=...) the live bracket (pushed: an EventSource on
// GET /api/tournaments/{id}/events, which sends the whole state at each new version),
// sign-up with the player's profile (online), links to play, watch or replay each match's
// games, and the organiser's panel (players and ranks, draw, start, each game's result for real
// cards, take back, printable bracket). The bracket itself is bracket.js. Every string is in
// i18n.js (English and Spanish). See docs/protocol.md, "Tournaments and profiles".

import { api, ensureProfile, errorText, myProfile } from "./tournament-api.js";
import { drawConnectors, drawnParts, el } from "./bracket.js";
import { getLang, t } from "./i18n.js";
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

// --- the list ---------------------------------------------------------------------------------

function kindWord(kind) {
  return kind === "online" ? t("t_online") : t("t_cards");
}

function playersWord(n) {
  return n === 1 ? t("t_players_1") : t("n_players", { n });
}

let listed = null;

function drawList(data) {
  main.replaceChildren(
    el("h1", {}, t("tournaments")),
    el("section", { class: "tpanel" },
      el("h2", {}, t("t_new")),
      el("form", { id: "create", onsubmit: onCreate },
        el("label", {}, `${t("t_name")} `, el("input", { name: "name", value: t("t_default_name"), maxlength: "64", required: true })),
        el("label", {}, `${t("t_kind")} `,
          el("select", { name: "kind" },
            el("option", { value: "online" }, t("t_kind_online")),
            el("option", { value: "cards" }, t("t_kind_cards")))),
        el("button", { type: "submit", class: "primary" }, t("t_create")))),
    data.tournaments.length
      ? el("ul", { id: "tlist", class: "tlist" }, ...data.tournaments.map((x) =>
        el("li", { "data-status": x.status }, el("a", { href: x.url }, x.name),
          el("span", { class: "meta" }, ` ${kindWord(x.kind)} · ${t(`t_st_${x.status}`)} · ${playersWord(x.players)}`))))
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
    const made = await api("POST", "/api/tournaments", { name: f.get("name"), kind: f.get("kind") });
    saveOrgSecret(made.id, made.organiser_secret);
    location.href = `/tournament.html?id=${encodeURIComponent(made.id)}`;
  } catch (err) { showError(err); }
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
    if (formId) delete drafts[formId];  // sent: the form starts empty again
    if (newer(x)) {
      current = x;
      render(x);
    }
  } catch (err) { showError(err); }
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
  if (org && x.kind === "cards" && m.games.length) {
    out.push(el("button", { type: "button", "data-undo": m.id, onclick: () => act("undo", { match: m.id }) }, t("t_undo")));
  }
  if (org && m.players.length === 2 && m.status === "ready") {
    out.push(el("button", { type: "button", onclick: () => act("handicap", { match: m.id, suggest: true }) }, t("t_suggest")));
  }
  return out;
}

function organiserPanel(x) {
  const panel = el("section", { class: "tpanel", id: "organiser" }, el("h2", {}, t("t_organiser")));
  if (!x.tournament.draw) {
    if (x.kind === "cards") {
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
    }
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
  } else if (x.kind === "online" && x.status === "drawn") {
    panel.append(el("button", { type: "button", class: "primary", onclick: () => act("start", {}) }, t("t_open_rooms")));
  } else if (x.status === "finished") {
    panel.append(el("p", {}, t("t_over")));
  } else if (x.kind === "cards") {
    panel.append(el("p", {}, t("t_cards_help")));
  } else {
    panel.append(el("p", {}, t("t_online_help")));
  }
  return panel;
}

function joinPanel(x) {
  const me = myProfile();
  const joined = me && x.players.some((p) => p.profile === me.id);
  const panel = el("section", { class: "tpanel", id: "join" }, el("h2", {}, t("t_signup")));
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
      } catch (err) { showError(err); }
    },
  },
  me ? el("span", {}, `${t("t_join_as", { name: me.name })} `) : el("label", {}, `${t("name")} `, el("input", { name: "name", maxlength: "24", required: true })),
  me ? el("input", { type: "hidden", name: "name", value: me.name }) : null,
  el("button", { type: "submit", class: "primary" }, t("t_join"))));
  return panel;
}

function playerLine(p, td) {
  let line = p.name;
  if (p.rank) line += ` (${t("t_rank_n", { n: p.rank })})`;
  if (td.draw && td.draw.byes.includes(p.name)) line += ` · ${t("t_bye")}`;
  return el("li", {}, line);
}

let resize = null;

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
    el("p", { class: "meta", id: "tstate", "data-status": x.status, "data-version": String(x.version) },
      `${kindWord(x.kind)} · ${t(`t_st_${x.status}`)} · ${playersWord(x.players.length)}`),
    el("p", { class: "tlinks" },
      el("a", { href: inLang(x.bracket_html), target: "_blank", id: "printable", class: "btn" }, t("t_printable")),
      el("a", { href: inLang(x.bracket_png), target: "_blank", id: "bracket-png", class: "btn" }, t("t_png")),
      el("a", { href: x.export_url, class: "btn" }, t("t_export"))),
  ];
  if (org) parts.push(organiserPanel(x));
  if (x.kind === "online" && x.status === "signup") parts.push(joinPanel(x));
  parts.push(el("section", { class: "tpanel" }, el("h2", {}, t("players")),
    el("ul", { id: "players" }, ...x.players.map((p) => playerLine(p, td)))));
  if (td.draw) {
    parts.push(el("p", { class: "meta" }, t("t_draw_seed", { seed: td.draw.seed })),
      drawnParts(td, (m) => matchActs(x, m, org)));
  }
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
if (tid) {
  main.addEventListener("input", rememberDraft);
  follow();
} else {
  listPage().catch(showError);
}
