"""locm/runner."""
