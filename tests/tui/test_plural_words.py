"""Counts in the terminal's words take the plural form of their number, in English and Spanish
(gettext's ``ngettext`` with the catalog's own plural forms): "1 card left", "2 cards left"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from blink.games.classic.tui.widgets import cards_left_text
from blink.tui.i18n import language, ngettext, set_language

LEFT = {
    "en": "Ann: 1 card left · Ben: 2 cards left · Cy: 0 cards left",
    "es": "Ann: 1 carta restante · Ben: 2 cartas restantes · Cy: 0 cartas restantes",
}
PLAYS = {"en": ("1 play", "3 plays"), "es": ("1 jugada", "3 jugadas")}


@pytest.fixture
def restore_language() -> Iterator[None]:
    before = language()
    yield
    set_language(before)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_cards_left_at_the_end(lang: str, restore_language: None) -> None:
    set_language(lang)
    assert cards_left_text((1, 2, 0), ("Ann", "Ben", "Cy")) == LEFT[lang]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_plays(lang: str, restore_language: None) -> None:
    set_language(lang)
    got = tuple(ngettext("{n} play", "{n} plays", n).format(n=n) for n in (1, 3))
    assert got == PLAYS[lang]
