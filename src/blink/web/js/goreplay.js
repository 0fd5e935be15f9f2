// The Go Blink replay viewer: a "blink-record" with "game": "goblink" replayed on its deal,
// step by step. GoReplayGame is a small port of the state changes of src/blink/goblink.py
// (GoGame): deal, ask (pass or "Go Blink" and draw), lay down, end turn, skipped turns and the
// end by "blunk", fewest cards or turn limit. It trusts the record's legality beyond whose turn
// it is and which cards are held (tests/e2e/test_goblink_replay.py checks it against Python).

import { face } from "./board.js";
import { escapeXml, parseCard } from "./cards.js";
import { t } from "./i18n.js";

const HAND_SIZE = 4;

function has(code, attribute, value) {
  const c = parseCard(code);
  if (attribute === "count") return c.count === Number(value);
  return c[attribute] === value;
}

/** The value three or more cards share, as [attribute, value], or null. */
export function matchValue(cards) {
  if (cards.length < 3) return null;
  const first = parseCard(cards[0]);
  for (const attribute of ["color", "shape", "count"]) {
    if (cards.every((c) => has(c, attribute, first[attribute]))) return [attribute, first[attribute]];
  }
  return null;
}

/** A Go Blink game rebuilt from its deal: apply the record's actions one by one. */
export class GoReplayGame {
  constructor(deck, players, dealer, turnLimit = null) {
    if (!(players >= 2 && players <= 6)) throw new Error(`Go Blink has 2 to 6 players, not ${players}`);
    if (deck.length < HAND_SIZE * players) throw new Error("the deck is too small for the deal");
    this.players = players;
    this.dealer = dealer;
    this.turnLimit = turnLimit;
    this.first = (dealer + 1) % players;
    this.hands = Array.from({ length: players }, () => []);
    for (let i = 0; i < HAND_SIZE * players; i++) this.hands[(this.first + i) % players].push(deck[i]);
    this.draw = deck.slice(HAND_SIZE * players); // top first
    this.discard = []; // [player, cards]
    this.asks = []; // {player, target, attribute, value, passed, drew, targetDrew, matchesBefore}
    this.laidThisTurn = 0;
    this.openingLeft = players - 1;
    this.phase = "opening";
    this.current = this.first;
    this.outcome = null;
    this.turns = 0;
    this.askCount = 0;
    this.quietTurns = 0;
  }

  _turn(seat) {
    if (this.phase === "over") throw new Error("the game is over");
    if (seat !== this.current) throw new Error(`it is seat ${this.current}'s turn, not seat ${seat}'s`);
  }

  /** Apply one record action ({type: ask|lay|end, seat, ...}). */
  apply(a) {
    this._turn(a.seat);
    if (a.type === "ask") this._ask(a.seat, a.target, a.attribute, a.value);
    else if (a.type === "lay") this._lay(a.seat, a.cards.map((c) => String(c).toUpperCase()));
    else if (a.type === "end") this._end(a.seat);
    else throw new Error(`unknown action ${JSON.stringify(a.type)}`);
  }

  _ask(p, target, attribute, value) {
    if (this.phase !== "asking") throw new Error("not the time to ask");
    if (!(target >= 0 && target < this.players) || target === p) throw new Error(`bad target ${target}`);
    this.askCount += 1;
    const hand = this.hands[p];
    const passed = this.hands[target].filter((c) => has(c, attribute, value));
    let drew = false;
    let targetDrew = false;
    if (passed.length) {
      this.hands[target] = this.hands[target].filter((c) => !has(c, attribute, value));
      hand.push(...passed);
      if (!this.hands[target].length && this.draw.length) {
        this.hands[target].push(this.draw.shift());
        targetDrew = true;
      }
    } else if (this.draw.length) {
      hand.push(this.draw.shift());
      drew = true;
    }
    this.asks.push({ player: p, target, attribute, value, passed: passed.length, cards: passed, drew, targetDrew, matchesBefore: this.discard.length });
    this.phase = "laying";
  }

  _lay(p, cards) {
    if (this.phase === "asking") throw new Error("ask first");
    const hand = this.hands[p];
    for (const c of cards) if (!hand.includes(c)) throw new Error(`${c} is not in seat ${p}'s hand`);
    this.hands[p] = hand.filter((c) => !cards.includes(c));
    this.discard.push([p, cards]);
    this.laidThisTurn += 1;
    if (!this.hands[p].length) this._over([p], "blunk");
  }

  _end(p) {
    if (this.phase === "asking") throw new Error("ask first");
    if (this.phase === "opening") {
      this.laidThisTurn = 0;
      if (this.openingLeft) {
        this.openingLeft -= 1;
        this.current = (p + 1) % this.players;
      } else {
        this._begin(this.first);
      }
    } else {
      this._finish();
      if (this.phase !== "over") this._begin((p + 1) % this.players);
    }
  }

  _finish() {
    if (!this.draw.length && !this.laidThisTurn) this.quietTurns += 1;
    else this.quietTurns = 0;
    this.laidThisTurn = 0;
    if (this.quietTurns >= this.players) this._byCount("fewest_cards");
    else if (this.turnLimit !== null && this.turns >= this.turnLimit) this._byCount("turn_limit");
  }

  _begin(seat) {
    for (;;) {
      this.current = seat;
      this.turns += 1;
      if (this.hands[seat].length) {
        this.phase = "asking";
        return;
      }
      this._finish();
      if (this.phase === "over") return;
      seat = (seat + 1) % this.players;
    }
  }

  _byCount(reason) {
    const counts = this.hands.map((h) => h.length);
    const fewest = Math.min(...counts);
    this._over(counts.flatMap((n, p) => (n === fewest ? [p] : [])), reason);
  }

  _over(winners, reason) {
    this.phase = "over";
    this.current = null;
    this.outcome = { winners, reason };
  }
}

/** Read a Go Blink record object; throws an Error naming the problem. */
export function readGoRecord(data) {
  if (!data || data.format !== "blink-record" || data.game !== "goblink") throw new Error("not a Go Blink record");
  if (!Array.isArray(data.deck) || !Array.isArray(data.actions)) throw new Error("no deck or actions list");
  const variant = data.variant || {};
  const players = variant.players || (data.players || []).length || 2;
  const names = (data.players || []).map((p, i) => (p && p.name) || `Player ${i + 1}`);
  while (names.length < players) names.push(`Player ${names.length + 1}`);
  return {
    deck: data.deck.map((c) => String(c).toUpperCase()),
    players,
    dealer: data.dealer || 0,
    turnLimit: variant.turn_limit ?? null,
    actions: data.actions,
    names,
    result: data.result || null,
  };
}

/** The game after the first `k` actions of a read record. */
export function goStateAt(rec, k) {
  const g = new GoReplayGame(rec.deck, rec.players, rec.dealer, rec.turnLimit);
  for (let i = 0; i < k; i++) g.apply(rec.actions[i]);
  return g;
}

const COUNT_WORDS = { 1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives" };
const SHAPE_PLURALS = { lightning: "lightning" };

function valueLabel(attribute, value) {
  if (attribute === "count") return COUNT_WORDS[value] || String(value);
  if (attribute === "shape") return SHAPE_PLURALS[value] || `${value}s`;
  return `${value}s`;
}

const REASONS = { blunk: "laid down their last cards", fewest_cards: "fewest cards", turn_limit: "turn limit" };

/** Mount the Go Blink viewer in `root` for a record object; returns a cleanup function. */
export function mountGoReplay(root, data, title = "") {
  let rec;
  try {
    rec = readGoRecord(data);
  } catch (e) {
    root.innerHTML = `<p class="error-msg" role="alert">${escapeXml(t("bad_record", { msg: e.message }))}</p>`;
    return () => {};
  }
  let step = 0;
  let timer = null;
  const n = rec.actions.length;
  root.innerHTML = `
  <section class="replay go-replay" aria-labelledby="rp-title">
    <div class="rp-head"><h1 id="rp-title">Go Blink · ${escapeXml(t("replay_title"))}${title ? ` · ${escapeXml(title)}` : ""}</h1></div>
    <div id="rp-board" class="rp-board"></div>
    <p class="rp-log" id="rp-log" aria-live="polite"></p>
    <div class="rp-controls">
      <input type="range" id="rp-range" min="0" max="${n}" value="0" aria-label="${escapeXml(t("timeline"))}">
      <button type="button" id="rp-back" aria-label="${escapeXml(t("step_back"))}">◀</button>
      <button type="button" id="rp-play" class="primary" aria-label="${escapeXml(t("play_pause"))}">▶</button>
      <button type="button" id="rp-fwd" aria-label="${escapeXml(t("step_fwd"))}">▶▶</button>
      <span class="rp-step" id="rp-step"></span>
    </div>
    <div class="rp-go-logs">
      <section><h2>Asks</h2><ol id="rp-asks" class="rp-asks"></ol></section>
      <section><h2>Matches</h2><ol id="rp-matches" class="rp-matches"></ol></section>
    </div>
  </section>`;
  const $ = (sel) => root.querySelector(sel);
  const name = (p) => rec.names[p] || `Player ${p + 1}`;

  function describe(g, k) {
    if (k === 0) return "Cards dealt.";
    const a = rec.actions[k - 1];
    if (a.type === "ask") {
      const last = g.asks[g.asks.length - 1];
      const what = valueLabel(a.attribute, a.value);
      const answer = last && last.passed ? `${name(a.target)} passes ${last.passed} card${last.passed === 1 ? "" : "s"}.` : `Go Blink!${last && last.drew ? ` ${name(a.seat)} draws a card.` : ""}`;
      return `${name(a.seat)} asks ${name(a.target)} for ${what}. ${answer}`;
    }
    if (a.type === "lay") return `${name(a.seat)} lays down ${a.cards.length} cards.`;
    return `${name(a.seat)} ends the turn.`;
  }

  function render() {
    let g;
    try {
      g = goStateAt(rec, step);
    } catch (e) {
      $("#rp-log").textContent = t("bad_record", { msg: e.message });
      return;
    }
    const winners = g.outcome ? g.outcome.winners : [];
    const seats = g.hands.map((h, p) =>
      `<div class="rp-seat${winners.includes(p) ? " won" : ""}${g.current === p ? " current" : ""}" data-seat="${p}">` +
      `<span class="name">${escapeXml(name(p))}${g.current === p ? " ◀" : ""}</span>` +
      `<div class="minihand">${h.map((c) => face(c)).join("")}</div>` +
      `<span class="counts">${h.length} cards</span></div>`,
    ).join("");
    $("#rp-board").innerHTML = `<p class="rp-draw" id="rp-draw">Draw pile: ${g.draw.length}</p>` + seats;
    $("#rp-asks").innerHTML = g.asks.map((a) =>
      `<li>${escapeXml(`${name(a.player)} → ${name(a.target)}: ${valueLabel(a.attribute, a.value)} · ${a.passed ? `${a.passed} passed` : "Go Blink"}${a.drew ? ", drew" : ""}${a.targetDrew ? `, ${name(a.target)} drew` : ""}`)}</li>`,
    ).join("");
    $("#rp-matches").innerHTML = g.discard.map(([p, cards]) =>
      `<li class="rp-match" data-seat="${p}"><span class="name">${escapeXml(name(p))}</span><span class="minihand">${cards.map((c) => face(c)).join("")}</span></li>`,
    ).join("");
    let log = describe(g, step);
    if (g.outcome) {
      const reason = REASONS[g.outcome.reason] || g.outcome.reason;
      log += g.outcome.winners.length === 1
        ? ` ${name(g.outcome.winners[0])} wins (${reason}).`
        : ` A tie between ${g.outcome.winners.map(name).join(", ")} (${reason}).`;
    }
    $("#rp-log").textContent = log;
    $("#rp-step").textContent = t("step_of", { i: step, n });
    $("#rp-range").value = String(step);
    $("#rp-play").textContent = timer ? "❚❚" : "▶";
  }

  function go(k) {
    step = Math.max(0, Math.min(n, k));
    render();
  }

  function toggle() {
    if (timer) {
      clearInterval(timer);
      timer = null;
    } else {
      if (step >= n) step = 0;
      timer = setInterval(() => {
        if (step >= n) {
          clearInterval(timer);
          timer = null;
        }
        go(step + 1);
      }, 700);
    }
    render();
  }

  $("#rp-range").addEventListener("input", (e) => go(Number(e.target.value)));
  $("#rp-back").addEventListener("click", () => go(step - 1));
  $("#rp-fwd").addEventListener("click", () => go(step + 1));
  $("#rp-play").addEventListener("click", toggle);
  const onKey = (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(n);
  };
  document.addEventListener("keydown", onKey);
  go(0);
  return () => {
    clearInterval(timer);
    document.removeEventListener("keydown", onKey);
  };
}
