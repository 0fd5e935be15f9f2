// A table's connection badge in the top bar (page.js's netStatus): connecting, reconnecting,
// else this page's round trip, with every seat's round trip and jitter as the server measured
// them (the `lag` of its `pong` frames, net.js) in its title; and whether a room's people have
// all gone (its spectators are told). Every table shows them the same way: the classic table
// (table.js) and each game's own (Go Blink's table.js).

import { t } from "./i18n.js";
import { netStatus } from "./page.js";

/**
 * Show a TableSession's status `st` ({state, rtt, lag}) in the badge; `seatName(i)` names seat
 * `i` in the title's lines.
 */
export function showNetStatus(st, seatName) {
  if (st.state === "open") {
    netStatus(st.rtt != null ? `● ${st.rtt} ms` : "●", false, st.rtt != null ? lagTitle(st, seatName) : "");
  } else if (st.state === "reconnecting") {
    netStatus(t("reconnecting"), true);
  } else if (st.state === "connecting") {
    netStatus(t("connecting"));
  } else if (st.state === "closed") {
    netStatus("");
  }
}

/** Whether every person's seat of a room (its `room` frame: RoomInfo) is disconnected: a room
 * of bots only, or one still unknown, is not. */
export function playersAway(room) {
  const people = ((room && room.seats) || []).filter((s) => s.kind !== "bot");
  return people.length > 0 && !people.some((s) => s.connected);
}

/** The badge's title: this page's round trip, then each measured seat's. */
function lagTitle(st, seatName) {
  const lines = [t("latency", { ms: st.rtt })];
  (st.lag || []).forEach((f, i) => {
    if (f) lines.push(t("lag_seat", { name: seatName(i), rtt: f.rtt_ms, jitter: f.jitter_ms }));
  });
  return lines.join("\n");
}
