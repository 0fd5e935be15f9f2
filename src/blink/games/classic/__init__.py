"""Classic Blink for two or three players: the engine, rulesets, record codec and bots."""
