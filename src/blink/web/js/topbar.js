// The top bar every page shares (its markup is partials/topbar.html, which the server puts into
// each page): the language switch, sound, colour letters, "How to play", the phone's menu and
// the account button (account.js). It imports no view, so a page outside the app's router
// (the tournament, leaderboard, daily challenge and player pages) uses it as the app does.

import { applyI18n, getLang, onLangChange, setLang, t } from "./i18n.js";
import { isMuted, setMuted } from "./sound.js";
import { relabelAccount, setupAccount } from "./account.js";

const SPEAKER = '<path d="M2 6h3l4-3v10l-4-3H2z"/>';
const SPEAKER_ON = `<svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true" fill="currentColor">${SPEAKER}<path d="M11 5.5a3.5 3.5 0 0 1 0 5M12.5 3.5a6 6 0 0 1 0 9" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/></svg>`;
const SPEAKER_OFF = `<svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true" fill="currentColor">${SPEAKER}<path d="M11 6l4 4M15 6l-4 4" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/></svg>`;

/** Wire the top bar's settings: `onRules()` opens "How to play", `onLang()` redraws the page
 * after the language changed (the [data-i18n] texts are already translated then). */
export function setupTopbar({ onRules, onLang }) {
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
  document.getElementById("btn-rules").addEventListener("click", onRules);
  document.documentElement.lang = getLang();
  applyI18n(document);
  drawSound();
  drawCb();
  setupAccount();
  onLangChange(() => {
    langSel.value = getLang();
    drawSound();
    relabelAccount();
    onLang();
  });
  setupMenu();
  for (const a of document.querySelectorAll(".topbar a[href]")) {
    if (a.pathname !== "/" && a.pathname === location.pathname) a.setAttribute("aria-current", "page");
  }
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
