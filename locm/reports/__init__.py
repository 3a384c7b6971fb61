"""locm/reports."""
