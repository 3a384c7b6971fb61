"""What LOCM adds to the generic commands (its hooks in `locm.games.registry`): `locm conformance` against
the official referee's logs, `locm games`' table of LOCM's records and `locm rules diff` of its rulesets."""

from __future__ import annotations

from locm.common.tables import plural as n


def conformance(files, quiet: bool, echo) -> int:
    """Official referee logs replayed and every input checked byte for byte, and the winner; a line that is
    not a game log is said with its line number and the other games are still checked. The exit status: 0
    when every game is identical, 2 when no line was a game log, else 1."""
    from locm.replay.locm.conformance import check_game, check_generated_cards, read_log_file

    total = same = bad = 0

    def bad_line(exc):
        nonlocal total, bad
        total, bad = total + 1, bad + 1
        echo(f"locm: error: {exc}", err=True)

    for path in files:
        for logged in read_log_file(path, on_bad_line=bad_line):
            result = check_game(logged)
            cards_problem = check_generated_cards(logged)
            if result.identical and cards_problem:
                result.identical = False
                result.message = cards_problem
            total += 1
            same += result.identical
            if not (quiet and result.identical):
                prefix = f"{path}: " if len(files) > 1 else ""
                echo(prefix + result.summary())
    echo(f"{same}/{total} games identical" + (f" ({n(bad, 'line')} not a game log)" if bad else ""))
    return 0 if same == total else 2 if bad == total else 1


def rules_diff(game, left: str, right: str, as_json: bool, echo) -> None:
    """`locm rules diff` of two LOCM rulesets (`locm.games.locm.variants.rules_diff_command`: every rule by its
    R-… id, changed cards per card and field)."""
    from locm.games.locm.variants import rules_diff_command

    rules_diff_command(left, right, as_json, echo)


def dataset(game, db, output, ruleset, phases, logs, agent, seats, limit, include_untrusted=False) -> None:
    """`locm dataset` of LOCM: the rows of the games stored in ``db`` (`locm.rl.locm_dataset.export`), those the
    store may count unless ``include_untrusted``, and the line about the others."""
    from pathlib import Path

    from locm.cli.dataset import check_phases, say_summary
    from locm.cli.progress import bar as progress_bar
    from locm.engine.errors import LocmError

    if not Path(db).exists():
        raise LocmError(f"no event store at {db}")
    import locm.rl  # noqa: F401  (the one-line error when the extra is missing)
    from locm.rl.locm_dataset import export
    from locm.rl.locm import LocmSpec
    from locm.games.locm.variants import resolve_ruleset

    rules = resolve_ruleset(ruleset)
    check_phases(phases, [p.name for p in LocmSpec(rules).phases], rules.name)
    from locm.games.locm.variants import ruleset_name
    from locm.store.eventstore import open_store
    from locm.store.provenance import left_out_note

    with open_store(db, create=False, readonly=True) as store:
        name = ruleset_name(ruleset, store)
        total = len(store.games(ruleset=name, agent=agent, limit=limit, game="locm", counted=not include_untrusted))
        note = left_out_note(store.left_out(game="locm", ruleset=name, agent=agent), include_untrusted)
    with progress_bar(length=total, label="encoding", show_pos=True) as bar:
        summary = export(db, output, ruleset=ruleset, phases=phases or None, seats=seats, agent=agent,
                         limit=limit, progress=bar.update, counted=not include_untrusted)
    say_summary(summary, output, note)


__all__ = ["conformance", "rules_diff", "dataset"]
