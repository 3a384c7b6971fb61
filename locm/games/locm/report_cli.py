"""LOCM's card-balance report (`locm report`'s hook ``report`` for LOCM, `locm.games.registry`) and its
commands on the card metrics of a store, `locm cards stats` and `locm cards rebuild`."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from locm.cli.progress import bar as progress_bar

from locm.analysis.locm.cardmetrics import METRICS
from locm.cli.options import INCLUDE_UNTRUSTED
from locm.cli.report import AGENT, DB, IMBALANCE, MIN, OPPONENT, RULESET, SEAT
from locm.common.inputs import existing_store as _existing
from locm.tournament.backends import join

SORT_METRICS = [f"{m}_{k}" for m in METRICS for k in ("wr", "n")] + ["iih", "iih_centred", "in_hand_centred",
                                                                      "pick_rate", "avg_pick", "offered", "picked",
                                                                      "avg_turn_played"]


def _ruleset(spec: str | None, path: str) -> str | None:
    """The stored ruleset name a --ruleset means (`locm.games.locm.variants.ruleset_or_name`, as for `locm games`). The
    report groups games by that name, so a variant file is refused when the store's games of its name ran
    under other values (another file of the same name): they could not be told apart."""
    from locm.games.locm.cardreport import ReportError
    from locm.store.eventstore import open_store
    from locm.games.locm.variants import is_builtin, ruleset_or_name, rules_identities

    if spec is None:
        return None
    with open_store(path, create=False, readonly=True) as store:
        found = ruleset_or_name(spec, store)
        if isinstance(found, str):
            return found
        if not is_builtin(found):
            from locm.engine.locm.rulesets import rules_hash

            mine = f"{found.base_name} #{rules_hash(found)[:12]}"
            ids = [r.game_id for r in store.games(ruleset=found.name, game="locm")]
            other = sum(v != mine for v in rules_identities(store, ids).values())
            if other:
                raise ReportError(f"{spec}: {other} of the {len(ids)} stored games named {found.name!r} ran under "
                                  f"other values than this file's ({mine}); the report groups games by name, so "
                                  "it cannot tell them apart: store them in another --db")
    return found.name


@contextlib.contextmanager
def _progress(label: str):
    """A click progress bar for the games the projection still has to read (none for a few), with SIGTERM
    turned into an interrupt so that the worker processes are stopped too."""
    from locm.runner.processes import sigterm_as_interrupt as _sigterm_as_interrupt

    state = {}

    def start(n):
        if n >= 500:  # a short refresh needs no bar
            state["bar"] = progress_bar(length=n, label=label, show_eta=True)
            state["bar"].__enter__()

    def step(k):
        if "bar" in state:
            state["bar"].update(k)

    try:
        with _sigterm_as_interrupt():
            yield start, step
    finally:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)


def _warn_lopsided(data) -> None:
    for rs, s in data.mirrored:
        click.echo(f"warning: {rs}: {s.label}: both seats had the same deck in {s.same_decks} of "
                   f"{s.player_games // 2} games: a card's deck rate is about 50% whatever it does", err=True)
    for rs, s in data.lopsided:
        click.echo(f"warning: {rs}: {s.label}: {s.agent} wins {100 * s.wins / s.player_games:.1f}% of "
                   f"{s.player_games} games (lopsided beyond {100 * data.max_imbalance:.0f} points): its card rates "
                   "mostly tell which cards each agent takes; prefer self-play data (locm tournament --agents "
                   "lookahead lookahead)", err=True)


def report(db: Path, *, ruleset, agent, opponent, seat, min_n, max_imbalance, out, rebuild, backend, address,
           echo, include_untrusted: bool = False) -> None:
    """`locm report` of LOCM: cards.json, cards.csv, PNG charts and index.html in ``out``, the card-facts
    projection brought up to date first (of the games the store may count unless ``include_untrusted``)."""
    from locm.games.locm import facts_store as cardfacts_store
    from locm.games.locm.cardreport import ReportError, check_request, collect, write_report

    path = _existing(db)
    ruleset = _ruleset(ruleset, path)
    if out.exists() and not out.is_dir():  # refused before any work
        raise ReportError(f"{out}: is a file, expected a directory for the report")
    check_request(path, ruleset)
    join(backend, address)
    with _progress("projecting games") as (start, step):
        cardfacts_store.refresh(path, rebuild=rebuild, progress=step, on_start=start, backend=backend,
                                address=address, include_untrusted=include_untrusted)
    data = collect(path, ruleset=ruleset, agent=agent, seat=seat, min_n=min_n, refresh=False, opponent=opponent,
                   max_imbalance=max_imbalance, include_untrusted=include_untrusted)
    index = write_report(data, out)
    _warn_lopsided(data)
    echo(f"{data.coverage['games']} games ({', '.join(f'{k}: {v}' for k, v in data.coverage['rulesets'].items())}), "
         f"definitions {data.version}, minimum sample {min_n}")
    facts = data.coverage["facts"]
    echo(f"card facts: {facts['stored']} games' as stored beside their events (locm verify recomputes "
         f"them), {facts['from_events']} games' projected from their events")
    if data.coverage["left_out"]:
        echo(data.coverage["left_out"])
    echo(f"report: {index}  (also {out / 'cards.json'}, {out / 'cards.csv'})")


@click.command("stats")
@DB
@RULESET
@AGENT
@OPPONENT
@SEAT
@MIN
@IMBALANCE
@click.option("--sort", "metric", type=click.Choice(SORT_METRICS), default="in_hand_wr", show_default=True,
              help="The metric to sort by, highest first (rows without a value last).")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True, help="Rows to show.")
@INCLUDE_UNTRUSTED
def stats(db, ruleset, agent, opponent, seat, min_n, max_imbalance, metric, top, include_untrusted):
    """The card metrics of the report as a terminal table (1.2: per card; constructed: per feature bucket),
    per pairing of agents, over the games the store played or imported from a trusted file (--include-untrusted:
    every game).

    \b
    Example:
      locm cards stats --db t.db --ruleset 1.2 --sort iih --top 15
    """
    from locm.engine.locm.carddata import cardlist_12
    from locm.games.locm import facts_store as cardfacts_store
    from locm.games.locm.cardreport import check_request, collect, top_rows
    from locm.common.tables import table

    path = _existing(db)
    ruleset = _ruleset(ruleset, path)
    check_request(path, ruleset)
    with _progress("projecting games") as (start, step):
        cardfacts_store.refresh(path, progress=step, on_start=start, include_untrusted=include_untrusted)
    data = collect(path, ruleset=ruleset, agent=agent, seat=seat, min_n=min_n, refresh=False, opponent=opponent,
                   max_imbalance=max_imbalance, include_untrusted=include_untrusted)
    names = {b: c.name for b, c in cardlist_12().items()}

    def pct(r, m):
        wr, ci = r[f"{m}_wr"], r[f"{m}_ci"]
        return "n/a" if wr is None else f"{100 * wr:5.1f} [{100 * ci[0]:4.1f},{100 * ci[1]:5.1f}]"

    def centred(r, m):
        c = r[f"{m}_centred"]
        return "n/a" if c is None else f"{100 * c:+.1f}{' *' if r[f'{m}_significant'] else ''} q={r[f'{m}_q']:.2f}"

    shown, left_out = top_rows(data, metric, top, with_value=True)
    rows = []
    for r in shown:
        card = r["feature"] if "feature" in r else f"#{r['base_id']} {names.get(r['base_id'], '')}"[:26]
        pairing = f"{r['agent']} vs {r['opponent']}" + (" !" if r["lopsided"] else "")
        rows.append((r["ruleset"], pairing, card, r["deck_n"], pct(r, "deck"), r["in_hand_n"], pct(r, "in_hand"),
                     centred(r, "in_hand"), pct(r, "not_seen"),
                     "n/a" if r["iih"] is None else f"{100 * r['iih']:+.1f}", centred(r, "iih"),
                     pct(r, "played"), "-" if r["pick_rate"] is None else f"{100 * r['pick_rate']:.1f}%",
                     "-" if r["avg_pick"] is None else r["avg_pick"],
                     "-" if r["avg_turn_played"] is None else r["avg_turn_played"]))
    click.echo(table(("ruleset", "pairing", "card", "deck n", "deck WR % [95% CI]", "hand n", "in-hand WR %",
                      "in-hand - base", "not-seen WR %", "IIH pp", "IIH - mean", "played WR %", "pick", "avg pick",
                      "turn"), rows))
    for line in stats_footer(data, shown, metric, left_out):
        click.echo(line)
    if data.coverage["left_out"]:
        click.echo(data.coverage["left_out"])
    _warn_lopsided(data)


def stats_footer(data, shown: list[dict], metric: str, left_out: int) -> list[str]:
    """What `locm cards stats` prints under its table: the games of each pairing shown (not the store's), each
    pairing's baselines and the bias they correct as measured on its games, and what the columns mean."""
    pairings = {(r["ruleset"], r["agent"], r["opponent"]) for r in shown}
    out = []
    for rs, d in data.rulesets.items():
        for s in d.strata:
            if (rs, s.agent, s.opponent) not in pairings:
                continue
            b = s.baselines
            line = f"{rs} {s.label}: {s.games} games ({s.player_games} player-games)"
            if b.get("in_hand", {}).get("baseline") is not None:
                line += (f"; in-hand WR baseline {100 * b['in_hand']['baseline']:.1f}% (mean of "
                         f"{b['in_hand']['tested']} rows)")
            if b.get("iih", {}).get("baseline") is not None:
                line += (f"; IIH bias measured here {100 * b['iih']['baseline']:+.1f} points (mean of "
                         f"{b['iih']['tested']} rows)")
            out.append(line)
    if not shown:
        out.append(f"no row has a value of {metric} (every one is below the minimum sample of {data.min_n} "
                   "player-games): play more games, or lower --min-games knowing the intervals widen")
    more = f"; {left_out} rows without a value of {metric} (below the minimum sample) left out" if left_out else ""
    out.append(f"definitions {data.version}, minimum sample {data.min_n} player-games, sorted by {metric}{more}; "
               "- base / - mean: the row minus its pairing's baseline, * : its interval excludes the baseline "
               "and its Benjamini-Hochberg q over the pairing's rows is at most 0.05; rates are observational "
               "(who holds a card, not what it causes: see locm cardvalue); compare rows of one pairing only")
    return out


@click.command("rebuild")
@DB
def rebuild(db):
    """Drop the card-facts projection and rebuild it from the stored events.

    \b
    Example:
      locm cards rebuild --db t.db
    """
    from locm.games.locm import facts_store as cardfacts_store
    from locm.errors import StoreError

    path = _existing(db)
    if not cardfacts_store.writable(path):
        raise StoreError(f"{path}: the store is read-only: its projection cannot be rebuilt in it (locm report and "
                         "locm cards stats compute one in a temporary file)")
    with _progress("projecting games") as (start, step):
        s = cardfacts_store.refresh(path, rebuild=True, progress=step, on_start=start)
    click.echo(f"card facts rebuilt from the events: {s.projected} games, definitions {s.version}")


__all__ = ["SORT_METRICS", "report", "stats", "rebuild", "stats_footer"]
