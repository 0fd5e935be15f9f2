"""Write a saved ``blink train`` policy of classic Blink as the numpy weights file the
``trained`` bot level plays (needs PyTorch: ``pip install ".[train]"``).

    python scripts/export_policy.py policy-classic.pt src/blink/games/classic/bots/trained.npz

The file holds the two tanh layers (``w1``, ``b1``, ``w2``, ``b2``), the action vectors and
biases (``vectors``, ``bias``) as float32, and the policy's description (``info``, its
``PATH.json``); the value head is left out (a bot does not need it). See docs/bots.md.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import msgspec
import numpy as np

from blink.files import write_atomic
from blink.train.policy import load_policy
from blink.train.setup import TrainError


def export(source: Path, target: Path) -> int:
    """Write the policy at ``source`` to ``target``; its size in bytes."""
    policy, info = load_policy(source)
    if info.game != "classic":
        raise TrainError("bad_policy", f"{source} is a {info.game} policy, not classic's")
    state = {k: v.detach().numpy().astype(np.float32) for k, v in policy.state_dict().items()}
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        w1=state["body.0.weight"],
        b1=state["body.0.bias"],
        w2=state["body.2.weight"],
        b2=state["body.2.bias"],
        vectors=state["action_vectors.weight"],
        bias=state["action_bias.weight"][:, 0],
        info=np.array(msgspec.json.encode(info).decode()),
    )
    write_atomic(target, buffer.getvalue())
    return len(buffer.getvalue())


def main(argv: list[str]) -> int:
    """``export_policy.py SOURCE.pt TARGET.npz``: 0 when written, 2 on bad input."""
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        size = export(Path(argv[0]), Path(argv[1]))
    except TrainError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(f"wrote {argv[1]} ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
