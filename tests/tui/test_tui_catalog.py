"""The terminal clients' catalog: current with the sources, every message translated into
Spanish with the same placeholders and the glossary's words, and the ``.mo`` current with the
``.po``; the language chosen from the environment; cards named as the browser names them."""

from __future__ import annotations

import gettext
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Message
from tests.test_i18n_glossary import _forbidden

from blink.cards import parse_card
from blink.tui import i18n
from blink.tui.catalog import (
    compile_mo,
    extract,
    merge,
    messages,
    mo_messages,
    po_path,
    read,
    refresh,
    source_files,
    translated,
)
from blink.tui.i18n import LanguageError, card_name, language_from_env, set_language


def _forms(message: Message) -> list[str]:
    """The source texts of ``message``: its id, and its plural id if it has one."""
    return [message.id] if isinstance(message.id, str) else list(message.id)


def _strings(message: Message) -> list[str]:
    """The translations of ``message``: one per form."""
    return [message.string] if isinstance(message.string, str) else list(message.string)


def _spanish() -> list[Message]:
    return [m for m in read(po_path("es")) if m.id]


def test_the_catalog_is_current_with_the_sources() -> None:
    found = extract(source_files())
    assert len(found) > 150
    po = read(po_path("es"))
    in_source = {m.id for m in found if m.id}
    in_po = {m.id for m in po if m.id}
    assert in_source - in_po == set(), "new strings: run python scripts/tui_catalog.py"
    assert in_po - in_source == set(), "strings gone from the sources: run the script"
    assert messages(merge(found, "es", po)) == messages(po), (
        "blink_tui.po is out of date: run python scripts/tui_catalog.py"
    )
    assert po.plural_forms == "nplurals=2; plural=(n != 1);"


def test_the_mo_file_is_compiled_from_the_po_file() -> None:
    po = read(po_path("es"))
    assert mo_messages(po_path("es", ".mo").read_bytes()) == mo_messages(compile_mo(po)), (
        "blink_tui.mo is out of date: run python scripts/tui_catalog.py"
    )
    with po_path("es", ".mo").open("rb") as f:
        mo = gettext.GNUTranslations(f)
    for m in _spanish():
        if isinstance(m.id, str):
            assert mo.gettext(m.id) == m.string
        else:
            assert mo.ngettext(m.id[0], m.id[1], 1) == m.string[0]
            assert mo.ngettext(m.id[0], m.id[1], 5) == m.string[1]


def _copy_catalog(locale_dir: Path) -> tuple[Path, Path]:
    po, mo = po_path("es", ".po", locale_dir), po_path("es", ".mo", locale_dir)
    po.parent.mkdir(parents=True)
    po.write_bytes(po_path("es").read_bytes())
    mo.write_bytes(po_path("es", ".mo").read_bytes())
    return po, mo


def test_refresh_merges_the_sources_and_rewrites_only_what_changed(tmp_path: Path) -> None:
    po, mo = _copy_catalog(tmp_path)
    assert refresh("es", extract(source_files()), write=False, locale_dir=tmp_path)[1] == []
    # A message gone from the sources and one changed: the .po and .mo are out of date.
    template = extract(source_files())
    template.delete("You")
    template.delete("Room {code}")
    template.add("Room {code}!", locations=[("blink/tui/online.py", 1)])
    assert refresh("es", template, write=False, locale_dir=tmp_path)[1] == [po, mo]
    assert po.read_bytes() == po_path("es").read_bytes(), "a check writes nothing"
    assert refresh("es", template, locale_dir=tmp_path)[1] == [po, mo]
    written = {m.id: m for m in read(po) if m.id}
    assert "You" not in written and "Room {code}" not in written
    # The changed message is offered the old one's translation, to check: not compiled yet.
    changed = written["Room {code}!"]
    assert changed.fuzzy and changed.string == "Sala {code}" and not translated(changed)
    assert "Room {code}!" not in mo_messages(mo.read_bytes())[1]
    # Every other translation is kept, in the .po and the .mo.
    before = {m.id: m.string for m in _spanish() if m.id not in ("You", "Room {code}")}
    assert {k: m.string for k, m in written.items() if k != "Room {code}!"} == before
    assert mo_messages(mo.read_bytes())[1]["Seat {n}"] == "Puesto {n}"
    assert gettext.GNUTranslations(mo.open("rb")).gettext("You") == "You"
    # Current now: running again changes no byte.
    po_bytes, mo_bytes = po.read_bytes(), mo.read_bytes()
    assert refresh("es", template, locale_dir=tmp_path)[1] == []
    assert (po.read_bytes(), mo.read_bytes()) == (po_bytes, mo_bytes)


def test_a_mo_file_saying_something_else_is_out_of_date(tmp_path: Path) -> None:
    po, mo = _copy_catalog(tmp_path)
    catalog = read(po)
    catalog["Seat {n}"].string = "Asiento {n}"
    mo.write_bytes(compile_mo(catalog))
    assert refresh("es", extract(source_files()), write=False, locale_dir=tmp_path)[1] == [mo]
    assert refresh("es", extract(source_files()), locale_dir=tmp_path)[1] == [mo]
    assert mo_messages(mo.read_bytes())[1]["Seat {n}"] == "Puesto {n}"
    assert po.read_bytes() == po_path("es").read_bytes()


def test_the_script_finds_the_catalog_current() -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "tui_catalog.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_every_message_has_a_spanish_translation() -> None:
    entries = _spanish()
    untranslated = [m.id for m in entries if not translated(m)]
    assert untranslated == []
    # Not the English left as it was (a few words are the same in both: codes, "bot").
    same = {m.id for m in entries if isinstance(m.id, str) and m.string == m.id}
    assert same <= {" [bot]", "flexible"}, same


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_translations_keep_the_placeholders_and_markup() -> None:
    for m in _spanish():
        for source, translated_text in zip(_forms(m), _strings(m), strict=True):
            assert _fields(translated_text) == _fields(source), m.id
            assert translated_text.count("[b]") == source.count("[b]"), m.id
            assert (translated_text[:1] == " ") == (source[:1] == " "), m.id
            assert translated_text.startswith("\n") == source.startswith("\n"), m.id


def test_spanish_uses_the_glossary_words() -> None:
    forbidden = _forbidden("es")
    assert "pila" in forbidden and "partido" in forbidden
    found = []
    for m in _spanish():
        for s in _strings(m):
            for word in forbidden:
                if re.search(rf"\b{re.escape(word)}(s|es)?\b", s, re.IGNORECASE):
                    found.append((m.id, word))
    assert found == []


def test_english_uses_the_glossary_words() -> None:
    forbidden = _forbidden("en")
    found = [
        (m.id, word)
        for m in extract(source_files())
        if m.id
        for text in _forms(m)
        for word in forbidden
        if re.search(rf"\b{re.escape(word)}(s|es)?\b", text, re.IGNORECASE)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("env", "lang"),
    [
        ({}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "es_AR.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "es_MX"}, "es"),
        ({"LC_ALL": "es_ES@euro", "LC_MESSAGES": "en_US", "LANG": "en_US"}, "es"),
        ({"LANGUAGE": "fr:es", "LC_ALL": "en_US.UTF-8"}, "es"),
        ({"LANGUAGE": "fr:de", "LC_ALL": "es_ES.UTF-8"}, "es"),
        ({"LANGUAGE": "en", "LANG": "es_ES.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANGUAGE": "", "LC_ALL": "", "LANG": "es"}, "es"),
    ],
)
def test_the_language_comes_from_the_environment(env: dict[str, str], lang: str) -> None:
    assert language_from_env(env) == lang


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(LanguageError, match="en or es"):
        set_language("fr")
    assert i18n.language() == "en"


def test_cards_in_words_as_the_browser_says_them() -> None:
    cards = ["4YS", "1RM", "1BW", "1GL", "2PF", "5OP", "3GL"]
    english = [card_name(parse_card(c)) for c in cards]
    assert english == [parse_card(c).long_name for c in cards]
    set_language("es")
    assert [card_name(parse_card(c)) for c in cards] == [
        "cuatro estrellas amarillas",
        "una luna roja",
        "un agua azul",
        "un rayo verde",
        "dos flores moradas",
        "cinco pirámides naranjas",
        "tres rayos verdes",
    ]
    assert i18n.pile_name(0) == "montón 1"
    assert i18n.join_and(["a", "b", "c"]) == "a, b y c"
    assert i18n.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carta"


def test_every_engine_refusal_has_a_sentence() -> None:
    from blink.games.classic.actions import Reason
    from blink.games.goblink.actions import Reason as GoReason
    from blink.games.goblink.tui.driver import GO_REFUSALS
    from blink.tui.render import REFUSALS

    assert {r.value for r in Reason} - set(REFUSALS) == set()
    assert {r.value for r in GoReason} - set(GO_REFUSALS) == set()
