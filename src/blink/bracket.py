"""Printable brackets: an HTML page (with an SVG bracket) and a PNG image (matplotlib, Agg).

Both are drawn from one layout (:func:`layout`) of a :class:`~blink.tournament.Tournament`:
the first round (pairings and byes) in the first column, each later round to its right, the
finalists last, then the final round's cross table, the tie-breaks and the standings. Boxes of
matches not yet played have blank score cells to fill in by hand.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blink.tournament import Match, MatchKind, Tournament

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Box", "Layout", "final_table", "layout", "render_html", "render_png", "write_png"]

BOX_W = 5.2
ROW_H = 0.5
COL_W = 6.6
SLOT_H = 1.6
LABEL_H = 0.4


@dataclass
class Box:
    """A box in the bracket: a match (two rows), a bye or a finalist (one row)."""

    x: float
    y: float
    """Top of the box (y grows downwards)."""
    label: str
    rows: list[tuple[str, str, str]]
    """(name, score, style) per row; style is winner, loser, pending or plain."""
    match_id: str | None = None

    @property
    def height(self) -> float:
        """Height in layout units."""
        return ROW_H * len(self.rows)

    @property
    def mid(self) -> float:
        """The y of the box's middle."""
        return self.y + self.height / 2


@dataclass
class Layout:
    """Boxes, connectors and the overall size, in layout units."""

    boxes: list[Box] = field(default_factory=list)
    lines: list[tuple[float, float, float, float]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


def _rows(m: Match) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for i, (src, pl) in enumerate(zip(m.sources, m.players, strict=True)):
        if pl is None:
            name = src.replace("winner:", "winner of ") if src.startswith("winner:") else src
            if i in m.vacant:
                name = "nobody (double forfeit)"
            out.append((name, "", "loser" if i in m.vacant else "pending"))
            continue
        score = str(m.score.get(pl, 0)) if m.games or m.walkover else ""
        style = "plain"
        if m.decided:
            style = "winner" if (m.winner or m.awarded) == pl else "loser"
        out.append((f"{pl} (forfeit)" if pl in m.forfeits else pl, score, style))
    return out


def _match_label(m: Match) -> str:
    ties = f", {m.ties} tied" if m.ties else ""
    deal = "" if m.handicap is None else ", deal " + ":".join(str(k) for _, k in m.handicap)
    walkover = ""
    if m.walkover:
        walkover = ", walkover" if m.awarded else ", double forfeit"
    return f"{m.id}{ties}{deal}{walkover}"


def layout(t: Tournament) -> Layout:
    """Place every elimination match, bye and finalist of ``t``."""
    lay = Layout()
    draw = t.draw_record
    p = t.plan
    if draw is None or p.rounds == 0:
        return lay
    matches = {m.id: m for m in t.matches()}
    elim = [m for m in matches.values() if m.kind is MatchKind.ELIMINATION]
    # The order of the slots after round one: follow round two's sources (or the finalists).
    consumers = [m for m in elim if m.round == 2] if p.rounds >= 2 else []
    slot_sources = [s for m in consumers for s in m.sources] if consumers else _finalist_sources(t)
    y_of: dict[str, float] = {}
    top = LABEL_H
    for i, src in enumerate(slot_sources):
        y = top + i * SLOT_H
        if src.startswith("winner:"):
            m = matches[src[len("winner:") :]]
            box = Box(0.0, y, _match_label(m), _rows(m), m.id)
        else:
            box = Box(0.0, y + ROW_H / 2, "bye", [(src, "", "plain")])
        lay.boxes.append(box)
        y_of[src] = box.mid
    lay.columns.append("Round 1")
    for r in range(2, p.rounds + 1):
        x = (r - 1) * COL_W
        lay.columns.append(f"Round {r}")
        for m in (m for m in elim if m.round == r):
            ys = [y_of[s] for s in m.sources]
            mid = sum(ys) / 2
            box = Box(x, mid - ROW_H, _match_label(m), _rows(m), m.id)
            lay.boxes.append(box)
            for s in m.sources:
                _connect(lay, x - COL_W + BOX_W, y_of[s], x, mid)
            y_of[f"winner:{m.id}"] = mid
    x = p.rounds * COL_W
    lay.columns.append("Final round")
    for i, (src, name) in enumerate(zip(_finalist_sources(t), t.finalists, strict=True)):
        y = y_of[src]
        shown = name if name is not None else src.replace("winner:", "winner of ")
        lay.boxes.append(
            Box(
                x,
                y - ROW_H / 2,
                f"finalist {i + 1}",
                [(shown, "", "pending" if name is None else "plain")],
            )
        )
        _connect(lay, x - COL_W + BOX_W, y, x, y)
    lay.width = x + BOX_W
    lay.height = top + len(slot_sources) * SLOT_H
    return lay


def _finalist_sources(t: Tournament) -> list[str]:
    sets = [m for m in t.matches() if m.kind in (MatchKind.FINAL_SET, MatchKind.FINAL)]
    out: list[str] = []
    for m in sets:
        for s in m.sources:
            if s not in out:
                out.append(s)
    return out


def _connect(lay: Layout, x0: float, y0: float, x1: float, y1: float) -> None:
    xm = (x0 + x1) / 2
    lay.lines.append((x0, y0, xm, y0))
    lay.lines.append((xm, y0, xm, y1))
    lay.lines.append((xm, y1, x1, y1))


def final_table(t: Tournament) -> dict[str, Any]:
    """The final round as a cross table: finalists, games won against each other, totals."""
    sets = [m for m in t.matches() if m.kind in (MatchKind.FINAL_SET, MatchKind.FINAL)]
    sources = _finalist_sources(t)
    by_id = {m.id: m for m in t.matches()}

    def unknown(src: str) -> str:
        feeder = by_id.get(src.removeprefix("winner:"))
        if feeder is not None and feeder.decided and feeder.winner is None:
            return "nobody (double forfeit)"
        return src.replace("winner:", "winner of ")

    names = [n if n is not None else unknown(s) for s, n in zip(sources, t.finalists, strict=True)]
    known = t.finalists
    cells: list[list[str]] = []
    totals: list[str] = []
    for i, a in enumerate(known):
        row: list[str] = []
        total = 0
        for j, b in enumerate(known):
            if i == j:
                row.append("—")
                continue
            m = next(m for m in sets if {sources[i], sources[j]} == set(m.sources))
            if a is None or (not m.games and not m.walkover):
                row.append("")
                continue
            won = m.score.get(a, 0)
            total += won
            row.append(f"{won}–{m.score.get(b, 0) if b else 0}" + (" w/o" if m.walkover else ""))
        cells.append(row)
        totals.append(str(total) if any(c not in ("", "—") for c in row) else "")
    places = {s.name: s.place_text for s in t.standings() if s.status in ("champion", "placed")}
    return {
        "names": names,
        "cells": cells,
        "wins": totals,
        "places": [places.get(n, "") if n is not None else "" for n in known],
        "kind": sets[0].kind.value if sets else "",
    }


def _extra_matches(t: Tournament) -> list[Match]:
    return [m for m in t.matches() if m.kind in (MatchKind.TIEBREAK, MatchKind.PLAYOFF)]


# --------------------------------------------------------------------------- HTML


_CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; color: #111; margin: 1.2em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }
p.meta { color: #444; margin: 0 0 1em; }
svg.bracket { width: 100%; height: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .3em 0 1em; }
th, td { border: 1px solid #333; padding: .3em .7em; text-align: center; min-width: 2.6em; }
th.name, td.name { text-align: left; }
td.win { font-weight: bold; }
.pending { color: #777; font-style: italic; }
@page { size: A4; margin: 12mm; }
@media print { body { margin: 0; } h2 { break-after: avoid; } table, svg { break-inside: avoid; } }
"""


def _svg(lay: Layout, scale: float = 36.0) -> str:
    pad = 0.3
    w = (lay.width + 2 * pad) * scale
    h = (lay.height + 2 * pad + 0.6) * scale
    out = [
        f'<svg class="bracket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" '
        f'width="{w:.0f}" height="{h:.0f}" font-family="DejaVu Sans, Arial, sans-serif" '
        'role="img" aria-label="Tournament bracket">'
    ]

    def X(v: float) -> float:
        return (v + pad) * scale

    def Y(v: float) -> float:
        return (v + pad + 0.6) * scale

    for i, c in enumerate(lay.columns):
        out.append(
            f'<text x="{X(i * COL_W):.1f}" y="{Y(-0.55):.1f}" font-size="{0.42 * scale:.1f}" '
            f'font-weight="bold">{html.escape(c)}</text>'
        )
    for x0, y0, x1, y1 in lay.lines:
        out.append(
            f'<line x1="{X(x0):.1f}" y1="{Y(y0):.1f}" x2="{X(x1):.1f}" y2="{Y(y1):.1f}" '
            'stroke="#333" stroke-width="1.2"/>'
        )
    fs = 0.3 * scale
    for b in lay.boxes:
        out.append(
            f'<text x="{X(b.x):.1f}" y="{Y(b.y) - 3:.1f}" font-size="{0.24 * scale:.1f}" '
            f'fill="#555">{html.escape(b.label)}</text>'
        )
        out.append(
            f'<rect x="{X(b.x):.1f}" y="{Y(b.y):.1f}" width="{BOX_W * scale:.1f}" '
            f'height="{b.height * scale:.1f}" fill="white" stroke="#111" stroke-width="1.4"/>'
        )
        score_x = b.x + BOX_W - 0.7
        for k, (name, score, style) in enumerate(b.rows):
            ry = b.y + k * ROW_H
            if k:
                out.append(
                    f'<line x1="{X(b.x):.1f}" y1="{Y(ry):.1f}" x2="{X(b.x + BOX_W):.1f}" '
                    f'y2="{Y(ry):.1f}" stroke="#111" stroke-width="0.8"/>'
                )
            if b.match_id is not None:
                out.append(
                    f'<line x1="{X(score_x):.1f}" y1="{Y(ry):.1f}" x2="{X(score_x):.1f}" '
                    f'y2="{Y(ry + ROW_H):.1f}" stroke="#111" stroke-width="0.8"/>'
                )
            weight = ' font-weight="bold"' if style == "winner" else ""
            extra = ' fill="#777" font-style="italic"' if style == "pending" else ""
            extra += ' fill="#666"' if style == "loser" else ""
            ty = Y(ry + ROW_H * 0.7)
            out.append(
                f'<text x="{X(b.x + 0.15):.1f}" y="{ty:.1f}" font-size="{fs:.1f}"{weight}{extra}>'
                f"{html.escape(name)}</text>"
            )
            if score:
                out.append(
                    f'<text x="{X(score_x + 0.35):.1f}" y="{ty:.1f}" font-size="{fs:.1f}" '
                    f'text-anchor="middle"{weight}>{html.escape(score)}</text>'
                )
    out.append("</svg>")
    return "\n".join(out)


def render_html(t: Tournament) -> str:
    """A self-contained printable HTML page of the tournament."""
    e = html.escape
    p = t.plan
    draw = t.draw_record
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(t.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(t.name)}</h1>",
    ]
    meta = f"{p.players} players · {_n(p.byes, 'bye')} · {_n(p.rounds, 'elimination round')} · "
    meta += f"{p.finalists} in the final round"
    if draw is not None:
        meta += f" · draw seed {draw.seed}"
    if t.champion:
        meta += f" · champion: <strong>{e(t.champion)}</strong>"
    parts.append(f'<p class="meta">{meta}</p>')
    if draw is None:
        parts.append("<p>The draw has not been made yet.</p>")
    else:
        lay = layout(t)
        if lay.boxes:
            parts.append("<h2>Bracket</h2>")
            parts.append(_svg(lay))
        ft = final_table(t)
        parts.append("<h2>Final round</h2>" if ft["kind"] != "final" else "<h2>Final</h2>")
        parts.append("<table><tr><th class='name'>Finalist</th>")
        parts += [f"<th>v {i + 1}</th>" for i in range(len(ft["names"]))]
        parts.append("<th>Wins</th><th>Place</th></tr>")
        for i, name in enumerate(ft["names"]):
            cls = " class='name pending'" if t.finalists[i] is None else " class='name'"
            parts.append(f"<tr><td{cls}>{i + 1}. {e(name)}</td>")
            parts += [f"<td>{e(c)}</td>" for c in ft["cells"][i]]
            parts.append(
                f"<td class='win'>{e(ft['wins'][i])}</td><td>{e(ft['places'][i])}</td></tr>"
            )
        parts.append("</table>")
        extra = _extra_matches(t)
        if extra:
            parts.append(
                "<h2>Tie-breaks</h2><table><tr><th>Match</th><th class='name'>Players</th>"
                "<th>Score</th><th>Winner</th></tr>"
            )
            for m in extra:
                players = " v ".join(x or "?" for x in m.players)
                score = "–".join(str(m.score.get(x or "", 0)) for x in m.players) if m.games else ""
                parts.append(
                    f"<tr><td>{e(m.id)}</td><td class='name'>{e(players)}</td><td>{e(score)}</td>"
                    f"<td>{e(m.winner or '')}</td></tr>"
                )
            parts.append("</table>")
        parts.append(
            "<h2>Standings</h2><table><tr><th>Place</th><th class='name'>Player</th>"
            "<th>Status</th></tr>"
        )
        for s in t.standings():
            status = s.status + (f" (round {s.round_out})" if s.round_out else "")
            parts.append(
                f"<tr><td>{e(s.place_text)}</td><td class='name'>{e(s.name)}</td>"
                f"<td>{e(status)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- PNG


def render_png(t: Tournament, dpi: int = 150) -> bytes:
    """The bracket and the final round as a PNG image (matplotlib's Agg backend)."""
    import io

    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    lay = layout(t)
    ft = final_table(t) if t.draw_record is not None else None
    n_fin = len(ft["names"]) if ft else 0
    table_w = 5.5 + 1.5 * (n_fin + 2)
    width = max(lay.width, table_w) + 0.6
    table_h = (n_fin + 1) * 0.6 + 1.6
    extra = _extra_matches(t)
    extra_h = (len(extra) + 1) * 0.5 + 0.8 if extra else 0.0
    title_h = 2.2
    bracket_h = lay.height + 0.8 if lay.boxes else 0.0
    height = title_h + bracket_h + table_h + extra_h
    unit = 0.42  # inches per layout unit
    fig = Figure(figsize=(width * unit, height * unit), dpi=dpi, facecolor="white")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.3, width - 0.3)
    ax.set_ylim(height, 0)
    ax.axis("off")
    pt = unit * 72  # points per layout unit
    _png_title(ax, t, pt)
    _png_bracket(ax, lay, title_h + 0.4, pt)
    y = title_h + bracket_h
    if ft is not None:
        y = _png_final_table(ax, ft, y, pt)
    if extra:
        _png_tiebreaks(ax, extra, y, pt)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()


def _png_title(ax: Axes, t: Tournament, pt: float) -> None:
    """The tournament's name and a line on its field, draw and champion."""
    p = t.plan
    ax.text(0, 0.6, t.name, fontsize=0.55 * pt, fontweight="bold", va="center")
    sub = f"{p.players} players · {_n(p.byes, 'bye')} · {p.finalists} in the final round"
    if t.draw_record is not None:
        sub += f" · draw seed {t.draw_record.seed}"
    if t.champion:
        sub += f" · champion: {t.champion}"
    ax.text(0, 1.35, sub, fontsize=0.3 * pt, color="#333", va="center")


def _png_bracket(ax: Axes, lay: Layout, oy: float, pt: float) -> None:
    """The layout's column headings, connectors and boxes, ``oy`` units down."""
    for i, c in enumerate(lay.columns):
        ax.text(i * COL_W, oy - 0.25, c, fontsize=0.36 * pt, fontweight="bold", va="bottom")
    for x0, y0, x1, y1 in lay.lines:
        ax.plot([x0, x1], [y0 + oy, y1 + oy], color="#333", linewidth=1.0)
    for b in lay.boxes:
        _png_box(ax, b, b.y + oy, pt)


def _png_box(ax: Axes, b: Box, by: float, pt: float) -> None:
    """One box of the bracket with its top at ``by``: a row per player, score cells."""
    from matplotlib.patches import Rectangle

    fs = 0.3 * pt
    ax.add_patch(
        Rectangle((b.x, by), BOX_W, b.height, facecolor="white", edgecolor="#111", linewidth=1.2)
    )
    ax.text(b.x, by - 0.06, b.label, fontsize=0.22 * pt, color="#555", va="bottom")
    score_x = b.x + BOX_W - 0.7
    for k, (name, score, style) in enumerate(b.rows):
        ry = by + k * ROW_H
        if k:
            ax.plot([b.x, b.x + BOX_W], [ry, ry], color="#111", linewidth=0.7)
        if b.match_id is not None:
            ax.plot([score_x, score_x], [ry, ry + ROW_H], color="#111", linewidth=0.7)
        weight = "bold" if style == "winner" else "normal"
        color = {"pending": "#777", "loser": "#666"}.get(style, "#111")
        fstyle = "italic" if style == "pending" else "normal"
        ax.text(
            b.x + 0.15,
            ry + ROW_H / 2,
            name,
            fontsize=fs,
            fontweight=weight,
            color=color,
            style=fstyle,
            va="center",
        )
        if score:
            ax.text(
                score_x + 0.35,
                ry + ROW_H / 2,
                score,
                fontsize=fs,
                fontweight=weight,
                va="center",
                ha="center",
            )


def _png_final_table(ax: Axes, ft: dict[str, Any], y: float, pt: float) -> float:
    """The final round's cross table from ``y`` down; returns the y below it."""
    from matplotlib.patches import Rectangle

    fs = 0.3 * pt
    n_fin = len(ft["names"])
    ax.text(
        0,
        y + 0.5,
        "Final" if ft["kind"] == "final" else "Final round",
        fontsize=0.4 * pt,
        fontweight="bold",
        va="center",
    )
    y += 1.0
    cols = [("Finalist", 5.5)] + [(f"v {i + 1}", 1.5) for i in range(n_fin)]
    cols += [("Wins", 1.5), ("Place", 1.5)]
    rows = [[head for head, _ in cols]]
    for i, name in enumerate(ft["names"]):
        rows.append([f"{i + 1}. {name}", *ft["cells"][i], ft["wins"][i], ft["places"][i]])
    for r, row in enumerate(rows):
        x = 0.0
        for ci, (text, (_, w)) in enumerate(zip(row, cols, strict=True)):
            ax.add_patch(
                Rectangle(
                    (x, y),
                    w,
                    0.6,
                    facecolor="#eee" if r == 0 else "white",
                    edgecolor="#111",
                    linewidth=0.9,
                )
            )
            bold = r == 0 or ci == len(cols) - 2
            ax.text(
                x + (0.15 if ci == 0 else w / 2),
                y + 0.3,
                text,
                fontsize=fs,
                ha="left" if ci == 0 else "center",
                va="center",
                fontweight="bold" if bold else "normal",
            )
            x += w
        y += 0.6
    return y + 0.6


def _png_tiebreaks(ax: Axes, extra: list[Match], y: float, pt: float) -> None:
    """The tie-break matches, one line each, from ``y`` down."""
    ax.text(0, y + 0.2, "Tie-breaks", fontsize=0.36 * pt, fontweight="bold", va="center")
    y += 0.6
    for m in extra:
        players = " v ".join(x or "?" for x in m.players)
        score = "–".join(str(m.score.get(x or "", 0)) for x in m.players) if m.games else ""
        won = f"  winner: {m.winner}" if m.winner else ""
        ax.text(0, y + 0.25, f"{m.id}: {players}  {score}{won}", fontsize=0.3 * pt, va="center")
        y += 0.5


def write_png(t: Tournament, path: str | os.PathLike[str], dpi: int = 150) -> None:
    """Write :func:`render_png` to a file."""
    with open(path, "wb") as f:
        f.write(render_png(t, dpi))


def _n(count: int, noun: str) -> str:
    """``1 bye``, ``3 byes``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
