"""The words of the card-balance report that the analysis renders (`analysis.locm.cardhtml`) and the report
writes (`locm.games.locm.cardreport`): what each rate can and cannot say. Kept here so that the analysis imports no
report module (the report imports the analysis)."""

SELECTION_NOTE = (
    "Every rate here is observational: it says how the player-games that had a card turned out, not what the card "
    "caused. An agent chooses which cards it drafts, keeps and plays, and a weak agent's cards look weak, so these "
    "rates mix a card's strength with who takes it and when. Simulated games hide nothing (every hand and deck is "
    "in the log), but that does not remove this selection bias. Compare cards within one pairing of agents of "
    "equal strength (self-play is best), never across pairings; to know what a card causes, measure it with "
    "'locm cardvalue', which plays the same games again with the card replaced and compares them seed by seed.")
METRIC_NOTES = (
    ("Deck WR", "how often players whose deck held the card won. It cannot tell whether the card helped: strong "
                "players and strong decks pick some cards more than others."),
    ("Opening-hand WR", "the same for players who had it from the start. A card in the opening hand is played "
                        "early, so this favours cheap cards, whatever their strength."),
    ("Drawn WR", "the same for players who drew it later. Long games draw more cards, so cards that win late "
                 "(or lose slowly) gain here."),
    ("In-hand WR", "opening hand or drawn: the players who could use it. It cannot tell cause from luck: "
                   "players who draw more (card draw, long games) hold more of everything."),
    ("Not-seen WR", "players with the card in the deck who never saw it: the baseline for IIH."),
    ("IIH", "in-hand WR minus not-seen WR: how much better players did when they saw the card. It is the least "
            "biased of these rates (same decks, the difference is the draw), but long games reach more cards "
            "and still favour control cards, so every card carries a bias (17lands' users measure about 2 points "
            "on their data). The report measures it on these games, as the mean IIH of a pairing's rows, quotes it "
            "above each table and shows IIH minus that mean."),
    ("Baseline, q, *", "each card's in-hand WR and IIH are tested against the mean of its pairing's rows (what "
                       "they would scatter around if no card mattered). q: the Benjamini-Hochberg q-value over the "
                       "rows tested; * and the charts' colours: the interval excludes the baseline and q is at "
                       "most 0.05, so at most about 5% of the starred rows are expected to be chance."),
    ("Played WR", "players who played the card. An agent plays a card when it is ahead or when it can, so this "
                  "mixes the card with the situation; it cannot be read as the card's effect."),
    ("Turn played, turns held", "when the card is played and how long it waits: what the agents do with it, not "
                                "how good it is."),
    ("Pick rate, average pick", "how much the agents want the card: their opinion of it, which the report then "
                                "reflects in every other rate."),
    ("Card value (locm cardvalue)", "the causal measure: the same games, seeds and agents played again with the "
                                    "card replaced by a baseline; the change in its holder's win rate, with an "
                                    "interval from the paired games."),
)

__all__ = ["SELECTION_NOTE", "METRIC_NOTES"]
