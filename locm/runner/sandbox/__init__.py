"""locm/runner/sandbox."""
