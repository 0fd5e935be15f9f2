"""The terminal clients' catalog: current with the sources, every message translated into
Spanish with the same placeholders and the glossary's words, and the ``.mo`` current with the
``.po``; the language chosen from the environment; cards named as the browser names them."""

from __future__ import annotations

import gettext
import re
import string

import pytest
from tests.test_i18n_glossary import _forbidden

from blink.cards import parse_card
from blink.tui import i18n
from blink.tui.catalog import (
    compile_mo,
    extract,
    merge,
    po_path,
    read_po,
    source_files,
    write_po,
)
from blink.tui.i18n import LanguageError, card_name, language_from_env, set_language


def test_the_catalog_is_current_with_the_sources() -> None:
    found = extract(source_files())
    assert len(found) > 150
    entries = read_po(po_path("es").read_text(encoding="utf-8"))[1]
    in_source = {e.key for e in found}
    in_po = {e.key for e in entries}
    assert in_source - in_po == set(), "new strings: run python scripts/tui_catalog.py"
    assert in_po - in_source == set(), "strings gone from the sources: run the script"
    merged = merge(found, {e.key: e for e in entries})
    assert write_po("es", merged) == po_path("es").read_text(encoding="utf-8"), (
        "blink_tui.po is out of date: run python scripts/tui_catalog.py"
    )


def test_the_mo_file_is_compiled_from_the_po_file() -> None:
    entries = read_po(po_path("es").read_text(encoding="utf-8"))[1]
    assert po_path("es", ".mo").read_bytes() == compile_mo("es", entries), (
        "blink_tui.mo is out of date: run python scripts/tui_catalog.py"
    )
    with po_path("es", ".mo").open("rb") as f:
        mo = gettext.GNUTranslations(f)
    for e in entries:
        if e.plural is None:
            assert mo.gettext(e.msgid) == e.strings[0]
        else:
            assert mo.ngettext(e.msgid, e.plural, 1) == e.strings[0]
            assert mo.ngettext(e.msgid, e.plural, 5) == e.strings[1]


def test_every_message_has_a_spanish_translation() -> None:
    entries = read_po(po_path("es").read_text(encoding="utf-8"))[1]
    untranslated = [e.msgid for e in entries if not e.translated]
    assert untranslated == []
    # Not the English left as it was (a few words are the same in both: codes, "bot").
    same = {e.msgid for e in entries if e.plural is None and e.strings[0] == e.msgid}
    assert same <= {" [bot]", "flexible"}, same


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_translations_keep_the_placeholders_and_markup() -> None:
    for e in read_po(po_path("es").read_text(encoding="utf-8"))[1]:
        sources = [e.msgid] if e.plural is None else [e.msgid, e.plural]
        for source, translated in zip(sources, e.strings, strict=True):
            assert _fields(translated) == _fields(source), e.msgid
            assert translated.count("[b]") == source.count("[b]"), e.msgid
            assert (translated[:1] == " ") == (source[:1] == " "), e.msgid
            assert translated.startswith("\n") == source.startswith("\n"), e.msgid


def test_spanish_uses_the_glossary_words() -> None:
    forbidden = _forbidden("es")
    assert "pila" in forbidden and "partido" in forbidden
    found = []
    for e in read_po(po_path("es").read_text(encoding="utf-8"))[1]:
        for s in e.strings:
            for word in forbidden:
                if re.search(rf"\b{re.escape(word)}(s|es)?\b", s, re.IGNORECASE):
                    found.append((e.msgid, word))
    assert found == []


def test_english_uses_the_glossary_words() -> None:
    forbidden = _forbidden("en")
    found = [
        (e.msgid, word)
        for e in extract(source_files())
        for word in forbidden
        if re.search(rf"\b{re.escape(word)}(s|es)?\b", e.msgid, re.IGNORECASE)
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
