"""locm/games/skyport."""
