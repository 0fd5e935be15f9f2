// The Go Blink table: a seat (or a spectator) in a Go Blink room, over the same protocol
// session as classic Blink (net.js). Shows your hand (SVG cards), the opponents' card counts,
// whose turn it is and the time left, the discard pile of matches and a log of asks; lets you
// ask an opponent for a colour, shape or count (those the view's ask_values offer: the engine's
// legal asks), lay down selected cards as a match, and end your turn. A new game counts down
// first (the snapshot's countdown_ms, the countdown frame), as a classic game does before its
// reveal: nothing can be sent until the server's snapshot of the started game. Messages:
// docs/protocol.md, "Go Blink".

import { backSVG, cardSVG, escapeXml } from "/js/cards.js";
import { quickChat } from "/js/chat.js";
import { cardName, colorLetter, onLangChange } from "/js/i18n.js";
import { recordFileName, remember, TableSession } from "/js/net.js";
import { gt, hasGt } from "./strings.js";

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
    pending: new Map(), votes: null, countdownUntil: null,
  };
  const session = new TableSession({ code, spectate }, {
    message: onMessage,
    status: (st) => { if (st.rtt == null) render(); },
    reconnected: () => { for (const [id, m] of S.pending) sendMove(id, m); },
    watching: (e) => {
      S.msg = gt("error", { msg: e.message });
      S.spectate = true;
    },
    gone: () => { S.fatal = gt("not_found", { code }); },
  });
  const chat = quickChat((type, fields) => session.send(type, fields));
  let alive = true;
  const timer = setInterval(tickTimer, 250);

  function nameOf(seat) {
    if (seat === S.seat && !S.spectate) return gt("you");
    const s = S.room && S.room.seats && S.room.seats[seat];
    if (s && s.name && s.name !== "Player") return s.name;
    return gt("player_n", { n: seat + 1 });
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
        S.countdownUntil = msg.countdown_ms != null ? session.deadline(msg.countdown_at, msg.countdown_ms) : null;
        S.pending.clear();
        S.sel.clear();
        rebuildLog(msg.view);
        break;
      case "countdown":
        if (msg.game === S.game) S.countdownUntil = session.deadline(msg.at, msg.in_ms);
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
        S.msg = gt("refused", { msg: hasGt(`err_${msg.code}`) ? gt(`err_${msg.code}`) : msg.message });
        break;
      case "error":
        S.msg = hasGt(`err_${msg.code}`) ? gt(`err_${msg.code}`) : gt("error", { msg: msg.message });
        break;
      case "game_end":
        S.end = msg;
        S.turn = null;
        remember({ code, game: msg.game, number: msg.number, record_url: msg.record_url, kind: "goblink" });
        break;
      case "rematch":
        S.votes = msg;
        break;
      case "chat":
        chat.heard(msg);
        break;
      default:
        return;
    }
    render();
  }

  /** A move (ask, lay, end) as the protocol frames it; kept until answered, to send again
   * after a drop. */
  function sendMove(id, m) {
    session.send(m.type, { ...m.fields, id });
  }

  function act(type, fields = {}) {
    if (!session.live) return;
    const id = session.nextId();
    const m = { type, fields };
    S.pending.set(id, m);
    S.msg = null;
    sendMove(id, m);
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

  /** Whole seconds until the game starts (while it counts down). */
  function secondsToStart() {
    return Math.max(0, Math.ceil((S.countdownUntil - performance.now()) / 1000));
  }

  /** The countdown over the table (the classic table's overlay), until the game starts. */
  function countdownHTML() {
    if (S.countdownUntil === null) return "";
    const s = secondsToStart();
    return `<div class="overlay" id="go-countdown" role="timer" aria-label="${escapeXml(gt("starts_in", { s }))}"><div class="count" id="go-count">${s}</div></div>`;
  }

  function tickTimer() {
    if (chat.expired()) render();
    const el = root.querySelector("#go-timer");
    if (el) el.textContent = secondsLeft();
    const cd = root.querySelector("#go-countdown");
    if (cd && S.countdownUntil !== null) {
      const s = secondsToStart();
      root.querySelector("#go-count").textContent = String(s);
      cd.setAttribute("aria-label", gt("starts_in", { s }));
    }
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
    // Nobody acts while the game counts down; the server's snapshot of the start ends it.
    const myTurn = mine && v.current === S.seat && S.countdownUntil === null;
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
        <a class="btn" id="go-download" href="${escapeXml(S.end.record_url)}" download="${escapeXml(recordFileName(S.end.record_url, code, S.end.number))}">${escapeXml(gt("record"))}</a>
        ${mine && S.votes && S.votes.available ? `<button type="button" id="go-rematch">${escapeXml(gt("rematch"))}</button>` : ""}
        ${S.room && S.room.tournament_url ? `<a class="btn" id="to-tournament" href="${escapeXml(S.room.tournament_url)}">${escapeXml(gt("back_tournament"))}</a>` : ""}
        <a class="btn" href="/" data-link>${escapeXml(gt("back"))}</a></p></section>`;
    }
    root.innerHTML = `<div class="go-table" data-phase="${escapeXml(v.phase)}">
      <header class="go-head">
        <h1>${escapeXml(gt("go_blink"))} <span class="muted">${escapeXml(code)}</span></h1>
        <p class="go-turn" id="go-turn" aria-live="polite">${escapeXml(turnText(v))} <span id="go-timer">${escapeXml(secondsLeft())}</span></p>
        <p class="go-draw" id="go-draw" data-count="${v.draw_count}">${backSVG()}<span>${escapeXml(gt("draw_pile", { n: v.draw_count }))}</span></p>
        ${session.state === "reconnecting" ? `<p class="error-msg">${escapeXml(gt("reconnecting"))}</p>` : ""}
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
      </section>${chat.barHTML(true)}` : `<p class="muted">${escapeXml(gt("spectating"))}</p>`}
    </div>${countdownHTML()}`;
    chat.place(root, (seat) => root.querySelector(`.go-opp[data-seat="${seat}"] .go-opp-name`) || (seat === S.seat ? root.querySelector(".go-me h2") : null));
    const logEl = root.querySelector("#go-log");
    if (logEl) logEl.scrollTop = logEl.scrollHeight;
  }

  function onClick(e) {
    if (chat.click(e.target)) return;
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
      act("ask", { target: Number(S.askTarget), attribute, value: attribute === "count" ? Number(raw) : raw });
    } else if (btn.id === "go-lay") {
      act("lay", { cards: [...S.sel] });
      S.sel.clear();
    } else if (btn.id === "go-end") {
      act("end");
    } else if (btn.id === "go-rematch" && session.live) {
      session.send("rematch", { id: session.nextId() });
    }
  }

  function onChange(e) {
    if (e.target.id === "go-ask-target") S.askTarget = Number(e.target.value);
    else if (e.target.id === "go-ask-value") S.askValue = e.target.value;
  }

  root.addEventListener("click", onClick);
  root.addEventListener("change", onChange);
  onLangChange(() => { if (alive) render(); });
  session.start();
  render();
  const cleanup = () => {
    alive = false;
    clearInterval(timer);
    root.removeEventListener("click", onClick);
    root.removeEventListener("change", onChange);
    session.stop();
  };
  cleanup.relang = () => render();
  return cleanup;
}
