// What comes after a tournament match's set, for the table's end screen: the player's next
// match (a link to its room), waiting for the other matches, out of the tournament, or the
// tournament's result. It follows the tournament's live state (GET /api/tournaments/{id}/events,
// the same stream as the bracket page), so the line changes by itself when the next room opens
// or the last match ends. See docs/protocol.md, "Tournaments and profiles".
import { escapeXml } from "./cards.js";
import { t } from "./i18n.js";

/** The tournament id of a match room's `tournament_url` ("/tournament.html?id=..."). */
export function tournamentId(url) {
  try {
    return new URL(url, location.origin).searchParams.get("id");
  } catch {
    return null;
  }
}

/** Follow tournament `tid`: `changed(state)` at each version pushed. Returns the stop. */
export function followTournament(tid, changed) {
  if (typeof EventSource === "undefined") return () => {};
  const events = new EventSource(`/api/tournaments/${encodeURIComponent(tid)}/events`);
  events.addEventListener("tournament", (ev) => {
    try { changed(JSON.parse(ev.data)); } catch { /* a frame that cannot be read: wait for the next */ }
  });
  return () => events.close();
}

/** What comes next for player `name` (null: a spectator) once the set of room `code` is over:
 * {kind: "over", champion} | {kind: "match", room, seat, opponents} | {kind: "out"} | {kind: "wait"}. */
export function whatNext(x, name, code) {
  const td = x.tournament || {};
  if (x.status === "finished") return { kind: "over", champion: td.champion };
  if (name) {
    for (const m of td.matches || []) {
      const room = (x.rooms || {})[m.id];
      if (!room || room.code === code || m.status === "decided" || !m.players.includes(name)) continue;
      return { kind: "match", room, seat: m.players.indexOf(name), opponents: m.players.filter((p) => p && p !== name) };
    }
    if ((td.standings || []).some((s) => s.name === name && s.status === "eliminated")) return { kind: "out" };
  }
  return { kind: "wait" };
}

/** The end screen's line for `next` (from whatNext; null: not known yet). */
export function nextHTML(next) {
  if (!next) return `<p class="t-next muted" id="t-next" role="status"></p>`;
  let text;
  let link = "";
  if (next.kind === "over") text = next.champion ? t("t_next_over", { name: next.champion }) : t("t_next_over_plain");
  else if (next.kind === "out") text = t("t_next_out");
  else if (next.kind === "wait") text = t("t_next_wait");
  else {
    text = t("t_next_match", { names: next.opponents.join(", ") });
    link = ` <a class="btn primary" id="next-match" href="${escapeXml(next.room.play_url)}" data-seat="${next.seat}">${escapeXml(t("t_next_play"))}</a>`;
  }
  return `<p class="t-next" id="t-next" role="status" data-next="${next.kind}">${escapeXml(text)}${link}</p>`;
}
