// Bots named for people in the reader's language. The server names a bot's seat in English
// ("Expert bot 2", kept as it is in rooms and records); what it also sends is the seat's bot
// spec (SeatInfo `kind` and `bot`, a stored game's record `meta.bots`), and the client names
// the bot from that: classic's levels from i18n.js (options.js's levelName), another game's
// bots from its browser module's `botTitle(spec)`.

import { t } from "./i18n.js";
import { levelName } from "./options.js";
import { loadedGame } from "./games.js";

/** Bot `spec`'s name for people: game `game`'s module's `botTitle(spec)`, else the classic
 * level's ("expert:blocker@2": "Expert"). */
export function botTitle(game, spec) {
  const module = game && game !== "classic" ? loadedGame(game) : null;
  if (module && module.botTitle) return module.botTitle(spec);
  return levelName(String(spec || "").split(":")[0].split("@")[0]);
}

/**
 * The name of seat `i`, a bot called `title`: "Bot (Expert)", or "Bot 2 (Expert)" when another
 * seat holds the same bot (`bots`: each seat's bot spec, null for a person's).
 */
export function botSeatName(bots, i, title) {
  const same = bots.filter((b) => b && b === bots[i]).length > 1;
  return `${t("bot")}${same ? ` ${i + 1}` : ""} (${title})`;
}

/** Each seat's bot spec from a room's seats (SeatInfo), null for a person's seat. */
export function seatBots(seats) {
  return (seats || []).map((s) => (s && s.kind === "bot" ? s.bot || null : null));
}

/** What a browser keeps of a finished game's seats (net.js's `remember`): each seat's name
 * as the server has it and its bot spec, for `seatName` to name in any language later. */
export function keptSeats(seats) {
  return (seats || []).map((s) => ({ name: (s && s.name) || null, bot: s && s.kind === "bot" ? s.bot || null : null }));
}

/**
 * Seat `i`'s name for people in the current language, from kept seats (`keptSeats`) of game
 * `game`: a bot's from its spec, the seat's own name, else "Player N"; seat `me` (this
 * browser's, null for none) is "You", or "Ann (You)".
 */
export function seatName(game, seats, i, me = null) {
  const s = seats[i] || {};
  const named = s.name && s.name !== "Player" ? s.name : null;
  if (i === me) return named ? `${named} (${t("you")})` : t("you");
  if (s.bot) return botSeatName(seats.map((x) => (x && x.bot) || null), i, botTitle(game, s.bot));
  return named || t("player_n", { n: i + 1 });
}
