"""``blink deck`` and ``blink replay``: the deck as a table or JSON, and game records checked.

Exit codes: 0 success; 1 a record that does not verify (an illegal action, a wrong stored
result, times going backwards); 2 a file that cannot be read or parsed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from blink.cards import STANDARD_DECK, Card, DeckError, parse_deck
from blink.model.records import (
    SERIES_FORMAT,
    AnyRecord,
    RecordError,
    SeriesRecord,
    codecs,
    load,
)
from blink.model.registry import DEFAULT_GAME

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_RECORD_DEPTH",
    "deck",
    "printable",
    "register",
    "replay",
]


def _fail(command: str, message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr (control characters escaped: it may quote a record), then exit
    with ``code``."""
    typer.echo(printable(f"blink {command}: {message}"), err=True)
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


def _kind(data: dict[str, Any]) -> str:
    """What a record document claims to be, for messages: "Blink", "Go Blink series"..."""
    codec = codecs().get(str(data.get("game", DEFAULT_GAME)))
    label = "Blink" if codec is None else codec.label
    series = data.get("format") == SERIES_FORMAT or "best_of" in data
    return f"{label} series" if series else label


def _illegal(exc: RecordError, as_json: bool, record: AnyRecord | SeriesRecord) -> None:
    """Report a record that does not verify, then exit 1."""
    prefix = ""
    if isinstance(record, SeriesRecord):
        prefix = f"game {exc.game}, " if exc.game is not None else ""
        game = record.games[exc.game] if exc.game is not None else None
        action = "" if game is None else game.action_text(exc.index)
    else:
        action = record.action_text(exc.index)
    index = exc.index
    what = (
        f"action {index}{action} is illegal" if index is not None else "the record does not verify"
    )
    if as_json:
        error = {"index": index, "reason": exc.reason, "message": exc.detail}
        extra = {"game": exc.game} if isinstance(record, SeriesRecord) else {}
        typer.echo(json.dumps({"ok": False, "error": error} | extra))
    typer.echo(printable(f"blink replay: {prefix}{what}: {exc.reason}: {exc.detail}"), err=True)
    raise typer.Exit(1)


MAX_RECORD_BYTES = 4 * 1024 * 1024
"""The largest file ``blink replay`` reads (4 MB): a best-of-9 series is about 50 kB, and a
larger file is refused before it is parsed (a 50 MB document took gigabytes of memory)."""
MAX_RECORD_DEPTH = 32
"""How deeply a record's JSON may nest: a record needs a few levels; a deeper document is
refused before any code walks it recursively."""

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters (C0, DEL, C1: the terminal's escape sequences) and the bidirectional
controls that reorder what a terminal shows."""
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with its control characters written as escapes (``\\x1b``, ``\\u202e``), so a
    name from a record cannot drive the terminal."""

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _UNPRINTABLE.sub(escape, text)


def _read_record_file(file: Path) -> dict[str, Any]:
    """The JSON object in ``file``, read no further than :data:`MAX_RECORD_BYTES`; exit 2 with
    one sentence for a file that cannot be read, is too large, is not JSON, nests too deeply
    or holds a lone surrogate (an escape such as ``\\ud800`` that is half a character)."""
    try:
        with file.open("rb") as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        _fail("replay", f"cannot read {file}: {exc.strerror or exc}")
    if len(raw) > MAX_RECORD_BYTES:
        _fail(
            "replay",
            f"{file} is larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB, the most a record "
            "may be: it is not a Blink record",
        )
    try:
        data: object = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        _fail("replay", f"cannot read {file}: {exc}")
    except json.JSONDecodeError as exc:
        _fail("replay", f"{file} is not valid JSON (line {exc.lineno}: {exc.msg})")
    except RecursionError:
        _fail("replay", f"{file} is nested too deeply to be a Blink record")
    if not isinstance(data, dict):
        _fail("replay", f"{file} is not a Blink record (a JSON object was expected)")
    problem = _check_tree(data)
    if problem is not None:
        _fail("replay", f"{file} is not a Blink record: {problem}")
    return data


def _check_tree(data: object) -> str | None:
    """What makes a parsed document unfit to be read further (nested deeper than
    :data:`MAX_RECORD_DEPTH`, a string with a lone surrogate), walked without recursion."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return "a string holds a lone surrogate (half of a character)"
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_RECORD_DEPTH:
            return f"it is nested more than {MAX_RECORD_DEPTH} levels deep"
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items)
    return None


def replay(
    file: Annotated[
        Path,
        typer.Argument(
            help=f"A game or series record (JSON, {MAX_RECORD_BYTES // (1024 * 1024)} MB at most)."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a machine summary instead.")
    ] = False,
) -> None:
    """Check a game record and print the game move by move (exit 1 if an action is illegal)."""
    data = _read_record_file(file)
    try:
        record = load(data)
    except RecordError as exc:
        _fail("replay", f"{file} is not a readable {_kind(data)} record: {exc}")
    try:
        record.verify()
    except RecordError as exc:
        _illegal(exc, as_json, record)
    if as_json:
        typer.echo(json.dumps({"ok": True} | record.summary(), indent=1))
        return
    for line in record.describe():
        typer.echo(printable(line))


def register(app: typer.Typer) -> None:
    """Add ``blink deck`` and ``blink replay`` to the main app."""
    app.command("deck")(deck)
    app.command("replay")(replay)
