"""``blink bot play`` says the server's refusals in its own language: every code the server can
send a bot of the default game (a room's WebSocket's, classic Blink's engine's, the REST API's
and the quick play queue's, as tests/test_error_code_words.py finds them) has a Spanish
sentence, a code it does not know shows the server's English sentence, and a real refusal
(the bot's connections all open, its token refused) reaches the terminal in Spanish."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import websockets
from srvkit import TIMEOUT, ServerThread
from test_bot_cli import _bot, _run

from blink.games.classic.actions import Reason
from blink.tui import i18n
from blink.tui.api_errors import API_ERRORS, server_sentence
from test_error_code_words import rest_codes, ws_codes


@pytest.fixture
def spanish() -> Iterator[None]:
    """The process speaks Spanish for the test."""
    previous = i18n.language()
    i18n.set_language("es")
    try:
        yield
    finally:
        i18n.set_language(previous)


def test_every_code_a_bot_can_get_has_a_spanish_sentence(spanish: None) -> None:
    room = ws_codes() | {r.value for r in Reason}
    rest = rest_codes()
    assert {"too_many_connections", "bot_rate_limited", "room_full", "already_queued"} <= (
        room | rest
    )
    assert sorted(rest - set(API_ERRORS)) == []
    english = "the server's english sentence"
    for codes, is_rest in ((room, False), (rest, True)):
        for code in sorted(codes):
            said = server_sentence(code, english, is_rest)
            assert said != english.capitalize() and code not in said, code
            i18n.set_language("en")
            try:
                assert server_sentence(code, english, is_rest) != said, code  # translated
            finally:
                i18n.set_language("es")


def test_an_unknown_code_shows_the_servers_english_sentence(spanish: None) -> None:
    assert server_sentence("brand_new", "something new happened") == "Something new happened"
    assert server_sentence("brand_new", rest=True) == "brand_new"
    # A code both kinds have is said in the words of the kind it came in.
    assert server_sentence("rate_limited") != server_sentence("rate_limited", rest=True)


async def test_the_servers_refusals_reach_the_terminal_in_spanish(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(max_connections_per_bot=1)
    bot = _bot(server, "Ana", "Parlanchin")
    play = ("--server", server.http, "--token", bot["token"], "--opponent", "inhuman:first")
    headers = {"Authorization": f"Bearer {bot['token']}"}
    async with websockets.connect(
        f"{server.ws}", additional_headers=headers, open_timeout=TIMEOUT
    ):  # the bot's one connection, held: the run's own is refused at its handshake
        done = _run(*play, "--lang", "es")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        "blink bot play: Este bot ya tiene abiertas todas sus conexiones (too_many_connections)"
    ), done.stderr
    # A REST refusal: a token that is no bot's.
    done = _run("--server", server.http, "--token", "not-a-token", "--lang", "es")
    assert done.returncode == 2, done.stderr
    assert "La clave de este bot no es válida" in done.stderr, done.stderr
    assert done.stderr.strip().endswith("(bad_bot_token)"), done.stderr
