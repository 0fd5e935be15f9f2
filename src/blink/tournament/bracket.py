"""Printable brackets: an HTML page (with an SVG bracket) and a PNG image (matplotlib, Agg).

Both are drawn from one layout (:func:`layout`) of a :class:`~blink.tournament.Tournament`:
the first round (pairings and byes) in the first column, each later round to its right, the
finalists last, then the final round's cross table, the tie-breaks and the standings. Boxes of
matches not yet played have blank score cells to fill in by hand.

Every word is English or Spanish (``lang``, :data:`LANGS`), the Spanish the web tournament
page's (``src/blink/web/js/i18n.js``, docs/i18n.md); names and match ids are as they are.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from blink.model.registry import game
from blink.tournament.state import Tournament
from blink.tournament.values import Match, MatchKind

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "LANGS",
    "Box",
    "Layout",
    "Words",
    "final_table",
    "game_title",
    "layout",
    "png_figure",
    "render_html",
    "render_png",
    "write_png",
]

BOX_W = 5.2
ROW_H = 0.5
COL_W = 6.6
SLOT_H = 1.6
LABEL_H = 0.4

_WORDS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "round": "Round {n}",
        "final_round": "Final round",
        "final": "Final",
        "bye": "bye",
        "finalist_n": "finalist {n}",
        "winner_of": "winner of {m}",
        "ties_1": "1 tied",
        "ties_n": "{n} tied",
        "deal": "deal {sizes}",
        "players_1": "1 player",
        "players_n": "{n} players",
        "byes_1": "1 bye",
        "byes_n": "{n} byes",
        "rounds_1": "1 elimination round",
        "rounds_n": "{n} elimination rounds",
        "in_final": "{n} in the final round",
        "draw_seed": "draw seed {seed}",
        "champion_is": "champion: {name}",
        "no_draw": "The draw has not been made yet.",
        "bracket": "Bracket",
        "bracket_label": "Tournament bracket",
        "finalist": "Finalist",
        "against": "v {n}",
        "wins": "Wins",
        "place": "Place",
        "tiebreaks": "Tie-breaks",
        "match": "Match",
        "players": "Players",
        "score": "Score",
        "winner": "Winner",
        "winner_is": "winner: {name}",
        "versus": "v",
        "standings": "Standings",
        "player": "Player",
        "status": "Status",
        "st_champion": "champion",
        "st_placed": "placed",
        "st_eliminated": "eliminated",
        "st_finalist": "finalist",
        "st_playing": "playing",
        "out_in": "{status} (round {n})",
        "place_range": "{a}-{b}",
        "nobody": "nobody (double forfeit)",
        "forfeited": "{name} (forfeit)",
        "walkover": "walkover",
        "double_forfeit": "double forfeit",
        "wo": "w/o",
    },
    "es": {
        "round": "Ronda {n}",
        "final_round": "Ronda final",
        "final": "Final",
        "bye": "pase directo",
        "finalist_n": "finalista {n}",
        "winner_of": "ganador de {m}",
        "ties_1": "1 partida empatada",
        "ties_n": "{n} partidas empatadas",
        "deal": "nivelación {sizes}",
        "players_1": "1 jugador",
        "players_n": "{n} jugadores",
        "byes_1": "1 pase directo",
        "byes_n": "{n} pases directos",
        "rounds_1": "1 ronda eliminatoria",
        "rounds_n": "{n} rondas eliminatorias",
        "in_final": "{n} en la ronda final",
        "draw_seed": "semilla del sorteo: {seed}",
        "champion_is": "campeón: {name}",
        "no_draw": "Todavía no se ha hecho el sorteo.",
        "bracket": "Cuadro",
        "bracket_label": "Cuadro del torneo",
        "finalist": "Finalista",
        "against": "contra {n}",
        "wins": "Victorias",
        "place": "Lugar",
        "tiebreaks": "Desempates",
        "match": "Enfrentamiento",
        "players": "Jugadores",
        "score": "Marcador",
        "winner": "Ganador",
        "winner_is": "ganador: {name}",
        "versus": "contra",
        "standings": "Posiciones",
        "player": "Jugador",
        "status": "Resultado",
        "st_champion": "campeón",
        "st_placed": "clasificado",
        "st_eliminated": "eliminado",
        "st_finalist": "en la ronda final",
        "st_playing": "sigue en juego",
        "out_in": "{status} (ronda {n})",
        "place_range": "{a} a {b}",
        "nobody": "nadie (doble incomparecencia)",
        "forfeited": "{name} (no presentado)",
        "walkover": "por incomparecencia",
        "double_forfeit": "doble incomparecencia",
        "wo": "inc.",
    },
}

LANGS: Final = tuple(_WORDS)
"""The languages a bracket is printed in: English and Spanish."""


class Words:
    """The bracket's words in one of :data:`LANGS` (:class:`ValueError` for another)."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in _WORDS:
            raise ValueError(f"no bracket words for language {lang!r} ({', '.join(LANGS)})")
        self.lang = lang
        self._table = _WORDS[lang]

    def __call__(self, key: str, **values: object) -> str:
        """The words for ``key``, with its ``{placeholders}`` filled from ``values``."""
        return self._table[key].format(**values)

    def count(self, key: str, n: int) -> str:
        """``{key}_1`` for one, else ``{key}_n``: "1 bye", "3 byes" / "1 pase directo"."""
        return self(f"{key}_1") if n == 1 else self(f"{key}_n", n=n)

    def source(self, src: str) -> str:
        """A bracket slot's source for people: a name, or "winner of R1-2"."""
        if src.startswith("winner:"):
            return self("winner_of", m=src[len("winner:") :])
        return src

    def status(self, status: str, round_out: int | None) -> str:
        """A standings line's status: "champion", "eliminated (round 2)"."""
        word = self(f"st_{status}") if f"st_{status}" in self._table else status
        return self("out_in", status=word, n=round_out) if round_out else word

    def place(self, place: int, place_to: int) -> str:
        """``3``, or a shared range: "5-8" / "5 a 8"."""
        return str(place) if place == place_to else self("place_range", a=place, b=place_to)


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


def _rows(m: Match, w: Words) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for i, (src, pl) in enumerate(zip(m.sources, m.players, strict=True)):
        if pl is None:
            name = w("nobody") if i in m.vacant else w.source(src)
            out.append((name, "", "loser" if i in m.vacant else "pending"))
            continue
        score = str(m.score.get(pl, 0)) if m.games or m.walkover else ""
        style = "plain"
        if m.decided:
            style = "winner" if (m.winner or m.awarded) == pl else "loser"
        out.append((w("forfeited", name=pl) if pl in m.forfeits else pl, score, style))
    return out


def _match_label(m: Match, w: Words) -> str:
    ties = f", {w.count('ties', m.ties)}" if m.ties else ""
    deal = "" if m.handicap is None else ", " + w("deal", sizes=_sizes(m))
    walkover = ""
    if m.walkover:
        walkover = ", " + (w("walkover") if m.awarded else w("double_forfeit"))
    return f"{m.id}{ties}{deal}{walkover}"


def _sizes(m: Match) -> str:
    return ":".join(str(k) for _, k in m.handicap or ())


def layout(t: Tournament, lang: str = "en") -> Layout:
    """Place every elimination match, bye and finalist of ``t`` (labels in ``lang``)."""
    w = Words(lang)
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
            box = Box(0.0, y, _match_label(m, w), _rows(m, w), m.id)
        else:
            box = Box(0.0, y + ROW_H / 2, w("bye"), [(src, "", "plain")])
        lay.boxes.append(box)
        y_of[src] = box.mid
    lay.columns.append(w("round", n=1))
    for r in range(2, p.rounds + 1):
        x = (r - 1) * COL_W
        lay.columns.append(w("round", n=r))
        for m in (m for m in elim if m.round == r):
            ys = [y_of[s] for s in m.sources]
            mid = sum(ys) / 2
            box = Box(x, mid - ROW_H, _match_label(m, w), _rows(m, w), m.id)
            lay.boxes.append(box)
            for s in m.sources:
                _connect(lay, x - COL_W + BOX_W, y_of[s], x, mid)
            y_of[f"winner:{m.id}"] = mid
    x = p.rounds * COL_W
    lay.columns.append(w("final_round"))
    for i, (src, name) in enumerate(zip(_finalist_sources(t), t.finalists, strict=True)):
        y = y_of[src]
        shown = name if name is not None else w.source(src)
        lay.boxes.append(
            Box(
                x,
                y - ROW_H / 2,
                w("finalist_n", n=i + 1),
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


def final_table(t: Tournament, lang: str = "en") -> dict[str, Any]:
    """The final round as a cross table: finalists, games won against each other, totals
    (words in ``lang``)."""
    w = Words(lang)
    sets = [m for m in t.matches() if m.kind in (MatchKind.FINAL_SET, MatchKind.FINAL)]
    sources = _finalist_sources(t)
    by_id = {m.id: m for m in t.matches()}

    def unknown(src: str) -> str:
        feeder = by_id.get(src.removeprefix("winner:"))
        if feeder is not None and feeder.decided and feeder.winner is None:
            return w("nobody")
        return w.source(src)

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
            wo = f" {w('wo')}" if m.walkover else ""
            row.append(f"{won}–{m.score.get(b, 0) if b else 0}{wo}")
        cells.append(row)
        totals.append(str(total) if any(c not in ("", "—") for c in row) else "")
    places = {
        s.name: w.place(s.place, s.place_to)
        for s in t.standings()
        if s.status in ("champion", "placed")
    }
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


def _svg(lay: Layout, label: str, scale: float = 36.0) -> str:
    pad = 0.3
    w = (lay.width + 2 * pad) * scale
    h = (lay.height + 2 * pad + 0.6) * scale
    out = [
        f'<svg class="bracket" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" '
        f'width="{w:.0f}" height="{h:.0f}" font-family="DejaVu Sans, Arial, sans-serif" '
        f'role="img" aria-label="{html.escape(label)}">'
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


def _summary(t: Tournament, w: Words, rounds: bool, champion: str, title: str) -> str:
    """The line under the title: the game, the field, the byes, the rounds, the draw, the
    champion (``title``: the game's title and ``champion``: the champion's name, each as it is
    to be written, ``champion`` empty for none)."""
    p = t.plan
    parts = [
        title,
        w.count("players", p.players),
        w.count("byes", p.byes),
    ]
    if rounds:
        parts.append(w.count("rounds", p.rounds))
    parts.append(w("in_final", n=p.finalists))
    if t.draw_record is not None:
        parts.append(w("draw_seed", seed=t.draw_record.seed))
    if champion:
        parts.append(w("champion_is", name=champion))
    return " · ".join(parts)


def game_title(t: Tournament, lang: str = "en") -> str:
    """The title of the game ``t`` is played in, in ``lang`` ("Classic Blink", "Go Blink")."""
    return game(t.game).title(lang)


def render_html(t: Tournament, lang: str = "en") -> str:
    """A self-contained printable HTML page of the tournament, in ``lang`` (:data:`LANGS`)."""
    w = Words(lang)
    e = html.escape
    champion = f"<strong>{e(t.champion)}</strong>" if t.champion else ""
    parts = [
        "<!doctype html>",
        f'<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{e(t.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(t.name)}</h1>",
        f'<p class="meta">{_summary(t, w, True, champion, e(game_title(t, lang)))}</p>',
    ]
    if t.draw_record is None:
        parts.append(f"<p>{e(w('no_draw'))}</p>")
    else:
        lay = layout(t, lang)
        if lay.boxes:
            parts.append(f"<h2>{e(w('bracket'))}</h2>")
            parts.append(_svg(lay, w("bracket_label")))
        parts += _html_final(t, w)
        parts += _html_tiebreaks(t, w)
        parts += _html_standings(t, w)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_final(t: Tournament, w: Words) -> list[str]:
    """The final round's cross table."""
    e = html.escape
    ft = final_table(t, w.lang)
    head = w("final") if ft["kind"] == "final" else w("final_round")
    parts = [f"<h2>{e(head)}</h2>", f"<table><tr><th class='name'>{e(w('finalist'))}</th>"]
    parts += [f"<th>{e(w('against', n=i + 1))}</th>" for i in range(len(ft["names"]))]
    parts.append(f"<th>{e(w('wins'))}</th><th>{e(w('place'))}</th></tr>")
    for i, name in enumerate(ft["names"]):
        cls = " class='name pending'" if t.finalists[i] is None else " class='name'"
        parts.append(f"<tr><td{cls}>{i + 1}. {e(name)}</td>")
        parts += [f"<td>{e(c)}</td>" for c in ft["cells"][i]]
        parts.append(f"<td class='win'>{e(ft['wins'][i])}</td><td>{e(ft['places'][i])}</td></tr>")
    parts.append("</table>")
    return parts


def _html_tiebreaks(t: Tournament, w: Words) -> list[str]:
    """The tie-break matches' table (nothing without tie-breaks)."""
    e = html.escape
    extra = _extra_matches(t)
    if not extra:
        return []
    parts = [
        f"<h2>{e(w('tiebreaks'))}</h2><table><tr><th>{e(w('match'))}</th>"
        f"<th class='name'>{e(w('players'))}</th><th>{e(w('score'))}</th>"
        f"<th>{e(w('winner'))}</th></tr>"
    ]
    for m in extra:
        players = f" {w('versus')} ".join(x or "?" for x in m.players)
        parts.append(
            f"<tr><td>{e(m.id)}</td><td class='name'>{e(players)}</td><td>{e(_score(m))}</td>"
            f"<td>{e(m.winner or '')}</td></tr>"
        )
    parts.append("</table>")
    return parts


def _score(m: Match) -> str:
    """A match's games won, in its players' order ("2–1"), empty before its first game."""
    return "–".join(str(m.score.get(x or "", 0)) for x in m.players) if m.games else ""


def _html_standings(t: Tournament, w: Words) -> list[str]:
    """The standings' table."""
    e = html.escape
    parts = [
        f"<h2>{e(w('standings'))}</h2><table><tr><th>{e(w('place'))}</th>"
        f"<th class='name'>{e(w('player'))}</th><th>{e(w('status'))}</th></tr>"
    ]
    for s in t.standings():
        parts.append(
            f"<tr><td>{e(w.place(s.place, s.place_to))}</td><td class='name'>{e(s.name)}</td>"
            f"<td>{e(w.status(s.status, s.round_out))}</td></tr>"
        )
    parts.append("</table>")
    return parts


# --------------------------------------------------------------------------- PNG


def render_png(t: Tournament, dpi: int = 150, lang: str = "en") -> bytes:
    """The bracket and the final round as a PNG image (matplotlib's Agg backend), in ``lang``
    (:data:`LANGS`)."""
    import io

    buf = io.BytesIO()
    png_figure(t, dpi, lang).savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()


def png_figure(t: Tournament, dpi: int = 150, lang: str = "en") -> Figure:
    """The matplotlib figure :func:`render_png` draws (its texts can be measured)."""
    w = Words(lang)
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    lay = layout(t, lang)
    ft = final_table(t, lang) if t.draw_record is not None else None
    n_fin = len(ft["names"]) if ft else 0
    table_w = sum(width for _, width in _table_cols(n_fin, w))
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
    _png_title(ax, t, w, pt)
    _png_bracket(ax, lay, title_h + 0.4, pt)
    y = title_h + bracket_h
    if ft is not None:
        y = _png_final_table(ax, ft, w, y, pt)
    if extra:
        _png_tiebreaks(ax, extra, w, y, pt)
    return fig


def _png_title(ax: Axes, t: Tournament, w: Words, pt: float) -> None:
    """The tournament's name and a line on its field, draw and champion."""
    ax.text(0, 0.6, t.name, fontsize=0.55 * pt, fontweight="bold", va="center")
    sub = _summary(t, w, False, t.champion or "", game_title(t, w.lang))
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


HEAD_CHAR_W: Final = 0.2
"""Layout units a character of a table heading takes at most (bold, 0.3 units high): a column
is as wide as its heading needs in the page's language ("contra 4", "Victorias")."""


def _table_cols(n_fin: int, w: Words) -> list[tuple[str, float]]:
    """The final table's columns: each heading and its width in layout units."""

    def fit(head: str) -> tuple[str, float]:
        return head, max(1.5, 0.45 + HEAD_CHAR_W * len(head))

    cols = [(w("finalist"), 5.5)] + [fit(w("against", n=i + 1)) for i in range(n_fin)]
    return [*cols, fit(w("wins")), fit(w("place"))]


def _png_final_table(ax: Axes, ft: dict[str, Any], w: Words, y: float, pt: float) -> float:
    """The final round's cross table from ``y`` down; returns the y below it."""
    from matplotlib.patches import Rectangle

    fs = 0.3 * pt
    n_fin = len(ft["names"])
    ax.text(
        0,
        y + 0.5,
        w("final") if ft["kind"] == "final" else w("final_round"),
        fontsize=0.4 * pt,
        fontweight="bold",
        va="center",
    )
    y += 1.0
    cols = _table_cols(n_fin, w)
    rows = [[head for head, _ in cols]]
    for i, name in enumerate(ft["names"]):
        rows.append([f"{i + 1}. {name}", *ft["cells"][i], ft["wins"][i], ft["places"][i]])
    for r, row in enumerate(rows):
        x = 0.0
        for ci, (text, (_, width)) in enumerate(zip(row, cols, strict=True)):
            ax.add_patch(
                Rectangle(
                    (x, y),
                    width,
                    0.6,
                    facecolor="#eee" if r == 0 else "white",
                    edgecolor="#111",
                    linewidth=0.9,
                )
            )
            bold = r == 0 or ci == len(cols) - 2
            ax.text(
                x + (0.15 if ci == 0 else width / 2),
                y + 0.3,
                text,
                fontsize=fs,
                ha="left" if ci == 0 else "center",
                va="center",
                fontweight="bold" if bold else "normal",
            )
            x += width
        y += 0.6
    return y + 0.6


def _png_tiebreaks(ax: Axes, extra: list[Match], w: Words, y: float, pt: float) -> None:
    """The tie-break matches, one line each, from ``y`` down."""
    ax.text(0, y + 0.2, w("tiebreaks"), fontsize=0.36 * pt, fontweight="bold", va="center")
    y += 0.6
    for m in extra:
        players = f" {w('versus')} ".join(x or "?" for x in m.players)
        won = f"  {w('winner_is', name=m.winner)}" if m.winner else ""
        ax.text(0, y + 0.25, f"{m.id}: {players}  {_score(m)}{won}", fontsize=0.3 * pt, va="center")
        y += 0.5


def write_png(
    t: Tournament, path: str | os.PathLike[str], dpi: int = 150, lang: str = "en"
) -> None:
    """Write :func:`render_png` (in ``lang``) to a file."""
    with open(path, "wb") as f:
        f.write(render_png(t, dpi, lang))
