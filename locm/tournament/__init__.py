"""locm/tournament."""
