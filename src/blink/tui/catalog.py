"""The terminal clients' message catalog: extracting the strings, the ``.po`` and the ``.mo``.

Dependency-free tools behind ``python scripts/tui_catalog.py`` and ``tests/tui/test_catalog.py``:
:func:`extract` finds every literal passed to ``_``, ``N_`` or ``ngettext`` in the terminal
clients' sources (Python's own :mod:`ast`); :func:`read_po` and :func:`write_po` read and write a
``.po`` file (the subset of the format this catalog uses: no contexts, no fuzzy entries);
:func:`compile_mo` builds the binary ``.mo`` that the stdlib's :mod:`gettext` reads. Everything
is deterministic, so a catalog is current exactly when writing it again changes no byte.
"""

from __future__ import annotations

import ast
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from blink.tui.i18n import DOMAIN, LOCALE_DIR

__all__ = [
    "HEADER",
    "SOURCES",
    "CatalogError",
    "Entry",
    "compile_mo",
    "extract",
    "merge",
    "po_path",
    "read_po",
    "source_files",
    "write_po",
]

_PACKAGE: Final = Path(__file__).resolve().parent.parent
SOURCES: Final = ("tui", "cli/play.py", "games/goblink/tui", "games/goblink/cli.py")
"""The terminal clients' sources, under ``src/blink``: what :func:`extract` reads."""

HEADER: Final = (
    "Project-Id-Version: blink\n"
    "Language: {lang}\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "Plural-Forms: nplurals=2; plural=(n != 1);\n"
)
"""The catalog's header entry (English and Spanish both have two plural forms)."""

Key = tuple[str, str | None]
"""A message: its id and, for :func:`~blink.tui.i18n.ngettext`, its plural id."""


class CatalogError(ValueError):
    """A ``.po`` file this module cannot read (the message names the line)."""

    code = "bad_catalog"


@dataclass
class Entry:
    """One message of the catalog: where it is used and its translation (one string per
    plural form; empty strings when untranslated)."""

    msgid: str
    plural: str | None = None
    places: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)

    @property
    def key(self) -> Key:
        """The id and plural id."""
        return (self.msgid, self.plural)

    @property
    def translated(self) -> bool:
        """Every form has a translation."""
        forms = 2 if self.plural is not None else 1
        return len(self.strings) == forms and all(self.strings)


def source_files(root: Path = _PACKAGE) -> list[Path]:
    """The Python files of :data:`SOURCES`, in a stable order."""
    out: list[Path] = []
    for name in SOURCES:
        path = root / name
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return out


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract(files: Iterable[Path], root: Path = _PACKAGE) -> list[Entry]:
    """Every message in ``files``, in order of first use, with the files it is used in (no
    line numbers: moving a line leaves the catalog current)."""
    found: dict[Key, Entry] = {}
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(root.parent).as_posix()
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            if not isinstance(node.func, ast.Name):
                continue
            key: Key | None = None
            if node.func.id in ("_", "N_") and len(node.args) == 1:
                text = _literal(node.args[0])
                key = None if text is None else (text, None)
            elif node.func.id == "ngettext" and len(node.args) == 3:
                one, many = _literal(node.args[0]), _literal(node.args[1])
                key = None if one is None or many is None else (one, many)
            if key is None:
                continue
            entry = found.setdefault(key, Entry(key[0], key[1]))
            if where not in entry.places:
                entry.places.append(where)
    return list(found.values())


def po_path(lang: str, suffix: str = ".po") -> Path:
    """The catalog file of ``lang``."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def _quote(text: str) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    lines = body.split("\n")
    parts = [line + "\\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    if len(parts) <= 1:
        return '"' + (parts[0] if parts else "") + '"'
    return '""\n' + "\n".join(f'"{p}"' for p in parts)


_ESCAPES: Final = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(text: str, line: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise CatalogError(f"line {line}: expected a quoted string, not {text!r}")
    out: list[str] = []
    chars = iter(text[1:-1])
    for c in chars:
        if c == "\\":
            nxt = next(chars, "")
            if nxt not in _ESCAPES:
                raise CatalogError(f"line {line}: unknown escape \\{nxt}")
            out.append(_ESCAPES[nxt])
        else:
            out.append(c)
    return "".join(out)


def read_po(text: str) -> tuple[str, list[Entry]]:
    """The header and the entries of a ``.po`` file's text."""
    entries: list[Entry] = []
    fields: dict[str, str] = {}
    current: str | None = None

    def flush() -> None:
        if "msgid" in fields:
            forms = sorted(k for k in fields if k.startswith("msgstr"))
            strings = [fields[k] for k in forms]
            entries.append(Entry(fields["msgid"], fields.get("msgid_plural"), [], strings))
        fields.clear()

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            if not line and fields:
                flush()
                current = None
            continue
        if line.startswith('"'):
            if current is None:
                raise CatalogError(f"line {number}: a string outside any field")
            fields[current] += _unquote(line, number)
            continue
        name, _, rest = line.partition(" ")
        if name == "msgid" and "msgid" in fields:
            flush()
        current = name
        fields[name] = _unquote(rest, number)
    flush()
    header = ""
    if entries and entries[0].msgid == "":
        header = entries.pop(0).strings[0] if entries[0].strings else ""
    return header, entries


def write_po(lang: str, entries: Sequence[Entry]) -> str:
    """The text of ``lang``'s ``.po`` file for ``entries`` (in their order)."""
    out = [
        "# The terminal clients' texts (blink.tui, blink play, Go Blink's terminal client).",
        "# Written by scripts/tui_catalog.py; translate the msgstr lines.",
        'msgid ""',
        "msgstr " + _quote(HEADER.format(lang=lang)),
    ]
    for e in entries:
        out.append("")
        out.extend(f"#: {place}" for place in e.places)
        out.append("msgid " + _quote(e.msgid))
        if e.plural is None:
            out.append("msgstr " + _quote(e.strings[0] if e.strings else ""))
            continue
        out.append("msgid_plural " + _quote(e.plural))
        strings = list(e.strings) + [""] * (2 - len(e.strings))
        out.extend(f"msgstr[{i}] " + _quote(s) for i, s in enumerate(strings[:2]))
    return "\n".join(out) + "\n"


def merge(found: Sequence[Entry], existing: Mapping[Key, Entry]) -> list[Entry]:
    """The extracted entries with the translations kept from ``existing``."""
    out = []
    for e in found:
        old = existing.get(e.key)
        out.append(Entry(e.msgid, e.plural, list(e.places), list(old.strings) if old else []))
    return out


def compile_mo(lang: str, entries: Sequence[Entry]) -> bytes:
    """The ``.mo`` file of ``entries`` (translated ones only) with the header of ``lang``."""
    pairs: dict[bytes, bytes] = {b"": HEADER.format(lang=lang).encode()}
    for e in entries:
        if not e.translated:
            continue
        if e.plural is None:
            pairs[e.msgid.encode()] = e.strings[0].encode()
        else:
            pairs[f"{e.msgid}\0{e.plural}".encode()] = "\0".join(e.strings).encode()
    keys = sorted(pairs)
    start = 7 * 4 + 16 * len(keys)
    ids = b"".join(k + b"\0" for k in keys)
    strs = b"".join(pairs[k] + b"\0" for k in keys)
    table: list[int] = []
    offset = start
    for k in keys:
        table += [len(k), offset]
        offset += len(k) + 1
    for k in keys:
        table += [len(pairs[k]), offset]
        offset += len(pairs[k]) + 1
    head = struct.pack("<7I", 0x950412DE, 0, len(keys), 28, 28 + 8 * len(keys), 0, start)
    return head + struct.pack(f"<{len(table)}I", *table) + ids + strs
