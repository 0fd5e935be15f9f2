// What the server offers (GET /api/options: each game's players and bots, read from its
// registries), fetched once per page and kept: the lobby is rebuilt on every visit, and the
// table names bot levels with the server's descriptions once they are known.

import { api } from "./net.js";
import { t } from "./i18n.js";

let OPTIONS = null;
let loading = null;
const DESCRIPTIONS = new Map(); // bot level -> the server's one-line description

/** The options if they were fetched already, else null. */
export function loadedOptions() {
  return OPTIONS;
}

/** Fetch the options (once; a failed fetch is tried again on the next call). */
export function loadOptions() {
  if (!loading) {
    loading = api("/api/options").then((o) => {
      OPTIONS = o;
      for (const l of (o.game_info?.classic?.levels || [])) DESCRIPTIONS.set(l.name, l.description);
      return o;
    }).catch((err) => {
      loading = null;
      throw err;
    });
  }
  return loading;
}

/**
 * The piles `seat` reaches in a game of `game` for `players` (the rules' reach, which
 * `/api/options` gives per game: `game_info[game].reach[players][seat]`); null until the options
 * are loaded, or for a game or count they do not name. `game` null: the first game (the default).
 */
export function reachOf(game, players, seat) {
  const info = OPTIONS && OPTIONS.game_info && OPTIONS.game_info[game ?? OPTIONS.games?.[0]];
  const rows = info && info.reach && info.reach[String(players)];
  return (rows && rows[seat ?? 0]) || null;
}

/** A bot level for people: its translation, else the server's description, else its name. */
export function levelName(level) {
  const key = `level_${level}`;
  const s = t(key);
  return s === key ? DESCRIPTIONS.get(level) || level : s;
}
