"""locm/games/locm."""
