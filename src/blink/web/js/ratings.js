// A rated game's rating changes on an end screen: each rated player's rating before and after
// the game and the change, from the server's `ratings` frame (or a `game_end` sent again).
// Every game's table shows them the same way (classic's table.js, Go Blink's table).

import { escapeXml } from "./cards.js";
import { t } from "./i18n.js";

/** A rating as the leaderboard shows one: one decimal, never "-0.0". */
function num(x) {
  return (Math.round(x * 10) / 10 || 0).toFixed(1);
}

/** The end screen's section of rating changes ("Ann (You): 0.0 → 1.3 (+1.3)"), or "" when
 * the game was not rated (yet). `nameOf(seat)` names a seat as the table does; `mySeat` is the
 * reader's seat (its line is bold), null for a spectator. */
export function ratingsHTML(list, nameOf, mySeat = null) {
  if (!Array.isArray(list) || !list.length) return "";
  const rows = list.map((r) => {
    const sign = r.delta >= 0 ? "+" : "−";
    const text = t("rating_change", {
      name: nameOf(r.seat), before: num(r.before.ordinal), after: num(r.after.ordinal),
      delta: `${sign}${num(Math.abs(r.delta))}`,
    });
    const mine = mySeat !== null && r.seat === mySeat;
    return `<li data-seat="${r.seat}" class="${r.delta >= 0 ? "up" : "down"}${mine ? " mine" : ""}">${escapeXml(text)}</li>`;
  }).join("");
  return `<section class="rating-changes"><h2>${escapeXml(t("rating_changes"))}</h2><ul>${rows}</ul></section>`;
}
