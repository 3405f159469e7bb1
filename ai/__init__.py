"""Computer players: choose orders from a player's view, depending on the engine only."""
