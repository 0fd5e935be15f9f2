// A small port of src/blink/classic.py used by the replay viewer: the deal, the four actions
// (reveal, play, flip, choose), stall detection and the end. Cards are notation strings.

import { matches } from "./cards.js";

const REACH = { 2: [[0, 1], [0, 1]], 3: [[0, 2], [1, 0], [2, 1]] };

/** The two piles `seat` may play on (right pile first with three players). */
export function reach(players, seat) {
  return REACH[players][seat];
}

export class IllegalAction extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Draw-pile sizes: an equal share unless `sizes` is given. */
export function dealSizes(players, deckSize, sizes) {
  if (sizes && sizes.length) return sizes.slice();
  const each = Math.floor(deckSize / players);
  return Array(players).fill(each);
}

export class Game {
  /**
   * Deal `deck` (top card first): each player's draw pile is the next sizes[i] cards;
   * its top card starts a center pile face down and the next `handSize` form the hand.
   */
  constructor(deck, players = 2, ruleset = {}, sizes = null) {
    this.deck = deck.map((c) => String(c).toUpperCase());
    this.players = players;
    this.deadEnd = ruleset.dead_end || "choose";
    const handSize = ruleset.hand_size || 3;
    this.sizes = dealSizes(players, deck.length, sizes);
    this.draws = []; // top first
    this.hands = [];
    this.piles = [];
    let start = 0;
    for (const n of this.sizes) {
      const block = this.deck.slice(start, start + n);
      start += n;
      this.piles.push([block[0]]);
      this.hands.push(block.slice(1, 1 + handSize));
      this.draws.push(block.slice(1 + handSize));
    }
    this.phase = "dealt";
    this.choices = {};
    this.outcome = null;
    this.plays = 0;
    this.playsBy = Array(players).fill(0);
  }

  top(i) {
    return this.piles[i][this.piles[i].length - 1];
  }

  cardsLeft(p) {
    return this.hands[p].length + this.draws[p].length;
  }

  legalPlays(seat) {
    if (this.phase !== "playing") return [];
    const out = [];
    for (const pile of new Set(REACH[this.players][seat])) {
      for (const c of this.hands[seat]) if (matches(c, this.top(pile))) out.push({ card: c, pile });
    }
    return out;
  }

  apply(action) {
    switch (action.type) {
      case "reveal": return this.reveal();
      case "play": return this.play(action.seat, String(action.card).toUpperCase(), action.pile);
      case "flip": return this.flip();
      case "choose": return this.choose(action.seat, String(action.card).toUpperCase());
      default: throw new IllegalAction("malformed", `unknown action ${action.type}`);
    }
  }

  reveal() {
    if (this.phase !== "dealt") throw new IllegalAction("already_revealed", "already revealed");
    this.phase = "playing";
    const out = [{ type: "revealed", tops: this.piles.map((p) => p[0]) }];
    this.afterChange(out);
    return out;
  }

  play(seat, card, pile) {
    if (this.phase !== "playing") throw new IllegalAction("not_playing", `cannot play in phase ${this.phase}`);
    const hand = this.hands[seat];
    const slot = hand ? hand.indexOf(card) : -1;
    if (slot < 0) throw new IllegalAction("card_not_in_hand", `${card} is not in the hand of seat ${seat}`);
    if (!REACH[this.players][seat].includes(pile)) throw new IllegalAction("pile_out_of_reach", `pile ${pile} is out of reach`);
    const covered = this.top(pile);
    if (!matches(card, covered)) throw new IllegalAction("no_common_attribute", `${card} does not match ${covered}`);
    this.piles[pile].push(card);
    this.plays += 1;
    this.playsBy[seat] += 1;
    const out = [{ type: "played", seat, card, pile, slot, covered }];
    if (this.draws[seat].length) {
      const next = this.draws[seat].shift();
      hand[slot] = next;
      out.push({ type: "refilled", seat, slot, card: next });
    } else {
      hand.splice(slot, 1);
      if (!hand.length) this.end(out, [seat], "out_of_cards");
    }
    if (this.phase === "playing") this.afterChange(out);
    return out;
  }

  flip() {
    if (this.phase !== "stalled") throw new IllegalAction("not_stalled", "not stalled");
    const out = [];
    for (let p = 0; p < this.players; p++) {
      const c = this.draws[p].shift();
      this.piles[p].push(c);
      out.push({ type: "flipped", seat: p, card: c, pile: p });
    }
    this.phase = "playing";
    this.afterChange(out);
    return out;
  }

  choose(seat, card) {
    if (this.phase !== "choosing") throw new IllegalAction("no_choice_needed", "no choice awaited");
    if (seat in this.choices) throw new IllegalAction("already_chosen", "already chosen");
    if (!this.hands[seat].includes(card)) throw new IllegalAction("card_not_in_hand", `${card} not in hand`);
    this.choices[seat] = card;
    const out = [{ type: "choice_made", seat }];
    if (Object.keys(this.choices).length === this.players) this.placeChoices(out);
    return out;
  }

  placeChoices(out) {
    for (let p = 0; p < this.players; p++) {
      const c = this.choices[p];
      const hand = this.hands[p];
      const slot = hand.indexOf(c);
      this.piles[p].push(c);
      out.push({ type: "placed", seat: p, card: c, pile: p, slot });
      if (this.draws[p].length) hand[slot] = this.draws[p].shift();
      else hand.splice(slot, 1);
    }
    this.choices = {};
    const empty = [];
    for (let p = 0; p < this.players; p++) if (!this.hands[p].length) empty.push(p);
    if (empty.length) {
      this.end(out, empty, "stall_placement");
      return;
    }
    this.phase = "playing";
    this.afterChange(out);
  }

  afterChange(out) {
    for (let p = 0; p < this.players; p++) {
      const [a, b] = REACH[this.players][p];
      for (const c of this.hands[p]) if (matches(c, this.top(a)) || matches(c, this.top(b))) return;
    }
    if (this.draws.every((d) => d.length)) {
      this.phase = "stalled";
      out.push({ type: "stalled", kind: "flip" });
    } else if (this.deadEnd === "fewest-cards") {
      out.push({ type: "stalled", kind: "dead_end" });
      const left = this.hands.map((_, p) => this.cardsLeft(p));
      const fewest = Math.min(...left);
      this.end(out, left.flatMap((n, p) => (n === fewest ? [p] : [])), "fewest_cards");
    } else {
      this.phase = "choosing";
      out.push({ type: "stalled", kind: "choose" });
    }
  }

  end(out, winners, reason) {
    this.phase = "over";
    this.outcome = { winners, reason };
    out.push({ type: "ended", outcome: this.outcome });
  }
}

/** Check a parsed "blink-record" object; returns a normalised {deck, players, sizes, ruleset, actions, names, result}. */
export function readRecord(data) {
  if (!data || typeof data !== "object") throw new Error("a record is a JSON object");
  if (data.format === "blink-series") {
    if (!Array.isArray(data.games) || !data.games.length) throw new Error("the series has no games");
    return { series: data.games.map(readRecord), best_of: data.best_of };
  }
  if (data.format !== "blink-record") throw new Error(`format is ${JSON.stringify(data.format)}, not "blink-record"`);
  if (data.version !== 1) throw new Error(`unsupported version ${data.version}`);
  if (!Array.isArray(data.deck)) throw new Error("no deck list");
  if (!Array.isArray(data.actions)) throw new Error("no actions list");
  const variant = data.variant || {};
  const players = variant.players || 2;
  if (players !== 2 && players !== 3) throw new Error(`classic Blink has 2 or 3 players, not ${players}`);
  const names = (data.players || []).map((p, i) => (p && p.name) || `Player ${i + 1}`);
  while (names.length < players) names.push(`Player ${names.length + 1}`);
  return {
    deck: data.deck.map((c) => String(c).toUpperCase()),
    players,
    sizes: variant.sizes || null,
    ruleset: data.ruleset || { name: "official" },
    actions: data.actions,
    names,
    result: data.result || null,
    meta: data.meta || {},
  };
}
