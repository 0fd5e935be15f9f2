"""The `blink tournament` commands, the organiser's file, bot tournaments and printed brackets."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from blink.cli import app
from blink.cli.tournament import BotPlayer, parse_bot_player, random_field, run_bots
from blink.cli.tournament.bots import _run_live
from blink.games.classic.record import loads
from blink.tournament import Entrant, NotInMatchError, Tournament
from blink.tournament.bracket import layout, render_html, render_png
from blink.tournament.organiser import OrganiserError, load, parse_player, save, update

from .helpers import oracle, ranked

runner = CliRunner()


def blink(*args: str | Path) -> tuple[int, str, str]:
    r = runner.invoke(app, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


# ----------------------------------------------------------------- organiser files


def test_parse_player() -> None:
    assert parse_player("Ann") == Entrant("Ann")
    assert parse_player("Ann:1") == Entrant("Ann", rank=1)
    assert parse_player(" Bo@31.5 ") == Entrant("Bo", rating=31.5)
    for bad in ("Ann:x", "Ann:-1", "Bo@fast", ":1", "   "):
        with pytest.raises(ValueError):
            parse_player(bad)


def test_save_is_atomic_and_refused_changes_leave_the_file(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    t = Tournament.create(ranked(6))
    save(t, f)
    update(f, lambda t: t.draw(5))
    before = f.read_bytes()
    with pytest.raises(NotInMatchError):
        update(f, lambda t: t.record_game("R1-1", "Nobody"))
    assert f.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".t.json.lock", "t.json"]  # no temp
    assert load(f).to_dict() == json.loads(before)
    f.write_text('{"format": "blink-tournament", "version": 1, "players": []}')
    with pytest.raises(OrganiserError):
        load(f)


# ----------------------------------------------------------------- real cards from the CLI


def test_real_cards_tournament_from_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "club.json"
    players = ["Ann:1", "Bo", "Cy@31.5", "Di", "Ed@20"]
    code, out, _ = blink("tournament", "new", f, *[x for p in players for x in ("--player", p)])
    assert code == 0 and "1 bye" in out
    code, out, _ = blink("tournament", "draw", f, "--seed", "42")
    assert code == 0 and "bye: Ann" in out and "R1-1" in out
    t = load(f)
    assert t.draw_record is not None and t.draw_record.seed == 42
    guard = 0
    while not t.finished:
        m = t.ready_matches()[0]
        winners = oracle(m)
        args = ["--tie"] if len(winners) > 1 else ["--game-winner", winners[0].lower()]
        code, out, err = blink("tournament", "result", f, "--match", m.id.lower(), *args)
        assert code == 0, err
        t = load(f)
        guard += 1
        assert guard < 300
    assert "Champion" in out
    code, out, _ = blink("tournament", "show", f)
    assert code == 0 and "Standings" in out and t.champion in out
    code, out, _ = blink("tournament", "export", f, "--json")
    assert code == 0 and json.loads(out)["champion"] == t.champion
    png, page = tmp_path / "b.png", tmp_path / "b.html"
    code, out, _ = blink("tournament", "bracket", f, "--png", png, "--html", page)
    assert code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in page.read_text() and t.champion in page.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["result", "{f}", "--match", "R9-9", "--game-winner", "Ann"], "no match"),
        (["result", "{f}", "--match", "R1-1", "--game-winner", "Zed"], "does not play"),
        (["result", "{f}", "--match", "F1-2", "--game-winner", "Ann"], "cannot start yet"),
        (["result", "{f}", "--match", "R1-1"], "exactly one of"),
        (["result", "{f}", "--match", "R1-1", "--undo"], "no game to take back"),
        (["draw", "{f}"], "already been made"),
        (["new", "{f}", "--player", "A", "--player", "B"], "already exists"),
        (["show", "{missing}"], "no such tournament file"),
        (["show", "{bad}"], "not valid JSON"),
        (["new", "{new}", "--player", "A", "--player", "a"], "already a player"),
        (["new", "{new}", "--player", "A"], "2 to 64"),
        (["new", "{new}", "--player", "A:x", "--player", "B"], "whole number"),
        (["bracket", "{f}"], "--png"),
        (["bots"], "--field"),
        (["bots", "--field", "1"], "2 to 64"),
        (["bots", "--player", "Ann=wizard", "--player", "Bo"], "unknown bot level"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    f = tmp_path / "club.json"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert (
        blink(
            "tournament", "new", f, "-p", "Ann:1", "-p", "Bo", "-p", "Cy", "-p", "Di", "-p", "Ed"
        )[0]
        == 0
    )
    assert blink("tournament", "draw", f, "--seed", "1")[0] == 0
    before = f.read_bytes()
    paths = {"f": f, "missing": tmp_path / "none.json", "bad": bad, "new": tmp_path / "n.json"}
    code, _out, err = blink("tournament", *[a.format(**paths) for a in args])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert f.read_bytes() == before


# ----------------------------------------------------------------- bot tournaments


def test_bot_tournament_is_reproducible_and_saves_records(tmp_path: Path) -> None:
    players = [
        parse_bot_player(p)
        for p in (
            "Ann=champion:blocker",
            "Bo=beginner:random",
            "Cy=expert",
            "Di=skilled:first",
            "Ed=casual:flexible",
        )
    ]
    run = run_bots(players, seed=11, records=tmp_path / "rec")
    again = run_bots(players, seed=11)

    def winners(t: Tournament) -> list[tuple[str, tuple[str, ...]]]:
        return [(m.id, g.winners) for m in t.matches() for g in m.games]

    assert winners(run.tournament) == winners(again.tournament)
    t = run.tournament
    assert t.finished and t.champion in {p.name for p in players}
    assert t.draw_record is not None and t.draw_record.byes == ("Ann",)  # the strongest bot
    assert len(run.records) == run.games == sum(len(m.games) for m in t.matches())
    for path in run.records[:5]:
        rec = loads(Path(path).read_text())
        rec.verify()  # type: ignore[union-attr]
    # every game's reference points at its record
    refs = [g.ref for m in t.matches() for g in m.games]
    assert sorted(r for r in refs if r) == sorted(run.records)


def test_bot_tournament_json_from_the_command_line(tmp_path: Path) -> None:
    save_to = tmp_path / "bots.json"
    code, out, err = blink(
        "tournament",
        "bots",
        "--field",
        "7",
        "--seed",
        "3",
        "--json",
        "--balanced",
        "--save",
        save_to,
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["finished"] and data["champion"] in data["bots"]
    assert len(data["bots"]) == 7 and data["plan"]["byes"] == 1
    assert load(save_to).champion == data["champion"]
    code, out, _ = blink(
        "tournament",
        "run",
        "--player",
        "Ann=expert",
        "--player",
        "Bo=beginner",
        "--seed",
        "1",
        "--delay",
        "0",
    )
    assert code == 0 and "Champion" in out


def test_random_field_is_reproducible() -> None:
    assert random_field(12, 5) == random_field(12, 5)
    assert random_field(12, 5) != random_field(12, 6)
    assert len({p.name for p in random_field(64, 1)}) == 64


# ----------------------------------------------------------------- printed brackets


@pytest.mark.parametrize("n", [2, 3, 4, 5, 9, 13, 17, 33, 64])
@pytest.mark.parametrize("played", [0, 25, 10_000])
def test_brackets_render_for_any_state(n: int, played: int) -> None:
    t = Tournament.create(ranked(n), name="Cup <&>")
    t.draw(seed=n)
    for _ in range(played):
        if t.finished:
            break
        m = t.ready_matches()[0]
        t.record_game(m.id, oracle(m))
    page = render_html(t)
    assert "Cup &lt;&amp;&gt;" in page and "Standings" in page
    for e in t.entrants:
        assert e.name in page
    lay = layout(t)
    if t.plan.rounds:
        assert len([b for b in lay.boxes if b.x == 0]) == t.plan.fields[1]
    if played == 0 and n in (3, 17):
        png = render_png(t, dpi=60)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_leaderboard(tmp_path: Path) -> None:
    from blink.ratings import RatingTable

    table = RatingTable()
    table.record(["Ann", "Bo"], ["Ann"])
    f = tmp_path / "r.json"
    f.write_text(json.dumps(table.to_dict()))
    code, out, _ = blink("leaderboard", "--ratings", f, "--json")
    assert code == 0 and [x["name"] for x in json.loads(out)] == ["Ann", "Bo"]
    code, out, _ = blink("leaderboard", "--ratings", f)
    assert code == 0 and "Leaderboard" in out
    assert blink("leaderboard", "--ratings", tmp_path / "none.json")[0] == 2


def test_handicap_from_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "h.json"
    assert (
        blink(
            "tournament",
            "new",
            f,
            "-p",
            "Ann@60",
            "-p",
            "Bo@20",
            "-p",
            "Cy@60",
            "-p",
            "Di@20",
            "-p",
            "Ed@40",
            "-p",
            "Fay@40",
        )[0]
        == 0
    )
    assert blink("tournament", "draw", f, "--seed", "3")[0] == 0
    t = load(f)
    m = t.match("R1-1")
    code, out, err = blink("tournament", "handicap", f, "--match", "R1-1", "--sizes", "35:25")
    assert code == 0, err
    assert load(f).match("R1-1").handicap == ((m.players[0], 35), (m.players[1], 25))
    code, _, err = blink("tournament", "handicap", f, "--match", "R1-1", "--sizes", "59:1")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert blink("tournament", "handicap", f, "--match", "R1-1", "--clear")[0] == 0
    assert load(f).match("R1-1").handicap is None
    g = tmp_path / "two.json"
    assert blink("tournament", "new", g, "-p", "Ann@40", "-p", "Bo@20")[0] == 0
    assert blink("tournament", "draw", g, "--seed", "1")[0] == 0
    code, out, err = blink("tournament", "show", g)
    assert code == 0 and "balanced play for F1-2" in out
    code, _, err = blink("tournament", "handicap", g, "--match", "F1-2", "--suggest")
    assert code == 0, err
    assert dict(load(g).match("F1-2").handicap or ())["Ann"] > 30


def test_add_and_remove_players_before_the_draw(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    assert blink("tournament", "new", f, "-p", "Ann", "-p", "Bo")[0] == 0
    code, out, _ = blink("tournament", "add", f, "-p", "Cy:1", "-p", "Di@30")
    assert code == 0 and "4 players" in out
    assert [e.name for e in load(f).entrants] == ["Ann", "Bo", "Cy", "Di"]
    assert blink("tournament", "remove", f, "-p", "bo")[0] == 0
    assert [e.name for e in load(f).entrants] == ["Ann", "Cy", "Di"]
    code, _, err = blink("tournament", "add", f, "-p", "ann")
    assert code == 2 and "already a player" in err
    code, _, err = blink("tournament", "remove", f, "-p", "Zed")
    assert code == 2 and "no player called" in err
    assert blink("tournament", "draw", f, "--seed", "1")[0] == 0
    code, _, err = blink("tournament", "add", f, "-p", "Late")
    assert code == 2 and "after the draw" in err


def test_rate_a_tournament_into_a_ratings_file(tmp_path: Path) -> None:
    from blink.ratings import RatingTable

    f, r = tmp_path / "t.json", tmp_path / "ratings.json"
    assert blink("tournament", "new", f, "-p", "Ann", "-p", "Bo", "-p", "Cy")[0] == 0
    assert blink("tournament", "draw", f, "--seed", "1")[0] == 0
    for _ in range(3):
        assert blink("tournament", "result", f, "--match", "F1-2", "-w", "Ann")[0] == 0
    code, out, _ = blink("tournament", "rate", f, "--ratings", r)
    assert code == 0 and "Rated 3 new games" in out
    table = RatingTable.from_dict(json.loads(r.read_text()))
    assert table.games == {"Ann": 3, "Bo": 3}
    assert table.get("Ann").mu > table.get("Bo").mu
    code, out, _ = blink("tournament", "rate", f, "--ratings", r)
    assert code == 0 and "Rated 0 new games" in out  # nothing counted twice
    assert blink("tournament", "result", f, "--match", "F1-3", "--tie")[0] == 0
    code, out, _ = blink("tournament", "rate", f, "--ratings", r)
    assert "Rated 1 new game " in out
    code, out, _ = blink("leaderboard", "--ratings", r, "--json")
    assert json.loads(out)[0]["name"] == "Ann"


def test_simultaneous_results_all_count(tmp_path: Path) -> None:
    import threading

    f = tmp_path / "t.json"
    t = Tournament.create(ranked(16))
    t.draw(seed=4)
    save(t, f)
    firsts = [(m.id, m.players[0]) for m in t.ready_matches()]  # 8 first-round pairings

    def enter(mid: str, winner: str) -> None:
        update(f, lambda t: t.record_game(mid, winner))

    threads = [threading.Thread(target=enter, args=x) for x in firsts * 2]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    t = load(f)
    assert all(t.match(mid).winner == w for mid, w in firsts)


def _live_field() -> list[BotPlayer]:
    specs = ("champion:blocker", "beginner:random", "expert", "skilled", "casual:flexible")
    return [parse_bot_player(f"{n}={s}") for n, s in zip("ABCDE", specs, strict=True)]


def test_live_bracket_takes_the_screen_and_leaves_one_bracket_behind() -> None:
    # An 80x24 terminal: every redraw goes to the alternate screen, cropped to 24 lines; once
    # it closes, the final bracket and the champion are printed once, in the scrollback.
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, height=24, color_system=None)
    run = _run_live(_live_field(), 5, "Cup", None, False, 0.0, console=console)
    text = out.getvalue()
    enter, leave = "\x1b[?1049h", "\x1b[?1049l"
    assert text.count(enter) == 1 and text.count(leave) == 1
    inside, after = text.split(leave)
    frames = inside.split(enter)[1].split("\x1b[H")  # each redraw starts from the top left
    drawn = [f for f in frames if "Cup" in f]
    assert len(drawn) >= run.games
    assert all(len(f.rstrip("\n").split("\n")) <= 24 for f in drawn)
    assert after.count("Cup · 5 players") == 1
    assert "Champion: " in after and f"{run.tournament.champion}" in after
    assert "Expert bot" in after and "expert:first" not in after  # bots by name


def test_live_bracket_off_a_terminal_prints_only_the_result() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=80)
    _run_live(_live_field(), 5, "Cup", None, False, 0.0, console=console)
    text = out.getvalue()
    assert "\x1b[" not in text
    assert text.count("Cup · 5 players") == 1 and text.count("Champion: ") == 1


# ----------------------------------------------------------------- withdrawals, corrections


def test_withdraw_forfeit_correct_and_check_in_from_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "club.json"
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]
    code, _, err = blink("tournament", "new", f, *[x for n in names for x in ("-p", n)])
    assert code == 0, err
    code, out, err = blink("tournament", "check-in", f, "--open", "-p", "Ann", "-p", "Bo")
    assert code == 0, err
    assert "2 of 6 checked in" in out
    for n in ("Cy", "Di", "Ed"):
        assert blink("tournament", "check-in", f, "-p", n)[0] == 0
    code, _, err = blink("tournament", "draw", f, "--seed", "3")
    assert code == 0, err
    t = load(f)
    assert [e.name for e in t.entrants] == ["Ann", "Bo", "Cy", "Di", "Ed"]
    m = t.ready_matches()[0]
    a, b = (p or "" for p in m.players)
    assert blink("tournament", "result", f, "-m", m.id, "-w", a)[0] == 0
    code, out, err = blink(
        "tournament", "correct", f, "-m", m.id, "--game", "1", "-w", b, "--by", "Maria"
    )
    assert code == 0, err
    assert f"Maria: game 1 of {m.id} corrected: {a} -> {b}" in out
    code, out, err = blink("tournament", "withdraw", f, "-p", b, "--note", "ill")
    assert code == 0, err
    assert f"organiser: {b} withdrew (ill)" in out
    assert load(f).match(m.id).winner == a
    code, _, err = blink("tournament", "withdraw", f, "-p", b)
    assert code == 2 and "already withdrawn" in err
    other = next(
        x for x in load(f).ready_matches() if x.id != m.id and x.kind.value == "elimination"
    )
    code, out, err = blink("tournament", "forfeit", f, "-m", other.id, "-p", other.players[0] or "")
    assert code == 0, err
    assert load(f).match(other.id).walkover
    code, out, _ = blink("tournament", "changes", f)
    kinds = ["not checked in at the draw: Flo", "corrected", "withdrew", "forfeited"]
    lines = out.strip().splitlines()
    assert len(lines) == 4 and all(k in line for k, line in zip(kinds, lines, strict=True))
    code, out, _ = blink("tournament", "show", f)
    assert code == 0 and "walkover to" in out
