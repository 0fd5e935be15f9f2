"""Both games as reinforcement-learning environments (``pip install "blink[envs]"``).

* :mod:`blink.envs.classic_v0`: classic Blink as a PettingZoo ParallelEnv, in steps of
  virtual time;
* :mod:`blink.envs.goblink_v0`: Go Blink as a PettingZoo AEC environment;
* ``blink/Classic-v0`` and ``blink/GoBlink-v0``: one seat against the project's bots, as
  Gymnasium environments (``gymnasium.make("blink/GoBlink-v0")`` after ``import blink.envs``).

Importing this package registers the Gymnasium ids; the environments' modules are imported
only when one is made. Every environment is a driver of a game definition from the registry,
and observes a seat's view only. See docs/envs.md.
"""

from __future__ import annotations

import gymnasium

__all__ = ["CLASSIC_ID", "GOBLINK_ID"]

CLASSIC_ID = "blink/Classic-v0"
"""Classic Blink, one seat against bots (:class:`blink.envs.single.ClassicSingle`)."""
GOBLINK_ID = "blink/GoBlink-v0"
"""Go Blink, one seat against bots (:class:`blink.envs.single.GoBlinkSingle`)."""

if CLASSIC_ID not in gymnasium.registry:
    gymnasium.register(CLASSIC_ID, entry_point="blink.envs.single:ClassicSingle")
if GOBLINK_ID not in gymnasium.registry:
    gymnasium.register(GOBLINK_ID, entry_point="blink.envs.single:GoBlinkSingle")
