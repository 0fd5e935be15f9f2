// Entry point: the top bar (topbar.js: language, sound, colour letters), and the router, the
// one module that knows the views (lobby, the table, replay, and each game's own table through
// games.js); they go to one another through page.js's navigate, never by importing one another.
// Routes: "/" lobby; "/play/CODE" or "/?join=CODE" a seat at a table; "/watch/CODE" or
// "/?watch=CODE" a spectator; a game's own pages (GET /api/options: `pages`, such as "/?x=CODE")
// the same at that game's table; "#rules" how to play (classic Blink), "#rules=NAME" how to play
// another game (its module's `rules`); "#replay" open a file;
// "#replay=<record url>" replay a finished game; "#study=<record url>" the same, opened on its
// study (reaction times, missed plays).

import { applyI18n, cardName, colorLetter, t } from "./i18n.js";
import { setupTopbar } from "./topbar.js";
import { navigate, netStatus, setRouter } from "./page.js";
import { mountLobby } from "./lobby.js";
import { mountTable } from "./table.js";
import { gamePage, loadGames } from "./games.js";
import { mountReplayRoute } from "./replay.js";
import { cardSVG, escapeXml } from "./cards.js";

const view = document.getElementById("view");
let cleanup = () => {};

function route() {
  cleanup();
  cleanup = () => {};
  netStatus("");
  const path = location.pathname;
  const q = new URLSearchParams(location.search);
  const hash = decodeURIComponent(location.hash.slice(1));
  let m;
  view.innerHTML = "";
  if ((m = path.match(/^\/play\/([A-Za-z0-9]+)/)) || q.get("join")) {
    cleanup = mountTable(view, { code: (m ? m[1] : q.get("join")).toUpperCase(), spectate: false });
  } else if ((m = path.match(/^\/watch\/([A-Za-z0-9]+)/)) || q.get("watch")) {
    cleanup = mountTable(view, { code: (m ? m[1] : q.get("watch")).toUpperCase(), spectate: true });
  } else if (hash === "rules" || hash.startsWith("rules=")) {
    cleanup = mountRules(view, hash.slice("rules=".length));
  } else if (hash.startsWith("replay")) {
    cleanup = mountReplayRoute(view, hash.slice("replay=".length));
  } else if (hash.startsWith("study=")) {
    cleanup = mountReplayRoute(view, hash.slice("study=".length), true);
  } else if (location.search) {
    cleanup = mountGamePage(q);
  } else {
    cleanup = mountLobby(view);
  }
  document.title = `Blink · ${t("tagline")}`;
}

/** A game's own page named by the query string `q` (its table), else the lobby; the game's
 * module is loaded first. Returns a cleanup function with `.relang()`. */
function mountGamePage(q) {
  let inner = null;
  let gone = false;
  const done = () => {
    gone = true;
    if (inner) inner();
  };
  done.relang = () => {
    if (inner && inner.relang) inner.relang();
    else route();
  };
  gamePage(q).then((page) => {
    if (gone) return;
    inner = page ? page.module.mountTable(view, { code: page.code, spectate: page.spectate }) : mountLobby(view);
  });
  return done;
}

/** "How to play": classic Blink's rules, or those of game `name` from its browser module's
 * `rules(info)`; a row of links goes from one game to another. */
function mountRules(root, name) {
  const example = ["4YS", "2YM", "5BS", "4GW"];
  const classic = `<h1 data-i18n="how_to_play"></h1>
    <div class="example">${example.map((c) => cardSVG(c, { letter: colorLetter(c), label: cardName(c) })).join("")}</div>
    <div data-i18n-html="rules_html"></div>`;
  let gone = false;
  const draw = (games) => {
    if (gone) return;
    const others = games.filter((g) => g.module.rules);
    const game = others.find((g) => g.name === name);
    const tab = (href, label, on) =>
      `<a href="${href}" data-link${on ? ' aria-current="page"' : ""}>${escapeXml(label)}</a>`;
    const tabs = others.length
      ? `<nav class="rules-games" aria-label="${escapeXml(t("how_to_play"))}">${[
        tab("/#rules", "Blink", !game),
        ...others.map((g) => tab(`/#rules=${encodeURIComponent(g.name)}`, g.module.title(), g === game)),
      ].join(" · ")}</nav>`
      : "";
    root.innerHTML = `<article class="rules panel" data-game="${escapeXml(game ? game.name : "classic")}">${tabs}
      ${game ? game.module.rules(game.info) : classic}
      <p><a href="/" data-link data-i18n="back_lobby"></a></p></article>`;
    applyI18n(root);
  };
  if (!name) draw([]);  // a game's page waits for its module
  loadGames().then(draw, () => draw([]));
  return () => { gone = true; };
}

document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-link], a#home-link");
  if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && a.origin === location.origin) {
    e.preventDefault();
    navigate(a.getAttribute("href"));
  }
});
setRouter(route);
window.addEventListener("popstate", route);
window.addEventListener("hashchange", route);

setupTopbar({
  onRules: () => navigate("/#rules"),
  // A live table re-renders in place (keeping its connection); other views are rebuilt. The
  // page's title is the one route() gives, unless the view names itself (the replay viewer).
  onLang: () => {
    if (!cleanup.relang) return route();
    document.title = `Blink · ${t("tagline")}`;
    return cleanup.relang();
  },
});
route();
