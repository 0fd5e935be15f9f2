"""``blink deck`` and ``blink replay``: the deck as a table or JSON, and game records checked.

Exit codes: 0 success; 1 a record that does not verify (an illegal action, a wrong stored
result, times going backwards); 2 a file that cannot be read or parsed.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from blink.cards import STANDARD_DECK, Card, DeckError, parse_deck
from blink.games.classic.engine import (
    ChoiceMade,
    ClassicGame,
    Ended,
    Event,
    Flipped,
    Placed,
    Played,
    Refilled,
    Revealed,
    Stalled,
    StallKind,
)
from blink.games.classic.record import (
    FORMAT,
    SERIES_FORMAT,
    GameRecord,
    RecordError,
    SeriesRecord,
    action_to_dict,
)

__all__ = ["deck", "describe_game", "register", "replay", "summarize_game"]


def _fail(command: str, message: str, code: int = 2) -> None:
    """One clear line on stderr, then exit with ``code``."""
    typer.echo(f"blink {command}: {message}", err=True)
    raise typer.Exit(code)


# --- blink deck ----------------------------------------------------------------------------


def deck(
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", help="Show a custom deck file instead (one card per line)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of card objects.")
    ] = False,
) -> None:
    """Print the deck: the standard 60 cards, or a custom deck file, as a table or JSON."""
    cards: list[Card] = list(STANDARD_DECK)
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            _fail("deck", f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}")
        try:
            cards = parse_deck(text)
        except DeckError as exc:
            _fail("deck", f"{file}: {exc}")
    if as_json:
        typer.echo(json.dumps([c.to_dict() for c in cards], indent=1))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    title = "The standard deck" if file is None else f"Deck from {file}"
    table = Table(title=f"{title}: {len(cards)} cards")
    for name, justify in (("#", "right"), ("card", "left"), ("colour", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("shape")
    table.add_column("count", justify="right")
    table.add_column("name")
    for i, c in enumerate(cards, start=1):
        table.add_row(
            str(i),
            Text(str(c), style=f"bold {c.color.hex}"),
            Text(c.color.label, style=c.color.hex),
            c.shape.label,
            str(c.count),
            c.long_name,
        )
    Console().print(table)


# --- blink replay --------------------------------------------------------------------------


def _seat_name(names: list[str], seat: int) -> str:
    name = names[seat] if seat < len(names) and names[seat] else f"Player {seat + 1}"
    return f"{name} (seat {seat})"


def _card(c: Card | None) -> str:
    return "a hidden card" if c is None else f"{c.long_name} [{c}]"


def _event_text(e: Event, names: list[str]) -> str | None:
    """One event as a line for people (``None`` for the deal)."""
    if isinstance(e, Revealed):
        tops = ", ".join(f"pile {i}: {_card(c)}" for i, c in enumerate(e.tops))
        return f"reveal - {tops}"
    if isinstance(e, Played):
        return (
            f"{_seat_name(names, e.player)} plays {_card(e.card)} on pile {e.pile}"
            f" (on {_card(e.covered)})"
        )
    if isinstance(e, Refilled):
        return f"    {_seat_name(names, e.player)} draws {_card(e.card)}"
    if isinstance(e, Stalled):
        how = {
            StallKind.FLIP: "every player flips the top of their draw pile",
            StallKind.CHOOSE: "a draw pile is empty: every player chooses a hand card",
            StallKind.DEAD_END: "a draw pile is empty: the dead-end rule ends the game",
        }[e.kind]
        return f"stall: no one can play; {how}"
    if isinstance(e, Flipped):
        return f"{_seat_name(names, e.player)} flips {_card(e.card)} onto pile {e.pile}"
    if isinstance(e, ChoiceMade):
        return f"{_seat_name(names, e.player)} chooses {_card(e.card)} (secret until all chose)"
    if isinstance(e, Placed):
        return f"{_seat_name(names, e.player)} places {_card(e.card)} on pile {e.pile}"
    if isinstance(e, Ended):
        o = e.outcome
        who = " and ".join(_seat_name(names, w) for w in o.winners)
        verdict = f"tie between {who}" if o.is_tie else f"{who} wins"
        return f"game over: {verdict} ({o.reason.replace('_', ' ')})"
    return None


def _time(t: int | None) -> str:
    return "       -" if t is None else f"{t / 1000:7.3f}s"


def describe_game(record: GameRecord) -> list[str]:
    """The game of a (verified) record, move by move, as lines for people."""
    names = list(record.names)
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    sizes = " + ".join(map(str, game.sizes))
    lines = [
        f"classic Blink, {record.players} players, ruleset {record.ruleset.name}, "
        f"draw piles {sizes}" + (f", {len(game.set_aside)} set aside" if game.set_aside else ""),
        "players: " + ", ".join(_seat_name(names, p) for p in range(record.players)),
    ]
    for p in range(record.players):
        lines.append(
            f"  {_seat_name(names, p)}: center card {game.top(p)}, hand "
            f"{' '.join(map(str, game.hand(p)))}, draw pile {len(game.draw_pile(p))} cards"
        )
    for i, (action, t) in enumerate(record.actions):
        events = game.apply(action, t)
        first = True
        for e in events:
            text = _event_text(e, names)
            if text is None:
                continue
            prefix = f"{i:4d} {_time(t)}  " if first else " " * 15
            lines.append(prefix + text)
            first = False
    if game.outcome is None:
        lines.append("the record ends before the game does")
    return lines


def summarize_game(record: GameRecord, game: ClassicGame) -> dict[str, Any]:
    """A machine summary of a verified classic record."""
    outcome = game.outcome
    times = [t for _, t in record.actions if t is not None]
    return {
        "format": FORMAT,
        "game": "classic",
        "result": None if outcome is None else ("tie" if outcome.is_tie else "win"),
        "winners": [] if outcome is None else list(outcome.winners),
        "winner_names": []
        if outcome is None
        else [record.names[w] if w < len(record.names) else "" for w in outcome.winners],
        "reason": None if outcome is None else outcome.reason,
        "plays": game.plays,
        "stalls": game.stalls,
        "actions": len(record.actions),
        "players": list(record.names),
        "ruleset": record.ruleset.name,
        "sizes": list(game.sizes),
        "duration_ms": max(times) if times else None,
    }


def _load_go_record(data: dict[str, Any]) -> Any:
    try:
        module = importlib.import_module("blink.games.goblink.record")
    except ImportError:
        _fail("replay", "Go Blink records are not supported yet")
    return module.GoRecord.from_dict(data)


def _action_text(record: GameRecord, index: int | None) -> str:
    """An action of a record in a few words, for error messages ("" when there is none)."""
    if index is None or not 0 <= index < len(record.actions):
        return ""
    d = action_to_dict(*record.actions[index])
    words = [str(d["type"])] + [f"{k} {d[k]}" for k in ("seat", "card", "pile", "t") if k in d]
    return f" ({', '.join(words)})"


def _illegal(exc: Exception, as_json: bool, prefix: str = "", action: str = "") -> None:
    """Report a record that does not verify, then exit 1."""
    index = getattr(exc, "index", None)
    reason = getattr(exc, "reason", "invalid")
    reason = getattr(reason, "value", reason)
    detail = getattr(exc, "detail", None) or str(exc)
    what = (
        f"action {index}{action} is illegal" if index is not None else "the record does not verify"
    )
    if as_json:
        typer.echo(
            json.dumps(
                {"ok": False, "error": {"index": index, "reason": reason, "message": detail}}
                | ({"game": getattr(exc, "game", None)} if prefix else {})
            )
        )
    typer.echo(f"blink replay: {prefix}{what}: {reason}: {detail}", err=True)
    raise typer.Exit(1)


def replay(
    file: Annotated[Path, typer.Argument(help="A game or series record (JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a machine summary instead.")
    ] = False,
) -> None:
    """Check a game record and print the game move by move (exit 1 if an action is illegal)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail("replay", f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail("replay", f"{file} is not valid JSON (line {exc.lineno}: {exc.msg})")
    if not isinstance(data, dict):
        _fail("replay", f"{file} is not a Blink record (a JSON object was expected)")
    if data.get("game") == "goblink":
        _replay_go(file, data, as_json)
    elif data.get("format") == SERIES_FORMAT:
        _replay_series(file, data, as_json)
    else:
        _replay_classic(file, data, as_json)


def _replay_classic(file: Path, data: dict[str, Any], as_json: bool) -> None:
    try:
        record = GameRecord.from_dict(data)
    except RecordError as exc:
        _fail("replay", f"{file} is not a readable Blink record: {exc}")
    try:
        game = record.verify()
    except RecordError as exc:
        _illegal(exc, as_json, action=_action_text(record, exc.index))
    if as_json:
        typer.echo(json.dumps({"ok": True} | summarize_game(record, game), indent=1))
        return
    for line in describe_game(record):
        typer.echo(line)


def _replay_series(file: Path, data: dict[str, Any], as_json: bool) -> None:
    try:
        series_record = SeriesRecord.from_dict(data)
    except RecordError as exc:
        _fail("replay", f"{file} is not a readable Blink series record: {exc}")
    try:
        games = series_record.verify()
    except RecordError as exc:
        game_record = series_record.games[exc.game] if exc.game is not None else None
        _illegal(
            exc,
            as_json,
            prefix=f"game {exc.game}, " if exc.game is not None else "",
            action="" if game_record is None else _action_text(game_record, exc.index),
        )
    series = series_record.series_from(games)
    summary = {
        "ok": True,
        "format": SERIES_FORMAT,
        "best_of": series_record.best_of,
        "games": [summarize_game(r, g) for r, g in zip(series_record.games, games, strict=True)],
        "score": list(series.score),
        "ties": series.ties,
        "winner": series.winner,
        "result": "win" if series.winner is not None else None,
        "winners": [] if series.winner is None else [series.winner],
    }
    if as_json:
        typer.echo(json.dumps(summary, indent=1))
        return
    typer.echo(f"best-of-{series_record.best_of} series, {len(games)} games")
    for i, record in enumerate(series_record.games):
        typer.echo(f"\n== game {i + 1}")
        for line in describe_game(record):
            typer.echo(line)
    score = " - ".join(map(str, series.score))
    names = series_record.games[0].names if series_record.games else []
    verdict = (
        "undecided" if series.winner is None else f"won by {_seat_name(list(names), series.winner)}"
    )
    typer.echo(f"\nseries score {score} ({series.ties} tied games): {verdict}")


def _replay_go(file: Path, data: dict[str, Any], as_json: bool) -> None:
    try:
        record = _load_go_record(data)
    except typer.Exit:
        raise
    except Exception as exc:  # another engineer's reader: any failure means unreadable
        _fail("replay", f"{file} is not a readable Go Blink record: {exc}")
    try:
        record.verify()
    except RecordError as exc:
        _illegal(exc, as_json)
    except Exception as exc:  # another engineer's module: report any refusal the same way
        if getattr(exc, "index", None) is None:
            raise
        _illegal(exc, as_json)
    if as_json:
        typer.echo(json.dumps({"ok": True} | dict(record.summary()), indent=1))
        return
    for line in record.describe():
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``blink deck`` and ``blink replay`` to the main app."""
    app.command("deck")(deck)
    app.command("replay")(replay)
