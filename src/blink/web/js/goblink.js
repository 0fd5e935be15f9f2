// The Go Blink table: a seat (or a spectator) in a Go Blink room, over the same protocol
// session as classic Blink (net.js). Shows your hand (SVG cards), the opponents' card counts,
// whose turn it is and the time left, the discard pile of matches and a log of asks; lets you
// ask an opponent for a colour, shape or count (those the view's ask_values offer: the engine's
// legal asks), lay down selected cards as a match, and end your turn. Messages:
// docs/protocol.md, "Go Blink".

import { backSVG, cardSVG, escapeXml } from "./cards.js";
import { cardName, colorLetter, getLang, onLangChange } from "./i18n.js";
import { api, Connection, forgetSeat, remember, savedSeat, saveSeat } from "./net.js";

const STR = {
  en: {
    go_blink: "Go Blink",
    classic: "Blink",
    opponents: "Opponents",
    play_go: "Play Go Blink",
    game: "Game",
    you: "You",
    player_n: "Player {n}",
    your_turn: "Your turn",
    your_opening: "Your opening: lay down matches from the deal, or end it",
    turn_of: "{name}'s turn",
    opening_of: "{name}'s opening",
    time_left: "{s} s",
    draw_pile: "Draw pile: {n}",
    cards_n: "{n} cards",
    card_1: "1 card",
    your_hand: "Your hand",
    discard: "Matches laid down",
    no_matches: "No match yet.",
    log: "Log",
    ask: "Ask",
    ask_whom: "Ask",
    ask_for: "for",
    lay: "Lay down selected",
    end_turn: "End turn",
    end_opening: "End opening",
    select_help: "Select three or more cards sharing a colour, shape or count.",
    asked: "{a} asked {b} for {v}: {n}",
    asked_go: "{a} asked {b} for {v}: Go Blink!",
    drew_you: "You drew {card}.",
    drew: "{name} drew a card.",
    emptied: "{name} had no cards left and drew one.",
    laid: "{name} laid down a match of {v} ({n} cards).",
    skipped: "{name} had no cards: turn skipped.",
    won: "{names} won! ({why})",
    tie: "Tie between {names} ({why})",
    why_blunk: "I Blunk!",
    why_fewest_cards: "fewest cards",
    why_turn_limit: "turn limit",
    back: "Back to lobby",
    record: "Game record",
    replay: "Replay",
    rematch: "Rematch",
    waiting: "Waiting for players… Share this link:",
    spectating: "You are watching.",
    not_found: "There is no such room.",
    error: "Error: {msg}",
    reconnecting: "Reconnecting…",
    refused: "Refused: {msg}",
    err_out_of_turn: "It is not your turn.",
    err_ask_yourself: "Ask an opponent, not yourself.",
    err_attribute_not_held: "You may only ask for something you hold.",
    err_not_a_match: "That is not a match: three or more cards sharing one colour, shape or count.",
    err_empties_hand_in_opening: "In the opening you must keep at least one card.",
    err_ask_first: "Ask an opponent first.",
    err_already_asked: "You have already asked this turn.",
    err_no_ask_in_opening: "No asking in the opening: lay down matches or end it.",
    err_card_not_in_hand: "That card is not in your hand.",
    n_cards: "{n} cards",
    n_card: "1 card",
    color: "Colour", shape: "Shape", count: "Count",
    v_red: "reds", v_orange: "oranges", v_yellow: "yellows", v_green: "greens", v_blue: "blues", v_purple: "purples",
    v_moon: "moons", v_pyramid: "pyramids", v_star: "stars", v_water: "waters", v_flower: "flowers", v_lightning: "lightnings",
    v_1: "ones", v_2: "twos", v_3: "threes", v_4: "fours", v_5: "fives",
  },
  es: {
    go_blink: "Go Blink",
    classic: "Blink",
    opponents: "Rivales",
    play_go: "Jugar a Go Blink",
    game: "Juego",
    you: "Tú",
    player_n: "Jugador {n}",
    your_turn: "Tu turno",
    your_opening: "Tu apertura: baja combinaciones del reparto, o termínala",
    turn_of: "Turno de {name}",
    opening_of: "Apertura de {name}",
    time_left: "{s} s",
    draw_pile: "Mazo: {n}",
    cards_n: "{n} cartas",
    card_1: "1 carta",
    your_hand: "Tu mano",
    discard: "Combinaciones bajadas",
    no_matches: "Aún no hay combinaciones.",
    log: "Registro",
    ask: "Pedir",
    ask_whom: "Pedir a",
    ask_for: "",
    lay: "Bajar las elegidas",
    end_turn: "Terminar turno",
    end_opening: "Terminar apertura",
    select_help: "Elige tres o más cartas que compartan color, figura o número.",
    asked: "{a} pidió {v} a {b}: {n}",
    asked_go: "{a} pidió {v} a {b}: ¡Go Blink!",
    drew_you: "Robaste {card}.",
    drew: "{name} robó una carta.",
    emptied: "{name} se quedó sin cartas y robó una.",
    laid: "{name} bajó una combinación de {v} ({n} cartas).",
    skipped: "{name} no tenía cartas: pierde el turno.",
    won: "¡Ganó {names}! ({why})",
    tie: "Empate entre {names} ({why})",
    why_blunk: "¡I Blunk!",
    why_fewest_cards: "menos cartas",
    why_turn_limit: "límite de turnos",
    back: "Volver al vestíbulo",
    record: "Registro de la partida",
    replay: "Repetición",
    rematch: "Revancha",
    waiting: "Esperando jugadores… Comparte este enlace:",
    spectating: "Estás mirando.",
    not_found: "No existe esa sala.",
    error: "Error: {msg}",
    reconnecting: "Reconectando…",
    refused: "Rechazado: {msg}",
    err_out_of_turn: "No es tu turno.",
    err_ask_yourself: "Pide a un rival, no a ti.",
    err_attribute_not_held: "Solo puedes pedir algo que tengas.",
    err_not_a_match: "Eso no es una combinación: tres o más cartas con el mismo color, figura o número.",
    err_empties_hand_in_opening: "En la apertura debes quedarte al menos una carta.",
    err_ask_first: "Primero pide a un rival.",
    err_already_asked: "Ya has pedido en este turno.",
    err_no_ask_in_opening: "En la apertura no se pide: baja combinaciones o termínala.",
    err_card_not_in_hand: "Esa carta no está en tu mano.",
    n_cards: "{n} cartas",
    n_card: "1 carta",
    color: "Color", shape: "Figura", count: "Número",
    v_red: "rojos", v_orange: "naranjas", v_yellow: "amarillos", v_green: "verdes", v_blue: "azules", v_purple: "morados",
    v_moon: "lunas", v_pyramid: "pirámides", v_star: "estrellas", v_water: "aguas", v_flower: "flores", v_lightning: "rayos",
    v_1: "unos", v_2: "doses", v_3: "treses", v_4: "cuatros", v_5: "cincos",
  },
};

/** Translate a Go Blink string (English and Spanish). */
export function gt(key, vars = {}) {
  const table = STR[getLang()] || STR.en;
  const s = table[key] ?? STR.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

function valueKey(attribute, value) {
  return `${attribute}:${value}`;
}

function valueLabel(attribute, value) {
  return gt(`v_${value}`);
}

/** Mount the Go Blink table for room `code`; returns a cleanup function (with `.relang`). */
export function mountGoTable(root, { code, spectate }) {
  const S = {
    code, spectate, seat: null, room: null, game: null, view: null, turn: null, log: [],
    sel: new Set(), askTarget: null, askValue: null, end: null, msg: null, fatal: null,
    status: "connecting", pending: new Map(), votes: null,
  };
  let conn = null;
  let alive = true;
  const timer = setInterval(tickTimer, 250);

  function nameOf(seat) {
    if (seat === S.seat && !S.spectate) return gt("you");
    const s = S.room && S.room.seats && S.room.seats[seat];
    if (s && s.name && s.name !== "Player") return s.name;
    return gt("player_n", { n: seat + 1 });
  }

  async function start() {
    let token = null;
    if (!spectate) {
      const saved = savedSeat(code);
      if (saved && saved.token) {
        token = saved.token;
      } else {
        try {
          let name = "";
          try { name = localStorage.getItem("blink.name") || ""; } catch { /* ignore */ }
          const res = await api(`/api/rooms/${code}/join`, name ? { name } : {});
          saveSeat(code, { token: res.token, seat: res.seat });
          token = res.token;
        } catch (e) {
          if (e.code === "no_such_room") {
            S.fatal = gt("not_found");
            render();
            return;
          }
          S.msg = gt("error", { msg: e.message });
          S.spectate = true;
        }
      }
    }
    if (!alive) return;
    conn = new Connection({ room: code, token, spectate: !token }, { message: onMessage, status: onStatus });
    window.blinkConnection = conn;
    conn.start();
    render();
  }

  function onStatus(st) {
    if (st.state === "open" && S.status === "reconnecting") {
      for (const [id, m] of S.pending) conn.send({ ...m, id });
    }
    if (st.state === "open") S.status = "open";
    else if (st.state === "reconnecting") S.status = "reconnecting";
    else if (st.state === "closed") {
      S.status = "closed";
      if (st.code === 4003 && !S.retried) {
        S.retried = true;
        forgetSeat(code);
        conn = null;
        start();
        return;
      }
      if (st.code === 4003 || st.code === 4004) S.fatal = gt("not_found");
    }
    if (st.rtt == null) render();
  }

  function rebuildLog(v) {
    S.log = [];
    for (const a of v.asks || []) {
      S.log.push(a.passed
        ? { k: "asked", a: a.seat, b: a.target, attribute: a.attribute, value: a.value, n: a.passed }
        : { k: "asked_go", a: a.seat, b: a.target, attribute: a.attribute, value: a.value });
    }
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        S.seat = msg.seat;
        S.spectate = msg.role !== "player";
        break;
      case "room":
        S.room = msg.room;
        break;
      case "snapshot":
        if (S.game !== msg.game) {
          S.end = null;
          S.votes = null;
        }
        S.game = msg.game;
        S.view = msg.view;
        if (msg.view.seats && S.room) S.room.seats = msg.view.seats;
        S.turn = msg.turn ? { seat: msg.turn.seat, deadline: performance.now() + msg.turn.in_ms } : null;
        S.pending.clear();
        S.sel.clear();
        rebuildLog(msg.view);
        break;
      case "update": {
        S.view = msg.view;
        S.turn = msg.turn ? { seat: msg.turn.seat, deadline: performance.now() + msg.turn.in_ms } : null;
        let asked = null;
        for (const e of msg.events) {
          if (e.type === "asked") {
            asked = { a: e.seat, b: e.target, attribute: e.attribute, value: e.value };
          } else if (e.type === "passed" && asked) {
            S.log.push({ k: "asked", ...asked, n: e.number });
            asked = null;
          } else if (e.type === "go_blink" && asked) {
            S.log.push({ k: "asked_go", ...asked });
            asked = null;
          } else if (e.type === "drew") {
            if (e.card && e.seat === S.seat) S.log.push({ k: "drew_you", card: e.card });
            else S.log.push({ k: e.cause === "emptied" ? "emptied" : "drew", seat: e.seat });
          } else if (e.type === "laid_down") {
            S.log.push({ k: "laid", seat: e.seat, attribute: e.attribute, value: e.value, n: e.cards.length });
          } else if (e.type === "skipped") {
            S.log.push({ k: "skipped", seat: e.seat });
          }
        }
        const hand = new Set(msg.view.hand || []);
        for (const c of [...S.sel]) if (!hand.has(c)) S.sel.delete(c);
        break;
      }
      case "ack":
        S.pending.delete(msg.id);
        break;
      case "refused":
        S.pending.delete(msg.id);
        S.msg = gt("refused", { msg: STR.en[`err_${msg.code}`] ? gt(`err_${msg.code}`) : msg.message });
        break;
      case "error":
        S.msg = gt("error", { msg: msg.message });
        break;
      case "game_end":
        S.end = msg;
        S.turn = null;
        remember({ code, game: msg.game, number: msg.number, record_url: msg.record_url, kind: "goblink" });
        break;
      case "rematch":
        S.votes = msg;
        break;
      default:
        return;
    }
    render();
  }

  function send(m) {
    if (!conn) return;
    const id = conn.nextId();
    S.pending.set(id, m);
    S.msg = null;
    conn.send({ ...m, id });
  }

  // --- rendering ----------------------------------------------------------------------------

  function logLine(e) {
    switch (e.k) {
      case "asked":
        return gt("asked", { a: nameOf(e.a), b: nameOf(e.b), v: valueLabel(e.attribute, e.value), n: e.n === 1 ? gt("n_card") : gt("n_cards", { n: e.n }) });
      case "asked_go":
        return gt("asked_go", { a: nameOf(e.a), b: nameOf(e.b), v: valueLabel(e.attribute, e.value) });
      case "drew_you":
        return gt("drew_you", { card: cardName(e.card) });
      case "laid":
        return gt("laid", { name: nameOf(e.seat), v: valueLabel(e.attribute, e.value), n: e.n });
      default:
        return gt(e.k, { name: nameOf(e.seat) });
    }
  }

  function card(code, cls = "") {
    return `<span class="go-card ${cls}" data-card="${escapeXml(code)}">${cardSVG(code, { letter: colorLetter(code), label: cardName(code) })}</span>`;
  }

  function turnText(v) {
    if (v.current === null || v.current === undefined) return "";
    const opening = v.phase === "opening";
    if (v.current === S.seat && !S.spectate) return opening ? gt("your_opening") : gt("your_turn");
    return gt(opening ? "opening_of" : "turn_of", { name: nameOf(v.current) });
  }

  function secondsLeft() {
    if (!S.turn) return "";
    return gt("time_left", { s: Math.max(0, Math.ceil((S.turn.deadline - performance.now()) / 1000)) });
  }

  function tickTimer() {
    const el = root.querySelector("#go-timer");
    if (el) el.textContent = secondsLeft();
  }

  function render() {
    if (!alive) return;
    if (S.fatal) {
      root.innerHTML = `<section class="panel go-table"><p class="error-msg" role="alert">${escapeXml(S.fatal)}</p><p><a href="/" data-link>${escapeXml(gt("back"))}</a></p></section>`;
      return;
    }
    const v = S.view;
    if (!v) {
      const link = `${location.origin}/?go=${code}`;
      root.innerHTML = `<section class="panel go-table" id="go-waiting"><h1>${escapeXml(gt("go_blink"))} · ${escapeXml(code)}</h1>
        <p>${escapeXml(gt("waiting"))}</p><p><code>${escapeXml(link)}</code></p>
        ${S.msg ? `<p class="error-msg" role="alert">${escapeXml(S.msg)}</p>` : ""}</section>`;
      return;
    }
    const mine = !S.spectate && S.seat !== null;
    const myTurn = mine && v.current === S.seat;
    const hand = v.hand || [];
    const opps = [];
    for (let p = 0; p < v.players; p++) {
      if (mine && p === S.seat) continue;
      const n = v.hand_counts[p];
      opps.push(`<li class="go-opp${v.current === p ? " current" : ""}" data-seat="${p}">
        <span class="go-opp-name">${escapeXml(nameOf(p))}</span>
        <span class="go-backs" aria-hidden="true">${backSVG().repeat(Math.min(n, 8))}</span>
        <span class="go-count" data-count="${n}">${escapeXml(n === 1 ? gt("card_1") : gt("cards_n", { n }))}</span></li>`);
    }
    const discard = (v.discard || []).map((m) =>
      `<li class="go-match"><span class="go-match-who">${escapeXml(nameOf(m.seat))}</span>${m.cards.map((c) => card(c, "small")).join("")}</li>`,
    ).join("");
    const targets = [];
    for (let p = 0; p < v.players; p++) if (p !== S.seat) targets.push(p);
    if (!targets.includes(S.askTarget)) S.askTarget = targets[0];
    // What the engine lets you ask for (the view's ask_values): nothing is judged here.
    const values = v.ask_values || [];
    const keys = values.map((x) => valueKey(x.attribute, x.value));
    if (!keys.includes(S.askValue)) S.askValue = keys[0] ?? null;
    const canAsk = myTurn && v.phase === "asking";
    const canLay = myTurn && (v.phase === "opening" || v.phase === "laying");
    const groups = [...new Set(values.map((x) => x.attribute))].map((attr) => {
      const opts = values.filter((x) => x.attribute === attr).map((x) => {
        const k = valueKey(x.attribute, x.value);
        return `<option value="${escapeXml(k)}"${k === S.askValue ? " selected" : ""}>${escapeXml(valueLabel(x.attribute, x.value))}</option>`;
      }).join("");
      return opts ? `<optgroup label="${escapeXml(gt(attr))}">${opts}</optgroup>` : "";
    }).join("");
    let endPanel = "";
    if (S.end) {
      const o = S.end.outcome;
      const names = o.winners.map(nameOf).join(", ");
      const why = gt(`why_${o.reason}`);
      endPanel = `<section class="panel go-end" id="go-end-panel" role="status">
        <h2>${escapeXml(o.tie ? gt("tie", { names, why }) : gt("won", { names, why }))}</h2>
        <p><a class="btn primary" id="go-replay" href="/#replay=${escapeXml(encodeURIComponent(S.end.record_url))}" data-link>${escapeXml(gt("replay"))}</a>
        <a class="btn" href="${escapeXml(S.end.record_url)}" target="_blank" rel="noopener">${escapeXml(gt("record"))}</a>
        ${mine && S.votes && S.votes.available ? `<button type="button" id="go-rematch">${escapeXml(gt("rematch"))}</button>` : ""}
        <a class="btn" href="/" data-link>${escapeXml(gt("back"))}</a></p></section>`;
    }
    root.innerHTML = `<div class="go-table" data-phase="${escapeXml(v.phase)}">
      <header class="go-head">
        <h1>${escapeXml(gt("go_blink"))} <span class="muted">${escapeXml(code)}</span></h1>
        <p class="go-turn" id="go-turn" aria-live="polite">${escapeXml(turnText(v))} <span id="go-timer">${escapeXml(secondsLeft())}</span></p>
        <p class="go-draw" id="go-draw" data-count="${v.draw_count}">${backSVG()}<span>${escapeXml(gt("draw_pile", { n: v.draw_count }))}</span></p>
        ${S.status === "reconnecting" ? `<p class="error-msg">${escapeXml(gt("reconnecting"))}</p>` : ""}
      </header>
      ${endPanel}
      <ul class="go-opps" id="go-opps">${opps.join("")}</ul>
      <section class="go-discard panel"><h2>${escapeXml(gt("discard"))}</h2>
        <ul id="go-discard">${discard || `<li class="muted">${escapeXml(gt("no_matches"))}</li>`}</ul></section>
      <section class="go-log panel"><h2>${escapeXml(gt("log"))}</h2>
        <ol id="go-log">${S.log.slice(-40).map((e) => `<li>${escapeXml(logLine(e))}</li>`).join("")}</ol></section>
      ${mine ? `<section class="go-me panel${myTurn ? " my-turn" : ""}">
        <h2>${escapeXml(gt("your_hand"))}</h2>
        <div class="go-hand" id="go-hand" role="group" aria-label="${escapeXml(gt("your_hand"))}">
          ${hand.map((c) => `<button type="button" class="go-card-btn${S.sel.has(c) ? " selected" : ""}" data-card="${escapeXml(c)}" aria-pressed="${S.sel.has(c)}">${card(c)}</button>`).join("")}
        </div>
        <div class="go-controls">
          <label>${escapeXml(gt("ask_whom"))} <select id="go-ask-target"${canAsk ? "" : " disabled"}>${targets.map((p) => `<option value="${p}"${p === S.askTarget ? " selected" : ""}>${escapeXml(nameOf(p))} (${v.hand_counts[p]})</option>`).join("")}</select></label>
          <label>${escapeXml(gt("ask_for"))} <select id="go-ask-value"${canAsk ? "" : " disabled"}>${groups}</select></label>
          <button type="button" class="primary" id="go-ask"${canAsk ? "" : " disabled"}>${escapeXml(gt("ask"))}</button>
          <button type="button" id="go-lay"${canLay && S.sel.size >= 3 ? "" : " disabled"} title="${escapeXml(gt("select_help"))}">${escapeXml(gt("lay"))}</button>
          <button type="button" id="go-end"${canLay ? "" : " disabled"}>${escapeXml(v.phase === "opening" ? gt("end_opening") : gt("end_turn"))}</button>
        </div>
        <p class="error-msg" id="go-msg" role="alert">${escapeXml(S.msg || "")}</p>
      </section>` : `<p class="muted">${escapeXml(gt("spectating"))}</p>`}
    </div>`;
    const logEl = root.querySelector("#go-log");
    if (logEl) logEl.scrollTop = logEl.scrollHeight;
  }

  function onClick(e) {
    const btn = e.target.closest && e.target.closest("button");
    if (!btn || !root.contains(btn)) return;
    if (btn.classList.contains("go-card-btn")) {
      const c = btn.dataset.card;
      if (S.sel.has(c)) S.sel.delete(c);
      else S.sel.add(c);
      render();
    } else if (btn.id === "go-ask") {
      const [attribute, raw] = String(S.askValue || "").split(":");
      if (!attribute) return;
      send({ type: "ask", target: Number(S.askTarget), attribute, value: attribute === "count" ? Number(raw) : raw });
    } else if (btn.id === "go-lay") {
      send({ type: "lay", cards: [...S.sel] });
      S.sel.clear();
    } else if (btn.id === "go-end") {
      send({ type: "end" });
    } else if (btn.id === "go-rematch" && conn) {
      conn.send({ type: "rematch", id: conn.nextId() });
    }
  }

  function onChange(e) {
    if (e.target.id === "go-ask-target") S.askTarget = Number(e.target.value);
    else if (e.target.id === "go-ask-value") S.askValue = e.target.value;
  }

  root.addEventListener("click", onClick);
  root.addEventListener("change", onChange);
  onLangChange(() => { if (alive) render(); });
  start();
  render();
  const cleanup = () => {
    alive = false;
    clearInterval(timer);
    root.removeEventListener("click", onClick);
    root.removeEventListener("change", onChange);
    if (conn) conn.stop();
  };
  cleanup.relang = () => render();
  return cleanup;
}
