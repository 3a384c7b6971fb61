"""`locm demo`: the main job on the embedded default. Plays a round robin of the built-in agents in both
rulesets into a local SQLite file (resuming if it is already there), then shows the standings, the
first-player advantage and where the damage comes from, per ruleset, and draws a chart. The look-ahead
agent's self-play games are the balance data: the card report shows them first (and flags the lopsided
pairings of the round robin), and `locm cardvalue` values a few cards on the same seeds."""

from __future__ import annotations

from pathlib import Path

from locm.analysis.charts import games_per_ruleset, win_rate_chart
from locm.analysis.locm.overview import overview, overview_text
from locm.games.locm.cardreport import collect, write_report
from locm.store.eventstore import open_store
from locm.common.tables import table
from locm.games.registry import SCHEDULES
from locm.verify.checks import store_checks, stored_problem
from locm.games.locm.tournament import schedule
from locm.tournament.run import pending, play_jobs, record_schedule
from locm.tournament.standings import STANDINGS_HEADERS, standings, standings_rows

DEMO_AGENTS = ("lookahead", "greedy", "random", "pass")
MIRROR = ("lookahead", "lookahead")
VALUED = 3  # cards the demo values with locm cardvalue
SELFPLAY_12 = 6
"""1.2's self-play plays this many times ``--games`` (the report's per-card rows need 50 player-games a card:
with the default 100 games only one of the 160 cards had them, and the best/worst chart one bar; with 600,
some 110 do). Constructed's rows are 17 feature buckets, which ``--games`` fills."""
RULESETS = ("1.2", "constructed")
LOCM = ".venv/bin/locm" if Path(".venv/bin/locm").exists() else "locm"  # what to type next, from here


def played_by(agents: tuple[str, str], games: dict[str, int]) -> str:
    """What a chart of these games plots, for its title: the agents (one agent twice: against itself) and
    the games per ruleset."""
    who = f"{agents[0]} against itself" if agents[0] == agents[1] else f"{agents[0]} vs {agents[1]}"
    return f"{who}, {games_per_ruleset(games)}"


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
        mirror, seats = {}, {}
        for ruleset in RULESETS:
            n = games * SELFPLAY_12 if ruleset == "1.2" else games
            jobs = schedule(ruleset, MIRROR, n, seed=1)  # self-play: each of seeds 1..n once
            record_schedule(store, jobs)
            todo = pending(store, jobs)
            if todo:
                with progress_bar(len(todo), f"{MIRROR[0]} mirror {ruleset}") as bar:
                    play_jobs(store, todo, workers=workers, progress=bar.update, scheduled=len(jobs))
            mirror[ruleset] = [j.game_id for j in schedule(ruleset, MIRROR, games, seed=1)]  # the same seeds
            ids = set(mirror[ruleset])
            seats[ruleset] = standings([r for r in store.games(ruleset=ruleset) if r.game_id in ids], MIRROR)
        echo("")
        for ruleset, (records, rows) in results.items():
            echo(f"== {ruleset}: standings ({len(records)} games)")
            echo(table(STANDINGS_HEADERS, standings_rows(rows)))
            echo("")
        for ruleset, rows in seats.items():
            echo(f"== {ruleset}: {MIRROR[0]} against itself, by seat, seeds 1..{games} (locm tournament --agents "
                 f"{MIRROR[0]} {MIRROR[0]})")
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
            lengths_of=played_by(MIRROR, {rs: len(o.turns) for rs, o in summary.items()}),
        )
        echo("")
        echo(f"chart: {path}   games and events: {db}   (try: {LOCM} games --db {db}   or   "
             f"{LOCM} sql \"SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC\" --db {db})")
        gid = mirror[RULESETS[0]][0]
        page = write_replay(store, db, gid, Path(chart).with_name(Path(chart).stem + "-replay.html"))
        echo(f"replay of game {gid}: {page}   (next: {LOCM} replay --db {db} {gid}   or   "
             f"{LOCM} audit --db {db} {gid} --rejected)")
        found = store_checks(store, schedules=SCHEDULES)
        bad = [r.game_id for r in found.records if not stored_problem(store, r, redecide=False).ok]
        echo(f"store checked: {found.summary() if found.ok else '; '.join(found.problems)}; "
             f"{len(found.records) - len(bad)} of {len(found.records)} games' chains and ids hold   "
             f"(next: {LOCM} verify --db {db} also re-decides every game)")
    finally:
        store.close()
    report_dir = Path(report_dir) if report_dir else Path(db).with_name("locm-demo-report")
    # its own tournaments: not the variants the card values below re-ran, nor the RL episodes, of an earlier run
    data = collect(db, rulesets=RULESETS, agents=DEMO_AGENTS)
    index = write_report(data, report_dir)
    flagged = len(data.lopsided)
    pairings = sum(len(d.strata) for d in data.rulesets.values())
    echo(f"card-balance report: {index}   (next: {LOCM} cards stats --db {db} --ruleset constructed --agent "
         f"lookahead --opponent lookahead --sort iih_centred)")
    if flagged:
        echo(f"  flagged as lopsided (their card rates tell which cards each agent takes): {flagged} of the "
             f"report's {pairings} pairings (both rulesets), folded in the report; the {MIRROR[0]} self-play "
             "tables come first")
    value_cards(db, games * SELFPLAY_12, workers, echo, progress_bar)
    other_games(db, games, workers, echo, progress_bar)
    sandboxed_game(echo)
    rl_episodes(db, echo)


def other_games(db, games: int, workers: int, echo, progress_bar) -> None:
    """The game seam: my-card-game and Skyport played through the core into the same store (a tournament
    each, standings by places), then checked by the core (`locm verify`)."""
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule
    from locm.tournament.standings import MATCH_HEADERS, match_rows, match_standings

    runs = [("mcg", "standard", ["greedy", "random"], max(2, games - games % 2), 2, ""),
            ("skyport", "2013", ["hunter", "random", "random"], 3, 3, " --seats 3")]
    store = open_store(db)
    try:
        for name, ruleset, agents, n, seats, flag in runs:
            jobs = seats_schedule(name, ruleset, agents, n, seed=1, seats=seats)
            todo = [j for j in jobs if not store.has_game(j.game_id)]
            if todo:
                with progress_bar(len(todo), f"playing {name}") as bar:
                    run_matches(store, jobs, workers, bar.update)
            ids = {j.game_id for j in jobs}
            records = [m for m in store.games(game=name) if m.game_id in ids]
            bad = sum(not stored_problem(store, m).ok for m in records)
            echo("")
            echo(f"== {name}: {len(records)} games through the game seam, {len(records) - bad} verified   "
                 f"({LOCM} tournament --game {name}{flag} --agents {' '.join(agents)} --games {n})")
            echo(table(MATCH_HEADERS, match_rows(match_standings(records, agents))))
            if name == "mcg":
                mcg_tools(store, db, echo)
        last = records[-1].game_id
        echo(f"(next: {LOCM} show --db {db} {last}   or   {LOCM} play --game mcg --ruleset standard --seed 7 "
             f"--log m.jsonl && {LOCM} audit m.jsonl --seq 60)")
    finally:
        store.close()


MCG_VARIANT = Path(__file__).resolve().parents[3] / "examples" / "mcg" / "singleton-sudden-death.toml"


def mcg_tools(store, db, echo) -> None:
    """my-card-game's whatif over its stored games (20 at most) under the example variant, and one game's
    drawn HTML replay."""
    from locm.engine.registry import get
    from locm.tournament.whatif import whatif
    from locm.tournament.whatif_text import whatif_lines
    from locm.replay.game import Replay
    from locm.replay.html import render_html
    from locm.common.rulesets import game_rules

    mcg = get("mcg")
    if MCG_VARIANT.exists():
        result = whatif(store, mcg, game_rules(mcg, str(MCG_VARIANT)), "standard", 20)
        echo("")
        echo(f"== my-card-game what-if   ({LOCM} whatif --game mcg --db {db} --ruleset "
             "examples/mcg/singleton-sudden-death.toml --games 20)")
        for line in whatif_lines(result.summary(20), game=mcg):
            echo(line)
    gid = store.games(game="mcg", ruleset="standard", limit=1)[0].game_id
    page = Path(db).with_name(Path(db).stem + "-mcg-replay.html")
    page.write_text(render_html(Replay(store.verified_events(gid), f"{db} {gid}", game=mcg)),
                    encoding="utf-8")
    echo(f"my-card-game replay with its drawn board: {page}   ({LOCM} html --db {db} {gid} -o {page.name}; "
         f"{LOCM} rerun --db {db} {gid} --ruleset examples/mcg/singleton-sudden-death.toml)")


def value_cards(db, games: int, workers: int, echo, progress_bar) -> None:
    """`locm cardvalue` on 1.2's self-play seeds (``games`` of them): the cards with a holder in most of those
    games, each against a vanilla creature."""
    from locm.games.locm.cardvalue import cardvalue, cardvalue_lines, make_targets, most_held
    from locm.engine.locm.rulesets import RULES_12

    seeds = games - games % 2
    cards = most_held(db, RULES_12, MIRROR, seeds, 1, VALUED)
    targets, variants = make_targets(RULES_12, cards, "vanilla")
    state = {}

    def announce(n, what):
        state["n"] = n

    with progress_bar(len(variants) * seeds, "valuing cards") as bar:
        run = cardvalue(Path(db), RULES_12, MIRROR, targets, variants, seeds, workers=workers,
                        progress=bar.update, announce=announce)
    echo("")
    echo(f"== card value: the {len(cards)} cards with a holder (more copies than the opponent) in most of "
         f"{MIRROR[0]}'s {seeds} self-play games of 1.2, each replaced by a vanilla creature of its cost on the "
         "same seeds")
    for line in cardvalue_lines(run.summary()):
        echo(line)
    echo(f"(a demonstration: {seeds} seeds give wide intervals; next: {LOCM} cardvalue --db {db} --most-held 20 "
         f"--seeds 2000 --workers 2)")


EXAMPLE_BOT = Path(__file__).resolve().parents[3] / "examples" / "bot.py"


def sandboxed_game(echo) -> None:
    """One game of the example bot (an external program) against greedy, in the sandbox every external bot
    runs in, or the one line saying why this machine has none."""
    import shlex
    import sys

    from locm.runner.sandbox.bwrap import Sandbox, probe
    from locm.games.locm.tournament import run_game

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


def rl_episodes(db, echo, episodes: int = 3) -> None:
    """A few episodes of the battle environment (a uniformly random legal action against greedy), stored in the
    demo's store like any game; one episode of my-card-game's and Skyport's environments. Skipped, saying so,
    without the extra ``locm[rl]``."""
    from locm.engine.errors import LocmError

    try:
        import numpy as np

        from locm.rl import make_env
    except (ImportError, LocmError) as exc:  # the extra is optional: say why and go on
        echo(f"reinforcement-learning environments: not installed here: {exc}")
        return
    rng = np.random.default_rng(0)

    def play(env, seed: int) -> dict:
        obs, info = env.reset(seed=seed)
        steps = 0
        while True:
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
            if terminated or truncated:
                return dict(info, steps=steps, reward=reward)

    env = make_env("LOCM-battle-v0", opponent="greedy", store=str(db))
    runs = [play(env, seed) for seed in range(1, episodes + 1)]
    env.close()
    echo("")
    ids = ", ".join(r["game_id"] for r in runs)
    steps = ", ".join(str(r["steps"]) for r in runs)
    rewards = ", ".join(f"{r['reward']:+g}" for r in runs)
    echo(f"== reinforcement learning: {episodes} episodes of LOCM-battle-v0 (a random legal action against greedy), "
         f"stored in {db}: {ids}; steps {steps}; rewards {rewards}")
    others = []
    for env_id in ("MCG-v0", "Skyport-v0"):
        e = make_env(env_id)
        r = play(e, 1)
        others.append(f"{env_id} {r['steps']} steps, reward {r['reward']:+g}")
    echo(f"  same environments, other games: {'; '.join(others)}   (next: {LOCM} replay --db {db} {runs[0]['game_id']}"
         f"   or   python examples/rl/train_battle.py)")
