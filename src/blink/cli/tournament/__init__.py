"""``blink tournament``: run tournaments of bots, or organise one played with real cards.

Examples::

    blink tournament bots --field 12 --seed 7
    blink tournament bots --player "Ann=champion:blocker" --player "Bo=beginner:random" \\
        --player "Cy=expert" --player "Di=skilled:first" --player "Ed=casual" --json
    blink tournament new club.json --player Ann:1 --player Bo --player Cy@31.5 --player Di
    blink tournament draw club.json --seed 42
    blink tournament show club.json
    blink tournament result club.json --match R1-1 --game-winner Ann
    blink tournament result club.json --match R1-1 --tie
    blink tournament check-in club.json --open --player Ann --player Bo
    blink tournament withdraw club.json --player Cy --by Maria
    blink tournament forfeit club.json --match R1-2 --player Di
    blink tournament correct club.json --match R1-1 --game 2 --game-winner Bo --by Maria
    blink tournament changes club.json
    blink tournament bracket club.json --png club.png --html club.html
    blink tournament export club.json --json
    blink leaderboard --ratings ratings.json
    blink leaderboard --server http://localhost:8000 --json
    blink profile --server http://localhost:8000

Every bad input ends with one line on stderr and exit status 2. Heavy modules (the simulator,
Rich, matplotlib) are imported inside the commands.

The commands live in the package's modules by group: :mod:`~blink.cli.tournament.bots` (bot
tournaments), :mod:`~blink.cli.tournament.organise` (a tournament played with real cards, kept
in a file), :mod:`~blink.cli.tournament.absences` (its withdrawals, no-shows, corrections and
check-in) and :mod:`~blink.cli.tournament.leaderboard` (ratings and profiles).
"""

from __future__ import annotations

import typer

from blink.cli.tournament.absences import (
    changes_cmd,
    check_in_cmd,
    correct_cmd,
    forfeit_cmd,
    withdraw_cmd,
)
from blink.cli.tournament.bots import (
    BOT_NAMES,
    BotPlayer,
    BotRun,
    bots_cmd,
    parse_bot_player,
    random_field,
    run_bots,
)
from blink.cli.tournament.leaderboard import leaderboard_cmd, profile_cmd, server_board
from blink.cli.tournament.organise import (
    add_cmd,
    bracket_cmd,
    draw_cmd,
    export_cmd,
    handicap_cmd,
    new_cmd,
    rate_cmd,
    rate_tournament,
    remove_cmd,
    result_cmd,
    show_cmd,
    tournament_key,
)
from blink.cli.tournament.views import bracket_view

__all__ = [
    "BOT_NAMES",
    "BotPlayer",
    "BotRun",
    "bracket_view",
    "parse_bot_player",
    "random_field",
    "rate_tournament",
    "register",
    "run_bots",
    "server_board",
    "tournament_key",
]


def register(app: typer.Typer) -> None:
    """Add ``blink tournament ...``, ``blink leaderboard`` and ``blink profile`` to the main app."""
    tour = typer.Typer(
        name="tournament",
        help="Tournaments as the rulebook runs them: bots, or real cards with an organiser.",
        no_args_is_help=True,
    )
    tour.command("bots")(bots_cmd)
    tour.command("run", help="Same as `blink tournament bots`.")(bots_cmd)
    tour.command("new")(new_cmd)
    tour.command("add")(add_cmd)
    tour.command("remove")(remove_cmd)
    tour.command("draw")(draw_cmd)
    tour.command("show")(show_cmd)
    tour.command("result")(result_cmd)
    tour.command("bracket")(bracket_cmd)
    tour.command("handicap")(handicap_cmd)
    tour.command("rate")(rate_cmd)
    tour.command("export")(export_cmd)
    tour.command("withdraw")(withdraw_cmd)
    tour.command("forfeit")(forfeit_cmd)
    tour.command("correct")(correct_cmd)
    tour.command("check-in")(check_in_cmd)
    tour.command("changes")(changes_cmd)
    app.add_typer(tour, name="tournament")
    app.command("leaderboard")(leaderboard_cmd)
    app.command("profile")(profile_cmd)
