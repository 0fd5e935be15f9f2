// Go Blink's browser module (the client's games.js imports it from /games/goblink/main.js, as
// GET /api/options names it): its lobby panel, its table (table.js), its replay frames
// (replay.js), and its stylesheet, loaded before the module is ready.

import { api, keepSeat } from "/js/net.js";
import { escapeXml } from "/js/cards.js";
import { t } from "/js/i18n.js";
import { navigate } from "/js/page.js";
import { botTitle as goBotTitle, gt, hasGt } from "./strings.js";

export { mountGoTable as mountTable } from "./table.js";
export { goRenderer as replayRenderer } from "./replay.js";

await new Promise((done) => {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("./table.css", import.meta.url).href;
  link.onload = link.onerror = done;
  document.head.append(link);
});

/** The game's name for people, in the current language. */
export function title() {
  return gt("go_blink");
}

/** Bot `spec`'s name for people, in the current language (its server name when it has
 * none); the client's botnames.js names Go Blink's bot seats with it. */
export function botTitle(spec) {
  return goBotTitle(spec);
}

/**
 * Go Blink's "How to play" page: its rules, its keys and its bots (`info`: the game's
 * `game_info` entry; each bot's words come from this module's strings, its server description
 * when it has none), in the current language.
 */
export function rules(info) {
  const bots = (info && info.bots) || [];
  const items = bots.map((b) => {
    const name = goBotTitle(b.name);
    const what = hasGt(`bot_d_${b.name}`) ? gt(`bot_d_${b.name}`) : b.description;
    return `<li data-bot="${escapeXml(b.name)}"><strong>${escapeXml(name)}</strong> (<code>${escapeXml(b.name)}</code>): ${escapeXml(what)}</li>`;
  }).join("");
  return `<h1 id="rules-title">${escapeXml(gt("rules_title"))}</h1>
    <div class="go-rules">${gt("rules_html")}</div>
    <h2 id="go-bots-title">${escapeXml(gt("bots_title"))}</h2>
    <p>${escapeXml(gt("bots_help"))}</p>
    <ul id="go-bots">${items}</ul>`;
}

/**
 * The lobby's Go Blink panel. `html()` is the section; `mount(root, info, ctx)` fills it from
 * the game's `game_info` entry and wires its form (`ctx`: the lobby's `seg`, `playerCounts` and
 * `name` helpers).
 */
export const lobbyPanel = {
  html: () => `
    <section class="panel" aria-labelledby="h-go" id="go-panel">
      <h2 id="h-go">${escapeXml(gt("go_blink"))}</h2>
      <form id="f-go">
        <fieldset style="border:0;padding:0;margin:0"><legend class="muted" style="font-size:.85rem" data-i18n="players"></legend><div id="go-players"></div></fieldset>
        <label><span>${escapeXml(gt("opponents"))}</span><select name="gobot" id="go-bot">
          <option value="">${escapeXml(t("human"))}</option></select></label>
        <button class="primary" type="submit" id="go-play">${escapeXml(gt("play_go"))}</button>
        <p class="muted" style="font-size:.85rem;margin:.3rem 0 0"><a href="/#rules=goblink" data-link id="go-rules-link">${escapeXml(gt("rules_link"))}</a></p>
        <p class="error-msg" id="go-err" role="alert"></p>
      </form>
    </section>`,
  mount(root, go, { seg, playerCounts, name }) {
    const $ = (s) => root.querySelector(s);
    $("#go-players").outerHTML = seg("goplayers", playerCounts(go), go.min_players);
    $("#go-bot").insertAdjacentHTML("afterbegin", go.bots.map((b) =>
      `<option value="${escapeXml(b.name)}"${b.name === go.default_bot ? " selected" : ""}>${escapeXml(t("bot"))}: ${escapeXml(goBotTitle(b.name))}</option>`,
    ).join(""));
    $("#f-go").addEventListener("submit", async (e) => {
      e.preventDefault();
      const fd = new FormData(e.target);
      const players = Number(fd.get("goplayers"));
      const bot = String(fd.get("gobot") || "");
      $("#go-err").textContent = "";
      try {
        const res = bot
          ? await api("/api/quick", { game: go.name, players, bot, name: name() })
          : await api("/api/rooms", { game: go.name, players, name: name(), take_seat: 0, public: true });
        keepSeat(res.code, res);
        navigate(`${go.pages.play}${res.code}`);
      } catch (err) {
        $("#go-err").textContent = t("error", { msg: err.message });
      }
    });
  },
};
