// Each game's own browser module (docs/architecture.md, "The browser client"). GET /api/options
// names it (`game_info[name].web`, served from the game's package at /games/<name>/main.js) with
// the game's own pages (`pages.play`, `pages.watch`: "/?x=" and the room code follows). A module
// is imported once, here: it gives the lobby its panel, the router its table, the replay viewer
// its frames' renderer. A game without one is played on the client's own pages (/play/CODE).

import { loadOptions } from "./options.js";

let loading = null;
const MODULES = new Map(); // game name -> its module, once loaded

/**
 * Every game with a browser module, in the server's order: `[{ name, info, module }]` (`info`
 * is the game's `game_info` entry). Loaded once; a game whose module fails to load is left out,
 * and a failed options request is tried again on the next call.
 */
export function loadGames() {
  if (!loading) {
    loading = loadOptions().then(async (o) => {
      const out = [];
      for (const name of o.games || []) {
        const info = (o.game_info || {})[name];
        if (!info || !info.web) continue;
        try {
          const module = await import(info.web);
          MODULES.set(name, module);
          out.push({ name, info, module });
        } catch { /* a game the client cannot show: its rooms stay on the client's pages */ }
      }
      return out;
    }).catch((err) => {
      loading = null;
      throw err;
    });
  }
  return loading;
}

/** The browser module of game `name` if it is loaded, else null. */
export function loadedGame(name) {
  return MODULES.get(name) || null;
}

/** The browser module of game `name` (null for a game without one, or when it cannot load). */
export async function gameModule(name) {
  if (!MODULES.has(name)) await loadGames().catch(() => []);
  return MODULES.get(name) || null;
}

/** A room's links for game `name`: its own pages if it has them, else the client's. */
export function roomLinks(games, name, code) {
  const g = games.find((x) => x.name === name);
  const pages = g && g.info.pages;
  return pages
    ? { play: `${pages.play}${code}`, watch: `${pages.watch}${code}` }
    : { play: `/play/${code}`, watch: `/watch/${code}` };
}

/**
 * The game page that the query string `q` (URLSearchParams) asks for: `{ module, code,
 * spectate }`, or null when it names none.
 */
export async function gamePage(q) {
  let games = [];
  try { games = await loadGames(); } catch { return null; }
  for (const g of games) {
    const pages = g.info.pages;
    if (!pages || !g.module.mountTable) continue;
    for (const [page, spectate] of [[pages.play, false], [pages.watch, true]]) {
      const key = new URLSearchParams(page.split("?")[1] || "").keys().next().value;
      if (key && q.get(key)) return { module: g.module, code: String(q.get(key)).toUpperCase(), spectate };
    }
  }
  return null;
}
