// The Go Blink table: a seat (or a spectator) in a Go Blink room, over the same protocol
// session as classic Blink (net.js). Shows your hand (SVG cards), the opponents' card counts,
// whose turn it is and the time left, the discard pile of matches and a numbered log of asks.
// To ask, click an opponent, then a value chip: the chips are the view's ask_values (the
// engine's legal asks). To lay down, click cards to select them: "Lay down" is enabled only when
// the selection is one of the view's lay_options (the engine's legal lay-downs); nothing is
// judged here. Keys (the help line): 1-5 an opponent, arrows along the chips or the hand, Enter
// asks, Space selects, L lays down, E ends, Esc clears. A new game counts down first (the
// snapshot's countdown_ms, the countdown frame), as a classic game does before its reveal:
// nothing can be sent until the server's snapshot of the started game. Messages:
// docs/protocol.md, "Go Blink".

import { backSVG, cardSVG, escapeXml } from "/js/cards.js";
import { quickChat } from "/js/chat.js";
import { ratingsHTML } from "/js/ratings.js";
import { cardName, colorLetter, hasT, onLangChange, t } from "/js/i18n.js";
import { loadOwnStudy, ownSummary, studyUrl } from "/js/study.js";
import { recordFileName, remember, TableSession } from "/js/net.js";
import { botTitle, gt, gtCount, hasGt } from "./strings.js";
import { playersAway, showNetStatus } from "/js/netbadge.js";
import { botSeatName, keptSeats, seatBots } from "/js/botnames.js";

function valueKey(attribute, value) {
  return `${attribute}:${value}`;
}

function valueLabel(attribute, value) {
  return gt(`v_${value}`);
}

/** Mount the Go Blink table for room `code`; returns a cleanup function (with `.relang`). */
/** A server's error code in words: Go Blink's own (`err_<code>`), else the words every
 * room's codes have in i18n.js (`r_<code>`); null for a code without words. */
function codeWords(code) {
  if (hasGt(`err_${code}`)) return gt(`err_${code}`);
  return hasT(`r_${code}`) ? t(`r_${code}`) : null;
}

export function mountGoTable(root, { code, spectate }) {
  const S = {
    code, spectate, seat: null, room: null, game: null, view: null, turn: null, log: [],
    sel: new Set(), askTarget: null, end: null, msg: null, fatal: null,
    pending: new Map(), votes: null, countdownUntil: null,
  };
  const session = new TableSession({ code, spectate }, {
    message: onMessage,
    status: (st) => {
      showNetStatus(st, nameOf);
      if (st.rtt == null) render();
    },
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

  /** A seat's name: "You", a bot's in the reader's language (from its bot's name, not the
   * server's English seat name), else the name its player gave. */
  function nameOf(seat) {
    if (seat === S.seat && !S.spectate) return gt("you");
    const s = S.room && S.room.seats && S.room.seats[seat];
    if (s && s.kind === "bot" && s.bot) return botSeatName(seatBots(S.room.seats), seat, botTitle(s.bot));
    if (s && s.name && s.name !== "Player") return s.name;
    return gt("player_n", { n: seat + 1 });
  }

  /** A spectator of a game whose players have all gone is told what the table does meanwhile
   * (the classic table's notice). */
  function awayHTML(v) {
    if (!S.spectate || v.phase === "over" || S.end || !playersAway(S.room)) return "";
    return `<p class="muted" id="players-away" role="status">${escapeXml(gt("players_away"))}</p>`;
  }

  /** A seat's name as the one asked, in a sentence ("asked you", "a ti"). */
  function targetName(seat) {
    return seat === S.seat && !S.spectate ? gt("you_asked") : nameOf(seat);
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
        S.msg = gt("refused", { msg: codeWords(msg.code) ?? msg.message });
        break;
      case "error":
        S.msg = codeWords(msg.code) ?? gt("error", { msg: msg.message });
        break;
      case "game_end":
        S.end = msg;
        S.turn = null;
        remember({
          code, game: msg.game, number: msg.number, record_url: msg.record_url, kind: "goblink",
          seats: keptSeats(S.room && S.room.seats), me: S.spectate ? null : S.seat,
        });
        loadOwnStudy(S, msg, render);
        break;
      case "ratings":
        // The game was rated (after its end, once stored): the end panel shows each change.
        if (!S.end || S.end.game !== msg.game) return;
        S.end = { ...S.end, ratings: msg.ratings };
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
    sendMove(id, m);
    if (S.msg !== null) {  // an earlier refusal no longer stands
      S.msg = null;
      render();
    }
  }

  // --- rendering ----------------------------------------------------------------------------

  function logLine(e) {
    switch (e.k) {
      case "asked":
        return gt("asked", { a: nameOf(e.a), b: targetName(e.b), v: valueLabel(e.attribute, e.value), n: gtCount("n_cards", e.n) });
      case "asked_go":
        return gt("asked_go", { a: nameOf(e.a), b: targetName(e.b), v: valueLabel(e.attribute, e.value) });
      case "drew_you":
        return gt("drew_you", { card: cardName(e.card) });
      case "laid":
        return gtCount("laid", e.n, { name: nameOf(e.seat), v: valueLabel(e.attribute, e.value) });
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

  /** Whether the selected cards are one of the view's legal lay-downs (its lay_options). */
  function selectionLegal(v) {
    const sel = [...S.sel];
    return (v.lay_options || []).some((o) =>
      sel.length >= o.min && sel.length <= o.max && sel.every((c) => o.cards.includes(c)));
  }

  /** The opponents in seat order (the n-th is chosen by the key n). */
  function opponents(v) {
    const out = [];
    for (let p = 0; p < v.players; p++) if (S.spectate || p !== S.seat) out.push(p);
    return out;
  }

  function oppHTML(v, p, i, canAsk) {
    const n = v.hand_counts[p];
    const chosen = canAsk && S.askTarget === p;
    const inner = `<span class="go-opp-name">${canAsk ? `<kbd class="go-key" aria-hidden="true">${i + 1}</kbd> ` : ""}${escapeXml(nameOf(p))}</span>
        <span class="go-backs" aria-hidden="true">${backSVG().repeat(Math.min(n, 8))}</span>
        <span class="go-count" data-count="${n}">${escapeXml(gtCount("cards", n))}</span>`;
    const cls = `go-opp${v.current === p ? " current" : ""}${chosen ? " chosen" : ""}`;
    if (S.spectate || S.seat === null) return `<li class="${cls}" data-seat="${p}"><div class="go-opp-box">${inner}</div></li>`;
    return `<li class="${cls}" data-seat="${p}"><button type="button" class="go-opp-btn" data-seat="${p}" data-focus="o:${p}"
      aria-pressed="${chosen}"${canAsk ? "" : " disabled"} title="${escapeXml(gt("pick_opp"))}">${inner}</button></li>`;
  }

  /** The values you may ask for (the view's ask_values), as chips by attribute. */
  function valuesHTML(v, canAsk) {
    const values = v.ask_values || [];
    const on = canAsk && S.askTarget !== null;
    return [...new Set(values.map((x) => x.attribute))].map((attr) => {
      const chips = values.filter((x) => x.attribute === attr).map((x) => {
        const k = valueKey(x.attribute, x.value);
        return `<button type="button" class="go-chip go-chip-${escapeXml(attr)}" data-value="${escapeXml(k)}" data-focus="v:${escapeXml(k)}"${on ? "" : " disabled"}>${escapeXml(valueLabel(x.attribute, x.value))}</button>`;
      }).join("");
      return `<span class="go-chips" role="group" aria-label="${escapeXml(gt(attr))}">${chips}</span>`;
    }).join("");
  }

  /** The help line of the keys that work now. */
  function keysHTML(v, nOpps) {
    const k = (keys, what) => `<span>${keys.map((x) => `<kbd>${escapeXml(x)}</kbd>`).join(" ")} ${escapeXml(gt(what))}</span>`;
    return `<p class="go-keys muted" id="go-keys">${escapeXml(gt("keys"))} ${[
      k([nOpps > 1 ? `1–${nOpps}` : "1"], "key_opp"), k(["←", "→"], "key_move"), k([gt("enter")], "key_ask"),
      k([gt("space")], "key_select"), k(["L"], "key_lay"), k(["E"], "key_end"), k(["Esc"], "key_clear"),
    ].join(" · ")}</p>`;
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
    const canAsk = myTurn && v.phase === "asking" && (v.ask_values || []).length > 0;
    const canEnd = myTurn && (v.phase === "opening" || v.phase === "laying");
    const opps = opponents(v);
    if (!canAsk || !opps.includes(S.askTarget)) S.askTarget = canAsk && opps.length === 1 ? opps[0] : null;
    const canLay = canEnd && selectionLegal(v);
    const discard = (v.discard || []).map((m) =>
      `<li class="go-match"><span class="go-match-who">${escapeXml(nameOf(m.seat))}</span>${m.cards.map((c) => card(c, "small")).join("")}</li>`,
    ).join("");
    let endPanel = "";
    const st = S.study && S.end && S.study.game === S.end.game && S.study.doc;
    const studyLine = st && mine ? ownSummary(st.games[0], S.seat) : "";
    if (S.end) {
      const o = S.end.outcome;
      const names = o.winners.map(nameOf).join(", ");
      const why = gt(`why_${o.reason}`);
      endPanel = `<section class="panel go-end" id="go-end-panel" role="status">
        <h2>${escapeXml(o.tie ? gt("tie", { names, why }) : gt("won", { names, why }))}</h2>
        ${ratingsHTML(S.end.ratings, nameOf, S.spectate ? null : S.seat)}
        ${studyLine ? `<p class="study-line" id="study-line">${escapeXml(studyLine)}</p>` : ""}
        <p><a class="btn primary" id="go-replay" href="/#replay=${escapeXml(encodeURIComponent(S.end.record_url))}" data-link>${escapeXml(gt("replay"))}</a>
        ${studyUrl(S.end.record_url) ? `<a class="btn" id="go-study" href="/#study=${escapeXml(encodeURIComponent(S.end.record_url))}" data-link>${escapeXml(t("study"))}</a>` : ""}
        <a class="btn" id="go-download" href="${escapeXml(S.end.record_url)}" download="${escapeXml(recordFileName(S.end.record_url, code, S.end.number))}">${escapeXml(gt("record"))}</a>
        ${mine && S.votes && S.votes.available ? `<button type="button" id="go-rematch">${escapeXml(gt("rematch"))}</button>` : ""}
        ${S.room && S.room.tournament_url ? `<a class="btn" id="to-tournament" href="${escapeXml(S.room.tournament_url)}">${escapeXml(gt("back_tournament"))}</a>` : ""}
        <a class="btn" href="/" data-link>${escapeXml(gt("back"))}</a></p></section>`;
    }
    let prompt = "";
    if (canAsk) prompt = S.askTarget === null ? gt("pick_opp") : gt("ask_target", { name: nameOf(S.askTarget) });
    else if (canEnd) prompt = gt("select_help");
    const first = Math.max(0, S.log.length - 40);
    const focused = document.activeElement && root.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
    root.innerHTML = `<div class="go-table" data-phase="${escapeXml(v.phase)}">
      <header class="go-head">${mine ? chat.barHTML(true) : ""}
        <h1>${escapeXml(gt("go_blink"))} <span class="muted">${escapeXml(code)}</span></h1>
        <p class="go-turn" id="go-turn" aria-live="polite">${escapeXml(turnText(v))} <span id="go-timer">${escapeXml(secondsLeft())}</span></p>
        <p class="go-draw" id="go-draw" data-count="${v.draw_count}">${backSVG()}<span>${escapeXml(gt("draw_pile", { n: v.draw_count }))}</span></p>
        ${session.state === "reconnecting" ? `<p class="error-msg">${escapeXml(gt("reconnecting"))}</p>` : ""}
      </header>
      ${endPanel}${awayHTML(v)}
      <ul class="go-opps" id="go-opps" aria-label="${escapeXml(gt("opponents"))}">${opps.map((p, i) => oppHTML(v, p, i, canAsk)).join("")}</ul>
      <section class="go-discard panel"><h2>${escapeXml(gt("discard"))}</h2>
        <ul id="go-discard">${discard || `<li class="muted">${escapeXml(gt("no_matches"))}</li>`}</ul></section>
      <section class="go-log panel"><h2>${escapeXml(gt("log"))}</h2>
        <ol id="go-log" start="${first + 1}">${S.log.slice(first).map((e, i) => `<li><span class="go-log-n">${first + i + 1}.</span> <span>${escapeXml(logLine(e))}</span></li>`).join("")}</ol></section>
      ${mine ? `<section class="go-me panel${myTurn ? " my-turn" : ""}">
        <h2>${escapeXml(gt("your_hand"))}</h2>
        <div class="go-hand" id="go-hand" role="group" aria-label="${escapeXml(gt("your_hand"))}">
          ${hand.map((c) => `<button type="button" class="go-card-btn${S.sel.has(c) ? " selected" : ""}" data-card="${escapeXml(c)}" data-focus="c:${escapeXml(c)}" aria-pressed="${S.sel.has(c)}">${card(c)}</button>`).join("")}
        </div>
        <p class="go-prompt" id="go-prompt">${escapeXml(prompt)}</p>
        <div class="go-controls">
          <div class="go-values" id="go-values" role="group" aria-label="${escapeXml(gt("ask_for_value"))}">${valuesHTML(v, canAsk)}</div>
          <button type="button"${canLay ? ' class="primary"' : " disabled"} id="go-lay" data-focus="b:lay" title="${escapeXml(gt("select_help"))}">${escapeXml(gt("lay"))}</button>
          <button type="button" id="go-end" data-focus="b:end"${canEnd ? "" : " disabled"}>${escapeXml(v.phase === "opening" ? gt("end_opening") : gt("end_turn"))}</button>
        </div>
        ${keysHTML(v, opps.length)}
        <p class="error-msg" id="go-msg" role="alert">${escapeXml(S.msg || "")}</p>
      </section>` : `<p class="muted">${escapeXml(gt("spectating"))}</p>`}
    </div>${countdownHTML()}`;
    chat.place(root, (seat) => root.querySelector(`.go-opp[data-seat="${seat}"] .go-opp-name`) || (seat === S.seat ? root.querySelector(".go-me h2") : null));
    const logEl = root.querySelector("#go-log");
    if (logEl) showNewest(logEl);
    // A render replaces the table: the control that had the focus gets it back.
    const again = focused && root.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }

  function ask(key) {
    const [attribute, raw] = String(key || "").split(":");
    if (!attribute || S.askTarget === null) return;
    // One ask a turn: a second click while the first is unanswered would only be refused.
    if ([...S.pending.values()].some((m) => m.type === "ask")) return;
    act("ask", { target: Number(S.askTarget), attribute, value: attribute === "count" ? Number(raw) : raw });
  }

  function layDown() {
    if (!S.view || !selectionLegal(S.view)) return;
    act("lay", { cards: [...S.sel] });
    S.sel.clear();
  }

  /** Choose the opponent to ask; the first value chip takes the focus. */
  function chooseTarget(p) {
    S.askTarget = p;
    render();
    const chip = root.querySelector(".go-chip:not(:disabled)");
    if (chip) chip.focus();
  }

  function onClick(e) {
    if (chat.click(e.target)) return;
    const btn = e.target.closest && e.target.closest("button");
    if (!btn || !root.contains(btn) || btn.disabled) return;
    if (btn.classList.contains("go-card-btn")) {
      const c = btn.dataset.card;
      if (S.sel.has(c)) S.sel.delete(c);
      else S.sel.add(c);
      render();
    } else if (btn.classList.contains("go-opp-btn")) {
      chooseTarget(Number(btn.dataset.seat));
    } else if (btn.classList.contains("go-chip")) {
      ask(btn.dataset.value);
    } else if (btn.id === "go-lay") {
      layDown();
    } else if (btn.id === "go-end") {
      act("end");
    } else if (btn.id === "go-rematch" && session.live) {
      session.send("rematch", { id: session.nextId() });
    }
  }

  /** ← → move the focus along the row in use: the value chips when asking, else the hand. */
  function moveFocus(step) {
    const v = S.view;
    const sel = v && v.phase === "asking" && S.askTarget !== null ? ".go-chip:not(:disabled)" : ".go-card-btn";
    const items = [...root.querySelectorAll(sel)];
    if (!items.length) return;
    const at = items.indexOf(document.activeElement);
    const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : (at + step + items.length) % items.length;
    items[next].focus();
  }

  /** The table's keys (shown in its help line): they work wherever the focus is but in a
   * text field or a drop-down. */
  function onKey(e) {
    if (!S.view || S.spectate || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const opps = opponents(S.view);
    const onButton = tag === "BUTTON" && root.contains(e.target);
    let done = true;
    if (/^[1-9]$/.test(e.key)) {
      const p = opps[Number(e.key) - 1];
      const btn = p === undefined ? null : root.querySelector(`.go-opp-btn[data-seat="${p}"]`);
      if (btn && !btn.disabled) chooseTarget(p);
      else done = false;
    } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      moveFocus(e.key === "ArrowRight" ? 1 : -1);
    } else if (e.key === "Enter" && !onButton) {
      const chip = root.querySelector(".go-chip:not(:disabled)");
      if (chip) ask(chip.dataset.value);
      else done = false;
    } else if (e.key === "l" || e.key === "L") {
      layDown();
    } else if (e.key === "e" || e.key === "E") {
      const end = root.querySelector("#go-end");
      if (end && !end.disabled) act("end");
    } else if (e.key === "Escape") {
      S.sel.clear();
      S.askTarget = null;
      render();
    } else {
      done = false;
    }
    if (done) e.preventDefault();
  }

  root.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  onLangChange(() => { if (alive) render(); });
  session.start();
  render();
  const cleanup = () => {
    alive = false;
    clearInterval(timer);
    root.removeEventListener("click", onClick);
    document.removeEventListener("keydown", onKey);
    session.stop();
  };
  cleanup.relang = () => render();
  return cleanup;
}

/** Scroll the log `list` to its newest line; the oldest line shown, when the list's top edge
 * would cut it in half, is not drawn (class "cut"). */
export function showNewest(list) {
  list.scrollTop = list.scrollHeight;
  const top = list.getBoundingClientRect().top;
  for (const li of list.children) {
    li.classList.remove("cut");
    const r = li.getBoundingClientRect();
    if (r.bottom <= top) continue;
    if (r.top < top - 0.5) li.classList.add("cut");
    break;
  }
}
