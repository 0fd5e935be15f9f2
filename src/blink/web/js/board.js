// The shared picture of a table: opponents and center piles, seen from one seat.
// Used by the live table (table.js) and the replay viewer (replay.js).

import { backSVG, cardSVG, escapeXml } from "./cards.js";
import { cardName, colorLetter, t } from "./i18n.js";
import { playerHref } from "./playerlink.js";

/**
 * Where each pile and opponent goes when seen from `seat` (bottom of the screen). `reach` is
 * the piles the seat may play on, as the rules give them (`options.js`' `reachOf`, from the
 * server's game info; right pile first when a pile is out of reach): the piles it reaches are
 * drawn left and right, any other one far away. When every pile is in reach, the seat's own
 * pile is on the left. Until the reach is known the piles go in seat order from the seat's.
 * Opponents are drawn in seat order after `seat`.
 */
export function layout(players, seat, reach) {
  const s = seat ?? 0;
  const opponents = Array.from({ length: players - 1 }, (_, i) => (s + 1 + i) % players);
  const near = reach && reach.length ? reach : [(s + 1) % players, s];
  const far = Array.from({ length: players }, (_, p) => p).filter((p) => !near.includes(p));
  if (!far.length) return { left: s, right: near.find((p) => p !== s) ?? s, far: null, opponents };
  return { left: near[1], right: near[0], far: far[0], opponents };
}

/** Markup for a card face with its accessible name and colour letter. */
export function face(code, extraLabel = "") {
  const label = extraLabel ? `${extraLabel}: ${cardName(code)}` : cardName(code);
  return cardSVG(code, { label, letter: colorLetter(code) });
}

/**
 * The board markup. `m` = {players, seat, reach, names, tops, depth, hands, handCounts,
 * drawCounts, connected, chosen, winners, fits:Set, landed:Set, playedBy:Map, showKeys,
 * interactive} (`reach`: the seat's view's, see `layout`; `playedBy`: pile -> the opponent who
 * just played on it, whose seat is lit and whose name is shown at the pile for a moment).
 */
export function boardHTML(m) {
  const L = layout(m.players, m.seat, m.reach);
  const parts = [];
  m.layout = L;
  // Each opponent keeps one colour (its seat's frame, its name tag at a pile it just played on).
  m.tint = new Map(L.opponents.map((p, i) => [p, `o${i + 1}`]));
  // A spectator watches seat 0 from below (the table draws it under the piles).
  if (m.seat == null) m.tint.set(0, "me");
  if (!m.noOpponents) L.opponents.forEach((p, i) => parts.push(opponentHTML(m, p, `o${i + 1}`)));
  parts.push(pileHTML(m, L.left, "pl", "left"));
  parts.push(pileHTML(m, L.right, "pr", "right"));
  if (L.far !== null) parts.push(pileHTML(m, L.far, "pt", "far"));
  return `<div class="board p${m.players}">${parts.join("")}</div>`;
}

/** Seat `p`'s name (`html`, escaped) as a link to its player's page when `m.links` names the
 * profile holding the seat (opened in a new tab: the game goes on). */
function linked(m, p, html) {
  const profile = m.links && m.links[p];
  if (!profile) return html;
  return `<a class="player-link" href="${escapeXml(playerHref(profile))}" target="_blank" rel="noopener">${html}</a>`;
}

function opponentHTML(m, p, area) {
  const name = escapeXml(m.names[p] || t("seat", { n: p + 1 }));
  const hc = m.handCounts[p] ?? 0;
  const dc = m.drawCounts[p] ?? 0;
  const hand = m.hands && m.hands[p];
  let mini = "";
  if (hand) mini = hand.map((c) => face(c)).join("");
  else for (let i = 0; i < hc; i++) mini += backSVG();
  const conn = m.connected ? `<span class="dot${m.connected[p] ? "" : " off"}" data-presence="${m.connected[p] ? "on" : "off"}" aria-hidden="true"></span>` : "";
  const chosen = m.chosen && m.chosen[p] ? `<span class="chosen-tag">✓ ${escapeXml(t("choose_card"))}</span>` : "";
  const won = m.winners && m.winners.includes(p) ? " won" : "";
  const played = m.playedBy && [...m.playedBy.values()].includes(p) ? " played" : "";
  return (
    `<section class="opp area-${area} tint-${area}${won}${played}" data-seat="${p}" aria-label="${name}: ${escapeXml(t("cards_in_hand", { n: hc }))}, ${escapeXml(t("cards_in_draw", { n: dc }))}">` +
    `<div class="name">${conn}<span class="nm">${linked(m, p, name)}</span></div>` +
    `<div class="minihand" aria-hidden="true">${mini}</div>` +
    `<div class="counts" aria-hidden="true">${escapeXml(t("hand"))} ${hc} · ${escapeXml(t("draw"))} <b>${dc}</b></div>${chosen}</section>`
  );
}

function pileHTML(m, pile, area, side) {
  const top = m.tops[pile];
  const depth = (m.depth && m.depth[pile]) || 1;
  const sideName = side === "left" ? t("pile_left") : side === "right" ? t("pile_right") : `${t("pile", { n: pile + 1 })}, ${t("pile_out")}`;
  const art = top ? cardSVG(top, { letter: colorLetter(top) }) : backSVG();
  const label = `${sideName}: ${top ? cardName(top) : t("empty_pile")}`;
  const cls = ["pile", `area-${area}`];
  if (side === "far" && m.dimFar !== false) cls.push("far");
  if (m.fits && m.fits.has(pile)) cls.push("fits");
  if (m.landed && m.landed.has(pile)) cls.push("land");
  let key = "";
  if (m.showKeys && side !== "far") key = `<span class="pkey" aria-hidden="true">${side === "left" ? "← A" : "D →"}</span>`;
  else if (m.pileNumbers) key = `<span class="pkey" aria-hidden="true">${escapeXml(t("pile", { n: pile + 1 }))}</span>`;
  const d = depth > 2 ? "d1 d2" : depth > 1 ? "d1" : "";
  const by = m.playedBy ? m.playedBy.get(pile) : undefined;
  if (by !== undefined && m.tint && m.tint.has(by)) {
    key += `<span class="by-tag tint-${m.tint.get(by)}" aria-hidden="true">${escapeXml(m.names[by] || t("seat", { n: by + 1 }))}</span>`;
  }
  const tag = m.interactive && side !== "far" ? "button" : "div";
  // A pile to play on is a button named by its (visually hidden) text; one only to look at an
  // image named by its label. The drawn card and the key hint are decoration.
  if (tag === "button") {
    return `<button class="${cls.join(" ")}" type="button" data-pile="${pile}"><span class="sr-only">${escapeXml(label)}</span><div class="stack ${d}" aria-hidden="true">${art}</div>${key}</button>`;
  }
  return `<div class="${cls.join(" ")}" role="img" data-pile="${pile}" aria-label="${escapeXml(label)}"><div class="stack ${d}">${art}</div>${key}</div>`;
}
