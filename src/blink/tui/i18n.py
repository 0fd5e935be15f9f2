"""The terminal clients' languages: English (the text in the source) and Spanish.

Every sentence people read in a terminal client goes through :func:`_` (or :func:`ngettext`
for a count), which looks it up in the active gettext catalog: the stdlib's :mod:`gettext`
reading ``locale/<lang>/LC_MESSAGES/blink_tui.mo`` beside this module. The ``.mo`` files are
committed with their ``.po`` sources (``python scripts/tui_catalog.py`` extracts the strings,
merges them into the ``.po`` and compiles the ``.mo``, with Babel; ``tests/tui/test_tui_catalog.py``
fails when one of them is out of date). A text defined at import (a help screen, a phrase) is marked
with :func:`N_` and translated where it is shown.

The language is one setting for the whole process (:func:`set_language`), chosen by the
commands' ``--lang`` option or, without it, from the environment (:func:`language_from_env`:
``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, in that order), English otherwise. The
words of cards follow the browser client's (``web/js/i18n.js``, ``CARD_WORDS``): "four yellow
stars", "cuatro estrellas amarillas".
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from blink.cards import Card, Color, Shape

__all__ = [
    "BOT_LEVELS",
    "BOT_STRATEGIES",
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "LanguageError",
    "_",
    "bot_title",
    "card_name",
    "color_letter",
    "join_and",
    "language",
    "language_from_env",
    "ngettext",
    "pile_name",
    "set_language",
]

DOMAIN: Final = "blink_tui"
"""The gettext domain of the terminal clients' catalog."""
LANGUAGES: Final = ("en", "es")
"""The languages the terminal clients speak; English is the source text."""
LOCALE_DIR: Final = Path(__file__).with_name("locale")
"""Where the catalogs are: ``<lang>/LC_MESSAGES/blink_tui.po`` and ``.mo``."""

_ENV_ORDER: Final = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


class LanguageError(ValueError):
    """A language the terminal clients do not speak (the message lists those they do)."""

    code = "unknown_language"


_active: gettext.NullTranslations = gettext.NullTranslations()
_lang = "en"


def set_language(lang: str) -> None:
    """Speak ``lang`` (``en`` or ``es``) from now on; raises :class:`LanguageError`."""
    global _active, _lang
    if lang not in LANGUAGES:
        raise LanguageError(f"unknown language {lang!r}: choose {' or '.join(LANGUAGES)}")
    if lang == "en":
        _active = gettext.NullTranslations()
    else:
        with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as f:
            _active = gettext.GNUTranslations(f)
    _lang = lang


def language() -> str:
    """The language spoken now."""
    return _lang


def _locale_language(value: str) -> str | None:
    """``es`` for ``es_AR.UTF-8`` or ``es@euro``; ``None`` for a language not spoken here."""
    code = value.split(".")[0].split("@")[0].split("_")[0].split("-")[0].strip().lower()
    return code if code in LANGUAGES else None


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for: the first spoken one in ``LANGUAGE`` (a list
    like ``fr:es``), else the one of the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
    that is set; English when none names a language spoken here (``C``, ``fr_FR``)."""
    env = os.environ if environ is None else environ
    if env.get("LANGUAGE"):
        for item in env["LANGUAGE"].split(":"):
            found = _locale_language(item)
            if found is not None:
                return found
    for name in _ENV_ORDER[1:]:
        value = env.get(name)
        if value:
            return _locale_language(value) or "en"
    return "en"


def _(message: str) -> str:
    """``message`` in the language spoken now."""
    return _active.gettext(message)


def N_(message: str) -> str:
    """Marks ``message`` for the catalog without translating it (translate it where shown)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a sentence about ``n`` things, in the language spoken now."""
    return _active.ngettext(singular, plural, n)


def pile_name(index: int) -> str:
    """A centre pile as people call it, numbered from one: "pile 1", "montón 1"."""
    return _("pile {n}").format(n=index + 1)


def join_and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (``y`` in Spanish)."""
    if len(items) <= 1:
        return "".join(items)
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


_ES_SHAPES: Final[dict[Shape, tuple[str, str, bool]]] = {
    Shape.MOON: ("luna", "lunas", True),
    Shape.PYRAMID: ("pirámide", "pirámides", True),
    Shape.STAR: ("estrella", "estrellas", True),
    Shape.WATER: ("agua", "aguas", True),
    Shape.FLOWER: ("flor", "flores", True),
    Shape.LIGHTNING: ("rayo", "rayos", False),
}
"""Spanish shape nouns: singular, plural, and whether the noun is feminine."""
_ES_COLORS: Final[dict[Color, tuple[str, str, str, str]]] = {
    Color.RED: ("rojo", "roja", "rojos", "rojas"),
    Color.ORANGE: ("naranja", "naranja", "naranjas", "naranjas"),
    Color.YELLOW: ("amarillo", "amarilla", "amarillos", "amarillas"),
    Color.GREEN: ("verde", "verde", "verdes", "verdes"),
    Color.BLUE: ("azul", "azul", "azules", "azules"),
    Color.PURPLE: ("morado", "morada", "morados", "moradas"),
}
"""Spanish colour adjectives: masculine, feminine, masculine plural, feminine plural."""
_ES_COUNTS: Final = ("", "una", "dos", "tres", "cuatro", "cinco")
_ES_LETTERS: Final[dict[Color, str]] = {
    Color.RED: "R",
    Color.ORANGE: "N",
    Color.YELLOW: "A",
    Color.GREEN: "V",
    Color.BLUE: "Z",
    Color.PURPLE: "M",
}
"""The colour letters of colour-blind mode in Spanish (the browser's ``CARD_WORDS``)."""


def color_letter(color: Color) -> str:
    """The letter of ``color`` in colour-blind mode: R O Y G B P; in Spanish R N A V Z M."""
    return _ES_LETTERS[color] if _lang == "es" else color.letter


def card_name(card: Card) -> str:
    """A card in words: "four yellow stars", "cuatro estrellas amarillas", "un agua azul"."""
    if _lang != "es":
        return card.long_name
    singular, plural, feminine = _ES_SHAPES[card.shape]
    many = card.count != 1
    adjective = _ES_COLORS[card.color][(2 if many else 0) + (1 if feminine else 0)]
    number = _ES_COUNTS[card.count]
    if card.count == 1 and (not feminine or card.shape is Shape.WATER):
        number = "un"
    return f"{number} {plural if many else singular} {adjective}"


BOT_LEVELS: Final = {
    "beginner": N_("Beginner"),
    "casual": N_("Casual"),
    "skilled": N_("Skilled"),
    "expert": N_("Expert"),
    "champion": N_("Champion"),
    "trained": N_("Trained"),
    "inhuman": N_("Inhuman"),
}
"""The bot levels' titles (the browser's words for them in Spanish)."""
BOT_STRATEGIES: Final = {
    "first": "",
    "random": N_("random"),
    "blocker": N_("blocking"),
    "flexible": N_("flexible"),
}
"""The bot strategies' titles ("first" has none: "Skilled bot")."""


def bot_title(spec: Any) -> str:
    """A bot's name at the table: its ``display_name`` ("Expert blocking bot"), in the language
    spoken now ("Bot experto bloqueador"); a level or strategy without a title here keeps its
    English name."""
    level = BOT_LEVELS.get(spec.level)
    strategy = BOT_STRATEGIES.get(spec.strategy)
    if level is None or strategy is None:
        return str(spec.display_name)
    if strategy:
        words = _("{level} {strategy} bot").format(level=_(level), strategy=_(strategy))
    else:
        words = _("{level} bot").format(level=_(level))
    return words if spec.speed == 1.0 else f"{words} ×{spec.speed:g}"
