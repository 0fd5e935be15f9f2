"""Classic Blink as reinforcement-learning environments (``pip install "blink[envs]"``).

* :mod:`~blink.games.classic.envs.classic_v0`: the PettingZoo ParallelEnv, in steps of
  virtual time (public as ``blink.envs.classic_v0``);
* :mod:`~blink.games.classic.envs.single`: ``blink/Classic-v0``, one seat against classic
  bots racing in virtual time, a Gymnasium environment;
* :mod:`~blink.games.classic.envs.codec`: the actions as numbers and a seat's view as an array;
* :mod:`~blink.games.classic.envs.text`: a seat's view as text.

The generic :mod:`blink.envs` finds them through the registry
(:class:`blink.model.registry.FrontEnd`); nothing else in the game imports them.
"""
