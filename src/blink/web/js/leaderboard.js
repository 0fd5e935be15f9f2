// The leaderboard page (leaderboard.html): profiles by conservative rating, the bots' fixed
// ratings, and this browser's own profile (created here if it has none). The server pushes the
// leaderboard again at each change (Server-Sent Events on /api/leaderboard/events).
import { api, ensureProfile, myProfile } from "./tournament-api.js";

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onsubmit") e.onsubmit = v;
    else e.setAttribute(k, v);
  }
  for (const kid of kids) e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return e;
}

async function showMe() {
  const box = document.getElementById("me");
  const me = myProfile();
  if (me) {
    let line = `Your profile: ${me.name}`;
    let recent = [];
    try {
      const p = await api("GET", `/api/profiles/${encodeURIComponent(me.id)}`);
      line += ` · rating ${p.rating.ordinal.toFixed(1)} · ${p.games} games, ${p.wins} wins`;
      recent = p.history.slice(0, 5).map((h) => {
        const before = h.before.mu - 3 * h.before.sigma;
        const after = h.after.mu - 3 * h.after.sigma;
        return el("li", {}, `${h.place === 1 ? "won" : "lost"} against ${h.opponents.join(", ")}: `
          + `${before.toFixed(1)} → ${after.toFixed(1)}`);
      });
    } catch { /* the server may have been reset */ }
    box.replaceChildren(el("p", {}, line), el("ul", { id: "history" }, ...recent));
    return;
  }
  box.replaceChildren(el("form", {
    onsubmit: async (ev) => {
      ev.preventDefault();
      await ensureProfile(new FormData(ev.target).get("name"));
      showMe();
    },
  }, el("label", {}, "Make a profile: your name ", el("input", { name: "name", maxlength: "24", required: "" })),
  el("button", { type: "submit" }, "Create")),
  el("p", { class: "meta" }, "The profile is kept by this browser (no password): games you play with it are rated."));
}

function showBoard(data) {
  const me = myProfile();
  document.querySelector("#board tbody").replaceChildren(...data.players.map((p) =>
    el("tr", p.id === (me && me.id) ? { class: "me" } : {},
      el("td", {}, p.rank), el("td", {}, p.name), el("td", {}, p.rating.ordinal.toFixed(1)),
      el("td", {}, p.rating.mu.toFixed(1)), el("td", {}, p.rating.sigma.toFixed(2)),
      el("td", {}, p.games), el("td", {}, p.wins))));
  document.querySelector("#bots tbody").replaceChildren(...Object.entries(data.bots).map(([lvl, r]) =>
    el("tr", {}, el("td", {}, lvl), el("td", {}, r.mu.toFixed(0)))));
}

const status = document.getElementById("lstatus");

// EventSource reconnects by itself; the page says while it is not connected.
function follow() {
  const events = new EventSource("/api/leaderboard/events");
  let first = true;
  events.addEventListener("leaderboard", (ev) => {
    showBoard(JSON.parse(ev.data));
    if (!first) showMe();  // this browser's rating may have changed too
    first = false;
  });
  events.onopen = () => {
    status.textContent = "live";
    status.className = "net";
  };
  events.onerror = () => {
    status.textContent = "disconnected: reconnecting…";
    status.className = "net bad";
    if (events.readyState === EventSource.CLOSED) setTimeout(follow, 5000);
  };
}

showMe();
follow();
