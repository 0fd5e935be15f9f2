// The daily challenge page (daily.html): today's bot, a Play button (a room of today's deal,
// GET/POST /api/daily, entered as a quick game is), today's board, this browser's profile's
// streak, and yesterday's board with its deal's seed and "Play yesterday's deal" (unranked
// practice). Every string is in strings-daily.js or i18n.js (English and Spanish).
import { api, errorText, myProfile } from "./tournament-api.js";
import { el } from "./bracket.js";
import { applyI18n, t } from "./i18n.js";
import { keepSeat } from "./net.js";
import { setupTopbar } from "./topbar.js";

let today = null;
let yesterday = null;
let guest = false;  // the profile's attempt is spent: the Play button plays as a guest

/** "Expert bot" in the page's language, from the level of the day's bot spec. */
function botName(bot) {
  const level = bot.spec.split(":")[0].split("@")[0];
  const word = t(`level_${level}`);
  return word.startsWith("level_") ? bot.name : t("dc_bot", { level: word });
}

function playerName() {
  const me = myProfile();
  let saved = "";
  try { saved = localStorage.getItem("blink.name") || ""; } catch { /* ignore */ }
  return (me && me.name) || saved || "Player";
}

function showBoard(id, day) {
  const me = myProfile();
  const rows = day ? day.board : [];
  const body = document.querySelector(`#${id} tbody`);
  if (!rows.length) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: "6", class: "meta" }, t("dc_empty"))));
    return;
  }
  body.replaceChildren(...rows.map((e) => el("tr", { "data-id": e.profile, class: me && e.profile === me.id ? "me" : null },
    el("td", {}, String(e.rank)), el("th", { scope: "row" }, e.name),
    el("td", { "data-won": String(e.won) }, t(e.won ? "dc_won" : "dc_lost")),
    el("td", {}, t("dc_seconds", { s: (e.duration_ms / 1000).toFixed(1) })),
    el("td", {}, String(e.plays)),
    el("td", {}, e.record_url ? el("a", { href: e.record_url, download: "" }, t("dc_record_link"))
      : el("span", { class: "meta" }, t("dc_record_later"))))));
}

function showToday() {
  if (!today) return;
  document.getElementById("today-line").textContent =
    t("dc_today_line", { date: today.date, bot: botName(today.bot) });
  const me = myProfile();
  const streak = document.getElementById("streak");
  streak.textContent = me && today.streak
    ? `${t("dc_ranked_note", { name: me.name })} ${t("dc_streak", today.streak)}`
    : t("dc_streak_none");
  document.getElementById("daily-play").textContent = t(guest ? "dc_play_guest" : "dc_play");
  showBoard("today-board", today);
}

function showYesterday() {
  const line = document.getElementById("yesterday-line");
  const button = document.getElementById("daily-replay");
  if (!yesterday) {
    line.textContent = t("dc_no_yesterday");
    button.hidden = true;
    showBoard("yesterday-board", null);
    return;
  }
  const words = { date: yesterday.date, bot: botName(yesterday.bot), seed: String(yesterday.seed) };
  line.textContent = t(yesterday.over ? "dc_yesterday_line" : "dc_yesterday_closing", words);
  button.hidden = !yesterday.replay;
  showBoard("yesterday-board", yesterday);
}

async function load() {
  const me = myProfile();
  const who = me ? `?profile=${encodeURIComponent(me.id)}` : "";
  try {
    today = await api("GET", `/api/daily${who}`);
  } catch (err) {
    document.getElementById("daily-error").textContent = errorText(err);
    return;
  }
  yesterday = today.yesterday;  // null: nobody played it
  // On today's board already: the attempt is spent, so Play offers a guest game at once.
  guest = Boolean(me && today.board.some((e) => e.profile === me.id));
  showToday();
  showYesterday();
}

/** Make a daily room (today's, or a past `date`'s for practice) and go to its table. */
async function play(date, errorId) {
  const me = myProfile();
  const body = { name: playerName() };
  if (date) body.date = date;
  else if (me && !guest) body.profile_secret = me.secret;
  const error = document.getElementById(errorId);
  error.textContent = "";
  try {
    const res = await api("POST", "/api/daily", body);
    keepSeat(res.code, res);
    location.href = `/play/${res.code}`;
  } catch (err) {
    error.textContent = errorText(err);
    if (err.code === "daily_played") {
      guest = true;
      showToday();
    }
  }
}

document.getElementById("daily-play").addEventListener("click", () => play(null, "daily-error"));
document.getElementById("daily-replay").addEventListener("click",
  () => yesterday && play(yesterday.date, "replay-error"));

setupTopbar({
  onRules: () => { location.href = "/#rules"; },
  onLang: () => {
    applyI18n(document);
    document.title = t("dc_page_title");
    showToday();
    if (today) showYesterday();
  },
});
document.title = t("dc_page_title");
load();
