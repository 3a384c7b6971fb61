"""locm/common."""
