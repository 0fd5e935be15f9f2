"""Every count the browser client puts in words goes through its plural helper (`tCount`, or
Go Blink's `gtCount`), and each key it is called with has the forms English and Spanish need
("one" and "other") in both languages; no table keeps a count's forms the old way, as a
``_1``/``_n`` pair chosen by ``n === 1``."""

from __future__ import annotations

import re
from pathlib import Path

from test_i18n_glossary import TABLES, _table

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    *(ROOT / "src/blink/web/js").glob("*.js"),
    *(ROOT / "src/blink/games").glob("*/web/*.js"),
]
CALL = re.compile(r"\b(g?t)Count\(\s*\"(\w+)\"")


def _keys(name: str) -> dict[str, set[str]]:
    return {lang: set(strings) for lang, strings in _table(*TABLES[name]).items()}


def test_every_count_has_both_forms_in_both_languages() -> None:
    classic = {
        lang: _keys("i18n.js")[lang]
        | _keys("strings-daily.js")[lang]
        | _keys("strings-study.js")[lang]
        for lang in ("en", "es")
    }
    go = _keys("strings.js")
    calls = [(m[1], m[2], src.name) for src in SOURCES for m in CALL.finditer(src.read_text())]
    assert len(calls) >= 10, calls
    for helper, base, where in calls:
        tables = classic if helper == "t" else go
        for lang in ("en", "es"):
            for form in ("one", "other"):
                assert f"{base}_{form}" in tables[lang], f"{where}: {base}_{form} ({lang})"


def test_no_count_chosen_by_hand() -> None:
    for name in TABLES:
        for lang, keys in _keys(name).items():
            pairs = sorted(k[:-2] for k in keys if k.endswith("_1") and f"{k[:-2]}_n" in keys)
            assert pairs == [], f"{name} ({lang}): counts kept as _1/_n: {pairs}"
    for src in SOURCES:
        found = re.findall(r"\bg?t\(\s*[\"`]\w+_1[\"`]", src.read_text())
        assert not found, f"{src.name} picks a count's form by hand: use tCount"


# The nouns (and Spanish's agreeing adjectives) whose form follows a number: a string that
# puts one right after a placeholder is a count in words, and must be a `_one`/`_other` key.
COUNT_WORDS = {
    "en": r"cards?|games?|plays?|wins?|loss(?:es)?|days?|players?|points?|moves?|rounds?|"
    r"matches|seconds?|minutes?|bots?|turns?",
    "es": r"cartas?|partidas?|jugadas?|victorias?|derrotas?|días?|jugador(?:es)?|puntos?|"
    r"rondas?|segundos?|minutos?|bots?|turnos?|conectad[oa]s?|restantes?|pasadas?|ganadas?",
}
FORM = re.compile(r"_(zero|one|two|few|many|other)$")
# Placeholders that stand for people or things, not numbers ("{name} wins", "{slots} play").
NOT_COUNTS = r"(?!(?:name|names|who|player|receiver|slots|level|card|a|b)\})"


def test_no_count_in_words_without_plural_forms() -> None:
    found = []
    for name in TABLES:
        for lang, strings in _table(*TABLES[name]).items():
            count = re.compile(rf"\{{{NOT_COUNTS}\w+\}} (?:{COUNT_WORDS[lang]})\b", re.IGNORECASE)
            found += [
                f"{name} {lang} {key}: {s!r}"
                for key, s in strings.items()
                if not FORM.search(key) and count.search(s)
            ]
    assert found == [], "counts in words without plural forms:\n" + "\n".join(found)
