"""``python -m blink``: the ``blink`` command."""

from blink.cli import main

main()
