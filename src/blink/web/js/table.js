// The live table: a seat (or a spectator) in a room, speaking the protocol through net.js.
// Plays by keyboard (1 2 3 / J K L, then ← → / A D when both piles fit), mouse (click a card
// then a pile, or drag) and touch.

import { boardHTML, face, layout } from "./board.js";
import { backSVG, escapeXml } from "./cards.js";
import { quickChat } from "./chat.js";
import { ratingsHTML } from "./ratings.js";
import { cardName, t, tCount } from "./i18n.js";
import { recordFileName, remember, TableSession } from "./net.js";
import { savedSeat, saveSeat } from "./net.js";
import { followTournament, nextHTML, tournamentId, whatNext } from "./tnext.js";
import { sfx } from "./sound.js";
import { announce, navigate } from "./page.js";
import { playersAway, showNetStatus } from "./netbadge.js";
import { botSeatName, botTitle, keptSeats, seatBots } from "./botnames.js";
import { fly, sourceRect, springBack } from "./motion.js";
import { loadOptions, reachOf } from "./options.js";
import { actionOf, bindings, keyHint, keyLabel, keyName, openKeys } from "./keys.js";
import { loadOwnStudy, ownSummary, studyUrl } from "./study.js";
import { playerHref } from "./playerlink.js";

const GO_FLASH_MS = 900;
const PLAYED_BY_MS = 1200;
// The end screen's buttons take no tap for this long after it appears: a tap meant for a card
// in the last moment of the race must not leave the game (a key press is never carried over).
export const END_GUARD_MS = 800;

export function mountTable(root, { code, spectate }) {
  const S = {
    code, spectate, seat: null, room: null, game: null, number: null, view: null, players: 2,
    depth: [], stall: null, countdownUntil: null, revealFlash: 0, series: null, end: null, study: null,
    votes: null, voted: false, pending: new Map(), sel: null, msg: null, landed: new Set(),
    newSlots: new Set(), fatal: null, notice: null, nextAt: null,
    flights: [], playedBy: new Map(), endShownAt: null, defaulted: new Set(),
    tnext: null, stopFollow: null,
  };
  const session = new TableSession({ code, spectate }, {
    message: onMessage,
    status: onStatus,
    reconnected: () => { for (const [id, p] of S.pending) sendMove(id, p); },
    watching: (e) => {
      S.notice = t("error", { msg: e.message });
      S.spectate = true;
    },
    gone: () => { S.fatal = t("not_found", { code }); },
  });
  const chat = quickChat((type, fields) => session.send(type, fields));
  let alive = true;
  let drag = null;
  let suppressClick = false;
  const timer = setInterval(tick, 100);
  // The piles each seat reaches come with the server's game info: drawn again once known.
  loadOptions().then(() => { if (alive) render(); }, () => {});

  /** The piles `seat` reaches (the rules', from the server's game info; null until known). */
  function reach(seat) {
    return reachOf(S.room && S.room.game, S.players, seat ?? 0);
  }

  // --- connecting ---------------------------------------------------------------------------

  function onStatus(st) {
    showNetStatus(st, (i) => {
      const seat = S.room && S.room.seats && S.room.seats[i];
      return (seat && seat.name) || t("player_n", { n: i + 1 });
    });
    if (st.rtt == null) render();
  }

  /** A play (or, with no pile, a choice in a stall) as the protocol frames it. */
  function sendMove(id, p) {
    if (p.pile === null) session.send("choose", { id, card: p.card });
    else session.send("play", { id, card: p.card, pile: p.pile, ...(p.version == null ? {} : { version: p.version }) });
  }

  // --- messages -----------------------------------------------------------------------------

  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        S.seat = msg.seat;
        S.spectate = msg.role !== "player";
        break;
      case "room":
        S.room = msg.room;
        if (msg.room.series) S.series = msg.room.series;
        loadProfiles();
        break;
      case "snapshot": {
        const v = msg.view;
        if (S.game !== msg.game) {
          S.end = null;
          S.endShownAt = null;
          S.defaulted.clear();
          S.votes = null;
          S.voted = false;
        }
        S.game = msg.game;
        S.number = msg.number;
        S.players = v.players || (v.tops || []).length || 2;
        S.view = v;
        S.depth = (v.piles || []).map((p) => Math.max(1, p.length));
        S.stall = msg.stall ? { ...msg.stall, deadline: session.deadline(msg.stall.at, msg.stall.in_ms) } : null;
        S.countdownUntil = msg.countdown_ms != null ? session.deadline(msg.countdown_at, msg.countdown_ms) : null;
        if (msg.series) S.series = msg.series;
        S.sel = null;
        S.pending.clear();
        if (v.phase === "over" && !S.end && v.outcome) S.end = { outcome: v.outcome, figures: null, series: S.series };
        break;
      }
      case "countdown":
        if (S.game !== msg.game) {
          S.game = msg.game;
          S.view = null;
        }
        S.number = msg.number;
        S.end = null;
        S.endShownAt = null;
        S.voted = false;
        S.votes = null;
        S.countdownUntil = session.deadline(msg.at, msg.in_ms);
        break;
      case "update":
        applyUpdate(msg);
        break;
      case "ack":
        S.pending.delete(msg.id);
        break;
      case "refused":
        onRefused(msg);
        break;
      case "game_end":
        onEnd(msg);
        break;
      case "rematch":
        S.votes = msg.votes;
        break;
      case "error": {
        const key = `r_${msg.code}`;
        if (msg.code !== "no_game") flash(t(key) === key ? t("error", { msg: msg.message }) : t(key), "refused");
        break;
      }
      case "chat":
        announce(`${nameOf(msg.seat)}: ${chat.heard(msg)}`);
        break;
      case "ratings":
        // The game was rated (after its end, once stored): its end screen shows each change.
        if (!S.end || S.end.game !== msg.game) return;
        S.end = { ...S.end, ratings: msg.ratings };
        break;
      case "left":
        navigate("/");
        return;
      default:
        return;
    }
    render();
  }

  function pileName(pile) {
    const L = layout(S.players, S.spectate ? null : S.seat, reach(S.spectate ? null : S.seat));
    if (!S.spectate && S.seat !== null) {
      if (pile === L.left) return t("pile_left");
      if (pile === L.right) return t("pile_right");
    }
    return t("pile", { n: pile + 1 });
  }

  function applyUpdate(msg) {
    const me = S.seat;
    const said = [];
    // The seats the server chose for at a choosing stall's deadline: said once their cards
    // are placed (the choice itself stays secret until then).
    if (msg.default_for != null) S.defaulted.add(msg.default_for);
    const timeUp = [];
    for (const e of msg.events) {
      if (e.type === "placed" && S.defaulted.has(e.seat)) timeUp.push(e);
      if (e.type === "played" || e.type === "flipped" || e.type === "placed") {
        said.push(`${pileName(e.pile)}: ${cardName(e.card)}`);
      }
      switch (e.type) {
        case "revealed":
          S.countdownUntil = null;
          S.revealFlash = performance.now() + GO_FLASH_MS;
          S.depth = e.tops.map(() => 1);
          e.tops.forEach((_, i) => S.landed.add(i));
          sfx.reveal();
          announce(`${t("go")} ${e.tops.map(cardName).join(", ")}`);
          break;
        case "played":
        case "flipped":
        case "placed":
          S.depth[e.pile] = (S.depth[e.pile] || 1) + 1;
          noteFlight(e);
          if (e.type === "played") (e.seat === me ? sfx.play : sfx.other)();
          break;
        case "refilled":
          if (e.seat === me) S.newSlots.add(e.slot);
          break;
        case "stalled":
          sfx.stall();
          if (e.kind === "flip") announce(t("stall_flip"));
          break;
        default:
          break;
      }
    }
    if (said.length) announce(said.join(". "));
    if (timeUp.length) {
      S.defaulted.clear();
      const text = timeUp.map((e) => (e.seat === me && !S.spectate
        ? t("stall_placed_you", { card: cardName(e.card) })
        : t("stall_placed_for", { card: cardName(e.card), name: nameOf(e.seat) }))).join(" ");
      flash(text, "info", 6000);
      announce(text, true);
    }
    const prevHand = S.view ? S.view.hand : [];
    S.view = { ...S.view, ...msg.view };
    S.stall = msg.stall ? { ...msg.stall, deadline: session.deadline(msg.stall.at, msg.stall.in_ms) } : null;
    if (S.stall && S.stall.kind === "choose" && S.seat !== null && !S.view.my_choice) {
      announce(t("stall_choose", { s: Math.ceil(S.stall.in_ms / 1000) }), true);
    }
    if (S.sel !== null && prevHand[S.sel] !== S.view.hand[S.sel]) S.sel = null;
  }

  /** Remember a card put on a pile, to move it there once the table is drawn anew. */
  function noteFlight(e) {
    const mine = !S.spectate && e.seat === S.seat;
    const from = sourceRect(root, { mine, seat: e.seat, slot: e.type === "flipped" ? null : e.slot });
    if (from) S.flights.push({ card: e.card, pile: e.pile, from, tag: mine ? "hand" : `seat-${e.seat}` });
    else S.landed.add(e.pile);
    if (!mine) S.playedBy.set(e.pile, { seat: e.seat, until: performance.now() + PLAYED_BY_MS });
  }

  function startFlights() {
    const flights = S.flights;
    S.flights = [];
    for (const f of flights) {
      fly(face(f.card), f.from, root.querySelector(`.pile[data-pile="${f.pile}"]`), f.tag);
    }
  }

  /** Who put each pile's top card there lately (an opponent), as the board draws it. */
  function recentPlays() {
    const now = performance.now();
    const out = new Map();
    for (const [pile, p] of S.playedBy) if (p.until > now) out.set(pile, p.seat);
    return out;
  }

  function onRefused(msg) {
    const p = S.pending.get(msg.id);
    S.pending.delete(msg.id);
    let text;
    if (msg.code === "too_slow") text = msg.top ? t("r_too_slow_card", { card: cardName(msg.top.card) }) : t("r_too_slow");
    else {
      const key = `r_${msg.code}`;
      text = t(key) === key ? msg.message || t("r_generic") : t(key);
    }
    refuse(text, p ? p.slot : null);
  }

  function onEnd(msg) {
    S.end = msg;
    if (msg.series) S.series = msg.series;
    S.nextAt = msg.next_in_ms != null ? performance.now() + msg.next_in_ms : null;
    S.stall = null;
    S.sel = null;
    const winners = msg.outcome.winners;
    const names = winners.map(nameOf).join(", ");
    remember({
      code, game: msg.game, number: msg.number, record_url: msg.record_url,
      seats: keptSeats(S.room && S.room.seats), me: S.spectate ? null : S.seat,
    });
    // A daily challenge's records (and so its study) are served only once its day is over.
    if (!(S.room && S.room.options && S.room.options.daily)) loadOwnStudy(S, msg, render);
    // Sent again (again: true) after a reload, resume or resync of an ended game: show the
    // figures, but do not celebrate or announce the end a second time.
    if (msg.again) return;
    if (S.seat !== null && winners.includes(S.seat) && winners.length === 1) sfx.win();
    else sfx.lose();
    announce(winners.length === 1 ? `${t("blink_win")} ${S.seat === winners[0] ? t("you_won") : t("x_won", { name: names })}` : t("tie"), true);
  }


  // --- acting ---------------------------------------------------------------------------------

  function flash(text, kind = "info", ms = 2200) {
    S.msg = { text, kind, until: performance.now() + ms };
  }

  function refuse(text, slot) {
    flash(text, "refused");
    sfx.refused();
    announce(text, true);
    render();
    if (slot !== null && slot !== undefined) springBack(root.querySelector(`.hcard[data-slot="${slot}"]`));
  }

  function reachable() {
    const v = S.view;
    if (!v || !v.reach) return [];
    return [...new Set(v.reach)];
  }

  /** The piles `card` (in the hand) may be played on now, as the server's engine says. */
  function fitsOf(card) {
    const v = S.view;
    const slot = v.hand.indexOf(card);
    return slot >= 0 && v.fits ? v.fits[slot] : [];
  }

  function canAct() {
    return session.live && S.seat !== null && !S.spectate && S.view;
  }

  function phaseRefusal() {
    const ph = S.view && S.view.phase;
    if (practice() && S.room.paused) return t("r_paused");
    if (ph === "dealt") return t("r_not_revealed");
    if (ph === "stalled") return t("r_flip_awaited");
    if (ph === "over") return t("r_game_over");
    return null;
  }

  function pressSlot(slot) {
    if (!canAct()) return;
    const v = S.view;
    const card = v.hand[slot];
    if (!card) return;
    if (v.phase === "choosing") {
      choose(slot);
      return;
    }
    const why = phaseRefusal();
    if (why) {
      refuse(why, slot);
      return;
    }
    const fits = fitsOf(card);
    if (!fits.length) {
      refuse(t("r_no_common_attribute"), slot);
      return;
    }
    if (fits.length === 1) {
      sendPlay(slot, fits[0]);
      return;
    }
    S.sel = S.sel === slot ? null : slot;
    if (S.sel !== null) flash(t("pick_pile", { card: cardName(card) }), "info", 4000);
    else S.msg = null;
    render();
  }

  function clickSlot(slot) {
    if (!canAct()) return;
    const v = S.view;
    if (!v.hand[slot]) return;
    if (v.phase === "choosing") {
      choose(slot);
      return;
    }
    const why = phaseRefusal();
    if (why) {
      refuse(why, slot);
      return;
    }
    S.sel = S.sel === slot ? null : slot;
    S.msg = null;
    render();
    const btn = root.querySelector(`.hcard[data-slot="${slot}"]`);
    if (btn) btn.focus();
  }

  function sendPlay(slot, pile) {
    const v = S.view;
    const card = v.hand[slot];
    S.sel = null;
    if (!card) return;
    const why = phaseRefusal();
    if (why) {
      refuse(why, slot);
      return;
    }
    if (!reachable().includes(pile)) {
      refuse(t("r_pile_out_of_reach"), slot);
      return;
    }
    if (!fitsOf(card).includes(pile)) {
      refuse(t("r_no_common_attribute"), slot);
      return;
    }
    // One play per card in flight: a repeated key press waits for the server's answer.
    for (const p of S.pending.values()) if (p.card === card) return;
    const id = session.nextId();
    // The pile's version as this play was chosen: the server answers too_slow if it moved on.
    const move = { card, pile, top: v.tops[pile], version: v.versions ? v.versions[pile] : null, slot, at: performance.now() };
    S.pending.set(id, move);
    sendMove(id, move);
    S.msg = null;
    render();
  }

  function choose(slot) {
    const v = S.view;
    if (v.my_choice || !v.hand[slot]) return;
    const id = session.nextId();
    const move = { card: v.hand[slot], pile: null, top: null, slot, at: performance.now() };
    S.pending.set(id, move);
    sendMove(id, move);
    S.msg = null;
    render();
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest && e.target.closest("input, select, textarea, .menu, dialog")) return;
    const k = keyName(e);
    const bound = actionOf(k); // the player's keys (keys.js)
    if (bound && bound.startsWith("slot") && !(S.end && S.view && S.view.phase === "over")) {
      e.preventDefault();
      pressSlot(Number(bound.slice(4)));
      return;
    }
    if (S.sel !== null) {
      const L = layout(S.players, S.seat, reach(S.seat));
      if (bound === "left") { e.preventDefault(); sendPlay(S.sel, L.left); }
      else if (bound === "right") { e.preventDefault(); sendPlay(S.sel, L.right); }
      else if (k === "Escape") { S.sel = null; S.msg = null; render(); }
    }
  }

  function onClick(e) {
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    if (chat.click(e.target)) return;
    // A pointer's tap (detail > 0; a key's activation has 0) on the end screen too soon.
    if (e.detail > 0 && endArming() && e.target.closest(".end .actions")) {
      e.preventDefault();
      return;
    }
    const nextMatch = e.target.closest("#next-match");
    if (nextMatch) {
      // The next match's seat is held by the same profile: its token is this seat's.
      const mine = savedSeat(code);
      const to = (nextMatch.getAttribute("href") || "").split("/").pop();
      if (mine && to) saveSeat(to, { token: mine.token, seat: Number(nextMatch.dataset.seat) });
      return;
    }
    const act = e.target.closest("[data-act]");
    if (act) {
      doAction(act.dataset.act, act);
      return;
    }
    const h = e.target.closest(".hcard[data-slot]");
    if (h) {
      clickSlot(Number(h.dataset.slot));
      return;
    }
    const p = e.target.closest(".pile[data-pile]");
    if (p && S.sel !== null) sendPlay(S.sel, Number(p.dataset.pile));
  }

  function onPointerDown(e) {
    const h = e.target.closest(".hcard[data-slot]");
    if (!h || e.button !== 0 || !canAct() || S.view.phase !== "playing") return;
    drag = { slot: Number(h.dataset.slot), x: e.clientX, y: e.clientY, ghost: null, el: h, id: e.pointerId };
  }

  function onPointerMove(e) {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.ghost && Math.hypot(dx, dy) > 10) {
      drag.ghost = document.createElement("div");
      drag.ghost.className = "ghostcard";
      drag.ghost.innerHTML = drag.el.querySelector(".card-svg").outerHTML;
      document.body.appendChild(drag.ghost);
      drag.el.classList.add("pending");
    }
    if (drag.ghost) {
      const w = drag.ghost.offsetWidth;
      drag.ghost.style.left = `${e.clientX - w / 2}px`;
      drag.ghost.style.top = `${e.clientY - w * 0.7}px`;
      for (const p of root.querySelectorAll(".pile")) p.classList.remove("drop");
      const over = pileAt(e.clientX, e.clientY);
      if (over) over.classList.add("drop");
      e.preventDefault();
    }
  }

  function pileAt(x, y) {
    const el = document.elementFromPoint(x, y);
    return el && el.closest ? el.closest(".pile[data-pile]") : null;
  }

  function onPointerUp(e) {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.ghost) return;
    d.ghost.remove();
    d.el.classList.remove("pending");
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    const over = pileAt(e.clientX, e.clientY);
    if (over && over.tagName === "BUTTON") sendPlay(d.slot, Number(over.dataset.pile));
    else render();
  }

  async function doAction(act, el) {
    if (act === "copy") {
      const input = root.querySelector("#share-link");
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        input.select();
        document.execCommand && document.execCommand("copy");
      }
      el.textContent = t("copied");
    } else if (act === "rematch") {
      session.send("rematch", { id: session.nextId() });
      S.voted = true;
      render();
    } else if (act === "lobby") {
      navigate("/");
    } else if (act === "keys") {
      openKeys(() => render());
    } else if (act === "pause") {
      session.send("pause", { paused: !(S.room && S.room.paused), id: session.nextId() });
    } else if (act === "hints") {
      try { localStorage.setItem("blink.hints", hintsOn() ? "off" : "on"); } catch { /* ignore */ }
      render();
    } else if (act === "replay") {
      navigate(`/#replay=${encodeURIComponent(el.dataset.url)}`);
    } else if (act === "study") {
      navigate(`/#study=${encodeURIComponent(el.dataset.url)}`);
    }
  }

  /** Whose profiles hold the seats (GET /api/rooms/CODE/profiles), asked again when the seats
   * change: their names link to the players' pages; a guest's or a bot's do not. */
  function loadProfiles() {
    const key = JSON.stringify(S.room.seats.map((s) => [s.kind, s.name, s.taken]));
    if (S.profilesKey === key) return;
    S.profilesKey = key;
    fetch(`/api/rooms/${encodeURIComponent(code)}/profiles`)
      .then((r) => (r.ok ? r.json() : null))
      .then((d) => {
        if (!d || S.profilesKey !== key) return;
        S.profiles = d.profiles;
        render();
      })
      .catch(() => { /* the names stay text */ });
  }

  /** A seat's name as HTML: a link to the player's page when a profile holds the seat (a new
   * tab: the game goes on here). */
  function nameHTML(i) {
    const name = escapeXml(nameOf(i));
    const profile = S.profiles && S.profiles[i];
    return profile ? `<a class="player-link" href="${escapeXml(playerHref(profile))}" target="_blank" rel="noopener">${name}</a>` : name;
  }

  // --- drawing --------------------------------------------------------------------------------

  function seatNames() {
    const n = S.players || (S.room && S.room.players) || 2;
    return Array.from({ length: n }, (_, i) => nameOf(i));
  }

  function nameOf(i) {
    const seat = S.room && S.room.seats && S.room.seats[i];
    const named = seat && seat.name && seat.name !== "Player" ? seat.name : null;
    if (S.seat === i && !S.spectate) return named ? `${named} (${t("you")})` : t("you");
    if (!seat) return t("player_n", { n: i + 1 });
    if (seat.kind === "bot") return botSeatName(seatBots(S.room.seats), i, botTitle("classic", seat.bot));
    return named || t("player_n", { n: i + 1 });
  }

  function scoreHTML() {
    const s = S.series;
    if (!s || (s.best_of <= 1 && !(s.results || []).length)) return "";
    const names = seatNames();
    const parts = (s.score || []).map((n, i) => `${escapeXml(names[i] || "")} <b>${n}</b>`);
    const bo = s.best_of > 1 ? ` · ${escapeXml(setSize(s))}` : "";
    return `<span class="score" aria-label="${escapeXml(t("series_score"))}">${parts.join(" · ")}${bo}</span>`;
  }

  /** How many games the series has: "Best of 3", or for a set whose every game is played
   * (a tournament's final-round set) "3 games, every game counts". */
  function setSize(s) {
    return s.play_all ? tCount("set_games", s.best_of) : `${t("best_of")} ${s.best_of}`;
  }

  /** The room plays a tournament's match: its series is the match's set. */
  function inTournament() {
    return !!(S.room && S.room.tournament_url);
  }

  /** Once a match room's set is over: follow the tournament for what comes next. */
  function followNext() {
    if (S.stopFollow || !inTournament()) return;
    const tid = tournamentId(S.room.tournament_url);
    if (!tid) return;
    const seat = S.room.seats && S.seat !== null && !S.spectate ? S.room.seats[S.seat] : null;
    const me = seat ? seat.name : null;
    S.stopFollow = followTournament(tid, (x) => {
      const next = whatNext(x, me, code);
      const was = S.tnext;
      S.tnext = next;
      if (!was || JSON.stringify(was) !== JSON.stringify(next)) render();
    });
  }

  function shareHTML() {
    const url = `${location.origin}${(S.room && S.room.join_url) || `/play/${code}`}`;
    return `<div class="share"><div class="muted">${escapeXml(t("share"))}</div>
      <div class="code" aria-label="${escapeXml(t("code"))}">${escapeXml(code)}</div>
      <div class="row"><label class="sr-only" for="share-link">link</label><input id="share-link" readonly value="${escapeXml(url)}">
      <button type="button" data-act="copy" style="flex:0 0 auto">${escapeXml(t("copy"))}</button></div></div>`;
  }

  function waitingHTML() {
    const seats = (S.room && S.room.seats) || [];
    const rows = seats.map((s, i) =>
      `<li><span>${nameHTML(i)}</span><span class="muted">${escapeXml(s.kind === "bot" ? t("bot") : s.connected ? t("seat_here") : s.taken ? t("seat_away") : t("seat_open"))}</span></li>`,
    ).join("");
    return `<section class="panel waiting"><h1 class="wait-title">${escapeXml(t("waiting_players"))}</h1>
      ${S.spectate ? "" : shareHTML()}<ul class="list" style="margin-top:.8rem">${rows}</ul></section>`;
  }

  function figuresHTML(e, w) {
    const f = e.figures;
    if (!f) return "";
    const secs = (f.duration_ms / 1000).toFixed(1);
    const mine = S.seat !== null && !S.spectate && f.plays_by_seat ? f.plays_by_seat[S.seat] : null;
    // Beside "Your plays" the average is the player's own (the game's time over their plays);
    // a spectator sees the table's, over everyone's plays.
    const plays = mine != null ? mine : f.plays;
    const per = plays ? `${(f.duration_ms / plays / 1000).toFixed(2)} s` : "–";
    let figs = `<dl class="figures">
      <div><dt>${escapeXml(t("game_time"))}</dt><dd>${secs} s</dd></div>
      <div><dt>${escapeXml(mine != null ? t("your_plays") : t("plays"))}</dt><dd>${mine != null ? `${mine}<small class="muted">/${f.plays}</small>` : f.plays}</dd></div>
      <div><dt>${escapeXml(mine != null ? t("your_avg_play") : t("avg_play"))}</dt><dd id="avg-play">${per}</dd></div></dl>`;
    if (Array.isArray(f.cards_left)) {
      figs += `<ul class="left-list">${f.cards_left.map((n, i) =>
        `<li${w.includes(i) ? ' class="won"' : ""}>${escapeXml(nameOf(i))}: ${escapeXml(tCount("cards_left", n, { n: "{n}" })).replace("{n}", `<b>${n}</b>`)}</li>`).join("")}</ul>`;
    }
    return figs;
  }

  /** Who has asked for a rematch: said only once you have asked too, or when a person has
   * (a bot always agrees, which is no news before you have decided). */
  function votesHTML() {
    const votes = S.votes || [];
    const mine = S.voted || (S.seat !== null && votes[S.seat]);
    if (mine && votes.some(Boolean)) {
      const who = votes.map((v, i) => `${escapeXml(nameOf(i))} ${v ? "✓" : "…"}`).join(" · ");
      return `<p class="muted rematch-votes">${escapeXml(t("rematch_wait"))} ${who}</p>`;
    }
    const seats = (S.room && S.room.seats) || [];
    const asked = votes.map((v, i) => (v && i !== S.seat && seats[i] && seats[i].kind !== "bot" ? nameOf(i) : null)).filter(Boolean);
    return asked.length ? `<p class="muted rematch-votes">${escapeXml(t("rematch_asked", { names: asked.join(", ") }))}</p>` : "";
  }

  /** The series' end: its winner, the final score (once), a small celebration. */
  function seriesEndHTML(s) {
    const names = seatNames();
    const mine = !S.spectate && S.seat !== null && s.winner === S.seat;
    const match = inTournament();
    let title = mine ? t("you_won_series") : t("series_won", { name: nameOf(s.winner) });
    if (match) title = s.winner == null ? t("set_over") : mine ? t("you_won_set") : t("set_won", { name: nameOf(s.winner) });
    const kicker = match
      ? [t("set_over"), s.best_of > 1 ? setSize(s) : ""].filter(Boolean).join(" · ")
      : `${t("series_over")} · ${t("best_of")} ${s.best_of}`;
    const rows = (s.score || []).map((n, i) =>
      `<li${i === s.winner ? ' class="won"' : ""}><span class="who">${escapeXml(names[i] || "")}</span><b>${n}</b></li>`).join("");
    const colours = ["red", "orange", "yellow", "green", "blue", "purple"];
    const bits = mine ? Array.from({ length: 14 }, (_, i) =>
      `<i style="--x:${(i * 37) % 100}%;--d:${(i % 5) * 0.08}s;background:var(--card-${colours[i % 6]})"></i>`).join("") : "";
    return `<div class="series-win${mine ? " mine" : ""}" id="series-win">
      ${bits ? `<div class="confetti" aria-hidden="true">${bits}</div>` : ""}
      <p class="series-kicker">${escapeXml(kicker)}</p>
      <h1>${escapeXml(title)}</h1>
      <ol class="series-final" aria-label="${escapeXml(t("final_score"))}">${rows}</ol></div>`;
  }

  function endHTML() {
    const e = S.end;
    const w = e.outcome.winners || [];
    const iWon = S.seat !== null && !S.spectate && w.length === 1 && w[0] === S.seat;
    const lost = S.seat !== null && !S.spectate && !w.includes(S.seat);
    let title;
    if (w.length !== 1) title = t("tie");
    else if (iWon) title = t("you_won");
    else title = t("x_won", { name: nameOf(w[0]) });
    const s = S.series;
    const roomOver = !!(S.room && (S.room.status === "finished" || S.room.status === "closed"));
    const setOver = inTournament() && !!s && (s.over || s.winner != null || roomOver || e.next_in_ms == null);
    const seriesDone = (s && s.best_of > 1 && s.winner != null) || setOver;
    const seriesLine = s && s.best_of > 1 && !seriesDone ? `<p>${scoreHTML()}</p>` : "";
    const seriesOver = !s || s.winner != null || e.next_in_ms == null || roomOver;
    if (setOver) followNext();
    const after = setOver ? nextHTML(S.tnext) : "";
    const next = S.nextAt && !seriesOver ? `<p class="muted" id="next-in"></p>` : "";
    const buttons = [];
    if (seriesOver && !S.spectate && S.seat !== null && !inTournament()) {
      buttons.push(`<button type="button" class="primary" data-act="rematch" data-focus="rematch"${S.voted ? " disabled" : ""}>${escapeXml(t("rematch"))}</button>`);
    }
    if (e.record_url) buttons.push(`<button type="button" data-act="replay" data-url="${escapeXml(e.record_url)}" data-focus="replay">${escapeXml(t("replay"))}</button>`);
    if (studyUrl(e.record_url)) buttons.push(`<button type="button" data-act="study" data-url="${escapeXml(e.record_url)}" data-focus="study">${escapeXml(t("study"))}</button>`);
    if (e.record_url) buttons.push(`<a class="btn" id="download-record" href="${escapeXml(e.record_url)}" download="${escapeXml(recordFileName(e.record_url, code, e.number))}" data-focus="download">${escapeXml(t("download_record"))}</a>`);
    if (S.room && S.room.tournament_url) buttons.push(`<a class="btn" id="to-tournament" href="${escapeXml(S.room.tournament_url)}">${escapeXml(t("end_tournament"))}</a>`);
    if (S.room && S.room.options && S.room.options.daily) buttons.push(`<a class="btn" id="to-daily" href="/daily.html">${escapeXml(t("end_daily"))}</a>`);
    buttons.push(`<button type="button" data-act="lobby" data-focus="lobby">${escapeXml(t("back_lobby"))}</button>`);
    const tops = S.view && S.view.tops && S.view.tops.every(Boolean)
      ? `<div class="final-tops" role="group" aria-label="${escapeXml(t("final_piles"))}">${S.view.tops.map((c) => face(c)).join("")}</div>`
      : "";
    const head = seriesDone
      ? `${seriesEndHTML(s)}<p class="last-game">${escapeXml(t("last_game"))}: ${escapeXml(title)}</p>`
      : `<p class="blink${lost ? " lost" : ""}">${escapeXml(t("blink_win"))}</p><h1 style="margin:0">${escapeXml(title)}</h1>`;
    if (S.endShownAt === null) S.endShownAt = performance.now();
    const arming = endArming() ? ' data-arming=""' : "";
    return `<section class="end${seriesDone ? " series-end" : ""}" aria-live="polite">
      ${head}${after}${tops}${figuresHTML(e, w)}${studyLineHTML(e)}${ratingsHTML(e.ratings, nameOf, S.spectate ? null : S.seat)}${seriesLine}${next}${votesHTML()}
      <div class="actions" id="end-actions"${arming}>${buttons.join("")}</div></section>`;
  }

  /** The player's own line of the game's study: "You missed 7 plays, median reaction 640 ms". */
  function studyLineHTML(e) {
    const st = S.study;
    if (!st || st.game !== e.game || !st.doc || !st.doc.games || S.seat === null || S.spectate) return "";
    const line = ownSummary(st.doc.games[0], S.seat);
    return line ? `<p class="study-line" id="study-line">${escapeXml(line)}</p>` : "";
  }

  /** Whether the end screen's buttons still refuse taps (see END_GUARD_MS). */
  function endArming() {
    return S.endShownAt !== null && performance.now() - S.endShownAt < END_GUARD_MS;
  }

  function meHTML(v) {
    const L = layout(S.players, S.seat, reach(S.seat));
    if (S.spectate || S.seat === null) {
      const p = L.opponents.length === 1 ? 1 - L.opponents[0] : (S.seat ?? 0);
      const backs = Array.from({ length: v.hand_counts[p] || 0 }, () => backSVG()).join("");
      const lit = [...recentPlays().values()].includes(p) ? " played" : "";
      return `<div class="me"><section class="opp tint-me${lit}" data-seat="${p}" aria-label="${escapeXml(nameOf(p))}"><div class="name">${escapeXml(nameOf(p))}</div>
        <div class="minihand" aria-hidden="true">${backs}</div>
        <div class="counts">${escapeXml(t("hand"))} ${v.hand_counts[p] || 0} · ${escapeXml(t("draw"))} <b>${v.draw_counts[p] || 0}</b></div></section>
        <p class="muted">${escapeXml(t("spectating"))}</p></div>`;
    }
    const choosing = v.phase === "choosing" && !v.my_choice;
    const pendingCards = new Set([...S.pending.values()].map((p) => p.card));
    const cards = v.hand.map((c, i) => {
      const cls = ["hcard"];
      if (S.sel === i) cls.push("sel");
      if (pendingCards.has(c) || v.my_choice === c) cls.push("pending");
      if (S.newSlots.has(i)) cls.push("new");
      if (practice() && hintsOn() && v.phase === "playing" && v.fits && (v.fits[i] || []).length) cls.push("playable");
      const label = `${choosing ? `${t("choose_card")}: ` : ""}${cardName(c)}`;
      // Named by its (visually hidden) text, not aria-label: the drawn card and the key hint
      // are decoration, hidden from assistive technology.
      return `<button type="button" class="${cls.join(" ")}" data-slot="${i}" data-focus="slot-${i}" aria-keyshortcuts="${escapeXml(bindings()[`slot${i}`].join(" "))}"${S.sel === i ? ' aria-pressed="true"' : ""}><span class="sr-only">${escapeXml(label)}</span>${face(c)}<span class="hkey" aria-hidden="true">${escapeXml(bindings()[`slot${i}`].map(keyLabel).join(" · "))}</span></button>`;
    }).join("");
    const me = S.seat;
    return `<div class="me"><div class="hand" role="group" aria-label="${escapeXml(t("your_hand"))}">${cards}</div>
      <div class="mine">${escapeXml(nameOf(me))} · ${escapeXml(t("cards_in_draw", { n: v.draw_counts[me] ?? 0 }))}</div></div>`;
  }

  function centerMsgHTML(v) {
    const now = performance.now();
    if (S.msg && S.msg.until > now) {
      return `<span class="${S.msg.kind}">${escapeXml(S.msg.text)}</span>`;
    }
    // The start's flash: a word between the piles and the hand, over nothing the race needs.
    if (S.revealFlash > now && v.phase === "playing") return `<span class="go-flash" id="go-flash">${escapeXml(t("go"))}</span>`;
    if (S.stall && v.phase === "stalled") {
      return `<div><span class="info">${escapeXml(t("stall_flip"))}</span><div class="deadline"><i id="stall-bar"></i></div></div>`;
    }
    if (v.phase === "choosing") {
      const chosen = v.my_choice || [...S.pending.values()].some((p) => p.pile === null);
      let txt = t("stall_choose", { s: "<s>" });
      if (S.seat === null || S.spectate) txt = t("stall_choose_watch");
      else if (chosen) txt = t("chosen_wait");
      return `<div><span class="info" id="stall-text" data-tpl="${escapeXml(txt)}">${escapeXml(txt.replace("<s>", ""))}</span><div class="deadline"><i id="stall-bar"></i></div></div>`;
    }
    return "";
  }

  // A spectator of a game whose players have all gone is told why the table does not move
  // (the lobby no longer lists such a room; a saved link can still lead here).
  function awayHTML(v) {
    if (!S.spectate || v.phase === "over" || !playersAway(S.room)) return "";
    return `<p class="muted" id="players-away" role="status">${escapeXml(t("players_away"))}</p>`;
  }

  let focusedEnd = null; // the game end whose screen has had the focus put on its first action
  // --- practice games (against bots, never rated): hints and the pause ------------------------

  function practice() {
    return !!(S.room && S.room.options && S.room.options.practice) && !S.spectate && S.seat !== null;
  }
  function hintsOn() {
    try { return localStorage.getItem("blink.hints") !== "off"; } catch { return true; }
  }
  function practiceHTML() {
    if (!practice()) return "";
    const paused = !!S.room.paused;
    return `<span class="practice-bar"><span class="tag">${escapeXml(t("practice_tag"))}</span>
      <button type="button" class="ghost small" data-act="hints" id="btn-hints" aria-pressed="${hintsOn()}">${escapeXml(t("hints"))}</button>
      <button type="button" class="small" data-act="pause" id="btn-pause" aria-pressed="${paused}">${escapeXml(t(paused ? "resume" : "pause"))}</button></span>`;
  }
  function pausedHTML() {
    return practice() && S.room.paused ? `<div class="banner paused-banner" id="paused" role="status">${escapeXml(t("paused"))}</div>` : "";
  }

  function render() {
    if (!alive) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
    let html = "";
    if (S.fatal) {
      html = `<section class="panel"><p class="error-msg" role="alert">${escapeXml(S.fatal)}</p><button type="button" data-act="lobby">${escapeXml(t("back_lobby"))}</button></section>`;
    } else {
      const banner = session.state === "reconnecting" ? `<div class="banner" role="status">${escapeXml(t("reconnecting"))}</div>` : "";
      const notice = S.notice ? `<p class="muted">${escapeXml(S.notice)}</p>` : "";
      const says = chat.barHTML(!S.spectate && S.seat !== null);
      const ended = S.end && (!S.view || S.view.phase === "over");
      // At a game's end the score is part of the end screen: the bar does not repeat it.
      const bar = `<div class="tablebar"><span>${escapeXml(code)}${S.number ? ` · ${escapeXml(t("game_n", { n: S.number }))}` : ""}${S.spectate ? ` · ${escapeXml(t("spectating"))}` : ""}</span>${says}${ended ? "" : practiceHTML()}${ended ? "" : scoreHTML()}</div>`;
      if (ended) {
        html = `<div class="table">${bar}${banner}${notice}${endHTML()}</div>`;
      } else if (!S.view) {
        html = `<div class="table">${bar}${banner}${notice}${S.room ? waitingHTML() : `<p class="waiting muted">${escapeXml(t("connecting"))}</p>`}</div>`;
      } else {
        const v = S.view;
        const fits = S.sel !== null && v.hand[S.sel] ? new Set(fitsOf(v.hand[S.sel])) : new Set();
        const board = boardHTML({
          players: S.players, seat: S.seat, reach: reach(S.seat), names: seatNames(), links: S.profiles, tops: v.tops, depth: S.depth,
          hands: null, handCounts: v.hand_counts, drawCounts: v.draw_counts,
          // While this page is cut off it knows of nobody's connection: every dot is grey.
          connected: S.room ? S.room.seats.map((s) => session.state === "open" && (s.kind === "bot" || s.connected)) : null,
          chosen: v.phase === "choosing" ? v.chosen : null, winners: v.outcome ? v.outcome.winners : [],
          fits, landed: S.landed, playedBy: recentPlays(), showKeys: !S.spectate && S.seat !== null, interactive: !S.spectate && S.seat !== null,
        });
        html = `<div class="table" data-phase="${escapeXml(v.phase)}">${bar}${banner}${pausedHTML()}${notice}${awayHTML(v)}${board}
          <div class="center-msg" id="center-msg">${centerMsgHTML(v)}</div>${meHTML(v)}
          ${S.spectate ? "" : `<p class="keyhint">${escapeXml(keyHint())} <button type="button" class="ghost small" data-act="keys" id="btn-keys">${escapeXml(t("keys"))}</button></p>`}</div>`;
      }
    }
    const overlay = `<div class="overlay" id="overlay" hidden><div class="count" id="count"></div></div>`;
    root.innerHTML = html + overlay;
    chat.place(root, (seat) => root.querySelector(`.opp[data-seat="${seat}"] .name`) || (seat === S.seat ? root.querySelector(".mine") : null));
    S.landed.clear();
    S.newSlots.clear();
    startFlights();
    const again = focused && root.querySelector(`[data-focus="${focused}"]`);
    if (again) again.focus({ preventScroll: true });
    else if (S.end && focusedEnd !== S.end) {
      // The end screen takes the keyboard once: Enter plays its first action (Rematch).
      const first = root.querySelector(".end .actions button:not([disabled]), .end .actions a");
      if (first) {
        first.focus({ preventScroll: true });
        focusedEnd = S.end;
      }
    }
    tick();
  }

  let lastCount = null;
  function tick() {
    const now = performance.now();
    if (session.state === "open") {
      // An answer that never came (a lost frame) must not block the card for good.
      for (const [id, p] of S.pending) if (now - p.at > 5000) S.pending.delete(id);
    }
    const ov = root.querySelector("#overlay");
    if (ov) {
      let text = null;
      if (S.countdownUntil && S.countdownUntil > now) text = String(Math.ceil((S.countdownUntil - now) / 1000));
      ov.hidden = text === null;
      if (text !== null) root.querySelector("#count").textContent = text;
      if (text !== null && text !== lastCount && /^\d$/.test(text)) sfx.tick();
      lastCount = text;
    }
    if (S.stall && S.stall.deadline) {
      const left = Math.max(0, S.stall.deadline - now);
      const bar = root.querySelector("#stall-bar");
      if (bar) bar.style.transform = `scaleX(${(left / S.stall.in_ms).toFixed(3)})`;
      const st = root.querySelector("#stall-text");
      if (st) st.textContent = st.dataset.tpl.replace("<s>", String(Math.ceil(left / 1000)));
    }
    if (chat.expired()) render();
    const flashOver = S.revealFlash && S.revealFlash <= now;
    if ((S.msg && S.msg.until <= now) || flashOver) {
      if (S.msg && S.msg.until <= now) S.msg = null;
      if (flashOver) S.revealFlash = 0;
      const cm = root.querySelector("#center-msg");
      if (cm && S.view) cm.innerHTML = centerMsgHTML(S.view);
    }
    for (const [pile, p] of S.playedBy) {
      if (p.until > now) continue;
      S.playedBy.delete(pile);
      const tag = root.querySelector(`.pile[data-pile="${pile}"] .by-tag`);
      if (tag) tag.remove();
      if (![...S.playedBy.values()].some((q) => q.seat === p.seat)) {
        const opp = root.querySelector(`.opp[data-seat="${p.seat}"]`);
        if (opp) opp.classList.remove("played");
      }
    }
    const arming = root.querySelector("#end-actions[data-arming]");
    if (arming && !endArming()) arming.removeAttribute("data-arming");
    const nx = root.querySelector("#next-in");
    if (nx && S.nextAt) nx.textContent = `${t("next_game")}: ${Math.max(0, Math.ceil((S.nextAt - now) / 1000))} s`;
  }

  document.addEventListener("keydown", onKey);
  root.addEventListener("click", onClick);
  root.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  render();
  session.start();

  const cleanup = () => {
    alive = false;
    clearInterval(timer);
    if (S.stopFollow) S.stopFollow();
    document.removeEventListener("keydown", onKey);
    root.removeEventListener("click", onClick);
    root.removeEventListener("pointerdown", onPointerDown);
    window.removeEventListener("pointermove", onPointerMove);
    window.removeEventListener("pointerup", onPointerUp);
    session.stop();
  };
  cleanup.relang = () => render();
  return cleanup;
}
