"""``blink train``: train a policy for a game's single-seat environment against a bot (PPO in
PyTorch on the CPU, ``pip install "blink[train]"``), save it, load it back and print its win
rates against the game's bots with 95% Wilson intervals.

Exit codes: 0 success; 2 bad input (an unknown game or bot, a count out of range, a policy
file that cannot be read or written, PyTorch missing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from blink.train.policy import PolicyInfo

__all__ = ["register", "train"]


def _fail(message: str) -> NoReturn:
    typer.echo(f"blink train: {message}", err=True)
    raise typer.Exit(2)


class _Bar:
    """A Rich progress bar's one task: set how much is done, and what it says."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self.progress, self.task = progress, task

    def set(self, done: int, text: str | None = None) -> None:
        """Show ``done`` units done (and ``text``, if given)."""
        self.progress.update(self.task, completed=done, description=text)

    def step(self) -> None:
        """One more unit done."""
        self.progress.advance(self.task)


@contextlib.contextmanager
def _bar(total: int, description: str) -> Iterator[_Bar]:
    """A Rich progress bar on stderr (gone when done) for ``total`` units."""
    from blink.cli.simrun import rich_progress

    progress = rich_progress()
    with progress:
        yield _Bar(progress, progress.add_task(description, total=total))


def _evaluate(out: Path, bots: list[str], games: int, seed: int, baseline: bool) -> None:
    """Load the policy at ``out`` and print its win rates (and a random policy's)."""
    from blink.train.evaluate import evaluate, greedy_chooser, random_chooser
    from blink.train.policy import load_policy
    from blink.train.setup import get_setup

    policy, info = load_policy(out)
    _describe(info, out)
    choosers = [("policy", greedy_chooser(policy))]
    if baseline:
        choosers.append(("random policy", random_chooser(seed)))
    for bot in bots or list(get_setup(info.game).eval_bots):
        for name, choose in choosers:
            with _bar(games, f"{name} against {bot}") as bar:
                result = evaluate(info, choose, bot, games, seed=seed, on_game=bar.step)
            typer.echo(f"{name} {result.line()}")


def _describe(info: PolicyInfo, out: Path) -> None:
    typer.echo(
        f"{info.game} policy {out}: {info.steps:,} steps in {info.updates} updates "
        f"({info.seconds:.0f} s) against {info.train_bot}, seed {info.seed}"
    )


def train(
    game: Annotated[
        str,
        typer.Option("--game", "-g", help="The game: classic, or another with a single-seat env."),
    ] = "classic",
    steps: Annotated[
        int, typer.Option("--steps", help="Environment steps to train for (whole updates).")
    ] = 200_000,
    minutes: Annotated[
        float | None, typer.Option("--minutes", help="Stop after this long, if sooner.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seeds torch, numpy and the deals.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="The policy file (default policy-GAME.pt; its folder must exist)."
        ),
    ] = None,
    bot: Annotated[
        str | None, typer.Option("--bot", help="The bot to train against (the game's default).")
    ] = None,
    eval_games: Annotated[
        int, typer.Option("--eval-games", help="Games against each bot to evaluate (0: none).")
    ] = 500,
    eval_bot: Annotated[
        list[str] | None, typer.Option("--eval-bot", help="A bot to evaluate against (repeat).")
    ] = None,
    baseline: Annotated[
        bool, typer.Option("--baseline", help="Evaluate a uniformly random policy too.")
    ] = False,
    eval_only: Annotated[
        bool, typer.Option("--eval-only", help="Evaluate the policy at --out; do not train.")
    ] = False,
) -> None:
    """Train a policy against a bot, save it (PATH and PATH.json), load it back, and print its
    win rates against the game's bots with 95% Wilson intervals."""
    from blink.model.registry import front_ends

    games = [name for name, fe in front_ends().items() if fe.gym_id is not None]
    if game not in games:
        _fail(f"no game {game!r} to train for (games: {', '.join(games)})")
    if steps < 1 or eval_games < 0 or (minutes is not None and not minutes > 0):
        _fail("--steps must be at least 1, --minutes above 0 and --eval-games at least 0")
    try:
        from blink.train.setup import TrainError
    except ImportError:
        _fail('training needs PyTorch and the environments: pip install "blink[train]"')
    out = out or Path(f"policy-{game}.pt")
    try:
        if not eval_only:
            _check_writable(out)
            _run(game, steps, minutes, seed, bot, eval_bot or [], out)
        if eval_games:
            _evaluate(out, eval_bot or [], eval_games, seed + 1_000_000, baseline)
    except TrainError as exc:
        _fail(exc.message)
    except OSError as exc:
        _fail(f"{out}: {exc.strerror or exc}")


def _check_writable(out: Path) -> None:
    """Refuse, before any training, a policy path that cannot be written (a folder, a missing
    folder, no permission, a read-only disk): one sentence, exit status 2."""
    from blink.tui.outputs import OutputPathError, check_output_file

    try:
        check_output_file(out, "--out")
    except OutputPathError as exc:
        _fail(str(exc))


def _run(
    game: str,
    steps: int,
    minutes: float | None,
    seed: int,
    bot: str | None,
    eval_bots: list[str],
    out: Path,
) -> None:
    """Train and save the policy at ``out`` (an unknown bot to train or evaluate against is
    refused first)."""
    import time

    from blink.train.policy import save_policy
    from blink.train.ppo import TrainProgress
    from blink.train.ppo import train as run_training
    from blink.train.setup import get_setup, make_env

    setup = get_setup(game)
    for name in [bot or setup.train_bot, *eval_bots]:
        make_env(setup, name)
    with _bar(steps, f"training {game}") as bar:

        def progress(p: TrainProgress) -> None:
            bar.set(
                min(p.steps, steps), f"training {game}: won {p.recent_wins:.0%} of the last 100"
            )

        result = run_training(
            setup,
            steps=steps,
            seed=seed,
            bot=bot,
            minutes=minutes,
            clock=time.monotonic,
            on_update=progress,
        )
    save_policy(out, result.policy, result.info)
    typer.echo(f"saved {out} and {out.name}.json")


def register(app: typer.Typer) -> None:
    """Add ``blink train`` to the main app."""
    app.command("train")(train)
