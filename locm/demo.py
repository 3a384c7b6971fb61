"""`locm demo`: the main job on the embedded default. Plays a round robin of the built-in agents in both
rulesets into a local SQLite file (resuming if it is already there), then shows the standings, the
first-player advantage and where the damage comes from, per ruleset, and draws a chart."""

from __future__ import annotations

from pathlib import Path

from analysis.charts import win_rate_chart
from analysis.overview import overview, overview_text
from locm.store import open_store
from locm.tables import table
from locm.tournament import (STANDINGS_HEADERS, pending, play_jobs, schedule, standings, standings_rows)

DEMO_AGENTS = ("greedy", "random", "pass")
RULESETS = ("1.2", "constructed")


def run_demo(db: str | Path, games: int, workers: int, chart: str | Path, echo, progress_bar) -> None:
    store = open_store(db)
    try:
        results = {}
        for ruleset in RULESETS:
            jobs = schedule(ruleset, DEMO_AGENTS, games, seed=1)
            todo = pending(store, jobs)
            echo(f"{ruleset}: {len(jobs)} games between {', '.join(DEMO_AGENTS)} "
                 f"({len(jobs) - len(todo)} already in {db})")
            if todo:
                with progress_bar(len(todo), f"playing {ruleset}") as bar:
                    play_jobs(store, todo, workers=workers, progress=bar.update, scheduled=len(jobs))
            ids = {j.game_id for j in jobs}
            records = [r for r in store.games(ruleset=ruleset) if r.game_id in ids]
            table_rows = standings(records, DEMO_AGENTS)
            results[ruleset] = (records, table_rows)
        echo("")
        for ruleset, (records, rows) in results.items():
            echo(f"== {ruleset}: standings ({len(records)} games)")
            echo(table(STANDINGS_HEADERS, standings_rows(rows)))
            echo("")
        logs = []
        for ruleset, (records, _) in results.items():
            for r in records:
                logs.append((ruleset, store.events(r.game_id)))
        summary = overview(logs)
        echo("== Both rulesets, same agents and seeds")
        echo(overview_text(summary))
        path = win_rate_chart(
            {rs: [(s.agent, s.wins, s.games) for s in rows] for rs, (_, rows) in results.items()},
            {rs: o.turns for rs, o in summary.items()},
            chart,
        )
        echo("")
        echo(f"chart: {path}   games and events: {db}   (try: locm games --db {db})")
    finally:
        store.close()
