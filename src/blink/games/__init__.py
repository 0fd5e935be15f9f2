"""The games: each one a package with its engine, record codec and bots."""
