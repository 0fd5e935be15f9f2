// The lobby: quick game against a bot or someone near your rating (queue.js), private game with a link and code, each game's own
// panel (its browser module's, games.js), join by link or code, live games to watch, finished
// games to replay, how to play.

import { api, extractCode, keepSeat, recent } from "./net.js";
import { applyI18n, hasT, t, tCount } from "./i18n.js";
import { escapeXml } from "./cards.js";
import { face } from "./board.js";
import { announce, navigate, netStatus } from "./page.js";
import { handOver, takeOver, waitInQueue } from "./queue.js";
import { levelName, loadedOptions } from "./options.js";
import { loadGames, roomLinks } from "./games.js";
import { botTitle, seatName } from "./botnames.js";
import { botMarkHTML } from "./playerlink.js";

/** Every number of players of a game (`game_info` entry), fewest first. */
function playerCounts(game) {
  return Array.from({ length: game.max_players - game.min_players + 1 }, (_, i) => game.min_players + i);
}

/** The name typed last, else this browser's profile's name (a profile made on another page). */
function myName() {
  try {
    const typed = localStorage.getItem("blink.name");
    if (typed) return typed;
    const profile = JSON.parse(localStorage.getItem("blink.profile") || "null");
    return (profile && typeof profile.name === "string" && profile.name.slice(0, 24)) || "";
  } catch { return ""; }
}

function seg(name, values, checked, label = (v) => v) {
  return `<div class="seg" role="radiogroup">${values.map((v) =>
    `<label><input type="radio" name="${name}" value="${v}"${String(v) === String(checked) ? " checked" : ""}><span>${escapeXml(label(v))}</span></label>`,
  ).join("")}</div>`;
}

export function mountLobby(root) {
  let levels = [];
  let defaultLevel = null;
  let alive = true;
  let games = []; // the games with a browser module (games.js), once loaded

  root.innerHTML = `
  <div class="hero">
    <div><h1 data-i18n="title"></h1><p data-i18n="quick_help"></p>
      <label class="your-name"><span data-i18n="name"></span><input name="name" id="q-name" maxlength="24" autocomplete="nickname" aria-describedby="q-name-help"></label>
      <p class="muted" id="q-name-help" data-i18n="name_everywhere"></p></div>
    <div class="fan" aria-hidden="true">${["4YS", "2BM", "5RF", "1GL"].map((c) => face(c)).join("")}</div>
  </div>
  <div class="grid">
    <section class="panel" aria-labelledby="h-quick">
      <h2 id="h-quick" data-i18n="quick_game"></h2>
      <form id="f-quick">
        <label><span data-i18n="bot_level"></span><select name="level" id="q-level"></select></label>
        <fieldset style="border:0;padding:0;margin:0"><legend class="muted" style="font-size:.85rem" data-i18n="players"></legend><div id="q-players"></div></fieldset>
        <label class="check"><input type="checkbox" name="practice" id="q-practice"> <span data-i18n="practice"></span></label>
        <div class="row">
          <button class="primary" type="submit" id="q-play" data-i18n="play" disabled></button>
          <button type="button" id="q-people" data-i18n="play_someone" disabled></button>
        </div>
        <p class="muted" id="q-counts"></p>
        <div id="q-wait" class="queue-wait" hidden>
          <p id="q-waited"></p>
          <p id="q-offer" role="status"></p>
          <div class="row"><button type="button" id="q-accept" data-i18n="queue_accept" hidden></button>
          <button type="button" id="q-cancel" data-i18n="queue_cancel"></button></div>
        </div>
        <p class="error-msg" id="q-err" role="alert"></p>
      </form>
    </section>
    <section class="panel" aria-labelledby="h-priv">
      <h2 id="h-priv" data-i18n="private_game"></h2>
      <p data-i18n="private_help"></p>
      <form id="f-priv">
        <fieldset style="border:0;padding:0;margin:0"><legend class="muted" style="font-size:.85rem" data-i18n="players"></legend><div id="p-players"></div></fieldset>
        <div class="seats" id="p-seats"></div>
        <div class="row">
          <label><span data-i18n="best_of"></span>${seg("best_of", [1, 3, 5], 1)}</label>
        </div>
        <div class="row">
          <label><span data-i18n="ruleset"></span><select name="ruleset">
            <option value="official" data-i18n="rules_official"></option>
            <option value="dead-end" data-i18n="rules_dead_end"></option></select></label>
          <label><span data-i18n="handicap"></span><input name="handicap" placeholder="+5" data-i18n-title="handicap_help"></label>
        </div>
        <details class="advanced"><summary data-i18n="advanced"></summary>
          <label><span data-i18n="lag_allowance"></span><select name="lag_allowance_ms" id="p-lag" data-i18n-title="lag_allowance_help">
            <option value="0" data-i18n="lag_allowance_off"></option>
            <option value="50">50 ms</option><option value="100">100 ms</option>
            <option value="150">150 ms</option><option value="250">250 ms</option></select></label>
        </details>
        <label class="check"><input type="checkbox" name="public" id="p-public"> <span data-i18n="list_public"></span></label>
        <label class="check"><input type="checkbox" name="bot_accounts" id="p-bots"> <span data-i18n="bot_accounts_may_join"></span></label>
        <button class="primary" type="submit" id="p-create" data-i18n="create" disabled></button>
        <p class="error-msg" id="p-err" role="alert"></p>
      </form>
    </section>
    <section class="panel" aria-labelledby="h-join">
      <h2 id="h-join" data-i18n="join"></h2>
      <p data-i18n="join_help"></p>
      <form id="f-join" class="row">
        <label><span class="sr-only" data-i18n="code"></span><input name="code" id="j-code" autocomplete="off" autocapitalize="characters" data-i18n-placeholder="code"></label>
        <button type="submit" style="flex:0 0 auto" data-i18n="join_btn"></button>
      </form>
      <p class="error-msg" id="j-err" role="alert"></p>
      <p style="margin-top:1rem"><a href="/#rules" data-link data-i18n="how_to_play"></a> · <a href="/#replay" data-link data-i18n="load_record"></a></p>
    </section>
    <section class="panel" aria-labelledby="h-live">
      <h2 id="h-live" data-i18n="live_games"></h2>
      <ul class="list" id="l-live"></ul>
    </section>
    <section class="panel" aria-labelledby="h-done">
      <h2 id="h-done" data-i18n="finished_games"></h2>
      <ul class="list" id="l-done"></ul>
      <ul class="list" id="l-pub" aria-labelledby="h-done"></ul>
    </section>
  </div>`;
  applyI18n(root);
  const $ = (s) => root.querySelector(s);
  // One name for every form of the lobby (and for a seat taken by a room's link: net.js reads
  // it back), kept as it is typed.
  $("#q-name").value = myName();
  const keepName = () => {
    const n = $("#q-name").value.trim().slice(0, 24);
    try { localStorage.setItem("blink.name", n); } catch { /* ignore */ }
    return n;
  };
  $("#q-name").addEventListener("input", keepName);
  const name = () => keepName() || undefined;

  function levelOptions(selected) {
    return levels.map((l) => `<option value="${l}"${l === selected ? " selected" : ""}>${escapeXml(levelName(l))}</option>`).join("");
  }
  function drawLevels() {
    const def = levels.includes(defaultLevel) ? defaultLevel : levels[0];
    $("#q-level").innerHTML = levelOptions(def);
    drawSeats();
  }
  // Each form starts with the fewest players of its game (you and one bot). Each game with a
  // browser module adds its own panel before the "join" one.
  function drawGames(o) {
    const classic = o.game_info.classic;
    levels = classic.levels.map((l) => l.name);
    defaultLevel = classic.default_level;
    $("#q-players").outerHTML = seg("players", playerCounts(classic), classic.min_players);
    $("#p-players").outerHTML = seg("pplayers", playerCounts(classic), classic.min_players);
    for (const g of games) {
      const panel = g.module.lobbyPanel;
      if (!panel) continue;
      const join = root.querySelector("section[aria-labelledby='h-join']");
      join.insertAdjacentHTML("beforebegin", panel.html());
      const section = join.previousElementSibling;
      applyI18n(section);
      panel.mount(section, g.info, { seg, playerCounts, name });
    }
    drawLevels();
  }
  function drawSeats() {
    const n = Number(new FormData($("#f-priv")).get("pplayers"));
    let html = `<div class="seatrow"><span>${escapeXml(t("seat", { n: 1 }))}</span><strong>${escapeXml(t("you"))}</strong></div>`;
    for (let i = 1; i < n; i++) {
      html += `<div class="seatrow"><label for="seat-${i}" style="color:inherit">${escapeXml(t("seat", { n: i + 1 }))}</label>
        <select id="seat-${i}" name="seat-${i}"><option value="">${escapeXml(t("human"))}</option>
        ${levels.map((l) => `<option value="${l}">${escapeXml(t("bot"))}: ${escapeXml(levelName(l))}</option>`).join("")}</select></div>`;
    }
    $("#p-seats").innerHTML = html;
  }
  $("#f-priv").addEventListener("change", (e) => { if (e.target.name === "pplayers") drawSeats(); });

  // The options and the games' modules first (games.js loads both), then the live and
  // finished lists, which name each room's game.
  // The two forms' buttons stay disabled until then: without the options a form has no
  // player count to send.
  const ready = loadGames().then((found) => {
    if (!alive) return;
    games = found;
    drawGames(loadedOptions());
    $("#q-play").disabled = false;
    $("#q-people").disabled = Boolean(stopQueue);
    $("#p-create").disabled = false;
  }).catch((err) => {
    if (!alive) return;
    for (const id of ["#q-err", "#p-err"]) $(id).textContent = t("error", { msg: err.message });
  });

  function enter(res) {
    keepSeat(res.code, res);
    navigate(`/play/${res.code}`);
  }

  // A game against bots at the quick form's level and number of players.
  async function quickBot() {
    const fd = new FormData($("#f-quick"));
    const level = fd.get("level");
    const players = Number(fd.get("players"));
    $("#q-err").textContent = "";
    $("#q-play").disabled = true;
    try {
      // POST /api/quick opens a two-seat room; more players get a private room of bots.
      const practice = fd.get("practice") === "on"; // never rated: hints and a pause
      const res = players === 2
        ? await api("/api/quick", { bot: level, name: name(), practice })
        : await api("/api/rooms", { players, seats: [null, ...Array(players - 1).fill(level)], name: name(), public: false, take_seat: 0, practice });
      enter(res);
    } catch (err) {
      $("#q-err").textContent = t("error", { msg: err.message });
      $("#q-play").disabled = false;
    }
  }
  $("#f-quick").addEventListener("submit", (e) => {
    e.preventDefault();
    stopWaiting();
    quickBot();
  });

  // "Play someone": wait in the queue, showing the time waited and the counts, until paired
  // (then to the table), cancelled, or the offered bot is taken.
  let stopQueue = null;
  function stopWaiting() {
    if (stopQueue) stopQueue();
    stopQueue = null;
    $("#q-wait").hidden = true;
    $("#q-people").disabled = false;
  }
  function showWaited(s) {
    $("#q-waited").textContent = t("queue_waiting", { s: Math.floor(s) });
  }
  function showWait(waited, offered) {
    $("#q-err").textContent = "";
    $("#q-people").disabled = true;
    $("#q-wait").hidden = false;
    $("#q-accept").hidden = !offered;
    $("#q-offer").textContent = offered ? t("queue_offer") : "";
    showWaited(waited);
  }
  const queueHandlers = {
    status: (m) => {
      showWaited(m.waited);
      showCounts(m);
    },
    offer: () => {
      $("#q-offer").textContent = t("queue_offer");
      $("#q-accept").hidden = false;
    },
    paired: (m) => {
      stopQueue = null;
      announce(t("queue_found", { names: m.opponents.join(", ") }));
      enter(m);
    },
    failed: (m) => {
      stopWaiting();
      // A refusal the page knows by its code (rate_limited) is said in the page's language.
      const known = m.code && hasT(`e_${m.code}`) ? t(`e_${m.code}`) : "";
      $("#q-err").textContent = t("queue_failed", { msg: known || m.message || t("queue_lost") });
    },
  };
  $("#q-people").addEventListener("click", () => {
    const players = Number(new FormData($("#f-quick")).get("players"));
    showWait(0, false);
    stopQueue = waitInQueue({ players, name: name(), ...queueHandlers });
  });
  // A wait begun before this lobby was rebuilt (the language changed) goes on here.
  const resumed = takeOver(queueHandlers);
  if (resumed) {
    stopQueue = resumed.stop;
    showWait(resumed.state.waited, resumed.state.offered);
  }
  $("#q-cancel").addEventListener("click", stopWaiting);
  $("#q-accept").addEventListener("click", () => {
    stopWaiting();
    quickBot();
  });
  function showCounts(c) {
    $("#q-counts").textContent = t("queue_counts", { online: tCount("queue_online", c.online), waiting: tCount("queue_waiting_n", c.waiting) });
  }

  $("#f-priv").addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(e.target);
    const players = Number(fd.get("pplayers"));
    const seats = [null];
    for (let i = 1; i < players; i++) seats.push(fd.get(`seat-${i}`) || null);
    $("#p-err").textContent = "";
    try {
      const res = await api("/api/rooms", {
        players, seats, best_of: Number(fd.get("best_of")), ruleset: fd.get("ruleset"),
        handicap: String(fd.get("handicap") || "").trim(), name: name(), take_seat: 0, public: fd.get("public") === "on",
        lag_allowance_ms: Number(fd.get("lag_allowance_ms") || 0), bot_accounts: fd.get("bot_accounts") === "on",
      });
      enter(res);
    } catch (err) {
      $("#p-err").textContent = t("error", { msg: err.message });
    }
  });

  $("#f-join").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = extractCode($("#j-code").value);
    if (!code) {
      $("#j-err").textContent = t("bad_code");
      return;
    }
    const info = await api(`/api/rooms/${code}`).catch(() => null);
    if (info) await ready;
    navigate(roomLinks(games, info && info.game, code).play);
  });

  // The live list: the server pushes the open public rooms of every node, then each change
  // (Server-Sent Events on /api/rooms/events), and says when a public game finished.
  let liveRooms = new Map();
  function renderLive() {
    const live = [...liveRooms.values()].filter((r) => r.status !== "finished" && r.status !== "closed");
    $("#l-live").innerHTML = live.length ? live.map((r) => {
      const who = (r.seats || []).map((s, i) => {
        if (s.kind === "bot") return `${t("bot")} (${botTitle(r.game, s.bot)})`;
        if (!s.taken) return t("seat_open");
        return s.name && s.name !== "Player" ? s.name : t("player_n", { n: i + 1 });
      }).join(" · ");
      const open = (r.open_seats || []).length > 0;
      const links = roomLinks(games, r.game, r.code);
      const playHref = escapeXml(links.play);
      const watchHref = escapeXml(links.watch);
      const title = gameTitle(r.game);
      return `<li data-room="${escapeXml(r.code)}"><span class="who"><strong>${escapeXml(r.code)}</strong>${title ? ` ${escapeXml(title)}` : ""} ${escapeXml(who)}</span>
        <span>${open ? `<a class="btn primary" data-link href="${playHref}">${escapeXml(t("join_btn"))}</a> ` : ""}<a class="btn" data-link href="${watchHref}">${escapeXml(t("watch"))}</a></span></li>`;
    }).join("") : `<li class="muted">${escapeXml(t("none_yet"))}</li>`;
  }

  function follow() {
    const events = new EventSource("/api/rooms/events");
    events.addEventListener("rooms", (ev) => {
      if (!alive) return;
      liveRooms = new Map(JSON.parse(ev.data).rooms.map((r) => [r.code, r]));
      renderLive();
    });
    events.addEventListener("room", (ev) => {
      if (!alive) return;
      const { code, room } = JSON.parse(ev.data);
      if (room) {
        // A new room goes first (newest first, as the server lists them).
        liveRooms = liveRooms.has(code)
          ? new Map([...liveRooms].map(([c, r]) => [c, c === code ? room : r]))
          : new Map([[code, room], ...liveRooms]);
      } else {
        liveRooms.delete(code);
      }
      renderLive();
    });
    events.addEventListener("games", () => { if (alive) refreshDone(); });
    events.addEventListener("counts", (ev) => { if (alive) showCounts(JSON.parse(ev.data)); });
    events.onopen = () => { if (alive) netStatus(""); };
    events.onerror = () => {
      if (!alive) return;
      netStatus(t("lists_offline"), true);
      if (events.readyState === EventSource.CLOSED) {
        // Refused (too many streams from this address): try again a little later.
        setTimeout(() => { if (alive) stream = follow(); }, 5000);
      }
    };
    return events;
  }

  async function refreshDone() {
    const done = [];
    const seen = new Set();
    // This browser's own games first, then the server's finished games of public rooms
    // (GET /api/games?status=finished, newest first).
    for (const e of recent()) {
      if (e.record_url && !seen.has(e.record_url)) {
        seen.add(e.record_url);
        done.push({ url: e.record_url, game: e.game, label: `${e.code} · ${t("game_n", { n: e.number ?? "" })}`, who: keptWho(e) });
      }
    }
    let finished = [];
    try {
      finished = (await api("/api/games?status=finished&limit=20")).games || [];
    } catch { /* an older server: only this browser's games */ }
    if (!alive) return;
    const mine = done.length;
    for (const g of finished) {
      if (!g.record_url || seen.has(g.record_url)) continue;
      seen.add(g.record_url);
      const names = (g.players || []).map((p, i) => {
        if (p.bot) return `${t("bot")} (${botTitle(g.kind, p.bot)})`;
        return p.name && p.name !== "Player" ? p.name : t("player_n", { n: i + 1 });
      });
      const w = g.winners || [];
      const result = w.length === 1 && names[w[0]] ? t("x_won", { name: names[w[0]] }) : w.length > 1 ? t("tie") : "";
      const title = gameTitle(g.kind);
      const go = title ? ` ${title}` : "";
      done.push({
        url: g.record_url, game: g.id, label: `${g.room} · ${t("game_n", { n: g.number })}${go}`,
        who: `${names.join(" · ")}${result ? ` — ${result}` : ""}${g.plays ? ` · ${g.plays} ${t("plays").toLowerCase()}` : ""}`,
        bots: (g.players || []).some((p) => p.bot_account),
      });
    }
    // Two lists in the panel: this browser's own games, then the other public finished games.
    const item = (g) =>
      `<li data-game="${escapeXml(String(g.game ?? ""))}"><span class="who"><strong>${escapeXml(g.label)}</strong> ${escapeXml(g.who)}${g.bots ? ` ${botMarkHTML()}` : ""}</span>
      <a class="btn" data-link href="/#replay=${encodeURIComponent(g.url)}">${escapeXml(t("replay"))}</a></li>`;
    const own = done.slice(0, Math.min(mine, 12));
    const pub = done.slice(mine, mine + 20 - own.length);
    $("#l-done").innerHTML = own.length || pub.length ? own.map(item).join("") : `<li class="muted">${escapeXml(t("none_yet"))}</li>`;
    $("#l-pub").innerHTML = pub.map(item).join("");
  }
  // Who played one of this browser's games, named now in the page's language (its seats as
  // kept at the end; an entry kept before seats were, its names as they were then).
  function keptWho(e) {
    if (!Array.isArray(e.seats)) return e.who || "";
    return e.seats.map((_, i) => seatName(e.kind || "classic", e.seats, i, e.me ?? null)).join(" · ");
  }
  // A game with a browser module names itself in the lists (classic Blink is the default).
  function gameTitle(name) {
    const g = games.find((x) => x.name === name);
    return g && g.module.title ? g.module.title() : "";
  }
  let stream = null;
  ready.then(() => {
    if (!alive) return;
    renderLive();
    refreshDone();
    stream = follow();
  });
  return () => {
    alive = false;
    if (stopQueue) handOver(); // stopped unless the next view is a lobby that takes it over
    if (stream) stream.close();
    netStatus("");
  };
}
