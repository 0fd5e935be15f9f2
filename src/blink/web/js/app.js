// Entry point: settings in the top bar (language, sound, colour letters), and the router, the
// one module that knows the views (lobby, the table, replay, and each game's own table through
// games.js); they go to one another through page.js's navigate, never by importing one another.
// Routes: "/" lobby; "/play/CODE" or "/?join=CODE" a seat at a table; "/watch/CODE" or
// "/?watch=CODE" a spectator; a game's own pages (GET /api/options: `pages`, such as "/?x=CODE")
// the same at that game's table; "#rules" how to play (classic Blink), "#rules=NAME" how to play
// another game (its module's `rules`); "#replay" open a file;
// "#replay=<record url>" replay a finished game.

import { applyI18n, cardName, colorLetter, getLang, onLangChange, setLang, t } from "./i18n.js";
import { isMuted, setMuted } from "./sound.js";
import { navigate, netStatus, setRouter } from "./page.js";
import { mountLobby } from "./lobby.js";
import { mountTable } from "./table.js";
import { gamePage, loadGames } from "./games.js";
import { mountReplayRoute } from "./replay.js";
import { cardSVG, escapeXml } from "./cards.js";

const view = document.getElementById("view");
const SPEAKER = '<path d="M2 6h3l4-3v10l-4-3H2z"/>';
const SPEAKER_ON = `<svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true" fill="currentColor">${SPEAKER}<path d="M11 5.5a3.5 3.5 0 0 1 0 5M12.5 3.5a6 6 0 0 1 0 9" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/></svg>`;
const SPEAKER_OFF = `<svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true" fill="currentColor">${SPEAKER}<path d="M11 6l4 4M15 6l-4 4" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/></svg>`;
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

// --- settings in the top bar ---------------------------------------------------------------

function setupSettings() {
  const langSel = document.getElementById("lang");
  langSel.value = getLang();
  langSel.addEventListener("change", () => setLang(langSel.value));
  const snd = document.getElementById("btn-sound");
  const drawSound = () => {
    snd.setAttribute("aria-pressed", String(!isMuted()));
    snd.innerHTML = isMuted() ? SPEAKER_OFF : SPEAKER_ON;
    snd.title = isMuted() ? t("sound_off") : t("sound_on");
  };
  snd.addEventListener("click", () => { setMuted(!isMuted()); drawSound(); });
  const cb = document.getElementById("btn-cb");
  let cbOn = false;
  try { cbOn = localStorage.getItem("blink.cb") === "1"; } catch { /* ignore */ }
  const drawCb = () => {
    document.body.classList.toggle("cb", cbOn);
    cb.setAttribute("aria-pressed", String(cbOn));
  };
  cb.addEventListener("click", () => {
    cbOn = !cbOn;
    try { localStorage.setItem("blink.cb", cbOn ? "1" : "0"); } catch { /* ignore */ }
    drawCb();
  });
  document.getElementById("btn-rules").addEventListener("click", () => navigate("/#rules"));
  document.documentElement.lang = getLang();
  applyI18n(document);
  drawSound();
  drawCb();
  onLangChange(() => {
    langSel.value = getLang();
    drawSound();
    // A live table re-renders in place (keeping its connection); other views are rebuilt.
    if (cleanup.relang) cleanup.relang();
    else route();
  });
}

// --- the phone's menu: a disclosure button and its list of links ----------------------------

function setupMenu() {
  const btn = document.getElementById("btn-menu");
  const panel = document.getElementById("menu-panel");
  const links = () => [...panel.querySelectorAll("a")];
  const open = () => btn.getAttribute("aria-expanded") === "true";
  const show = (on, focus = true) => {
    btn.setAttribute("aria-expanded", String(on));
    panel.hidden = !on;
    if (on && focus) links()[0].focus();
  };
  btn.addEventListener("click", () => show(!open()));
  btn.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); show(true); }
    else if (e.key === "Escape" && open()) { e.preventDefault(); show(false); }
  });
  panel.addEventListener("keydown", (e) => {
    const all = links();
    const i = all.indexOf(document.activeElement);
    if (e.key === "Escape") { e.preventDefault(); show(false); btn.focus(); }
    else if (e.key === "ArrowDown") { e.preventDefault(); all[(i + 1) % all.length].focus(); }
    else if (e.key === "ArrowUp") { e.preventDefault(); all[(i - 1 + all.length) % all.length].focus(); }
    else if (e.key === "Home") { e.preventDefault(); all[0].focus(); }
    else if (e.key === "End") { e.preventDefault(); all[all.length - 1].focus(); }
  });
  panel.addEventListener("click", (e) => { if (e.target.closest("a")) show(false, false); });
  document.addEventListener("click", (e) => {
    if (open() && !e.target.closest(".menu")) show(false, false);
  });
  document.addEventListener("focusin", (e) => {
    if (open() && !e.target.closest(".menu")) show(false, false);
  });
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

setupSettings();
setupMenu();
route();
