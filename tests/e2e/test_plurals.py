"""Counts in words, in English and Spanish, through the pages' one plural helper (`tCount` in
i18n.js, `gtCount` for Go Blink's words, both on the browser's ``Intl.PluralRules``): "1 card
left" and "2 cards left", never "1 cards left"."""

from __future__ import annotations

import pytest
from blinkweb import Server
from playwright.sync_api import BrowserContext, expect

# (helper, key, extra words, {language: (the form for 1, the form for 2)})
CASES = [
    ("t", "cards_left", {}, {"en": ("1 card left", "2 cards left"),
                             "es": ("1 carta restante", "2 cartas restantes")}),
    ("t", "t_score_set", {"name": "Ann"},
     {"en": ("Ann: 1 game won", "Ann: 2 games won"),
      "es": ("Ann: 1 partida ganada", "Ann: 2 partidas ganadas")}),
    ("t", "go_log_passed", {}, {"en": ("1 card passed", "2 cards passed"),
                                "es": ("1 carta pasada", "2 cartas pasadas")}),
    ("t", "n_plays", {}, {"en": ("1 play", "2 plays"), "es": ("1 jugada", "2 jugadas")}),
    ("t", "t_players", {}, {"en": ("1 player", "2 players"), "es": ("1 jugador", "2 jugadores")}),
    ("t", "games", {}, {"en": ("1 game", "2 games"), "es": ("1 partida", "2 partidas")}),
    ("t", "queue_online", {}, {"en": ("1 online", "2 online"),
                               "es": ("1 conectado", "2 conectados")}),
    ("t", "set_games", {}, {"en": ("1 game, and it counts", "2 games, every game counts"),
                            "es": ("1 partida, y cuenta", "2 partidas, cuenta cada una")}),
    ("t", "t_score_level", {}, {"en": ("Level at 1 game each", "Level at 2 games each"),
                                "es": ("Empate a 1 partida", "Empate a 2 partidas")}),
    ("t", "go_laid", {"name": "Ann", "v": "4"},
     {"en": ("Ann lays down 1 card (4).", "Ann lays down 2 cards (4)."),
      "es": ("Ann baja 1 carta (4).", "Ann baja 2 cartas (4).")}),
    ("gt", "laid", {"name": "Ann", "v": "4"},
     {"en": ("Ann laid down a match of 4 (1 card).", "Ann laid down a match of 4 (2 cards)."),
      "es": ("Ann bajó una combinación de 4 (1 carta).",
             "Ann bajó una combinación de 4 (2 cartas).")}),
    ("t", "st_you", {"ms": "640 ms"},
     {"en": ("You missed 1 play, median reaction 640 ms",
             "You missed 2 plays, median reaction 640 ms"),
      "es": ("Perdiste 1 jugada, reacción mediana 640 ms",
             "Perdiste 2 jugadas, reacción mediana 640 ms")}),
    ("t", "st_seat", {"name": "Ann", "plays": "9", "ms": "—"},
     {"en": ("Ann: 9, missed 1, median reaction —", "Ann: 9, missed 2, median reaction —"),
      "es": ("Ann: 9, 1 perdida, reacción mediana —", "Ann: 9, 2 perdidas, reacción mediana —")}),
    ("gt", "cards", {}, {"en": ("1 card", "2 cards"), "es": ("1 carta", "2 cartas")}),
    ("gt", "n_cards", {}, {"en": ("1 card", "2 cards"), "es": ("1 carta", "2 cartas")}),
]  # fmt: skip

WORDS_JS = """async ([lang, cases]) => {
  const i18n = await import('/js/i18n.js');
  const go = await import('/games/goblink/strings.js');
  i18n.setLang(lang);
  return cases.map(([helper, key, vars]) => [1, 2, 0].map((n) =>
    helper === 't' ? i18n.tCount(key, n, vars) : go.gtCount(key, n, vars)));
}"""


@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_and_more(context: BrowserContext, server: Server, lang: str) -> None:
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#q-play")).to_be_enabled(timeout=15000)
    got = page.evaluate(WORDS_JS, [lang, [[h, k, v] for h, k, v, _ in CASES]])
    for (_, key, _, want), (one, two, zero) in zip(CASES, got, strict=True):
        assert (one, two) == want[lang], key
        assert zero == two.replace("2", "0"), key  # none is plural in both languages
