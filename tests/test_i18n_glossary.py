"""The browser's English and Spanish string tables against the glossary in docs/i18n.md.

Every key has a string in both languages, and no Spanish string uses a word the glossary
forbids (for example "grupo" for a pile, or "partido" for a game).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLES = {
    "i18n.js": (ROOT / "src/blink/web/js/i18n.js", "const STRINGS = {"),
    "strings.js": (ROOT / "src/blink/games/goblink/web/strings.js", "const STR = {"),
    "strings-daily.js": (ROOT / "src/blink/web/js/strings-daily.js", "const STRINGS = {"),
    "strings-app.js": (ROOT / "src/blink/web/js/strings-app.js", "const STRINGS = {"),
    "strings-errors.js": (ROOT / "src/blink/web/js/strings-errors.js", "const STRINGS = {"),
    "strings-study.js": (ROOT / "src/blink/web/js/strings-study.js", "const STRINGS = {"),
    "strings-account.js": (ROOT / "src/blink/web/js/strings-account.js", "const STRINGS = {"),
}
GLOSSARY = ROOT / "docs/i18n.md"

# key: "string" or key: `template`; matching whole strings keeps their words from reading as keys.
ENTRY = re.compile(r'(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)')


def _table(path: Path, start: str) -> dict[str, dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    body = text[text.index(start) + len(start) :]
    body = body[: body.index("\n};")]
    parts = re.split(r"^  (en|es): \{$", body, flags=re.M)
    langs = {lang: block for lang, block in zip(parts[1::2], parts[2::2], strict=True)}
    assert sorted(langs) == ["en", "es"], path
    return {
        lang: {m[1]: m[2] if m[2] is not None else m[3] for m in ENTRY.finditer(block)}
        for lang, block in langs.items()
    }


def _forbidden(lang: str = "es") -> list[str]:
    """The words of an "Avoid" column: the Spanish table (five cells) or the English (four)."""
    columns, avoid = (5, 3) if lang == "es" else (4, 1)
    words: list[str] = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == columns and cells[0] not in ("English", "---"):
            words += re.findall(r"`([^`]+)`", cells[avoid])
    return list(dict.fromkeys(words))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_key_in_both_languages(name: str) -> None:
    tables = _table(*TABLES[name])
    assert len(tables["en"]) > 20
    assert set(tables["en"]) - set(tables["es"]) == set(), "English keys without Spanish"
    assert set(tables["es"]) - set(tables["en"]) == set(), "Spanish keys without English"


def test_the_glossary_forbids_the_old_words() -> None:
    forbidden = _forbidden()
    for word in ("grupo", "partido", "vestíbulo", "figura"):
        assert word in forbidden


def test_the_glossary_forbids_american_spelling() -> None:
    assert {"center", "color"} <= set(_forbidden("en"))


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("name", sorted(TABLES))
def test_no_string_uses_a_forbidden_word(name: str, lang: str) -> None:
    strings = _table(*TABLES[name])[lang]
    found = []
    for word in _forbidden(lang):
        pattern = re.compile(rf"\b{re.escape(word)}(s|es)?\b", re.IGNORECASE)
        found += [(key, word) for key, s in strings.items() if pattern.search(s)]
    assert found == [], f"{lang} strings using a word the glossary forbids: {found}"


def test_the_glossary_words_are_the_ones_used() -> None:
    es = _table(*TABLES["i18n.js"])["es"]
    go = _table(*TABLES["strings.js"])["es"]
    assert es["game_n"] == "Partida {n}" and es["next_game"] == "Siguiente partida"
    assert es["draw"] == "mazo" and es["pile"] == "Montón {n}"
    assert go["draw_pile"].startswith("Mazo") and go["back"] == es["back_lobby"]
    assert (go["color"], go["shape"], go["count"]) == ("Color", "Forma", "Cantidad")
