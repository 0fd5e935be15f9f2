// Links to players' pages (/@/NAME, player.html): the leaderboard, a room's seats, tournament
// brackets and replays name a profile's player with one; a guest or a house bot has no page, so
// those name them as text.
import { t } from "./i18n.js";

/** The small "bot" mark after the name of a bot account (its seat, profile or line); read
 * out as its title says. */
export function botMark() {
  const mark = document.createElement("span");
  mark.className = "pl-mark bot bot-mark";
  mark.title = t("bot_mark_title");
  mark.setAttribute("aria-label", t("bot_mark_title"));
  mark.setAttribute("role", "img");
  mark.textContent = t("bot_mark");
  return mark;
}

/** The same mark as HTML text (for pages drawn as strings; escape-free: its words are ours). */
export function botMarkHTML() {
  const title = t("bot_mark_title").replace(/[&<>"]/g, "");
  return `<span class="bot-mark" role="img" title="${title}" aria-label="${title}">${t("bot_mark")}</span>`;
}

/** The address of the page of the player called `name`. */
export function playerHref(name) {
  return `/@/${encodeURIComponent(name)}`;
}

/** A link to `name`'s page, reading `text` (the name itself by default). */
export function playerLink(name, text = name) {
  const a = document.createElement("a");
  a.href = playerHref(name);
  a.className = "player-link";
  a.textContent = text;
  return a;
}
