"""Blink, "the world's fastest game": rules engines, bots, simulator, server and clients."""

__version__ = "0.1.0"
"""The package's version, written only here: pyproject.toml reads it (setuptools' dynamic
version), ``blink --version`` prints it and the server reports it."""
