"""LOCM's wing of the replay tools (`replay.wing.Wing`, named by LOCM's definition): its battle turns with their
draws, views from a seat, its rich audit (the rule's text, the diff an event made, the cards involved, the Guards
that blocked an attack), every departure of a forged log, its official referee logs as a source, its terminal
stepper and its board in the viewer shell (`replay.locm.html`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from locm.engine.locm.describe import describe, unit_ids
from locm.engine.locm.rulesets import CONSTRUCTED  # the deck-building policy tells a ruleset family, not its name
from locm.engine.locm.views import card_obj, diff as state_diff, view as state_view
from locm.engine.seam import Divergence, GameDef
from locm.events.locm.cards import GUARD
from locm.events.locm.catalog import ActionReceived, ActionRejected, CardDrawn, HardError, TurnStarted
from locm.events.locm.codec import DECODE_ERRORS
from locm.replay.wing import ReplayError, ReplaySourceError, Turn, Wing

if TYPE_CHECKING:
    from locm.replay.game import Replay


class _Sniff(msgspec.Struct):
    """What the first line of a LOCM file says it is (nothing else of it is decoded)."""

    type: object = None
    outputs: msgspec.Raw = msgspec.Raw(b"")
    errors: msgspec.Raw = msgspec.Raw(b"")


def constructed(r: Replay) -> bool:
    return r.final.rules.deck_building == CONSTRUCTED


class LocmWing(Wing):
    interactive = True
    viewer_board = "locm.replay.locm.html"
    cut = None  # a LOCM event is short: the warning quotes it whole

    # --- reading ---------------------------------------------------------------------------------------------

    def file_kind(self, first: bytes) -> str | None:
        """``events`` for an event log (`locm play --log`), ``official`` for an official referee log."""
        line = first.strip()
        try:
            obj = msgspec.json.decode(line[:line.rfind(b"}") + 1], type=_Sniff)
        except DECODE_ERRORS:
            return None
        if obj.type == "game_created":
            return "events"
        if obj.outputs and obj.errors:
            return "official"
        return None

    def open_file(self, kind: str, path: str, data: bytes, index: int | None) -> Replay:
        from locm.replay.locm.referee import pick_logged, replay_logged

        logged, count = pick_logged(path, data, index)
        return replay_logged(logged, str(path), count)

    def unreadable(self, game: GameDef, source: str, exc: object) -> str:
        return f"{source or 'log'}: does not fold: {exc}"

    def departures(self, game: GameDef, events: list[Any]) -> list[Divergence]:
        """Every event the rules would not produce, each judged on its own (`engine.locm.redecide.departures`)."""
        from locm.engine.locm.redecide import departures

        return departures(events)

    # --- turns and views -------------------------------------------------------------------------------------

    def turns(self, r: Replay) -> list[Turn]:
        return _split_turns(r.events)

    def turn_start(self, r: Replay, number: int) -> int:
        """The seq of the start of game turn ``number``: just after its ``turn_started`` and draws."""
        return r.turn(number).start_seq

    def action_seqs(self, r: Replay) -> list[int]:
        return [e.seq for e in r.events if type(e) in (ActionReceived, HardError)]

    def view(self, r: Replay, seq: int, seat: int | None) -> dict[str, Any]:
        return state_view(r.state_at(seq), seat)

    def describe(self, r: Replay, seq: int, seat: int | None) -> str:
        return describe(r.events[seq], r.final.units, seat)

    def board(self, r: Replay, seq: int, seat: int | None) -> str:
        return r.game.board_text(r.view(seq, seat))

    def diff(self, r: Replay, seq_a: int, seq_b: int) -> dict[str, Any]:
        """What changed from just after ``seq_a`` to just after ``seq_b`` (see `engine.locm.views.diff`)."""
        return state_diff(r.state_at(seq_a), r.state_at(seq_b))

    # --- questions -------------------------------------------------------------------------------------------

    def explain(self, r: Replay, seq: int) -> dict[str, Any]:
        """The event, its rule (id, section, text), its causes (nearest first), the diff it made, the cards
        it and its causes name as they were just before it, and both players just before it."""
        from locm.replay.rules import rule

        e = r.event(seq)
        before = r.state_at(seq - 1) if seq > 0 else None
        built = constructed(r)
        involved = []
        if before is not None:
            seen = set()
            for ev in [e, *r.causes(seq)]:
                for i in unit_ids(ev):
                    u = before.units.get(i)
                    if u is not None and i not in seen:
                        seen.add(i)
                        where = ("board" if u in before.players[u.owner].board else
                                 "hand" if u in before.players[u.owner].hand else
                                 "deck" if u in before.players[u.owner].deck else "gone")
                        involved.append({"owner": u.owner, "zone": where, **card_obj(u, built, where == "board")})
        players = []
        if before is not None:
            for pl in before.players:
                p = {"player": pl.index, "health": pl.health, "mana": pl.mana, "max_mana": pl.max_mana,
                     "deck": len(pl.deck), "hand_size": len(pl.hand), "next_draw": pl.next_draw}
                if built:
                    p["damage_counter"] = pl.damage_counter
                else:
                    p["runes"] = list(pl.runes)
                players.append(p)
        return {
            "event": r.event_obj(seq),
            "blocking": blocking(r, seq),
            "rule": rule(e.rule).as_dict(),
            "causes": [r.event_obj(c.seq) | {"rule_section": rule(c.rule).heading} for c in r.causes(seq)],
            "diff": r.diff(seq - 1, seq) if seq > 0 else {},
            "involved": involved,
            "players_before": players,
        }

    def rejected(self, r: Replay) -> list[dict[str, Any]]:
        """Every skipped action and hard error: who, the answer line it came from, the reason, the rule."""
        from locm.replay.rules import rule

        out = []
        for e in r.events:
            if type(e) not in (ActionRejected, HardError):
                continue
            line = ""
            for c in r.causes(e.seq):
                if type(c) is ActionReceived:
                    line = c.text
            if type(e) is HardError and not line:
                line = e.text
            turn = r.turn_of(e.seq)
            out.append({"seq": e.seq, "type": "hard_error" if type(e) is HardError else "action_rejected",
                        "player": e.player, "turn": turn.number if turn else None, "line": line,
                        "action": getattr(e, "action", e.text if type(e) is HardError else ""),
                        "reason": e.reason, "rule": e.rule, "rule_section": rule(e.rule).heading,
                        "blocking": blocking(r, e.seq)})
        return out

    def card_life(self, r: Replay, card_id: int) -> list[dict[str, Any]]:
        """Every event that names card instance ``card_id`` (dealt, drawn, played, attacked, modified,
        damaged, died), each with its nearest cause and its command."""
        units = r.final.units
        if card_id not in units:
            raise ReplayError(f"no card instance {card_id} in this game")
        out = []
        for e in r.events:
            named = card_id in unit_ids(e) or (hasattr(e, "ids") and card_id in e.ids)
            if not named or type(e) is ActionReceived:
                continue
            chain = r.causes(e.seq)
            d = r.event_obj(e.seq)
            d["nearest_cause"] = ({"seq": chain[0].seq, "type": _tag(chain[0]),
                                   "description": describe(chain[0], units)} if chain else None)
            d["command"] = ({"seq": chain[-1].seq, "description": describe(chain[-1], units)}
                            if chain and type(chain[-1]) is ActionReceived else None)
            out.append(d)
        return out

    # --- the commands' output --------------------------------------------------------------------------------

    def show(self, r: Replay, seq: int, seat: int | None, as_json: bool) -> list[str] | dict[str, Any]:
        from locm.replay.locm.render import show_text

        if not as_json:
            return show_text(r, seq, seat)
        v = r.view(seq, seat)
        t = r.turn_of(seq)
        events = range(t.first_seq, t.last_seq + 1) if t else range(max(0, seq - 5), seq + 1)
        v["events"] = [{"seq": i, "type": r.event_obj(i)["type"], "description": r.describe(i, seat)}
                       for i in events]
        return {**v, **r.trust()} if r.warning else v

    def audit_lines(self, r: Replay, kind: str, out: Any, arg: int | None) -> list[str]:
        from locm.replay.locm.render import audit_text, card_life_text, rejected_text

        if kind == "seq":
            departs = r.departs()
            lines = audit_text(out)
            return ([f"this event is not what the rules give: {departs[arg]}"] if arg in departs else []) + lines
        if kind == "rejected":
            return rejected_text(out)
        return card_life_text(arg, out)

    def all_turns(self, r: Replay, seat: int | None) -> list[str]:
        from locm.replay.locm.render import all_turns_text

        return list(all_turns_text(r, seat))

    def step(self, r: Replay, seat: int | None) -> None:
        """`locm replay` in a terminal: key by key (`replay.locm.terminal`)."""
        from locm.replay.locm.terminal import interactive

        interactive(r, seat)

    def words(self, r: Replay, seq: int) -> str:
        """An event in the viewer's list: a constructed deck's 30 CHOOSE said as a count (the deck is drawn)."""
        text = r.describe(seq)
        n = text.count("CHOOSE ") if type(r.events[seq]) is ActionReceived else 0
        return text[:text.index("CHOOSE")] + f"{n} CHOOSE (the deck is on the table)" if n > 3 else text

    def private(self, r: Replay, seq: int) -> tuple[int, str] | None:
        """A card drawn is its drawer's to see: the others read that a card was drawn."""
        e = r.events[seq]
        return (e.player, f"P{e.player} draws a card") if type(e) is CardDrawn else None

    def stops(self, r: Replay) -> list[int]:
        from locm.replay.locm.terminal import stops

        return stops(r)

    def result(self, r: Replay) -> str:
        created = r.events[0]
        agents = [a for a in created.agents if a]
        vs = f" \u00b7 {' vs '.join(agents)}" if agents else ""
        return (f"{created.ruleset_version} \u00b7 seed {created.seed}{vs}"
                + f" \u00b7 winner: player {r.final.winner} ({r.final.end_reason})")

    def page_note(self, r: Replay) -> str:
        return f"{len(r)} events" + (f", {len(r.departs())} marked as not what the rules give"
                                     if r.departures else "")


def blocking(r: Replay, seq: int) -> list[dict[str, Any]]:
    """For an attack skipped because of enemy Guards (R-ACTIONS), those Guards as they were just before
    (the cards that blocked it); [] for any other event."""
    e = r.event(seq)
    if type(e) is not ActionRejected or not e.action.startswith("ATTACK ") or "Guard" not in e.reason:
        return []
    before = r.state_at(seq - 1)
    try:
        attacker = before.units[int(e.action.split()[1])]
    except (KeyError, ValueError, IndexError):
        return []
    enemy = before.players[1 - attacker.owner]
    return [card_obj(u, constructed(r), True) for u in enemy.board
            if u.lane == attacker.lane and u.keywords & GUARD]


def _tag(e: Any) -> str:
    return type(e).__struct_config__.tag


def _split_turns(events: list[Any]) -> list[Turn]:
    turns: list[Turn] = []
    cur: Turn | None = None
    started = False
    for e in events:
        t = type(e)
        if t is TurnStarted:
            if cur is not None:
                cur.last_seq = e.seq - 1
            cur = Turn(e.turn, e.player, e.seq, e.seq, e.seq)
            turns.append(cur)
            started = True
        elif cur is not None and t in (ActionReceived, HardError):
            started = False
            cur.commands.append(e)
        if cur is not None:
            cur.events.append(e)
            if started:
                cur.start_seq = e.seq
    if cur is not None:
        cur.last_seq = events[-1].seq
    return turns


WING = LocmWing()

__all__ = ["WING", "LocmWing", "blocking", "constructed"]
