"""The terminal table in both languages, through Textual's pilot: the same screens in English
and in Spanish, refusals by code with the cards in words (offline and online), Go Blink's
terminal client and log, and ``--lang`` on the commands."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest
from tests.tui.helpers import stage, wait_for
from tests.tui.test_online_too_slow import _snapshot, _until
from tests.tui.test_table_words import SIZE, _hotseat, _vs_bots, shown
from textual.widgets import Input, Static
from typer.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from blink.cards import parse_card
from blink.cli import app as blink_app
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.online import OnlineTable, Seat, prepare, room_title
from blink.games.classic.tui.table import Stage
from blink.games.goblink.tui.app import GoBlinkApp
from blink.games.goblink.tui.driver import GoTable
from blink.tui.i18n import card_name, set_language
from blink.tui.screens import HelpScreen

CODE = re.compile(r"\b[1-5][ROYGBP][MPSWFL]\b")
"""A card in notation ("5OS"), which people should not have to read."""

WORDS = {
    "en": {"pile": "pile 1", "footer": "?: help", "go": "Go!", "hand": "in hand", "you": "You"},
    "es": {"pile": "montón 1", "footer": "?: ayuda", "go": "¡Ya!", "hand": "mano", "you": "Tú"},
}


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_table_against_bots_in_each_language(lang: str) -> None:
    set_language(lang)
    app = _vs_bots(2, countdown=0.0)
    words = WORDS[lang]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = shown(app, "#status")
        assert words["go"] in status, status
        assert words["pile"] in shown(app, "#piles")
        assert words["footer"] in shown(app, "#footer")
        assert words["hand"] in shown(app, "#opponents")
        assert shown(app, "#hands").startswith(words["you"])
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = str(app.screen.query_one("#help", Static).render())
        assert ("keys" if lang == "en" else "teclas") in help_text
        if lang == "es":
            english = ("pile", "draw", "help", "quit", "Press", "keys", "play that")
            screen = help_text + status + shown(app, "#piles") + shown(app, "#footer")
            screen += shown(app, "#opponents") + shown(app, "#hands")
            assert [w for w in english if re.search(rf"\b{w}\b", screen)] == []


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_a_refusal_is_said_in_each_language_with_cards_in_words(lang: str) -> None:
    # Seed 8: Left's W fits neither pile: the engine refuses it.
    set_language(lang)
    app = _hotseat(8)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.table.view(0)
        assert view is not None
        card = view.hand[1]
        await pilot.press("w")
        await pilot.pause()
        message = shown(app, "#message")
        expected = (
            "has no colour, shape or count in common with"
            if lang == "en"
            else "no tiene color, forma ni cantidad en común con"
        )
        assert expected in message, message
        assert card_name(card).lower() in message.lower()
        assert CODE.search(message) is None, message
        for pile in app.router.sides(view.players, 0):
            top = view.tops[pile]
            assert top is not None and card_name(top) in message, message
            assert f"{'pile' if lang == 'en' else 'montón'} {pile + 1}" in message, message


async def _refusing_server(refusal: dict[str, Any], sent: list[dict[str, Any]]) -> Any:
    async def script(ws: ServerConnection) -> None:
        await ws.recv()  # hello
        welcome = {"type": "welcome", "protocol": 1, "room": "ABC", "seat": 1, "name": "Ann"}
        await ws.send(json.dumps(welcome))
        await ws.send(json.dumps(_snapshot()))
        async for frame in ws:
            msg = json.loads(frame)
            if msg["type"] in ("play", "choose"):
                sent.append(msg)
                await ws.send(json.dumps({"type": "refused", "id": msg["id"], **refusal}))

    return serve(script, "127.0.0.1", 0)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "Three blue waters has no colour, shape or count in common with two yellow "
            "pyramids on pile 2",
        ),
        (
            "es",
            "Tres aguas azules no tiene color, forma ni cantidad en común con dos pirámides "
            "amarillas (en el montón 2)",
        ),
    ],
)
async def test_an_online_refusal_names_the_cards_in_words(lang: str, expected: str) -> None:
    set_language(lang)
    sent: list[dict[str, Any]] = []
    refusal = {
        "code": "no_common_attribute",
        "message": "3BW (three blue waters) shares no colour, shape or count with 2YP on pile 1",
    }
    async with await _refusing_server(refusal, sent) as server:
        port = server.sockets[0].getsockname()[1]
        table = OnlineTable(Seat(f"http://127.0.0.1:{port}", "ABC", 1, "tok"), name="Ann")
        await table.start()
        try:
            await asyncio.wait_for(table.connected.wait(), 10)
            await _until(lambda: table.view(1) is not None)
            table.play(1, parse_card("3BW"), 1)
            notices: list[str] = []

            def refused() -> bool:
                notices.extend(n.text for n in table.notices() if n.refused)
                return bool(notices)

            await _until(refused)
            assert notices == [expected]
            assert sent[0]["card"] == "3BW"
        finally:
            await table.close()


async def test_an_online_refusal_of_another_code_in_spanish() -> None:
    set_language("es")
    sent: list[dict[str, Any]] = []
    refusal = {"code": "choice_awaited", "message": "the game is stalled: choose a hand card"}
    async with await _refusing_server(refusal, sent) as server:
        port = server.sockets[0].getsockname()[1]
        table = OnlineTable(Seat(f"http://127.0.0.1:{port}", "ABC", 1, "tok"), name="Ann")
        await table.start()
        try:
            await asyncio.wait_for(table.connected.wait(), 10)
            await _until(lambda: table.view(1) is not None)
            table.choose(1, parse_card("1RM"))
            notices: list[str] = []

            def refused() -> bool:
                notices.extend(n.text for n in table.notices() if n.refused)
                return bool(notices)

            await _until(refused)
            assert notices == ["Juego detenido: escoge una carta de la mano para poner"]
        finally:
            await table.close()


async def test_go_blink_in_spanish_names_cards_in_words() -> None:
    set_language("es")
    table = GoTable(players=3, humans=(0,), bots=("greedy", "memory"), seed=12)
    assert table.names[0] == "Tú"
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        game = table.game
        for _ in range(40):
            await _until(lambda: game.over or game.current == 0)
            await pilot.pause()
            if game.over or len(game.events) > 60:
                break
            status = str(app.query_one("#status", Static).render())
            assert "Tu turno" in status and "mazo" in status, status
            hint = table.hint(0)
            from blink.games.goblink.tui.app import _command_for

            command = _command_for(hint, table, 0).split("  (")[0]
            assert command.split()[0] in ("pedir", "bajar", "terminar"), command
            box = app.query_one("#command", Input)
            box.focus()
            box.value = command
            await pilot.press("enter")
            await pilot.pause()
            assert "[!]" not in str(app.query_one("#prompt", Static).render())
        log = table.log_lines()
        assert any(" pide " in line or line.startswith("Pides ") for line in log), log
        assert any(line.startswith("-- Turno de") for line in log), log
        assert [line for line in log if CODE.search(line)] == []
        # Cards given to or by the person at the screen are shown, in words.
        mine = [line for line in log if line.startswith("Pasas ") or " te pasa " in line]
        assert all(": " in line for line in mine), mine


def _run(args: list[str], env: dict[str, str | None] | None = None) -> tuple[int, str]:
    base = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "C.UTF-8"}
    result = CliRunner().invoke(blink_app, args, env={**base, **(env or {})})
    return result.exit_code, result.stderr


def test_lang_chooses_the_language_of_the_command() -> None:
    assert _run(["play", "--best-of", "2"]) == (
        2,
        "blink play: --best-of must be a positive odd number, not 2\n",
    )
    code, err = _run(["play", "--best-of", "2", "--lang", "es"])
    assert (code, err) == (2, "blink play: --best-of debe ser impar y positivo, no 2\n")
    # Without --lang, from the environment (LANGUAGE first).
    assert "impar" in _run(["play", "--best-of", "2"], {"LANG": "es_ES.UTF-8"})[1]
    assert "impar" in _run(["play", "--best-of", "2"], {"LANGUAGE": "es", "LANG": "en_GB"})[1]
    code, err = _run(["play", "--lang", "fr"])
    assert code == 2 and err == "blink play: unknown language 'fr': choose en or es\n"
    code, err = _run(["goblink", "play", "--players", "9", "--lang", "es"])
    assert code == 2 and "--players debe ser" in err, err
    # The trained bot plays the two-player games it was trained on: refused at three.
    code, err = _run(["play", "--players", "3", "--level", "trained", "--lang", "es"])
    assert (code, err) == (2, "blink play: este bot solo juega partidas de 2 jugadores\n")
    code, err = _run(["play", "--players", "3", "--level", "trained"])
    assert (code, err) == (2, "blink play: the trained bot plays 2-player games only, not 3\n")


def test_bots_are_named_in_each_language() -> None:
    from blink.games.classic.bots import LEVELS, STRATEGIES, BotSpec
    from blink.games.classic.cli.play import bot_title

    specs = [
        BotSpec(level, strategy)
        for level in LEVELS
        for strategy in STRATEGIES
        if not LEVELS[level].policy or strategy == "first"  # a policy takes no strategy
    ]
    assert [bot_title(s) for s in specs] == [s.display_name for s in specs]
    set_language("es")
    assert bot_title(BotSpec("expert", "blocker")) == "Bot experto bloqueador"
    assert bot_title(BotSpec("skilled", "first")) == "Bot hábil"
    assert bot_title(BotSpec("champion", "random", 2.0)) == "Bot campeón al azar ×2"
    assert bot_title(BotSpec("trained")) == "Bot entrenado"
    table = GoTable(players=4, humans=(0,), bots=("random", "greedy", "memory"), seed=1)
    assert table.names == ["Tú", "Bot Azar 2", "Bot Codicioso 3", "Bot Memorión 4"]
    table = GoTable(players=2, humans=(0,), bots=("master",), seed=1)
    assert table.names == ["Tú", "Bot Maestro 2"]


async def test_go_blink_footer_and_pass_screen_in_spanish() -> None:
    set_language("es")
    table = GoTable(players=2, humans=(0, 1), bots=(), seed=3)
    app = GoBlinkApp(table, bot_delay=0)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        footer = " ".join(str(k.render()) for k in app.query("FooterKey"))
        assert "Salir" in footer and "Quit" not in footer, footer
        from blink.games.goblink.tui.app import PassScreen

        await _until(lambda: isinstance(app.screen, PassScreen))
        message = str(app.screen.query_one("#pass-message", Static).render())
        assert message.startswith("Pasa el turno a Jugador ") and "Intro" in message
        footer = " ".join(str(k.render()) for k in app.screen.query("FooterKey"))
        assert "Estoy listo" in footer or footer == "", footer


async def test_a_real_server_refusal_in_spanish(server_url: str) -> None:
    # Two people's seats: this client's, and one that connects and never plays (so the
    # piles change only by this client's plays).
    set_language("es")
    created = httpx.post(
        f"{server_url}/api/rooms", json={"players": 2, "name": "Web"}, timeout=10
    ).json()
    code = created["code"]
    seat = prepare(server_url, join=code, name="Term")
    table = OnlineTable(seat, name="Term")
    app = BlinkApp(table, title=room_title(code, seat.seat))
    async with connect(server_url.replace("http", "ws") + f"/ws/{code}") as other:
        hello = {"type": "hello", "protocol": 1, "room": code, "token": created["token"]}
        await other.send(json.dumps(hello))
        async with app.run_test(size=SIZE) as pilot:
            assert shown(app, "#header").endswith(f"sala {code} · puesto 2")
            await wait_for(pilot, lambda: stage(app) is Stage.PLAYING, timeout=30)
            view = table.view(1)
            assert view is not None
            fits = {(p.card, p.pile) for p in view.legal_plays()}
            wrong = [(c, p) for c in view.hand for p in (0, 1) if (c, p) not in fits]
            assert wrong, "the deal has no card that misses a pile"
            card, pile = wrong[0]
            table.play(1, card, pile)
            await wait_for(pilot, lambda: "en común" in shown(app, "#message"))
            message = shown(app, "#message")
            top = view.tops[pile]
            assert top is not None
            assert message == (
                f"{card_name(card).capitalize()} no tiene color, forma ni cantidad en común con "
                f"{card_name(top)} (en el montón {pile + 1})"
            )
            assert CODE.search(message) is None
            assert "Sala " + code in table.status().info


def test_go_blink_takes_values_in_spanish_and_english() -> None:
    from blink.cards import Color, Shape
    from blink.games.goblink.tui.driver import CommandError, parse_value_words, value_words

    said = {
        "azul": Color.BLUE,
        "azules": Color.BLUE,
        "Amarilla": Color.YELLOW,
        "morados": Color.PURPLE,
        "luna": Shape.MOON,
        "pirámides": Shape.PYRAMID,
        "rayo": Shape.LIGHTNING,
        "cuatros": 4,
        "uno": 1,
        "3": 3,
        "yellow": Color.YELLOW,
        "stars": Shape.STAR,
        "fives": 5,
    }
    assert {word: parse_value_words(word) for word in said} == said
    with pytest.raises(CommandError, match="colour, shape or count"):
        parse_value_words("azulado")
    set_language("es")
    with pytest.raises(CommandError, match="no es un color"):
        parse_value_words("azulado")
    assert [value_words(v) for v in (Color.ORANGE, Shape.WATER, 2)] == [
        "naranjas",
        "aguas",
        "doses",
    ]
    # Every value the browser names is read back from its own word.
    for value in [*Color, *Shape, 1, 2, 3, 4, 5]:
        assert parse_value_words(value_words(value)) == value


@pytest.mark.parametrize(
    ("args", "english", "spanish"),
    [
        (["--ruleset", "speedy"], "unknown ruleset", "no hay reglas 'speedy'"),
        (["--handicap", "99"], "draw pile", "nivelación '99'"),
        (["--bot", "nope"], "unknown bot level", "nivel de bot desconocido"),
        (["--level", "expert", "--strategy", "zigzag"], "unknown bot strategy", "estrategia"),
        (["--bot", "a:b:c"], "level:strategy", "nivel:estrategia"),
    ],
)
def test_option_refusals_in_each_language(args: list[str], english: str, spanish: str) -> None:
    code, err = _run(["play", *args])
    assert code == 2 and english in err, err
    code, err = _run(["play", *args, "--lang", "es"])
    assert code == 2 and spanish in err, err


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_colour_letters_in_each_language(lang: str) -> None:
    from blink.games.classic.tui.table import LocalTable, ManualClock

    set_language(lang)
    letters = dict(zip("ROYGBP", "RNAVZM" if lang == "es" else "ROYGBP", strict=True))
    table = LocalTable(players=2, humans=(0, 1), seed=8, clock=ManualClock(), countdown=0.0)
    app = BlinkApp(table, colorblind=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hands = shown(app, "#hands")
        for seat in (0, 1):
            view = table.view(seat)
            assert view is not None
            for card in view.hand:
                assert f"{card.count} {letters[card.color.letter]}" in hands, (card, hands)


@pytest.mark.parametrize(("lang", "word"), [("en", "Rating"), ("es", "Puntuación")])
def test_rating_changes_in_each_language(lang: str, word: str) -> None:
    from blink.games.classic.tui.table import RatingLine
    from blink.games.classic.tui.widgets import ratings_text

    set_language(lang)
    lines = (RatingLine(0, 0.0, 1.26, 1.26), RatingLine(1, 3.0, -0.04, -3.04))
    assert (
        ratings_text(lines, ["Ana", "Bea"])
        == f"{word}: Ana 0.0 → 1.3 (+1.3) · Bea 3.0 → 0.0 (−3.0)"
    )
