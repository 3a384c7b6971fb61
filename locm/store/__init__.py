"""locm/store."""
