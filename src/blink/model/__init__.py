"""The game model under every game: shared types, the definition of a game and the registry
of games, the record format and replay frames. Pure: no I/O, no clock, no global randomness.

Everything above the game packages (:mod:`blink.games`) goes through this model: a driver gets
a game's definition from :func:`blink.model.registry.get_game` and never names a game itself.
"""
