"""locm/games."""
