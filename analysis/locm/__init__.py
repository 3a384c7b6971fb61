"""LOCM's wing of the analysis: the card report's facts (`cardfacts`, `packedfacts`, `cardtotals`), its
measures (`cardmetrics`), charts (`cardcharts`), page (`cardhtml`, `cardnotes`) and the demo's overview of a
store (`overview`). The generic statistics (`analysis.stats`, `paired`, `ratings`, `sprt`, `charts`) name no game."""
