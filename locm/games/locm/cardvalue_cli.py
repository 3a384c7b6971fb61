"""`locm cardvalue`, one of LOCM's own commands (added by `locm.games.locm.cli`); the work is in `locm.games.locm.cardvalue`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from locm.cli.progress import bar as progress_bar

from locm.tournament.backends import backend_options, join


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The event store: base games are read from it (or played into it, when missing) and the re-runs "
                   "are stored in it as games of each baseline's ruleset.")
@click.option("--ruleset", "-r", default="1.2", show_default=True,
              help="The games' ruleset A: 1.2, constructed, or a ruleset variant file (TOML).")
@click.option("--agents", "-a", nargs=2, default=("lookahead", "lookahead"), show_default=True,
              metavar="AGENT AGENT", help="The two built-in agents of the base games; the same one twice is "
                                          "self-play (each seed once), two agents play each seed in both seats.")
@click.option("--seeds", "-n", type=click.IntRange(min=2), default=200, show_default=True,
              help="Seeds of base games (as 'locm tournament' plays them, so a tournament's games are reused).")
@click.option("--seed", type=int, default=1, show_default=True, help="The first seed.")
@click.option("--base-seeds", type=click.IntRange(min=2), metavar="M",
              help="Play the base games on M seeds (more than --seeds) and re-run only the first --seeds: each value "
                   "is then corrected by its holders' base win rate over all M (a control variate; its narrowing "
                   "is shown as 'var.'). Base games are shared by every card valued, re-runs are not.")
@click.option("--stratify", is_flag=True,
              help="With --base-seeds M: re-run each card on as many seeds as --seeds re-runs, chosen among all M by "
                   "stratum (a seed where no seat held the card is never re-run; Neyman allocation over the rest) "
                   "instead of the first --seeds; the value then estimates the paired value over all M seeds.")
@click.option("--card", "-c", "cards", multiple=True, metavar="CARD",
              help="A card to value: a 1.2 card id, or a bucket of the report (type, cost, keyword, area or draw, "
                   "e.g. 'keyword: guard'; the only kind under constructed). Repeatable.")
@click.option("--most-held", type=click.IntRange(min=1), metavar="N",
              help="Value the N cards (constructed: buckets) with a holder (a seat with more copies than its "
                   "opponent) in most base games.")
@click.option("--baseline", "-b", default="vanilla", show_default=True,
              help="What replaces each card: vanilla (a creature of its cost, attack = defense = cost + 1, no "
                   "ability), card:ID (another 1.2 card's values), or a variant file (the cards it changes, as it "
                   "changes them).")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes playing games (the main process stores them).")
@click.option("--whatif", "whatif_json", type=click.File("r"), metavar="FILE",
              help="The JSON of 'locm whatif --json' over the same games: a line per card where the two disagree, "
                   "with both numbers and why (sign, the other changes, the agents' new decisions, chance).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@backend_options
def cardvalue(db, ruleset, agents, seeds, seed, base_seeds, stratify, cards, most_held, baseline, workers, whatif_json, as_json,
              backend, address):
    """What a card is worth to the player holding it: each card is replaced by a baseline, the same games
    (seeds, seats, agents) are played again, and the holders' win rate as the card is is compared with
    their win rate with the baseline in its place, paired by seed, with a 95% interval; cards are ranked by
    it. A holder is the seat whose deck held more copies than its opponent's. Interrupted, it resumes: the
    games already stored are read back.

    \b
    Example:
      locm cardvalue --db cv.db --card 116 --card 5 --seeds 2000 --workers 2
      locm cardvalue --db cv.db --most-held 20 --seeds 2000 --workers 2
      locm cardvalue --db cv.db --most-held 20 --seeds 2000 --base-seeds 8000
      locm cardvalue --db cv.db --card 104 --seeds 2000 --base-seeds 8000 --stratify
      locm cardvalue --db cv.db -r constructed --card "keyword: guard" --card "cost: 2"
      locm cardvalue --db cv.db --baseline examples/variants/low-health.toml --json
      locm whatif --db cv.db --ruleset weak.toml --json > w.json
      locm cardvalue --db cv.db --baseline weak.toml --whatif w.json
      locm cardvalue --db cv.db --card 116 --seeds 2000 --backend ray --address auto
    """
    from locm.games.locm.cardvalue import (base_games, cardvalue as run, cardvalue_lines, check_agents, make_targets,
                                most_held as held_most, variant_targets)
    from locm.games.locm.variants import _looks_like_a_file, resolve_ruleset

    whatif = None
    if whatif_json is not None:
        try:
            whatif = json.load(whatif_json)
            if not isinstance(whatif, dict) or "question" not in whatif:
                raise ValueError("no 'question'")
        except ValueError as exc:
            raise click.UsageError(f"--whatif {whatif_json.name}: expected the JSON of 'locm whatif --json' ({exc})")
    rules_a = resolve_ruleset(ruleset)
    agents = tuple(agents)
    check_agents(agents, seeds)
    if base_seeds is not None:
        if base_seeds < seeds:
            raise click.UsageError(f"--base-seeds {base_seeds}: expected at least --seeds ({seeds})")
        check_agents(agents, base_seeds)
    if stratify and (base_seeds is None or base_seeds <= seeds):
        raise click.UsageError("--stratify: expected --base-seeds M above --seeds (the seeds it chooses among)")
    file_baseline = _looks_like_a_file(baseline) and not baseline.startswith("card:")
    rules_b = resolve_ruleset(baseline) if file_baseline else None
    if not cards and not most_held and rules_b is None:
        raise click.UsageError("give the cards to value: --card ID (repeatable) or --most-held N")
    if cards and most_held:
        raise click.UsageError("--card and --most-held: give one of them")
    if rules_b is None and cards:
        make_targets(rules_a, cards, baseline)  # every card and the baseline checked before any game is played
    bar = None

    def announce(n, what):
        nonlocal bar
        if bar is not None:
            bar.__exit__(None, None, None)
        bar = progress_bar(length=n, label=what, show_eta=True, show_pos=True)
        bar.__enter__()

    join(backend, address)
    try:
        if most_held:
            base_games(db, rules_a, agents, base_seeds or seeds, seed, workers, progress=lambda k: bar.update(k),
                       announce=announce, backend=backend, address=address)
            cards = held_most(db, rules_a, agents, seeds, seed, most_held)
        if rules_b is not None:
            targets, variants = variant_targets(rules_a, rules_b, cards, baseline)
        else:
            targets, variants = make_targets(rules_a, cards, baseline)
        if stratify:
            from locm.games.locm.cardvalue_strat import cardvalue_stratified

            result = cardvalue_stratified(db, rules_a, agents, targets, variants, seeds, base_seeds, seed, workers,
                                          progress=lambda k: bar.update(k), announce=announce, backend=backend,
                                          address=address)
        else:
            result = run(db, rules_a, agents, targets, variants, seeds, seed, workers,
                         progress=lambda k: bar.update(k), announce=announce, backend=backend, address=address,
                         base_seeds=base_seeds)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    summary = result.summary()
    if whatif is not None:
        from locm.games.locm.cardvalue_compare import compare, compare_lines

        summary["whatif_disagreements"] = compare(whatif, summary)
    if as_json:
        summary["errors_by_game"] = [{"game": g, "why": w} for g, w in result.errors]
        click.echo(json.dumps(summary, indent=1))
        return
    for line in cardvalue_lines(summary):
        click.echo(line)
    if whatif is not None:
        click.echo("")
        for line in compare_lines(summary["whatif_disagreements"]):
            click.echo(line)
