"""Rich views of a tournament: the bracket, the final round and the standings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blink.cli.tournament.common import plural
from blink.tournament import Match, MatchKind, Tournament

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["bracket_view", "handicap_note", "plain", "score_text"]


def handicap_note(m: Match) -> str:
    """`` [36:24 cards]`` for a match dealt with a handicap, else nothing."""
    if m.handicap is None:
        return ""
    return " [" + ":".join(str(k) for _, k in m.handicap) + " cards]"


def plain(text: str) -> str:
    """Rich text without its bold marks."""
    return text.replace("[b]", "").replace("[/b]", "")


def score_text(m: Match) -> str:
    """A match in one line: its players (or where they come from) and the score so far."""
    names = [
        "nobody" if i in m.vacant else p or s.replace("winner:", "w. ")
        for i, (p, s) in enumerate(zip(m.players, m.sources, strict=True))
    ]
    names = [f"{n} (forfeit)" if n in m.forfeits else n for n in names]
    walkover = ""
    if m.walkover:
        walkover = f" · walkover to {m.awarded}" if m.awarded else " · double forfeit"
    if not m.games:
        return " v ".join(names) + walkover + handicap_note(m)
    parts = []
    for p, n in zip(m.players, names, strict=True):
        won = m.score.get(p or "", 0)
        mark = "[b]" if m.winner == p and p is not None else ""
        end = "[/b]" if mark else ""
        parts.append(f"{mark}{n} {won}{end}")
    tie = f" ({m.ties} tied)" if m.ties else ""
    return " – ".join(parts) + tie + walkover + handicap_note(m)


def bracket_view(t: Tournament, bots: dict[str, str] | None = None) -> RenderableType:
    """A Rich view of the tournament: rounds side by side, the final round, the standings."""
    from rich.console import Group
    from rich.text import Text

    p = t.plan
    parts: list[RenderableType] = []
    title = f"{t.name} · {p.players} players · {plural(p.byes, 'bye')}"
    if t.draw_record is not None:
        title += f" · seed {t.draw_record.seed}"
    parts.append(Text(title, style="bold"))
    if t.draw_record is None:
        parts.append(Text("The draw has not been made yet."))
        return Group(*parts)
    ms = t.matches()
    if p.rounds:
        parts.append(_rounds_grid(t, ms))
    parts.append(_final_table(t, ms))
    parts.append(_standings_table(t, bots))
    return Group(*parts)


def _rounds_grid(t: Tournament, ms: list[Match]) -> RenderableType:
    """The elimination rounds side by side; the first in bracket order, byes in their places."""
    from rich.table import Table

    from blink.tournament.bracket import layout

    p = t.plan
    grid = Table(show_lines=False, expand=False, pad_edge=False)
    for r in range(1, p.rounds + 1):
        grid.add_column(f"Round {r}", overflow="fold")
    cols: list[list[str]] = []
    by_id = {m.id: m for m in ms}
    for r in range(1, p.rounds + 1):
        col = []
        if r == 1:  # in bracket order, byes in their places
            for box in (b for b in layout(t).boxes if b.x == 0):
                if box.match_id is None:
                    col.append(f"{box.rows[0][0]} (bye)")
                else:
                    m = by_id[box.match_id]
                    col.append(f"{m.id}: {score_text(m)}")
            cols.append(col)
            continue
        for m in ms:
            if m.kind is MatchKind.ELIMINATION and m.round == r:
                style = "dim" if m.status == "waiting" else ""
                text = f"{m.id}: {score_text(m)}"
                col.append(f"[{style}]{text}[/{style}]" if style else text)
        cols.append(col)
    for i in range(max(len(c) for c in cols)):
        grid.add_row(*[c[i] if i < len(c) else "" for c in cols])
    return grid


def _final_table(t: Tournament, ms: list[Match]) -> RenderableType:
    """The final (two finalists) or the final round's matches and tie-breaks."""
    from rich.table import Table

    fin = Table(title="Final round" if t.plan.finalists > 2 else "Final", title_justify="left")
    fin.add_column("Match")
    fin.add_column("Players / score")
    fin.add_column("Status")
    for m in ms:
        if m.kind is not MatchKind.ELIMINATION:
            fin.add_row(m.id, score_text(m), m.status)
    return fin


def _standings_table(t: Tournament, bots: dict[str, str] | None) -> RenderableType:
    """The standings, with each player's bot when ``bots`` names them."""
    from rich.table import Table

    st = Table(title="Standings", title_justify="left")
    st.add_column("Place", justify="right")
    st.add_column("Player")
    if bots:
        st.add_column("Bot")
    st.add_column("Status")
    st.add_column("Final wins", justify="right")
    for s in t.standings():
        status = s.status + (f" (round {s.round_out})" if s.round_out else "")
        if s.name in t.withdrawn:
            status += ", withdrew"
        wins = "" if s.final_wins is None else str(s.final_wins)
        row = [s.place_text, s.name, *([bots.get(s.name, "")] if bots else []), status, wins]
        st.add_row(*row)
    return st
