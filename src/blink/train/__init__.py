"""Training a policy for a game's single-seat Gymnasium environment, with PyTorch on the CPU
(``pip install "blink[train]"``).

* :mod:`~blink.train.setup`: each game's environment and bots to train and evaluate against;
* :mod:`~blink.train.policy`: the policy (a small network whose logits are masked by the
  environment's ``action_mask``), saved as a state dict beside a JSON description;
* :mod:`~blink.train.ppo`: proximal policy optimisation on a few environments in lockstep;
* :mod:`~blink.train.evaluate`: win rates against bots, with 95% Wilson intervals.

``blink train`` and ``examples/train.py`` drive them. See docs/envs.md and docs/strategy.md.
"""

from __future__ import annotations

__all__: list[str] = []
