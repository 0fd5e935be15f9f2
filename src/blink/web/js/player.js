// A player's page (player.html, served at /@/NAME): the player's name (marked when the profile
// is a bot's or its rating is provisional), rating and its history as an SVG chart (with a
// title, a description and the same figures as a table), games played, won and tied by game
// kind and number of players, the latest games with their replays ("More games" pages through
// the archive), a head-to-head against another player (the form, or ?vs=NAME) and the
// tournaments entered. It reads GET /api/profiles/NAME/figures, /games and /versus/OTHER.
// ?per=N sets how many games a page of the archive holds (1 to 100, 10 by default). Every
// string is in strings-player.js or i18n.js (English and Spanish).
import { api, errorText } from "./tournament-api.js";
import { el } from "./bracket.js";
import { applyI18n, getLang, t, tCount } from "./i18n.js";
import { botMark, playerHref, playerLink } from "./playerlink.js";
import { setupTopbar } from "./topbar.js";

const SVG = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);
const PER = Math.min(100, Math.max(1, Number.parseInt(params.get("per") || "10", 10) || 10));

/** The name in the address (/@/NAME). */
function pathName() {
  const raw = location.pathname.replace(/^\/@\//, "").replace(/\/$/, "");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const NAME = pathName();
const path = `/api/profiles/${encodeURIComponent(NAME)}`;
let figures = null;
let games = [];
let next = null;
let versus = null;

/** A rating as shown everywhere: one decimal, a true minus sign, never "-0.0". */
function num(x) {
  const s = (Math.round(x * 10) / 10 + 0).toFixed(1);
  return s.startsWith("-") ? `−${s.slice(1)}` : s;
}

function signed(x) {
  const r = Math.round(x * 10) / 10 + 0;
  return r > 0 ? `+${num(r)}` : num(r);
}

function day(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(getLang(), { year: "numeric", month: "short", day: "numeric" });
}

/** A game's end: its day and time, each kept on one line (a phone's table wraps between). */
function when(seconds) {
  const d = new Date(seconds * 1000);
  return [el("span", {}, d.toLocaleDateString(getLang(), { dateStyle: "medium" })), " ",
    el("span", {}, d.toLocaleTimeString(getLang(), { timeStyle: "short" }))];
}

function whenText(seconds) {
  return new Date(seconds * 1000).toLocaleString(getLang(), { dateStyle: "medium", timeStyle: "short" });
}

/** Each registered game's title by language (GET /api/options), to name a game's kind. */
let gameTitles = {};

function kindName(kind) {
  const titles = gameTitles[kind] || {};
  return titles[getLang()] || titles.en || kind;
}

/** Bot and provisional marks: from the API's own flags, else provisional when unrated. */
function marks(p) {
  const out = [];
  if (p.bot) out.push(el("span", { class: "pl-mark bot", title: t("pl_bot_title") }, t("pl_bot")));
  const provisional = p.provisional ?? p.games === 0;
  if (provisional) out.push(el("span", { class: "pl-mark provisional", title: t("pl_provisional_title") }, t("pl_provisional")));
  return out;
}

function showHead() {
  const p = figures;
  document.title = t("pl_page_title", { name: p.name });
  document.getElementById("pl-name").replaceChildren(el("span", {}, p.name), ...marks(p));
  document.getElementById("pl-summary").textContent = [
    ...(p.bot && p.owner ? [t("pl_owner", { owner: p.owner })] : []),
    t("pl_summary", { r: num(p.rating.ordinal) }),
    tCount("games", p.games),
    tCount("wins", p.wins),
    t("pl_joined", { date: day(p.created_at) }),
  ].join(" · ");
}

function svg(tag, attrs = {}, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const kid of kids) e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return e;
}

/** The rating history as a line, `width` wide: each rated game one step to the right. */
function chart(points, name, width) {
  const W = Math.max(280, Math.min(640, width || 640)), H = 220, L = 52, R = 14, T = 14, B = 30;
  const ys = points.map((p) => p.ordinal);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 1) { lo -= 0.5; hi += 0.5; }
  const x = (i) => L + (points.length === 1 ? 0 : (i * (W - L - R)) / (points.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const desc = t("pl_chart_desc", { first: num(ys[0]), last: num(ys[ys.length - 1]), high: num(Math.max(...ys)), low: num(Math.min(...ys)) });
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "pl-chart", role: "img", "aria-labelledby": "pl-chart-title pl-chart-desc" },
    svg("title", { id: "pl-chart-title" }, t("pl_chart_title", { name })),
    svg("desc", { id: "pl-chart-desc" }, desc));
  for (const v of [hi, (hi + lo) / 2, lo]) {
    s.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, num(v)));
  }
  s.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.ordinal)}`).join(" "), class: "line" }));
  if (points.length <= 80) {
    points.forEach((p, i) => s.append(svg("circle", { cx: x(i), cy: y(p.ordinal), r: 3.5, class: "dot" },
      svg("title", {}, `${day(p.at)}: ${num(p.ordinal)}`))));
  }
  s.append(svg("text", { x: L, y: H - 8, class: "axis" }, day(points[0].at)),
    svg("text", { x: W - R, y: H - 8, "text-anchor": "end", class: "axis" }, day(points[points.length - 1].at)));
  return s;
}

function historyTable(points) {
  return el("details", { class: "pl-chart-table" }, el("summary", {}, t("pl_chart_table")),
    el("div", { class: "tscroll" }, el("table", { class: "ttable" },
      el("caption", {}, t("pl_chart_caption")),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("pl_point")),
        el("th", { scope: "col" }, t("pl_date")), el("th", { scope: "col" }, t("lb_rating")))),
      el("tbody", {}, ...points.map((p, i) => el("tr", {},
        el("th", { scope: "row" }, i === 0 && p.game === null ? t("pl_start") : String(i)),
        el("td", {}, day(p.at)), el("td", { class: "rating" }, num(p.ordinal))))))));
}

function showChart() {
  const box = document.getElementById("pl-chart");
  const points = figures.rating_history;
  if (points.length < 2) {
    box.replaceChildren(el("p", { class: "meta" }, t("pl_no_history")));
    return;
  }
  const open = box.querySelector("details[open]") !== null;
  box.replaceChildren(chart(points, figures.name, box.clientWidth), historyTable(points));
  if (open) box.querySelector("details").open = true;
}

function showKinds() {
  const body = document.querySelector("#pl-kinds-table tbody");
  const rows = figures.by_kind;
  if (!rows.length) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "meta" }, t("pl_none"))));
    return;
  }
  body.replaceChildren(...rows.map((k) => el("tr", { "data-kind": k.kind, "data-players": String(k.players) },
    el("th", { scope: "row" }, kindName(k.kind)), el("td", {}, String(k.players)),
    el("td", { class: "played" }, String(k.played)), el("td", { class: "won" }, String(k.won)),
    el("td", { class: "tied" }, String(k.tied)))));
}

function showTours() {
  const list = document.getElementById("pl-tours-list");
  const tours = figures.tournaments;
  if (!tours.length) {
    list.replaceChildren(el("li", { class: "meta" }, t("pl_no_tournaments")));
    return;
  }
  list.replaceChildren(...tours.map((x) => el("li", {},
    el("a", { href: `/tournament.html?id=${encodeURIComponent(x.id)}` }, x.name),
    el("span", { class: "meta" }, ` · ${day(x.at)}`))));
}

/** The other seats of a game: a profile's name links to its page, a guest's or bot's does not. */
function opponents(g) {
  const others = g.players.filter((_, i) => i !== g.seat);
  const out = [];
  others.forEach((p, i) => {
    if (i) out.push(", ");
    out.push(p.profile ? playerLink(p.profile, p.name) : p.name);
    if (p.bot_account) out.push(" ", botMark());
  });
  return out;
}

function gameRow(g) {
  const who = g.players.filter((_, i) => i !== g.seat).map((p) => p.name).join(", ");
  return el("tr", { "data-game": String(g.id), "data-outcome": g.outcome },
    el("td", { class: "when" }, ...when(g.ended)),
    el("td", {}, kindName(g.kind)),
    el("td", {}, ...opponents(g)),
    el("td", { class: `outcome ${g.outcome}` }, t(`pl_outcome_${g.outcome}`)),
    el("td", { class: "change" }, g.rating ? signed(g.rating.delta) : el("span", { class: "meta" }, t("pl_unrated"))),
    el("td", {}, g.replay_url
      ? el("a", { href: g.replay_url, class: "replay", "aria-label": `${t("pl_replay")}: ${whenText(g.ended)}, ${who}` }, t("pl_replay"))
      : el("span", { class: "meta" }, t("pl_private"))));
}

function showGames() {
  const body = document.querySelector("#pl-games-table tbody");
  body.replaceChildren(...(games.length ? games.map(gameRow)
    : [el("tr", {}, el("td", { colspan: "6", class: "meta" }, t("pl_none")))]));
  document.getElementById("pl-more").hidden = !next;
}

async function moreGames() {
  const error = document.getElementById("pl-more-error");
  error.textContent = "";
  const q = new URLSearchParams({ limit: String(PER) });
  if (next) q.set("cursor", next);
  try {
    const page = await api("GET", `${path}/games?${q}`);
    games = games.concat(page.games);
    next = page.next;
  } catch (err) {
    error.textContent = errorText(err);
    return;
  }
  showGames();
}

function showVersus() {
  const box = document.getElementById("pl-versus-result");
  if (!versus) {
    box.replaceChildren();
    return;
  }
  const v = versus;
  const count = (key, n, cls) => el("div", {}, el("dt", {}, t(key)), el("dd", { class: cls }, String(n)));
  box.replaceChildren(
    el("p", { class: "pl-versus-line" }, `${t("pl_opponents")} `, playerLink(v.opponent.name)),
    el("dl", { class: "pl-versus-counts" },
      count("pl_versus_games", v.games, "games"), count("pl_won", v.won, "won"),
      count("pl_lost", v.lost, "lost"), count("pl_tied", v.tied, "tied")),
    v.games ? el("div", { class: "tscroll" }, el("table", { class: "ttable" },
      el("caption", {}, t("pl_recent")),
      el("thead", {}, el("tr", {}, ...["pl_date", "pl_kind", "pl_opponents", "pl_result", "pl_change", "pl_replay"]
        .map((k) => el("th", { scope: "col" }, t(k))))),
      el("tbody", {}, ...v.recent.map(gameRow))))
      : el("p", { class: "meta" }, t("pl_versus_none")));
}

async function compare(other) {
  const error = document.getElementById("pl-versus-error");
  error.textContent = "";
  try {
    versus = await api("GET", `${path}/versus/${encodeURIComponent(other)}`);
  } catch (err) {
    versus = null;
    error.textContent = errorText(err);
  }
  const q = new URLSearchParams(location.search);
  q.set("vs", other);
  history.replaceState(null, "", `${playerHref(NAME)}?${q}`);
  showVersus();
}

function showAll() {
  if (!figures) return;
  showHead();
  showChart();
  showKinds();
  showTours();
  showGames();
  showVersus();
}

async function load() {
  try {
    const options = await api("GET", "/api/options");
    gameTitles = Object.fromEntries(
      Object.entries(options.game_info || {}).map(([name, g]) => [name, g.titles || {}]));
    figures = await api("GET", `${path}/figures`);
  } catch (err) {
    document.getElementById("pl-name").textContent = NAME;
    document.getElementById("pl-error").textContent = errorText(err);
    return;
  }
  showAll();
  await moreGames();
  const vs = params.get("vs");
  if (vs) {
    document.getElementById("pl-vs").value = vs;
    await compare(vs);
  }
}

document.getElementById("pl-more").addEventListener("click", moreGames);
document.getElementById("pl-versus-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const other = new FormData(ev.target).get("vs").trim();
  if (other) compare(other);
});

setupTopbar({
  onRules: () => { location.href = "/#rules"; },
  onLang: () => {
    applyI18n(document);
    showAll();
  },
});
// The chart is drawn as wide as its box (its words stay readable on a phone).
let drawnWidth = 0;
window.addEventListener("resize", () => {
  const w = document.getElementById("pl-chart").clientWidth;
  if (figures && Math.abs(w - drawnWidth) > 40) {
    drawnWidth = w;
    showChart();
  }
});
load();
