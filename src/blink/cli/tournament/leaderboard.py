"""``blink leaderboard`` and ``blink profile``: ratings from a ratings file or a blink server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from blink.cli.tournament.common import fail, plural

__all__ = ["leaderboard_cmd", "profile_cmd", "server_board"]


def leaderboard_cmd(
    ratings: Annotated[
        Path | None, typer.Option("--ratings", help="A ratings file (JSON).")
    ] = None,
    server: Annotated[
        str | None,
        typer.Option("--server", help="A blink server's leaderboard (e.g. http://HOST:8000)."),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Show this many players.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show the players with the best ratings: a server's profiles, or a ratings file."""
    if (ratings is None) == (server is None):
        fail("give either --server URL or --ratings FILE")
    if top < 1:
        fail(f"--top must be at least 1, not {top}")
    if server is not None:
        _server_leaderboard(server, top, as_json)
        return
    assert ratings is not None
    _file_leaderboard(ratings, top, as_json)


def _file_leaderboard(ratings: Path, top: int, as_json: bool) -> None:
    """``blink leaderboard --ratings FILE``: the best ``top`` players of a ratings file."""
    from blink.ratings import RatingError, RatingTable

    try:
        table = RatingTable.from_dict(json.loads(ratings.read_text(encoding="utf-8")))
    except FileNotFoundError:
        fail(f"{ratings}: no such ratings file")
    except (json.JSONDecodeError, RatingError) as e:
        fail(f"{ratings}: not a ratings file ({e})")
    board = table.leaderboard()[:top]
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {
                        "name": n,
                        "rating": round(r.ordinal, 2),
                        "mu": r.mu,
                        "sigma": r.sigma,
                        "games": g,
                    }
                    for n, r, g in board
                ],
                indent=2,
            )
        )
        return
    from rich.console import Console
    from rich.table import Table

    tbl = Table(title="Leaderboard")
    for col in ("#", "Player", "Rating", "mu", "sigma", "Games"):
        tbl.add_column(col, justify="left" if col == "Player" else "right")
    for i, (n, r, g) in enumerate(board, 1):
        tbl.add_row(str(i), n, f"{r.ordinal:.1f}", f"{r.mu:.1f}", f"{r.sigma:.2f}", str(g))
    Console().print(tbl)


def profile_cmd(
    server: Annotated[str, typer.Option("--server", help="The server the profile belongs to.")],
    last: Annotated[int, typer.Option("--last", help="Show this many recent games.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show your stored profile on a server: rating, games and the last rated games."""
    _show_profile(server, last, as_json)


def _server_get(server: str, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """GET a JSON object from a blink server; any failure is one line and exit status 2."""
    import httpx

    raw = server.strip()
    if "://" not in raw:
        raw = "http://" + raw
    base = raw.rstrip("/")
    try:
        r = httpx.get(base + path, params=params, timeout=10.0)
    except httpx.HTTPError as e:
        host = base.split("://", 1)[1]
        fail(f"cannot reach the server at {host} ({type(e).__name__})")
    try:
        data = r.json()
    except ValueError:
        data = None
    if r.status_code >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            fail(str(err.get("message")))
        fail(f"the server answered {r.status_code} to {path}")
    if not isinstance(data, dict):
        fail(f"the server sent something other than JSON for {path}")
    return data


def server_board(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A server's ``/api/leaderboard`` answer as rows, players and bots together by rating
    (``ordinal``), best first; bot rows have ``bot: True`` and no rank; then the provisional
    players (no rated game yet: ``provisional: True``, no rank)."""
    from blink.ratings import Rating

    rows: list[dict[str, Any]] = []
    for p in data.get("players", []):
        rows.append(_player_row(p))
    for level, b in (data.get("bots") or {}).items():
        r = Rating(float(b["mu"]), float(b["sigma"]))
        rows.append(
            {
                "rank": None,
                "name": f"bot {level}",
                "rating": round(r.ordinal, 2),
                "mu": r.mu,
                "sigma": r.sigma,
                "bot": True,
            }
        )
    rows.sort(key=lambda x: (-x["rating"], x["bot"]))
    return rows + [_player_row(p) for p in data.get("provisional", [])]


def _player_row(p: dict[str, Any]) -> dict[str, Any]:
    """One profile of a server's leaderboard as a row (``rank`` ``None``: provisional)."""
    r = p.get("rating") or {}
    rank = p.get("rank")
    return {
        "rank": None if rank is None else int(rank),
        "id": str(p["id"]),
        "name": str(p["name"]),
        "rating": round(float(r["ordinal"]), 2),
        "mu": float(r["mu"]),
        "sigma": float(r["sigma"]),
        "games": int(p.get("games", 0)),
        "wins": int(p.get("wins", 0)),
        "bot": False,
        "provisional": rank is None,
    }


def _server_leaderboard(server: str, top: int, as_json: bool) -> None:
    data = _server_get(server, "/api/leaderboard", {"limit": top})
    # The server limits its ranked and its provisional players each: ``top`` players in all.
    players = [x for x in server_board(data) if not x["bot"]][:top]
    rows = [x for x in server_board(data) if x["bot"] or x in players]
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    host = server.strip().split("://", 1)[-1].rstrip("/")
    tbl = Table(
        title=f"Leaderboard · {host}",
        caption="Rating = mu - 3 sigma; bots are fixed; new: no rated game yet, not ranked.",
    )
    for col in ("#", "Player", "Rating", "mu", "sigma", "Games", "Wins"):
        tbl.add_column(col, justify="left" if col == "Player" else "right")
    for x in rows:
        if x["bot"]:
            tbl.add_row(
                "bot",
                x["name"],
                f"{x['rating']:.1f}",
                f"{x['mu']:.1f}",
                f"{x['sigma']:.2f}",
                "–",
                "–",
                style="dim",
            )
        else:
            tbl.add_row(
                "new" if x["rank"] is None else str(x["rank"]),
                escape(x["name"]),
                f"{x['rating']:.1f}",
                f"{x['mu']:.1f}",
                f"{x['sigma']:.2f}",
                str(x["games"]),
                str(x["wins"]),
            )
    if not any(not x["bot"] for x in rows):
        tbl.caption = "No profiles yet. " + str(tbl.caption)
    Console().print(tbl)


def _show_profile(server: str, last: int, as_json: bool) -> None:
    """``blink profile``: the stored profile for ``server`` as the server knows it."""
    from blink import profile_store

    try:
        stored = profile_store.load(server)
    except profile_store.ProfileStoreError as e:
        fail(e.message)
    if stored is None:
        fail(
            f"no profile is stored for {profile_store.server_key(server)}: make one with "
            f"blink play --server {server} --profile NAME"
        )
    data = _server_get(server, f"/api/profiles/{stored.id}")
    history = list(data.get("history", []))[: max(0, last)]
    if as_json:
        out = {k: v for k, v in data.items() if k != "history"}
        out["history"] = history
        out["file"] = str(profile_store.profile_path(server))
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    r = data["rating"]
    console = Console()
    console.print(
        f"[b]{escape(str(data['name']))}[/b] (profile {data['id']} on "
        f"{profile_store.server_key(server)}): rating {r['ordinal']:.1f} "
        f"(mu {r['mu']:.1f}, sigma {r['sigma']:.2f}), "
        f"{plural(int(data['games']), 'rated game')}, {data['wins']} won"
    )
    streak = data.get("daily_streak")
    if isinstance(streak, dict):
        console.print(
            f"Daily challenge: {plural(int(streak['current']), 'day')} won in a row "
            f"(best {streak['best']})"
        )
    if not history:
        console.print("No rated games yet.")
        return
    tbl = Table(title="Last rated games")
    for col in ("Game", "Room", "Place", "Opponents", "Rating after", "Change"):
        tbl.add_column(col, justify="left" if col == "Opponents" else "right")
    for h in history:
        before = h["before"]["mu"] - 3 * h["before"]["sigma"]
        after = h["after"]["mu"] - 3 * h["after"]["sigma"]
        tbl.add_row(
            str(h["game"]),
            str(h["room"]),
            f"{h['place']} of {h['players']}",
            escape(", ".join(str(o) for o in h["opponents"])),
            f"{after:.1f}",
            f"{after - before:+.1f}",
        )
    console.print(tbl)
