"""The printable bracket in English and Spanish (`blink.tournament.bracket`'s `lang`): the web
tournament page's words, the same layout in both, and `blink tournament bracket --lang`."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blink.cli import app
from blink.tournament import Tournament
from blink.tournament.bracket import (
    LANGS,
    Words,
    final_table,
    game_title,
    layout,
    png_figure,
    render_html,
    render_png,
)
from blink.tournament.organiser import save

ENGLISH_WORDS = re.compile(
    r"\b(Standings|Bracket|Round|Final round|Finalist|Wins|Place|Player|Status|winner of|"
    r"players|bye|elimination|draw seed|champion|Tie-breaks)\b"
)


def played(n: int, games: int, seed: int = 3) -> Tournament:
    """A tournament of ``n`` players drawn with ``seed``, ``games`` games in (the first listed
    player of each ready match wins, every third game of the final round is a tie)."""
    t = Tournament.create([f"P{i}" for i in range(n)], name="Copa")
    t.draw(seed=seed)
    for k in range(games):
        if t.finished:
            break
        m = t.ready_matches()[0]
        players = [p for p in m.players if p is not None]
        t.record_game(m.id, players if k % 3 == 2 and len(players) > 2 else players[:1])
    return t


def _text(page: str) -> str:
    """The page's words without its tags, style and the players' names."""
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return re.sub(r"\bP\d+\b", "", re.sub(r"<[^>]+>", " ", body))


@pytest.mark.parametrize(("n", "games"), [(2, 0), (5, 0), (5, 4), (9, 12), (13, 10_000)])
def test_a_spanish_bracket_has_no_english_word(n: int, games: int) -> None:
    t = played(n, games)
    page = render_html(t, "es")
    assert page.startswith('<!doctype html>\n<html lang="es">')
    text = _text(page)
    assert not ENGLISH_WORDS.search(text), ENGLISH_WORDS.findall(text)
    assert "Posiciones" in text and f"{n} jugadores" in text and "semilla del sorteo: 3" in text
    if t.plan.rounds:
        assert "Cuadro" in text and 'aria-label="Cuadro del torneo"' in page
    if t.finished:
        assert f"campeón: <strong>{t.champion}</strong>" in page
    english = render_html(t)
    assert '<html lang="en">' in english and "Standings" in english


def test_the_layout_is_the_same_in_both_languages() -> None:
    t = played(13, 8)
    en, es = layout(t, "en"), layout(t, "es")
    assert [(b.x, b.y, b.match_id) for b in en.boxes] == [(b.x, b.y, b.match_id) for b in es.boxes]
    assert en.columns == ["Round 1", "Round 2", "Final round"]
    assert es.columns == ["Ronda 1", "Ronda 2", "Ronda final"]
    assert {b.label for b in es.boxes if b.match_id is None} >= {"pase directo"}
    pending = [r[0] for b in es.boxes for r in b.rows if r[2] == "pending"]
    assert pending and all(x.startswith("ganador de ") for x in pending)
    assert final_table(t, "es")["names"][-1].startswith("ganador de ")


def test_a_tied_game_in_a_box() -> None:
    t = played(9, 0)
    m = t.ready_matches()[0]
    assert m.id.startswith("R1-")
    t.record_game(m.id, [p for p in m.players if p is not None])  # a tie: replayed
    labels = {b.match_id: b.label for b in layout(t, "es").boxes}
    assert labels[m.id] == f"{m.id}, 1 partida empatada"
    assert {b.match_id: b.label for b in layout(t).boxes}[m.id] == f"{m.id}, 1 tied"


def test_words() -> None:
    assert LANGS == ("en", "es")
    es = Words("es")
    assert es.count("byes", 1) == "1 pase directo" and es.count("byes", 3) == "3 pases directos"
    assert es.status("eliminated", 2) == "eliminado (ronda 2)"
    assert Words().status("eliminated", 2) == "eliminated (round 2)"
    assert es.place(5, 8) == "5 a 8" and Words().place(5, 8) == "5-8" and es.place(3, 3) == "3"
    with pytest.raises(ValueError, match="'fr'"):
        Words("fr")
    with pytest.raises(ValueError):
        render_html(played(3, 0), "fr")


@pytest.mark.parametrize(
    ("game", "en", "es"),
    [("classic", "Classic Blink", "Blink clásico"), ("goblink", "Go Blink", "Go Blink")],
)
def test_the_printed_bracket_names_its_game(game: str, en: str, es: str) -> None:
    """The line under the tournament's name starts with its game's title, in the page's
    language, on the page and in the picture."""
    t = Tournament.create([f"P{i}" for i in range(5)], name="Copa", game=game)
    t.draw(seed=3)
    for lang, title in (("en", en), ("es", es)):
        assert f'<p class="meta">{title} · 5 ' in render_html(t, lang)
        assert game_title(t, lang) == title
    png = png_figure(t, 40, "es")
    assert any(x.get_text().startswith(f"{es} · 5 ") for x in png.axes[0].texts)


def test_a_spanish_png() -> None:
    t = played(5, 3)
    png = render_png(t, dpi=40, lang="es")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png != render_png(t, dpi=40)


def test_the_command_prints_either_language(tmp_path: Path) -> None:
    f = tmp_path / "club.json"
    save(played(5, 2), f)
    page = tmp_path / "b.html"
    runner = CliRunner()
    r = runner.invoke(app, ["tournament", "bracket", str(f), "--html", str(page), "--lang", "es"])
    assert r.exit_code == 0, r.output
    assert '<html lang="es">' in page.read_text() and "Posiciones" in page.read_text()
    r = runner.invoke(app, ["tournament", "bracket", str(f), "--html", str(page), "--lang", "fr"])
    assert r.exit_code == 2 and "--lang must be one of en, es" in r.stderr


def _texts_and_cells(t: Tournament, lang: str) -> tuple[list[tuple[str, Any]], list[Any]]:
    """Every text of the PNG's figure with its extent, and every rectangle (a bracket box or
    a table cell), in layout units."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import Rectangle

    fig = png_figure(t, dpi=150, lang=lang)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ax = fig.axes[0]
    to_data = ax.transData.inverted()
    texts = [
        (x, x.get_window_extent(renderer).transformed(to_data)) for x in ax.texts if x.get_text()
    ]
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    return texts, cells


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("n", "games"), [(3, 20), (4, 0), (5, 40), (13, 10_000)])
def test_the_png_texts_stay_in_their_cells_and_apart(lang: str, n: int, games: int) -> None:
    """Measured on the drawn figure: no text of the PNG touches another (0.1 units apart at
    least), and a text in a table cell or a bracket box stays inside it. The Spanish headers
    ("contra 4", "Victorias") ran into each other and out of their cells."""
    texts, cells = _texts_and_cells(played(n, games), lang)
    pad = 0.05
    for (a, ea), (b, eb) in itertools.combinations(texts, 2):
        apart = (
            ea.x1 + pad <= eb.x0 - pad
            or eb.x1 + pad <= ea.x0 - pad
            or max(ea.y0, ea.y1) + pad <= min(eb.y0, eb.y1) - pad
            or max(eb.y0, eb.y1) + pad <= min(ea.y0, ea.y1) - pad
        )
        assert apart, (lang, a.get_text(), b.get_text(), ea, eb)
    for x, e in texts:
        px, py = x.get_position()
        holding = [
            c
            for c in cells
            if c.get_x() <= px <= c.get_x() + c.get_width()
            and c.get_y() <= py <= c.get_y() + c.get_height()
        ]
        if not holding:
            continue  # a heading or a line outside the table and the boxes
        cell = min(holding, key=lambda c: c.get_width() * c.get_height())
        left, right = cell.get_x(), cell.get_x() + cell.get_width()
        assert left + pad <= e.x0 and e.x1 <= right - pad, (lang, x.get_text(), e, left, right)
