"""``python -m blink.cli``: the ``blink`` command."""

from blink.cli import main

main()
