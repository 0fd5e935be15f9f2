"""Quick chat over real WebSockets: a player's phrase reaches the room, spectators only read,
unknown phrases and haste are refused with their codes."""

from __future__ import annotations

from srvkit import ServerThread, seat_clients


async def test_quick_chat_between_players_and_a_spectator(server: ServerThread) -> None:
    _code, (a, b, watcher), _ = await seat_clients(server, spectators=1)
    for c in (a, b, watcher):
        await c.expect("snapshot")
    await a.send({"type": "chat", "phrase": "well_played"})
    for c in (a, b, watcher):
        said = await c.expect("chat")
        assert said == {"type": "chat", "seat": 0, "phrase": "well_played"}
    # A spectator sees the phrases but says none.
    await watcher.send({"type": "chat", "phrase": "oops"})
    assert (await watcher.expect("error"))["code"] == "not_a_player"
    # Only the fixed phrases: an unknown id is refused by name, and the schema's limits hold.
    await b.send({"type": "chat", "phrase": "hello there"})
    assert (await b.expect("error"))["code"] == "unknown_phrase"
    await b.send({"type": "chat", "phrase": "x" * 33})
    assert (await b.expect("error"))["code"] == "bad_field"
    # Three in a burst (seat 0 said one already), then too fast; the connection stays open.
    for phrase in ("good_game", "rematch"):
        await a.send({"type": "chat", "phrase": phrase})
        assert (await b.expect("chat"))["phrase"] == phrase
    await a.send({"type": "chat", "phrase": "oops"})
    assert (await a.expect("error"))["code"] == "chat_too_fast"
    await b.send({"type": "chat", "phrase": "good_game"})
    assert await a.expect("chat") == {"type": "chat", "seat": 1, "phrase": "good_game"}
    assert not [m for m in watcher.msgs if m.get("type") == "chat" and m["phrase"] == "oops"]
    for c in (a, b, watcher):
        await c.close()
