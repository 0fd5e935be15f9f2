"""Every game as reinforcement-learning environments (``pip install "blink[envs]"``).

* ``blink.envs.<game>_v0``: each game's PettingZoo environment (``classic_v0``: classic Blink
  as a ParallelEnv, in steps of virtual time; and an AEC environment for a turn-based game),
  ``from blink.envs import classic_v0``;
* each game's Gymnasium id (``blink/Classic-v0``): one seat against the game's bots
  (``gymnasium.make("blink/Classic-v0")`` after ``import blink.envs``).

Every game's environments are in its own package; the registry names them
(:class:`blink.model.registry.FrontEnd`: ``env``, ``env_name``, ``gym_id``,
``gym_entry_point``). Importing this package registers the Gymnasium ids of every registered
game and imports no environment: a ``<game>_v0`` module is imported when it is first asked for
(a module attribute, PEP 562), a Gymnasium environment's module when one is made. Every
environment is a driver of a game definition from the registry, and observes a seat's view
only. What they share is here: :mod:`~blink.envs.encoding`, :mod:`~blink.envs.single`,
:mod:`~blink.envs.text`. See docs/envs.md.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import gymnasium

from blink.model.registry import front_ends

__all__ = ["environments", "register_gym_ids"]


def environments() -> dict[str, str]:
    """Every registered game's PettingZoo environment: its name (``classic_v0``) and module."""
    return {
        f.env_name: f.env
        for f in front_ends().values()
        if f.env is not None and f.env_name is not None
    }


def register_gym_ids() -> list[str]:
    """Register the Gymnasium id of every registered game's single-seat environment not yet
    registered (done on import; again after registering a game); the ids, registered or not.
    Registering names the entry points only (the single-seat environment's, and the vector
    environment's where the game has one): no environment module is imported."""
    ids: list[str] = []
    for front in front_ends().values():
        if front.gym_id is None or front.gym_entry_point is None:
            continue
        if front.gym_id not in gymnasium.registry:
            gymnasium.register(
                front.gym_id,
                entry_point=front.gym_entry_point,
                vector_entry_point=front.gym_vector_entry_point,
            )
        ids.append(front.gym_id)
    return ids


register_gym_ids()

__all__ += sorted(environments())  # the games' environment modules


def __getattr__(name: str) -> ModuleType:
    """The game's environment module called ``name`` (``classic_v0``), imported now."""
    module = environments().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = importlib.import_module(module)
    globals()[name] = found  # asked once: the next look-up finds it without this function
    return found


def __dir__() -> list[str]:
    """The module's names, with every game's environment module."""
    return sorted({*globals(), *environments()})
