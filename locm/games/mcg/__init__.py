"""locm/games/mcg."""
