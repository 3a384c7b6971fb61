"""locm/cli."""
