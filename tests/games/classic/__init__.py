"""Classic Blink's own tests: its engine, rules, records and bots (as ``blink.games.classic``
holds them)."""
