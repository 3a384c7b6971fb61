"""my-card-game's wing of the analysis: what a card's tier is worth in play (`tiers`)."""
