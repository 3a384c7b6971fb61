"""locm/verify."""
