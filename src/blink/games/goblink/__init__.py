"""Go Blink, the rulebook's turn-based game for 2 to 6 players: engine, record codec and bots."""
