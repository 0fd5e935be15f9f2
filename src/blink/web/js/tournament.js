// Tournaments in the browser (tournament.html): the list and the creation form, and for one
// tournament (?id=...) the live bracket (pushed: an EventSource on
// GET /api/tournaments/{id}/events, which sends the whole state at each new version),
// sign-up with the player's profile (online), links to play or watch each match's room, and
// the organiser's panel (players and ranks, draw, start, each game's result for real cards,
// take back, printable bracket). See docs/protocol.md, "Tournaments and profiles".

import { api, ensureProfile, myProfile } from "./tournament-api.js";

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

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick" || k === "onsubmit") e[k] = v;
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

function showError(err) {
  status.textContent = err.message || String(err);
  status.className = "net terr";
}

// --- the list ---------------------------------------------------------------------------------

async function listPage() {
  const data = await api("GET", "/api/tournaments");
  main.replaceChildren(
    el("h1", {}, "Tournaments"),
    el("section", { class: "tpanel" },
      el("h2", {}, "New tournament"),
      el("form", { id: "create", onsubmit: onCreate },
        el("label", {}, "Name ", el("input", { name: "name", value: "Blink tournament", maxlength: "64", required: true })),
        el("label", {}, "Kind ",
          el("select", { name: "kind" },
            el("option", { value: "online" }, "Online (rooms on this server)"),
            el("option", { value: "cards" }, "Real cards (enter results)"))),
        el("button", { type: "submit" }, "Create"))),
    el("ul", { id: "tlist" }, ...data.tournaments.map((t) =>
      el("li", {}, el("a", { href: t.url }, t.name), ` — ${t.kind}, ${t.status}, ${t.players} players`))),
  );
}

async function onCreate(ev) {
  ev.preventDefault();
  const f = new FormData(ev.target);
  try {
    const t = await api("POST", "/api/tournaments", { name: f.get("name"), kind: f.get("kind") });
    saveOrgSecret(t.id, t.organiser_secret);
    location.href = `/tournament.html?id=${encodeURIComponent(t.id)}`;
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

function newer(t) {
  return !current || t.version >= current.version;
}

// The live bracket: the server pushes the state at each new version (Server-Sent Events);
// EventSource reconnects by itself, sending the last version it had (Last-Event-ID).
function follow() {
  const events = new EventSource(`/api/tournaments/${encodeURIComponent(tid)}/events`);
  events.addEventListener("tournament", (ev) => {
    const t = JSON.parse(ev.data);
    if (newer(t)) {
      current = t;
      render(t);
    }
  });
  events.onopen = () => {
    status.textContent = "live";
    status.className = "net";
  };
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) {
      // Refused (no such tournament, too many streams): say why, and try again later.
      api("GET", `/api/tournaments/${encodeURIComponent(tid)}`).catch(showError);
      setTimeout(follow, 5000);
    } else {
      status.textContent = "disconnected: reconnecting…";
      status.className = "net terr bad";
    }
  };
}

async function act(path, body, formId = null) {
  try {
    const t = await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/${path}`,
      { organiser_secret: orgSecret(tid), ...body });
    if (formId) delete drafts[formId];  // sent: the form starts empty again
    if (newer(t)) {
      current = t;
      render(t);
    }
  } catch (err) { showError(err); }
}

function roundName(t, r) {
  const rounds = t.tournament.plan ? t.tournament.plan.rounds : 0;
  return r > rounds ? "Final round" : `Round ${r}`;
}

function matchBox(t, m, org) {
  const me = myProfile();
  const room = t.rooms[m.id];
  const box = el("div", { class: "match", "data-match": m.id, "data-status": m.status },
    el("div", { class: "meta" }, `${m.label} · ${m.status}${m.ties ? ` · ${m.ties} tied` : ""}`));
  m.players.forEach((p, i) => {
    const src = m.sources[i].replace(/^winner:/, "winner of ");
    const win = m.winner && p === m.winner;
    box.append(el("div", { class: `who${win ? " win" : ""}` },
      el("span", {}, p ?? src), el("span", {}, p !== null ? String(m.score[p] ?? 0) : "")));
  });
  if (m.handicap) {
    box.append(el("div", { class: "meta" }, "Handicap: " + Object.entries(m.handicap).map(([n, s]) => `${n} ${s}`).join(", ")));
  }
  const acts = el("div", { class: "acts" });
  if (room) {
    acts.append(el("a", { href: room.watch_url, class: "watch" }, `Watch ${room.code}`));
    const mine = me && t.players.find((p) => p.profile === me.id);
    const seat = mine ? m.players.indexOf(mine.name) : -1;
    if (seat >= 0 && m.status !== "decided") {
      acts.append(el("a", {
        href: room.play_url, class: "play",
        onclick: () => {
          try {
            sessionStorage.setItem(`blink.seat.${room.code}`, JSON.stringify({ token: me.secret, seat }));
          } catch { /* ignore */ }
        },
      }, "Play your match"));
    }
  }
  if (org && (m.status === "ready" || m.status === "playing")) {
    for (const p of m.players) {
      acts.append(el("button", { type: "button", "data-win": p, onclick: () => act("result", { match: m.id, winners: [p] }) }, `${p} won a game`));
    }
    acts.append(el("button", { type: "button", "data-tie": m.id, onclick: () => act("result", { match: m.id, tie: true }) }, "Tie"));
  }
  if (org && t.kind === "cards" && m.games.length) {
    acts.append(el("button", { type: "button", "data-undo": m.id, onclick: () => act("undo", { match: m.id }) }, "Take back"));
  }
  if (org && m.players.length === 2 && m.status === "ready") {
    acts.append(el("button", { type: "button", onclick: () => act("handicap", { match: m.id, suggest: true }) }, "Suggest handicap"));
  }
  if (acts.childNodes.length) box.append(acts);
  return box;
}

function organiserPanel(t) {
  const panel = el("section", { class: "tpanel", id: "organiser" }, el("h2", {}, "Organiser"));
  if (!t.tournament.draw) {
    if (t.kind === "cards") {
      panel.append(el("form", {
        id: "add-player",
        onsubmit: (ev) => {
          ev.preventDefault();
          const f = new FormData(ev.target);
          const rank = f.get("rank") ? Number(f.get("rank")) : null;
          act("players", { name: f.get("name"), rank }, "add-player");
        },
      },
      el("label", {}, "Player ", el("input", { name: "name", maxlength: "40", required: true })),
      el("label", {}, "Rank (1 = most experienced) ", el("input", { name: "rank", type: "number", min: "1", size: "4" })),
      el("button", { type: "submit" }, "Add")));
    }
    panel.append(el("form", {
      id: "draw",
      onsubmit: (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        const seed = f.get("seed") ? Number(f.get("seed")) : undefined;
        act(t.kind === "online" ? "start" : "draw", { seed }, "draw");
      },
    },
    el("label", {}, "Seed (empty: random) ", el("input", { name: "seed", type: "number", min: "0", size: "8" })),
    el("button", { type: "submit" }, t.kind === "online" ? "Draw and start" : "Draw the first round")));
  } else if (t.kind === "online" && t.status === "drawn") {
    panel.append(el("button", { type: "button", onclick: () => act("start", {}) }, "Start: open the rooms"));
  } else if (t.status === "finished") {
    panel.append(el("p", {}, "The tournament is over: print the bracket or export it."));
  } else if (t.kind === "cards") {
    panel.append(el("p", {}, "Enter each game as it is played with the buttons in the bracket below; a tied game is replayed."));
  } else {
    panel.append(el("p", {}, "Rooms open as matches become ready; results come from the rooms. The buttons below override a result."));
  }
  return panel;
}

function joinPanel(t) {
  const me = myProfile();
  const joined = me && t.players.some((p) => p.profile === me.id);
  const panel = el("section", { class: "tpanel", id: "join" }, el("h2", {}, "Sign up"));
  if (joined) {
    panel.append(el("p", {}, `You are in, as ${me.name}.`));
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
  me ? el("span", {}, `Join as ${me.name} `) : el("label", {}, "Your name ", el("input", { name: "name", maxlength: "24", required: true })),
  me ? el("input", { type: "hidden", name: "name", value: me.name }) : null,
  el("button", { type: "submit" }, "Join")));
  return panel;
}

function render(t) {
  const org = Boolean(orgSecret(tid));
  const td = t.tournament;
  const head = [
    el("h1", {}, t.name),
    el("p", { class: "meta", id: "tstate", "data-status": t.status, "data-version": String(t.version) },
      `${t.kind === "online" ? "Online" : "Real cards"} · ${t.status} · ${t.players.length} players`),
    el("p", { class: "tlinks" },
      el("a", { href: t.bracket_html, target: "_blank", id: "printable" }, "Printable bracket"),
      el("a", { href: t.bracket_png, target: "_blank" }, "Bracket image (PNG)"),
      el("a", { href: t.export_url }, "Export JSON")),
  ];
  const parts = [...head];
  if (org) parts.push(organiserPanel(t));
  if (t.kind === "online" && t.status === "signup") parts.push(joinPanel(t));
  parts.push(el("section", { class: "tpanel" }, el("h2", {}, "Players"),
    el("ul", { id: "players" }, ...t.players.map((p) =>
      el("li", {}, p.name + (p.rank ? ` (rank ${p.rank})` : "") + (td.draw && td.draw.byes.includes(p.name) ? " · bye" : ""))))));
  if (td.draw) {
    const byRound = new Map();
    for (const m of td.matches) {
      if (!byRound.has(m.round)) byRound.set(m.round, []);
      byRound.get(m.round).push(m);
    }
    const rounds = el("div", { class: "rounds", id: "bracket" });
    for (const [r, ms] of [...byRound.entries()].sort((a, b) => a[0] - b[0])) {
      rounds.append(el("div", { class: "round" }, el("h3", {}, roundName(t, r)), ...ms.map((m) => matchBox(t, m, org))));
    }
    parts.push(el("p", { class: "meta" }, `Draw seed ${td.draw.seed}`), rounds);
  }
  if (td.standings && td.standings.length && td.draw) {
    parts.push(el("table", { class: "ttable", id: "standings" },
      el("caption", {}, td.finished ? `Final standings — champion: ${td.champion}` : "Standings so far"),
      el("thead", {}, el("tr", {}, el("th", {}, "Place"), el("th", {}, "Player"), el("th", {}, "Status"))),
      el("tbody", {}, ...td.standings.map((s) =>
        el("tr", {}, el("td", {}, s.place === s.place_to ? String(s.place) : `${s.place}–${s.place_to}`), el("td", {}, s.name), el("td", {}, s.status)))),
    ));
  }
  const active = document.activeElement;
  const focused = active && active.form && active.form.id && active.name
    ? { form: active.form.id, name: active.name } : null;
  main.replaceChildren(...parts);
  restoreDrafts(main, focused);
}

if (tid) {
  main.addEventListener("input", rememberDraft);
  follow();
} else {
  listPage().catch(showError);
}
