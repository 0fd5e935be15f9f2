// The leaderboard page (leaderboard.html): profiles by rating (the conservative ordinal,
// mu - 3 sigma, as one number), their games and recent form (the server's latest five rated
// games), the rating model's figures in a disclosure per line and the bots' fixed ratings in
// the page's own disclosure, and this browser's own profile (created here if it has none).
// The server pushes the leaderboard again at each change (Server-Sent Events on
// /api/leaderboard/events). Every string is in i18n.js (English and Spanish).
import { api, ensureProfile, errorText, myProfile } from "./tournament-api.js";
import { el } from "./bracket.js";
import { applyI18n, t, tCount } from "./i18n.js";
import { botMark, playerLink } from "./playerlink.js";
import { setupTopbar } from "./topbar.js";

const status = document.getElementById("lstatus");
let board = null;
/** The ladder shown: "people" (the default) or "bots" (the bot accounts', ?ladder=bots). */
let ladder = new URLSearchParams(location.search).get("ladder") === "bots" ? "bots" : "people";
let events = null;

/** "bot:expert:first@40" -> "Bot (Expert)"; a profile's name as it is. */
function opponentName(name) {
  if (!name.startsWith("bot:")) return name;
  const level = name.slice(4).split(":")[0];
  const word = t(`level_${level}`);
  return `${t("bot")} (${word.startsWith("level_") ? level : word})`;
}

async function showMe() {
  const box = document.getElementById("me");
  const me = myProfile();
  if (me) {
    let line = t("lb_your_profile", { name: me.name });
    let recent = [];
    try {
      const p = await api("GET", `/api/profiles/${encodeURIComponent(me.id)}`);
      line += ` · ${t("lb_me_line", { r: p.rating.ordinal.toFixed(1), games: tCount("games", p.games), wins: tCount("wins", p.wins) })}`;
      recent = p.history.slice(0, 5).map((h) => {
        const before = (h.before.mu - 3 * h.before.sigma).toFixed(1);
        const after = (h.after.mu - 3 * h.after.sigma).toFixed(1);
        const who = h.opponents.map(opponentName).join(", ");
        return el("li", {}, t(h.place === 1 ? "lb_hist_won" : "lb_hist_lost", { who, a: before, b: after }));
      });
    } catch { /* the server may have been reset */ }
    // replaceChildren writes a null as the text "null": only the nodes there are.
    const parts = [el("p", {}, line), recent.length ? el("h2", {}, t("lb_history")) : null, el("ul", { id: "history" }, ...recent)];
    box.replaceChildren(...parts.filter(Boolean));
    return;
  }
  const refusal = el("p", { class: "terr", id: "me-error", role: "alert" });
  box.replaceChildren(el("form", {
    onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        await ensureProfile(new FormData(ev.target).get("name"));
      } catch (err) {
        refusal.textContent = errorText(err);
        return;
      }
      showMe();
    },
  }, el("label", {}, `${t("lb_make")} `, el("input", { name: "name", maxlength: "24", required: "" })),
  el("button", { type: "submit", class: "primary" }, t("lb_create"))),
  refusal, el("p", { class: "meta" }, t("lb_kept")));
}

/** The recent form as W/L marks, newest first, read out as words. */
function formCell(form) {
  if (!form || !form.length) return el("td", { class: "meta" }, t("lb_no_games"));
  const words = form.map((r) => t(r === "win" ? "lb_win" : "lb_loss")).join(", ");
  return el("td", {},
    el("span", { class: "form", role: "img", "aria-label": t("lb_form_label", { list: words }) },
      ...form.map((r) => el("span", { class: `mark ${r}`, "aria-hidden": "true", "data-result": r },
        t(r === "win" ? "lb_win_mark" : "lb_loss_mark")))));
}

function detailsCell(p) {
  return el("td", {}, el("details", { class: "rating-details" },
    el("summary", {}, t("lb_more")),
    el("dl", {},
      el("dt", {}, t("lb_skill")), el("dd", {}, p.rating.mu.toFixed(1)),
      el("dt", {}, t("lb_uncertainty")), el("dd", {}, p.rating.sigma.toFixed(2)),
      el("dt", {}, t("lb_wins")), el("dd", {}, String(p.wins)))));
}

function showBoard(data) {
  const me = myProfile();
  // Open disclosures stay open when the leaderboard is pushed again.
  const open = new Set([...document.querySelectorAll("#board tr[data-id] details[open]")]
    .map((d) => d.closest("tr").dataset.id));
  const line = (p) => {
    const row = el("tr", { "data-id": p.id, class: p.id === (me && me.id) ? "me" : null },
      el("td", {}, p.rank == null ? "–" : String(p.rank)), el("th", { scope: "row" }, playerLink(p.name), ...(p.bot_account ? [" ", botMark()] : []),
        ...(p.owner ? [" ", el("span", { class: "owner" }, t("lb_bot_owner", { owner: p.owner }))] : [])),
      el("td", { class: "rating" }, p.rating.ordinal.toFixed(1)), el("td", {}, String(p.games)),
      formCell(p.form), detailsCell(p));
    if (open.has(p.id)) row.querySelector("details").open = true;
    return row;
  };
  document.querySelector("#board tbody.ranked").replaceChildren(...data.players.map(line));
  // Provisional profiles (fewer rated games than the server's threshold): apart and
  // unranked (a fresh profile's starting rating would put it above players who have lost a
  // few games, and beating one gains nothing).
  const fresh = data.provisional || [];
  const heading = tCount("lb_provisional", data.provisional_games || 1);
  document.querySelector("#board tbody.provisional").replaceChildren(
    ...(fresh.length ? [el("tr", { class: "group" }, el("th", { scope: "rowgroup", colspan: "6" }, heading))] : []),
    ...fresh.map(line));
  document.querySelector("#bots tbody").replaceChildren(...Object.entries(data.bots).map(([lvl, r]) =>
    el("tr", {}, el("td", {}, t(`level_${lvl}`)), el("td", {}, r.mu.toFixed(0)))));
}

/** Show the ladder chosen: its buttons, caption and note. */
function showLadder() {
  for (const b of document.querySelectorAll("[data-ladder]")) {
    b.setAttribute("aria-pressed", String(b.dataset.ladder === ladder));
  }
  const caption = document.getElementById("board-caption");
  caption.dataset.i18n = ladder === "bots" ? "lb_bots_board_caption" : "lb_caption";
  caption.textContent = t(caption.dataset.i18n);
  document.getElementById("bots-note").hidden = ladder !== "bots";
}

function live(down) {
  status.textContent = t(down ? "stream_down" : "stream_live");
  status.className = down ? "net bad" : "net";
  status.dataset.state = down ? "down" : "live";
}

// EventSource reconnects by itself; the page says while it is not connected.
function follow() {
  if (events) events.close();
  events = new EventSource(`/api/leaderboard/events?ladder=${ladder}`);
  const mine = events;
  let first = true;
  events.addEventListener("leaderboard", (ev) => {
    board = JSON.parse(ev.data);
    showBoard(board);
    if (!first) showMe();  // this browser's rating may have changed too
    first = false;
  });
  events.onopen = () => live(false);
  events.onerror = () => {
    live(true);
    if (mine === events && events.readyState === EventSource.CLOSED) setTimeout(follow, 5000);
  };
}

setupTopbar({
  onRules: () => { location.href = "/#rules"; },
  onLang: () => {
    applyI18n(document);
    showLadder();
    document.title = t("lb_page_title");
    if (board) showBoard(board);
    if (status.dataset.state) live(status.dataset.state === "down");
    showMe();
  },
});
for (const b of document.querySelectorAll("[data-ladder]")) {
  b.addEventListener("click", () => {
    if (ladder === b.dataset.ladder) return;
    ladder = b.dataset.ladder;
    const url = new URL(location.href);
    if (ladder === "bots") url.searchParams.set("ladder", "bots"); else url.searchParams.delete("ladder");
    history.replaceState(null, "", url);
    showLadder();
    follow();
  });
}
document.title = t("lb_page_title");
showLadder();
showMe();
follow();
