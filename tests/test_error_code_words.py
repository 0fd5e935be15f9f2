"""Every error code the server can send has words in both clients, in English and Spanish.

The codes come from the server: the WebSocket's (docs/protocol.md's "Error codes" table, which
the server's own refusals in the source must all be in, and each game's engine codes) and the
REST API's (every `ApiError` and `ProfileError` the server raises). The browser says a
WebSocket code with `r_<code>` (classic's table, `i18n.js`) or `err_<code>` (Go Blink's table,
`strings.js`), a REST code with `e_<code>`; the terminal with its catalog's sentences
(`blink.tui.render.REFUSALS`, Go Blink's `GO_REFUSALS` for its engine's codes), translated.
"""

from __future__ import annotations

import re
from pathlib import Path

from blink.games.classic.actions import Reason as ClassicReason
from blink.games.goblink.actions import Reason as GoReason
from blink.games.goblink.tui.driver import GO_REFUSALS
from blink.tui import i18n
from blink.tui.render import REFUSALS, refusal_sentence
from test_i18n_glossary import TABLES, _table

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "src/blink/server"
TABLE_MODULES = sorted((ROOT / "src/blink/games").glob("*/table.py"))
# Codes that are never sent (a repeated id gets its first answer again).
NEVER_SENT = {"duplicate_id"}
# The ways the server's source names a code it sends on the WebSocket.
WS_SOURCE = re.compile(
    r"\b(?:ProtocolError|Refusal|BadMessage|ErrorFrame|error|refuse)\(\s*"
    r"(?:code=)?(?:[\w.]+,\s*)?\"([a-z]+(?:_[a-z]+)+)\""
)
REST_SOURCE = re.compile(
    r"\b(?:ApiError|ProfileError|ChallengeError)\(\s*\d+,\s*\"([a-z]+(?:[_-][a-z]+)*)\""
)


def _protocol() -> str:
    return (ROOT / "docs/protocol.md").read_text(encoding="utf-8")


def _documented() -> set[str]:
    text = _protocol()
    section = text[text.index("### Error codes") :]
    section = section[: section.index("\n### ", 4)]
    return {m[1] for m in re.finditer(r"^\| `(\w+)` \|", section, flags=re.M)} - NEVER_SENT


def _queue_codes() -> set[str]:
    """The quick play queue's codes, listed in its section of docs/protocol.md."""
    text = _protocol()
    start = text.index("Error codes: `join_required`")
    sentence = text[start : text.index("[security]", start)]
    return set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", sentence))


def _in_source(pattern: re.Pattern[str], paths: list[Path]) -> set[str]:
    return {m[1] for p in paths for m in pattern.finditer(p.read_text(encoding="utf-8"))}


def _server_files() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def ws_codes() -> set[str]:
    """What the server may send in a room's `error` or `refused`, outside a game's engine."""
    return _documented()


def rest_codes() -> set[str]:
    """What a REST answer or the queue's WebSocket may say: the server's `ApiError` and
    `ProfileError`, the queue's codes, and a game table's refusals of a room's options (its
    bots), which the server passes on."""
    tables = _in_source(WS_SOURCE, TABLE_MODULES) - ws_codes()
    return _in_source(REST_SOURCE, _server_files()) | _queue_codes() | tables


def _browser(name: str) -> dict[str, dict[str, str]]:
    return _table(*TABLES[name])


def _classic() -> dict[str, dict[str, str]]:
    names = (
        "i18n.js",
        "strings-daily.js",
        "strings-app.js",
        "strings-errors.js",
        "strings-account.js",
    )
    tables = [_browser(n) for n in names]
    return {lang: {k: v for t in tables for k, v in t[lang].items()} for lang in ("en", "es")}


def test_the_codes_are_found() -> None:
    assert {"bad_json", "rate_limited", "paused", "too_slow", "bad_value"} <= ws_codes()
    assert {"no_such_room", "name_taken", "room_full", "already_queued", "bad_bot"} <= rest_codes()


def test_every_code_the_server_sends_is_documented() -> None:
    sent = _in_source(WS_SOURCE, _server_files() + TABLE_MODULES)
    assert sent - ws_codes() - rest_codes() == set(), "codes sent but not in docs/protocol.md"


def _missing(strings: dict[str, dict[str, str]], keys: dict[str, str]) -> list[str]:
    return sorted(
        f"{code} ({lang}: {key})"
        for code, key in keys.items()
        for lang in ("en", "es")
        if not strings[lang].get(key)
    )


def test_the_classic_table_words_every_code() -> None:
    codes = ws_codes() | {r.value for r in ClassicReason}
    assert _missing(_classic(), {c: f"r_{c}" for c in codes}) == []


def test_go_blinks_table_words_every_code() -> None:
    """Go Blink's table says its own `err_<code>`, else the words every room's code has."""
    go, shared = _browser("strings.js"), _classic()
    codes = ws_codes() | {r.value for r in GoReason}
    missing = [
        f"{code} ({lang})"
        for code in sorted(codes)
        for lang in ("en", "es")
        if not go[lang].get(f"err_{code}") and not shared[lang].get(f"r_{code}")
    ]
    assert missing == []


def test_the_pages_word_every_rest_code() -> None:
    keys = {c: "e_" + c.replace("-", "_") for c in rest_codes()}
    assert _missing(_classic(), keys) == []


def test_the_terminal_words_every_code() -> None:
    classic = ws_codes() | {r.value for r in ClassicReason}
    assert sorted(classic - set(REFUSALS)) == []
    assert sorted({r.value for r in GoReason} - set(GO_REFUSALS)) == []
    previous = i18n.language()
    try:
        said = {}
        for lang in ("en", "es"):
            i18n.set_language(lang)
            said[lang] = {code: refusal_sentence(code) for code in classic}
        for code in sorted(classic):  # in Spanish, not the English left as it was
            assert code not in said["es"][code] and said["es"][code] != said["en"][code], code
    finally:
        i18n.set_language(previous)


def test_the_error_words_repeat_no_key() -> None:
    """strings-errors.js is merged over i18n.js's tables: a key in both would change a word."""
    errors = set(_browser("strings-errors.js")["en"])
    for name in ("i18n.js", "strings-daily.js", "strings-app.js", "strings-account.js"):
        assert errors & set(_browser(name)["en"]) == set(), name
