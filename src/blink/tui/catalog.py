"""The terminal clients' message catalog on Babel: the strings extracted, the ``.po``, the ``.mo``.

The glue behind ``python scripts/tui_catalog.py`` and ``tests/tui/test_tui_catalog.py``. Babel
does the work: its ``python`` extraction finds every literal passed to ``_``, ``N_`` or
``ngettext`` (:func:`extract`), :meth:`~babel.messages.catalog.Catalog.update` merges them into a
language's ``.po`` keeping its translations (:func:`merge`), and its ``pofile`` and ``mofile``
read and write the files. Babel is a tool of the catalog, not a dependency of the clients: it is
in the ``test`` extra, nothing the clients run imports this module, and they read the compiled
``.mo`` with the stdlib's :mod:`gettext` (:mod:`blink.tui.i18n`).

A ``.po`` header carries dates and Babel's version, so files are compared by what they say
(:func:`messages`, :func:`mo_messages`), not by their bytes, and :func:`refresh` rewrites a file
only when that differs: running the script twice changes no byte, and the dates in a header are
when its messages last changed.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from blink import __version__
from blink.tui.i18n import DOMAIN, LOCALE_DIR

__all__ = [
    "KEYWORDS",
    "SOURCES",
    "Contents",
    "compile_mo",
    "extract",
    "merge",
    "messages",
    "mo_messages",
    "po_path",
    "read",
    "refresh",
    "source_files",
    "translated",
]

_PACKAGE: Final = Path(__file__).resolve().parent.parent
SOURCES: Final = (
    "tui",
    "cli/play.py",
    "cli/bot.py",
    "cli/botclient.py",
    "cli/botchallenges.py",
    "cli/botpolicy.py",
    "games/*/tui",
    "games/*/cli.py",
    "games/*/cli",
)
"""The terminal clients' sources, under ``src/blink`` (patterns: each game's own terminal
client and commands, whatever games there are): what :func:`extract` reads."""
KEYWORDS: Final = {"_": None, "N_": None, "ngettext": (1, 2)}
"""The functions whose literal arguments are messages (Babel's keyword specs)."""
_HEADER_COMMENT: Final = (
    "# The terminal clients' texts (blink.tui, blink play, blink bot play, Go Blink's terminal "
    "client).\n"
    "# Written by scripts/tui_catalog.py; translate the msgstr lines."
)


def source_files(root: Path = _PACKAGE) -> list[Path]:
    """The Python files of :data:`SOURCES`, in a stable order."""
    out: list[Path] = []
    for pattern in SOURCES:
        for path in sorted(root.glob(pattern)):
            out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return out


def po_path(lang: str, suffix: str = ".po", locale_dir: Path = LOCALE_DIR) -> Path:
    """The catalog file of ``lang``."""
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def extract(files: Iterable[Path], root: Path = _PACKAGE) -> Catalog:
    """The template of every message in ``files``, in order of first use, each with where it is
    used (the ``.po`` names the files only: moving a line leaves the catalog current)."""
    template = Catalog(project="blink", version=__version__, domain=DOMAIN, fuzzy=False)
    for path in files:
        where = path.relative_to(root.parent).as_posix()
        for line, message, _comments, _context in extract_from_file("python", path, KEYWORDS):
            template.add(message, locations=[(where, line)])
    return template


def read(path: Path) -> Catalog:
    """The catalog of a ``.po`` file."""
    with path.open("rb") as f:
        return read_po(f, locale=path.parent.parent.name, domain=DOMAIN)


def merge(template: Catalog, lang: str, old: Catalog | None = None) -> Catalog:
    """``lang``'s catalog of the messages of ``template`` with the translations of ``old`` (left
    as it is); a message new or changed gets the translation of a close old one marked fuzzy."""
    catalog = Catalog(locale=lang, domain=DOMAIN) if old is None else copy.deepcopy(old)
    catalog.update(template, update_creation_date=False)
    catalog.header_comment, catalog.fuzzy = _HEADER_COMMENT, False
    catalog.msgid_bugs_address, catalog.last_translator = "", "the blink authors"
    catalog.language_team = Locale.parse(lang).english_name or lang
    catalog.project, catalog.version = template.project, template.version
    catalog.obsolete.clear()
    return catalog


def translated(message: Message) -> bool:
    """Every form of ``message`` has a translation, not marked fuzzy."""
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return not message.fuzzy and all(strings)


def _plain(value: str | tuple[str, ...] | list[str] | None) -> str | tuple[str, ...]:
    return tuple(value) if isinstance(value, tuple | list) else (value or "")


Contents = list[tuple[str | tuple[str, ...], str | tuple[str, ...], tuple[str, ...], bool]]
"""What a catalog says: each message's id, translation, files (sorted, as Babel writes them) and
fuzzy flag, in the catalog's order."""


def messages(catalog: Catalog) -> Contents:
    """What ``catalog`` says (its header aside), to compare catalogs by."""
    return [
        (_plain(m.id), _plain(m.string), tuple(sorted({p for p, _ in m.locations})), m.fuzzy)
        for m in catalog
        if m.id
    ]


def compile_mo(catalog: Catalog) -> bytes:
    """The ``.mo`` file of ``catalog`` (its translated messages, as gettext reads them)."""
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def mo_messages(data: bytes) -> tuple[str, dict[str | tuple[str, ...], str | tuple[str, ...]]]:
    """What a ``.mo`` file says: its plural forms and each message's translation."""
    catalog = read_mo(io.BytesIO(data))
    return catalog.plural_forms, {_plain(m.id): _plain(m.string) for m in catalog if m.id}


def _po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=0, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def refresh(
    lang: str, template: Catalog, write: bool = True, locale_dir: Path = LOCALE_DIR
) -> tuple[Catalog, list[Path]]:
    """``lang``'s catalog merged with ``template``, and those of its ``.po`` and ``.mo`` files
    that are out of date (missing, or saying something else), rewritten when ``write`` (the
    ``.mo`` also when the ``.po`` is, so their headers agree)."""
    po, mo = po_path(lang, ".po", locale_dir), po_path(lang, ".mo", locale_dir)
    old = read(po) if po.exists() else None
    catalog = merge(template, lang, old)
    stale = []
    if old is None or messages(old) != messages(catalog):
        stale.append(po)
        catalog.creation_date = catalog.revision_date = template.creation_date
    binary = compile_mo(catalog)
    if not mo.exists() or mo_messages(mo.read_bytes()) != mo_messages(binary):
        stale.append(mo)
    if write and stale:
        po.parent.mkdir(parents=True, exist_ok=True)
        if po in stale:
            po.write_bytes(_po_bytes(catalog))
        mo.write_bytes(binary)
    return catalog, stale
