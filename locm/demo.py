"""`locm demo`: the main job on the embedded default. Plays a round robin of the built-in agents in both
rulesets into a local SQLite file (resuming if it is already there), then shows the standings, the
first-player advantage and where the damage comes from, per ruleset, and draws a chart."""

from __future__ import annotations

from pathlib import Path

from locm.analysis.charts import win_rate_chart
from locm.analysis.overview import overview, overview_text
from locm.report import collect, write_report
from locm.store import open_store
from locm.tables import table
from locm.checks import store_checks, stored_problem
from locm.tournament import (STANDINGS_HEADERS, Job, game_id, pending, play_jobs, record_schedule, schedule,
                             standings, standings_rows)

DEMO_AGENTS = ("greedy", "random", "pass")
MIRROR = ("greedy", "greedy")
RULESETS = ("1.2", "constructed")
LOCM = ".venv/bin/locm" if Path(".venv/bin/locm").exists() else "locm"  # what to type next, from here


def write_replay(store, db, game_id: str, path: Path) -> Path:
    """One stored game as a self-contained HTML replay (`locm html`)."""
    from locm.replay.game import Replay
    from locm.replay.html import render_html

    path.write_text(render_html(Replay(store.events(game_id), source=f"{db} {game_id}")), encoding="utf-8")
    return path


def run_demo(db: str | Path, games: int, workers: int, chart: str | Path, echo, progress_bar,
             report_dir: str | Path | None = None) -> None:
    store = open_store(db)
    try:
        results = {}
        for ruleset in RULESETS:
            jobs = schedule(ruleset, DEMO_AGENTS, games, seed=1)
            record_schedule(store, jobs)
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
        mirror = {}
        for ruleset in RULESETS:
            jobs = [Job(game_id(ruleset, s, MIRROR), ruleset, s, *MIRROR) for s in range(1, games + 1)]
            todo = pending(store, jobs)
            if todo:
                with progress_bar(len(todo), f"{MIRROR[0]} mirror {ruleset}") as bar:
                    play_jobs(store, todo, workers=workers, progress=bar.update, scheduled=len(jobs))
            mirror[ruleset] = [j.game_id for j in jobs]
        echo("")
        for ruleset, (records, rows) in results.items():
            echo(f"== {ruleset}: standings ({len(records)} games)")
            echo(table(STANDINGS_HEADERS, standings_rows(rows)))
            echo("")
        logs = [(ruleset, store.events(gid)) for ruleset, ids in mirror.items() for gid in ids]
        summary = overview(logs)
        echo(f"== {MIRROR[0]} against itself, the same {games} seeds in both rulesets")
        echo(overview_text(summary))
        path = win_rate_chart(
            {rs: [(s.agent, s.wins, s.games) for s in rows] for rs, (_, rows) in results.items()},
            {rs: o.turns for rs, o in summary.items()},
            chart,
        )
        echo("")
        echo(f"chart: {path}   games and events: {db}   (try: {LOCM} games --db {db}   or   "
             f"{LOCM} sql \"SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC\" --db {db})")
        gid = mirror[RULESETS[0]][0]
        page = write_replay(store, db, gid, Path(chart).with_name(Path(chart).stem + "-replay.html"))
        echo(f"replay of game {gid}: {page}   (next: {LOCM} replay --db {db} {gid}   or   "
             f"{LOCM} audit --db {db} {gid} --rejected)")
        found = store_checks(store)
        bad = [r.game_id for r in found.records if not stored_problem(store, r, redecide=False).ok]
        echo(f"store checked: {found.summary() if found.ok else '; '.join(found.problems)}; "
             f"{len(found.records) - len(bad)} of {len(found.records)} games' chains and ids hold   "
             f"(next: {LOCM} verify --db {db} also re-decides every game)")
    finally:
        store.close()
    report_dir = Path(report_dir) if report_dir else Path(db).with_name("locm-demo-report")
    index = write_report(collect(db), report_dir)
    echo(f"card-balance report: {index}   (next: {LOCM} cards stats --db {db} --ruleset 1.2 --sort iih)")
    sandboxed_game(echo)


EXAMPLE_BOT = Path(__file__).resolve().parent.parent / "examples" / "bot.py"


def sandboxed_game(echo) -> None:
    """One game of the example bot (an external program) against greedy, in the sandbox every external bot
    runs in, or the one line saying why this machine has none."""
    import shlex
    import sys

    from locm.sandbox import Sandbox, probe
    from locm.tournament import run_game

    if not EXAMPLE_BOT.exists():
        return
    found = probe()
    if not found.ok:
        echo(f"external bots: not on this machine: {found.reason}")
        return
    spec = shlex.join([sys.executable, str(EXAMPLE_BOT)])
    played = run_game("1.2", 1, (spec, "greedy"))
    box = Sandbox()
    winner = ("examples/bot.py", "greedy")[played.game.winner]
    echo(f"an external bot in its sandbox: examples/bot.py against greedy, won by {winner} "
         f"({box.describe()})   (next: {LOCM} sandbox check)")
