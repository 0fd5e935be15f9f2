"""Go Blink as reinforcement-learning environments (``pip install "blink[envs]"``).

* :mod:`~blink.games.goblink.envs.goblink_v0`: the PettingZoo AEC environment (public as
  ``blink.envs.goblink_v0``);
* :mod:`~blink.games.goblink.envs.single`: ``blink/GoBlink-v0``, one seat against Go Blink's
  bots, a Gymnasium environment;
* :mod:`~blink.games.goblink.envs.codec`: the actions as numbers and a seat's view as an array;
* :mod:`~blink.games.goblink.envs.text`: a seat's view as text.

The generic :mod:`blink.envs` finds them through the registry
(:class:`blink.model.registry.FrontEnd`); nothing else in the game imports them.
"""
