"""``blink bot play``: the reference Bot API client (docs/bot-api.md).

It plays with a bot account's token: against a house bot (``--opponent``), in a room another
bot made (``--join CODE``), or in a room it makes for another bot (``--host``, printing its
code), in the bot arena (``--arena``) or in a bot tournament (``--tournament ID``); it
challenges a bot account (``--challenge NAME``) or accepts challenges as they come
(``--accept-challenges``, :mod:`blink.cli.botchallenges`). The policy is a house strategy
(``--strategy``), the user's own Python file (``--module``: ``plan(view)`` or
``make_bot(seat)``) or a saved ``blink train`` policy (``--policy``,
:mod:`blink.cli.botpolicy`). The client itself is :mod:`blink.cli.botclient`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn
from urllib.parse import urlsplit

import typer

from blink.cli.play import LangOpt, use_language
from blink.tui.i18n import _, ngettext

__all__ = ["register"]

bot_app = typer.Typer(help="Play through the public Bot API with a bot account's token.")


def _fail(message: str) -> NoReturn:
    """One clear line on stderr and exit status 2."""
    typer.echo(f"blink bot play: {message}", err=True)
    raise typer.Exit(2)


@bot_app.command("play")
def play(
    server: Annotated[str, typer.Option(help="The server's address, http(s)://host:port.")],
    token: Annotated[str, typer.Option(help="The bot account's token (POST /api/bots).")],
    games: Annotated[int, typer.Option(help="Games to play, then exit 0.")] = 1,
    opponent: Annotated[
        str | None,
        typer.Option(help="Play a house bot, LEVEL:STRATEGY (expert:blocker)."),
    ] = None,
    join: Annotated[
        str | None, typer.Option(help="Take a seat in this room (another bot's).")
    ] = None,
    host: Annotated[
        bool, typer.Option("--host", help="Make a room for another bot and print its code.")
    ] = False,
    arena: Annotated[
        bool,
        typer.Option("--arena", help="Wait in the bot arena: play other bots, game after game."),
    ] = False,
    tournament: Annotated[
        str | None,
        typer.Option(help="Play bot tournament ID: join, check in, play each match until out."),
    ] = None,
    challenge: Annotated[
        str | None,
        typer.Option(help="Challenge this bot account and play when it accepts."),
    ] = None,
    accept_challenges: Annotated[
        bool,
        typer.Option("--accept-challenges", help="Accept challenges as they come and play them."),
    ] = False,
    strategy: Annotated[
        str | None,
        typer.Option(help="Play with a house strategy (first, blocker, ... or LEVEL:STRATEGY)."),
    ] = None,
    module: Annotated[
        Path | None,
        typer.Option(help="Play with your own FILE.py: plan(view) or make_bot(seat)."),
    ] = None,
    policy_file: Annotated[
        Path | None,
        typer.Option("--policy", help="Play with a policy saved by blink train (FILE)."),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Play GAMES games with a bot account's token, then exit 0."""
    from blink.cli import botclient

    use_language(lang, _fail)
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        _fail(
            _("--server must be an http:// or https:// address, not {server!r}").format(
                server=server
            )
        )
    if games < 1:
        _fail(_("--games must be at least 1"))
    if strategy is not None and module is not None:
        _fail(_("give --strategy or --module, not both"))
    if policy_file is not None and (strategy is not None or module is not None):
        _fail(_("give --policy alone, without --strategy or --module"))
    if (opponent is not None) + (join is not None) + host + arena + (tournament is not None) > 1:
        _fail(_("give one of --opponent, --join, --host, --arena and --tournament"))
    if tournament is not None and not tournament.strip():
        _fail(_("--tournament is empty"))
    ways = (challenge is not None) + accept_challenges
    others = (opponent is not None) + (join is not None) + host + arena + (tournament is not None)
    if ways and ways + others > 1:
        _fail(_("give --challenge or --accept-challenges alone, without another way to play"))
    if not token.strip():
        _fail(_("--token is empty"))
    try:
        # The table's seats, when this command opens or asks for it (not a room another bot
        # made, nor a tournament's): a saved policy is checked against it before any request.
        known = join is None and tournament is None
        policy = _policy(strategy, module, policy_file, botclient.TABLE_PLAYERS if known else None)
        if opponent is not None:
            botclient.house_policy(opponent)  # checked here: one sentence, not a 400
        if challenge is not None or accept_challenges:
            played = asyncio.run(_challenges(server, token, games, policy, challenge))
            typer.echo(_played(played), err=True)
            return
        played = asyncio.run(
            botclient.arena(server.rstrip("/"), token.strip(), games, policy, typer.echo)
            if arena
            else botclient.tournament(
                server.rstrip("/"), token.strip(), tournament.strip(), policy, typer.echo
            )
            if tournament is not None
            else botclient.run(
                server.rstrip("/"),
                token.strip(),
                games,
                policy,
                opponent=opponent,
                join=join.upper() if join else None,
                host=host,
                announce=typer.echo,
            )
        )
    except botclient.BotRunError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    typer.echo(ngettext("played {n} game", "played {n} games", played).format(n=played), err=True)


def _policy(
    strategy: str | None, module: Path | None, policy_file: Path | None, players: int | None
) -> Callable[[int], Any]:
    """The seat's policy: a saved ``blink train`` policy (checked against a table of
    ``players`` seats, when known), a Python file's or a house bot's."""
    from blink.cli import botclient

    if policy_file is not None:
        from blink.cli.botpolicy import trained_policy  # PyTorch: blink[train]

        return trained_policy(policy_file, players)
    if module is not None:
        return botclient.load_policy(module)
    return botclient.house_policy(strategy or "first", botclient.seed())


def _played(n: int) -> str:
    return ngettext("played {n} game", "played {n} games", n).format(n=n)


async def _challenges(
    server: str, token: str, games: int, policy: Callable[[int], Any], to: str | None
) -> int:
    """``--challenge NAME`` or ``--accept-challenges`` (:mod:`blink.cli.botchallenges`)."""
    from blink.cli import botchallenges

    address, token = server.rstrip("/"), token.strip()
    if to is not None:
        return await botchallenges.challenge(address, token, to, games, policy, typer.echo)
    return await botchallenges.accept_challenges(address, token, games, policy, typer.echo)


def register(app: typer.Typer) -> None:
    """Add ``blink bot`` to the ``blink`` command."""
    app.add_typer(bot_app, name="bot")
