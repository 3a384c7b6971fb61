"""my-card-game's own replay pieces: its drawn HTML board (`replay.mcg.board`)."""
