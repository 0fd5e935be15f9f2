"""Blink, "the world's fastest game": rules engines, bots, simulator, server and clients."""

__version__ = "0.1.0"
