"""Classic Blink's terminal client: its table screen (:mod:`.app`), local and online tables
(:mod:`.table`, :mod:`.online`), key router (:mod:`.keys`) and widgets (:mod:`.widgets`). Its
``blink play`` command is :mod:`blink.games.classic.cli.play`."""
