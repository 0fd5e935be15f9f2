"""``blink bot play --policy FILE``: a saved ``blink train`` policy as the Bot API client's
policy (docs/bot-api.md).

It loads the policy (PyTorch, the ``train`` extra, imported only here and only then), checks it
was trained for the default game, and hands the default game's bot client (its
``codec_policy``, found through the registry like the rest of :mod:`blink.cli.botclient`) a
chooser: the policy's most likely legal action over the environments' observation and mask.
When the command knows the table before it opens it (``players``: the tables it opens or
asks for itself), the policy's sizes are checked against that table's at once, before any
network call; the game's client checks them again once it knows the table it sits at (a room
another bot made, a tournament's). A policy of other sizes is refused either way
(:class:`~blink.cli.botclient.BotRunError`, one sentence).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from blink.cli.botclient import BotRunError, Plan, game_client
from blink.model.registry import DEFAULT_GAME
from blink.tui.i18n import _

__all__ = ["trained_policy"]


def _check_sizes(info: Any, obs_size: int, actions: int) -> None:
    """:class:`BotRunError` unless the policy ``info`` describes reads ``obs_size`` numbers and
    has ``actions`` actions."""
    if (info.obs_size, info.actions) != (obs_size, actions):
        raise BotRunError(
            _(
                "the policy was trained for other table sizes (players, hand): it reads "
                "{policy_obs} numbers and has {policy_actions} actions, this game's seat "
                "sees {obs} numbers and has {actions} actions"
            ).format(
                policy_obs=info.obs_size,
                policy_actions=info.actions,
                obs=obs_size,
                actions=actions,
            )
        )


def trained_policy(path: Path, players: int | None = None) -> Callable[[int], Plan]:
    """The policy saved at ``path`` by ``blink train``, playing the default game's seat;
    :class:`BotRunError` when PyTorch is missing, the file is not a policy, the policy was
    trained for another game, or (``players`` given: the table the seat will sit at, under the
    official rules) its sizes do not fit that table."""
    try:
        from blink.train.evaluate import greedy_chooser
        from blink.train.policy import info_path, load_policy
        from blink.train.setup import TrainError
    except ImportError:
        raise BotRunError(
            _('--policy needs PyTorch: install it with pip install ".[train]"')
        ) from None
    if not path.is_file() or not info_path(path).is_file():
        raise BotRunError(
            _("no blink train policy at {path} (it needs {path} and {meta})").format(
                path=path, meta=info_path(path)
            )
        )
    try:
        policy, info = load_policy(path)
    except TrainError:
        raise BotRunError(_("{path} is not a blink train policy").format(path=path)) from None
    if info.game != DEFAULT_GAME:
        raise BotRunError(
            _("the policy was trained for {game}, not for {default}").format(
                game=info.game, default=DEFAULT_GAME
            )
        )

    def chooser(obs_size: int, actions: int) -> Callable[[dict[str, Any]], int]:
        _check_sizes(info, obs_size, actions)
        return greedy_chooser(policy)

    client = game_client()
    codec_policy = getattr(client, "codec_policy", None)
    if codec_policy is None:
        raise BotRunError(_("the default game cannot play a blink train policy"))
    table_sizes = getattr(client, "table_sizes", None)
    if players is not None and table_sizes is not None:
        _check_sizes(info, *table_sizes(players))
    made: Callable[[int], Plan] = codec_policy(chooser)
    return made
