"""LOCM's own viewers for `locm show`, `locm audit`, `locm replay` and `locm html` (its hooks, `locm.games.registry`):
its boards, turns and rules as `locm.replay.locm.render` and `locm.replay.html` draw them."""

from __future__ import annotations

import sys

import click

from locm.cli.replay import dump_json, exit_if_warned, trust, warn


def show(r, s: int, perspective, as_json: bool) -> None:
    """The board at seq ``s`` and the events of its turn."""
    from locm.replay.locm.render import show_text

    v = r.view(s, perspective)
    t = r.turn_of(s)
    events = range(t.first_seq, t.last_seq + 1) if t else range(max(0, s - 5), s + 1)
    if as_json:
        v["events"] = [{"seq": i, "type": r.event_obj(i)["type"], "description": r.describe(i, perspective)}
                       for i in events]
        warn(r, to_stderr=True)
        dump_json({**v, **trust(r)} if r.warning else v)
        return exit_if_warned(r)
    warn(r)
    click.echo("\n".join(show_text(r, s, perspective)))
    exit_if_warned(r)


def audit(r, seq, rejected, card_id, as_json: bool) -> None:
    """Why an event happened, the refused inputs, or one card instance's life."""
    from locm.replay.locm.render import audit_text, card_life_text, rejected_text

    if seq is not None:
        out = r.explain(seq)
        lines = audit_text(out)
    elif rejected:
        out = r.rejected()
        lines = rejected_text(out)
    else:
        out = r.card_life(card_id)
        lines = card_life_text(card_id, out)
    departs = r.departs()
    if as_json:
        warn(r, to_stderr=True)
        if r.warning:
            out = {"result": out, **trust(r)}
        dump_json(out)
    else:
        warn(r)
        if seq is not None and seq in departs:
            lines = [f"this event is not what the rules give: {departs[seq]}"] + lines
        click.echo("\n".join(lines))
    exit_if_warned(r)


def replay(r, print_all: bool, perspective) -> None:
    """Step through the game in the terminal, or print every turn."""
    from locm.replay.locm.render import all_turns_text
    from locm.replay.terminal import interactive

    if print_all or not (sys.stdin.isatty() and sys.stdout.isatty()):
        for line in all_turns_text(r, perspective):
            click.echo(line)
        return exit_if_warned(r)
    interactive(r, perspective)
    exit_if_warned(r)


def html(r, output) -> None:
    """The self-contained replay viewer, written to ``output``."""
    from locm.common.outputs import write_output as _write_bytes
    from locm.replay.html import render_html

    warn(r, to_stderr=str(output) == "-")
    data = render_html(r).encode()
    _write_bytes(output, data)
    # the summary goes to stderr when the page went to standard output
    click.echo(f"{output} ({len(data) // 1024} KB, {len(r)} events"
               + (f", {len(r.departs())} marked as not what the rules give" if r.departures else "") + ")",
               err=str(output) == "-")
    exit_if_warned(r)


__all__ = ["show", "audit", "replay", "html"]
