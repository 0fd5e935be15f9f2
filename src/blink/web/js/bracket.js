// The live bracket of tournament.html, drawn from the state the server pushes: the elimination
// rounds as a bracket (a CSS grid, each match spanning the rows of the matches that feed it,
// connector lines in an SVG drawn over it from where the boxes really are), the finalists, the
// final round as a table in words, the tie-breaks and the standings. No rule is restated here:
// who plays whom, scores and standings all come from the tournament engine's JSON.

import { t, tCount } from "./i18n.js";

/** A DOM element: attributes (`on*` are handlers) and children (nodes or text). */
export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e[k] = v;
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

const SVG = "http://www.w3.org/2000/svg";

/** The players whose names link to their pages (name -> address), set by drawnParts. */
let links = new Map();

/** `text` (a player's `name`, or words about them) as a link to their page if they have one. */
function who(name, text = name) {
  return name !== null && links.has(name) ? el("a", { href: links.get(name), class: "player-link" }, text) : text;
}

/** "winner of Round 1, match 2" for a source that is not a player yet. */
function sourceText(byId, src) {
  if (!src.startsWith("winner:")) return src;
  const m = byId.get(src.slice("winner:".length));
  return t("t_winner_of", { m: m ? matchLabel(m) : src.slice("winner:".length) });
}

/** A match's name in the page's language (the engine's label is English). */
export function matchLabel(m) {
  if (m.kind === "elimination") {
    const n = m.id.split("-")[1];
    return `${t("t_round", { n: m.round })} · ${t("t_match_n", { n })}`;
  }
  if (m.kind === "final") return t("t_final");
  if (m.kind === "tiebreak") {
    // "T2": two players tied for place 2; "T2-13": three tied for places 2 to 4, in pairs.
    const n = parseInt(m.id.slice(1), 10);
    if (!m.id.includes("-")) return t("t_tiebreak_for", { n });
    return `${t("t_tiebreak_among", { a: n, b: n + 2 })} · ${m.players.join(` ${t("versus")} `)}`;
  }
  if (m.kind === "playoff") return t("t_playoff");
  return m.players.filter(Boolean).join(` ${t("versus")} `) || t("t_final_round");
}

/** The score of a match in words: "Ann won 2 games to 1", "Level at 1 game each". */
export function scoreWords(m) {
  const known = m.players.filter((p) => p !== null);
  const decided = m.games.filter((g) => g.winners.length === 1).length;
  if (!decided) return t("t_score_none");
  if (m.kind === "final-set" || known.length !== 2) {
    return known.map((p) => tCount("t_score_set", m.score[p] ?? 0, { name: p })).join(" · ");
  }
  const [a, b] = known.map((p) => m.score[p] ?? 0);
  if (m.winner) {
    const other = known.find((p) => p !== m.winner);
    return tCount("t_score_won", m.score[m.winner], { name: m.winner, b: m.score[other] ?? 0 });
  }
  if (a === b) return tCount("t_score_level", a);
  const lead = a > b ? known[0] : known[1];
  return tCount("t_score_leads", Math.max(a, b), { name: lead, b: Math.min(a, b) });
}

/** A walkover in words: who goes through (or gets the games left), or a double forfeit. */
export function walkoverWords(m) {
  if (!m.awarded) return t("t_double_forfeit");
  return t(m.kind === "final-set" ? "t_walkover_set" : "t_walkover_to", { name: m.awarded });
}

/** "2 wins, 1 loss" / "2 victorias, 1 derrota". */
export function recordWords(wins, losses) {
  return `${tCount("wins", wins)}, ${tCount("losses", losses)}`;
}

/** Decided games won and lost by each player over the whole tournament (ties not counted). */
function gameRecords(matches) {
  const rec = new Map();
  const get = (p) => rec.get(p) || rec.set(p, { wins: 0, losses: 0 }).get(p);
  for (const m of matches) {
    for (const g of m.games) {
      if (g.winners.length !== 1) continue;
      for (const p of m.players) {
        if (p === null) continue;
        if (p === g.winners[0]) get(p).wins += 1;
        else get(p).losses += 1;
      }
    }
  }
  return rec;
}

/** The links and buttons of a match box; `acts(m)` gives them (tournament.js). */
function matchBox(byId, m, acts) {
  const box = el("article", {
    class: "match", "data-match": m.id, "data-status": m.status, "data-slot": `winner:${m.id}`,
    "aria-label": matchLabel(m),
  });
  const ties = m.ties ? ` · ${tCount("t_ties", m.ties)}` : "";
  box.append(el("div", { class: "meta" },
    el("span", { class: "mlabel" }, m.kind === "elimination" ? t("t_match_n", { n: m.id.split("-")[1] }) : matchLabel(m)),
    el("span", { class: `mstate ${m.status}` }, t(`t_ms_${m.status}`) + ties)));
  const vacant = m.vacant || [];
  const forfeits = m.forfeits || [];
  m.players.forEach((p, i) => {
    const win = m.winner && p === m.winner;
    const lost = (m.winner && p !== null && p !== m.winner) || forfeits.includes(p);
    const name = vacant.includes(i) ? t("t_vacant") : p ?? sourceText(byId, m.sources[i]);
    const shown = m.games.length || (m.walkover && m.kind === "final-set");
    box.append(el("div", { class: `who${win ? " win" : ""}${lost ? " lost" : ""}${p === null ? " pending" : ""}` },
      el("span", { class: "pname" }, who(p, forfeits.includes(p) ? `${name} · ${t("t_forfeit_mark")}` : name)),
      el("span", { class: "pscore", "aria-hidden": "true" }, p !== null && shown ? String(m.score[p] ?? 0) : "")));
  });
  box.append(el("p", { class: "score" }, m.walkover ? walkoverWords(m) : scoreWords(m)));
  if (m.handicap) {
    box.append(el("p", { class: "meta" },
      `${t("handicap")}: ${Object.entries(m.handicap).map(([n, s]) => `${n} ${s}`).join(", ")}`));
  }
  const extra = acts(m);
  if (extra.length) box.append(el("div", { class: "acts" }, ...extra));
  return box;
}

/** The sources of the finalists, in order (the final round's matches name them). */
function finalistSources(matches) {
  const out = [];
  for (const m of matches) {
    if (m.kind !== "final-set" && m.kind !== "final") continue;
    for (const s of m.sources) if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** The elimination rounds as a bracket, the finalists in the last column. */
function bracketGrid(td, byId, acts) {
  const plan = td.plan;
  const elim = td.matches.filter((m) => m.kind === "elimination");
  const finals = finalistSources(td.matches);
  const grid = el("div", { class: "bracket-grid", role: "group", "aria-label": t("t_bracket") });
  if (!plan || plan.rounds === 0) {
    // Two players: one match; three or four: straight to the final round (its table below).
    const final = td.matches.find((m) => m.kind === "final");
    if (!final) return null;
    grid.append(el("div", { class: "bcol-head", style: "grid-column: 1" }, t("t_final")));
    grid.append(place(matchBox(byId, final, acts), 1, 2, 1));
    return grid;
  }
  const round2 = elim.filter((m) => m.round === 2);
  const slots = round2.length ? round2.flatMap((m) => m.sources) : finals;
  const rows = new Map();  // source -> [first row, rows spanned]
  slots.forEach((src, i) => rows.set(src, [i + 2, 1]));
  for (let r = 1; r <= plan.rounds + 1; r++) {
    const head = r > plan.rounds ? t("t_final_round") : t("t_round", { n: r });
    grid.append(el("div", { class: "bcol-head", style: `grid-column: ${r}` }, head));
  }
  for (const src of slots) {
    const [row] = rows.get(src);
    if (src.startsWith("winner:")) {
      grid.append(place(matchBox(byId, byId.get(src.slice(7)), acts), 1, row, 1));
    } else {
      grid.append(place(el("div", { class: "match bye", "data-slot": src },
        el("div", { class: "who" }, el("span", { class: "pname" }, src)),
        el("p", { class: "meta" }, t("t_bye"))), 1, row, 1));
    }
  }
  for (let r = 2; r <= plan.rounds; r++) {
    for (const m of elim.filter((x) => x.round === r)) {
      const spans = m.sources.map((s) => rows.get(s)).filter(Boolean);
      const first = Math.min(...spans.map(([a]) => a));
      const last = Math.max(...spans.map(([a, n]) => a + n));
      rows.set(`winner:${m.id}`, [first, last - first]);
      grid.append(place(matchBox(byId, m, acts), r, first, last - first, m.sources));
    }
  }
  finals.forEach((src, i) => {
    const [row, span] = rows.get(src) || [i + 2, 1];
    const name = td.draw && finalistName(td, src);
    grid.append(place(el("div", { class: `match finalist${name ? "" : " pending"}`, "data-slot": `finalist:${i}` },
      el("div", { class: "meta" }, t("t_finalist", { n: i + 1 })),
      el("div", { class: "who" }, el("span", { class: "pname" }, name || sourceText(byId, src)))),
    plan.rounds + 1, row, span, [src]));
  });
  return grid;
}

function finalistName(td, src) {
  if (!src.startsWith("winner:")) return src;
  const m = td.matches.find((x) => x.id === src.slice(7));
  return m ? m.winner : null;
}

/** Put a box in the grid; `from` lists the slots it is fed by (its connectors). */
function place(box, col, row, span, from = []) {
  box.style.gridColumn = String(col);
  box.style.gridRow = `${row} / span ${span}`;
  if (from.length) box.dataset.from = from.join(" ");
  return box;
}

/** Draw the connector lines of a bracket from where its boxes are (again at each resize). */
export function drawConnectors(grid) {
  const old = grid.querySelector("svg.connectors");
  if (old) old.remove();
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "connectors");
  svg.setAttribute("aria-hidden", "true");
  const base = grid.getBoundingClientRect();
  svg.setAttribute("width", String(grid.scrollWidth));
  svg.setAttribute("height", String(grid.scrollHeight));
  for (const box of grid.querySelectorAll("[data-from]")) {
    const to = box.getBoundingClientRect();
    for (const src of box.dataset.from.split(" ")) {
      const from = grid.querySelector(`[data-slot="${CSS.escape(src)}"]`);
      if (!from) continue;
      const f = from.getBoundingClientRect();
      const x0 = f.right - base.left + grid.scrollLeft;
      const y0 = f.top + f.height / 2 - base.top + grid.scrollTop;
      const x1 = to.left - base.left + grid.scrollLeft;
      const y1 = to.top + to.height / 2 - base.top + grid.scrollTop;
      const xm = (x0 + x1) / 2;
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", `M${x0} ${y0}H${xm}V${y1}H${x1}`);
      path.dataset.from = src;
      path.dataset.to = box.dataset.slot;
      svg.append(path);
    }
  }
  grid.prepend(svg);
}

/** The final round as a table: each finalist's games won and lost against each other one. */
function finalTable(td) {
  const sets = td.matches.filter((m) => m.kind === "final-set");
  if (!sets.length) return null;
  const sources = finalistSources(td.matches);
  const names = sources.map((s) => finalistName(td, s));
  const vacant = (src) => {
    const m = src.startsWith("winner:") && td.matches.find((x) => x.id === src.slice(7));
    return Boolean(m && m.status === "decided" && !m.winner);
  };
  const shown = names.map((n, i) => n || (vacant(sources[i]) ? t("t_vacant") : t("t_finalist", { n: i + 1 })));
  const head = el("tr", {}, el("th", { scope: "col" }, t("t_player")),
    ...shown.map((n) => el("th", { scope: "col" }, `${t("versus")} ${n}`)), el("th", { scope: "col", class: "total" }, t("t_total")));
  const body = names.map((a, i) => {
    let wins = 0;
    let losses = 0;
    const cells = names.map((b, j) => {
      if (i === j) return el("td", { class: "self" }, "—");
      const m = sets.find((x) => x.sources.includes(sources[i]) && x.sources.includes(sources[j]));
      if (!a || !m || (!m.games.length && !m.walkover)) return el("td", {}, "");
      const w = m.score[a] ?? 0;
      const l = b ? m.score[b] ?? 0 : 0;
      wins += w;
      losses += l;
      const mark = m.walkover ? ` · ${t(m.awarded === a ? "t_walkover_mark" : "t_forfeit_mark")}` : "";
      return el("td", {}, recordWords(w, l) + mark);
    });
    return el("tr", {}, el("th", { scope: "row" }, shown[i]), ...cells,
      el("td", { class: "total" }, wins + losses ? recordWords(wins, losses) : ""));
  });
  return el("table", { class: "ttable", id: "final-table" },
    el("caption", {}, t("t_final_table")), el("thead", {}, head), el("tbody", {}, ...body));
}

function statusWords(s) {
  if (s.status === "champion") return t("t_champion");
  if (s.status === "eliminated") return t("t_eliminated", { n: s.round_out });
  if (s.status === "finalist") return t("t_in_final");
  if (s.status === "placed") return t("t_placed");
  return t("t_still_in");
}

function standingsTable(td) {
  const records = gameRecords(td.matches);
  return el("table", { class: "ttable", id: "standings" },
    el("caption", {}, td.finished ? t("t_final_standings", { name: td.champion }) : t("t_standings")),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("t_place")), el("th", { scope: "col" }, t("t_player")),
      el("th", { scope: "col" }, t("t_record")), el("th", { scope: "col" }, t("t_result")))),
    el("tbody", {}, ...td.standings.map((s) => {
      const r = records.get(s.name) || { wins: 0, losses: 0 };
      const where = s.place === s.place_to ? String(s.place) : t("t_place_range", { a: s.place, b: s.place_to });
      return el("tr", { "data-status": s.status }, el("td", {}, where), el("td", {}, who(s.name)),
        el("td", { class: "record" }, recordWords(r.wins, r.losses)), el("td", {}, statusWords(s)));
    })));
}

/** Everything of a drawn tournament below its panels (section#bracket): the bracket, the final round's table,
 * the tie-breaks and the standings. `acts(match)` gives each match box's links and buttons;
 * `playerLinks` (name -> address) the players whose names link to their pages. */
export function drawnParts(td, acts, playerLinks = new Map()) {
  links = playerLinks;
  const byId = new Map(td.matches.map((m) => [m.id, m]));
  const grid = bracketGrid(td, byId, acts);
  const parts = grid ? [el("div", { class: "tscroll bracket-wrap" }, grid)] : [];
  const table = finalTable(td);
  if (table) parts.push(el("div", { class: "tscroll" }, table));
  const finalSets = td.matches.filter((m) => m.kind === "final-set");
  const extra = td.matches.filter((m) => m.kind === "tiebreak" || m.kind === "playoff");
  if (finalSets.length || extra.length) {
    parts.push(el("section", { class: "final-matches", "aria-label": t("t_final_round") },
      el("h2", {}, extra.length ? `${t("t_final_round")} · ${t("t_tiebreaks")}` : t("t_final_round")),
      el("div", { class: "match-list" }, ...finalSets.concat(extra).map((m) => matchBox(byId, m, acts)))));
  }
  if (td.standings && td.standings.length) parts.push(el("div", { class: "tscroll" }, standingsTable(td)));
  return el("section", { id: "bracket", class: "drawn", "aria-label": t("t_bracket") }, ...parts);
}
