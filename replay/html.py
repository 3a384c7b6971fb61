"""`render_html(replay)`: one self-contained HTML file that replays a game (no network, no framework).

Every board the page can show is computed here, by the engine's fold, and embedded as compact JSON; the
page's script only draws them (`replay/viewer.html`). Layout of the embedded data:

- ``cards``: ``{id: [base_id, type, cost, my_health, opp_health, draw, area, name]}`` (printed values);
  ``pool``: ``{base_id: [type, cost, attack, defense, keywords, my, opp, draw, area, name]}`` of draft offers;
- ``views``: distinct boards; ``at[seq]`` is the index of the board just after event ``seq``. A board is
  ``[turn, active, phase, winner, p0, p1]`` with ``p = [health, mana, max_mana, deck, next_draw, rune or
  damage counter, hand, board]`` (and, in the draft, ``[round, offered base ids]``), a hand card
  ``[id, attack, defense, keywords]`` and a creature ``[id, lane, attack, defense, keywords, can_attack,
  has_attacked]``;
- ``events``: ``[seq, type, rule, cause, description, player-if-a-draw]``; ``diffs[seq]``: lines, a line
  that names a player's hand cards as ``[text, player]`` (not shown in the other player's view);
- ``rules``: the cited rules' sections; ``turns``: ``[number, player, first, start, last]``; ``stops``: the
  seqs a step by action lands on;
- ``warning``: the replay's one-line warning ("" for a log that follows the rules), shown as a banner;
  ``departs``: ``{seq: what the rules give instead}`` for each event the rules would not produce, marked in
  the event list and in the event's detail.
"""

from __future__ import annotations

import json
from importlib.resources import files

from locm.events.cards import keywords_to_str
from locm.events.catalog import CardDrawn, DraftOffered
from locm.engine.rulesets import CONSTRUCTED  # the deck-building policy tells a ruleset family, not its name
from locm.engine.evolve import evolve, initial_state
from locm.replay.describe import describe
from locm.replay.game import Replay
from locm.replay.rules import rule
from locm.replay.terminal import stops
from locm.replay.views import diff, tagged_diff_lines

_PHASES = {"setup": 0, "draft": 1, "construct": 2, "battle": 3, "ended": 4}


def _compact(state) -> list:
    players = []
    constructed = state.rules.deck_building == CONSTRUCTED
    for pl in state.players:
        hand = [[u.id, u.attack, u.defense, keywords_to_str(u.keywords)] for u in pl.hand]
        board = [[u.id, u.lane, u.attack, u.defense, keywords_to_str(u.keywords), int(u.can_attack),
                  int(u.has_attacked)] for u in pl.board]
        extra = pl.damage_counter if constructed else pl.next_rune
        players.append([pl.health, pl.mana, pl.max_mana, len(pl.deck), pl.next_draw, extra, hand, board])
    out = [state.turn, state.current, _PHASES.get(state.phase, 0), state.winner, *players]
    if state.phase == "draft" and state.offer:
        out.append([state.round, list(state.offer)])
    return out


def game_data(r: Replay) -> dict:
    views, index, at, diffs = [], {}, [], []
    state = initial_state(r.events[0])
    prev = None
    for e in r.events:
        if e.seq:
            prev = state.copy()
            evolve(state, e)
        v = json.dumps(_compact(state), separators=(",", ":"))
        k = index.get(v)
        if k is None:
            k = index[v] = len(views)
            views.append(v)
        at.append(k)
        lines = tagged_diff_lines(diff(prev, state)) if prev is not None else []
        diffs.append([text if who < 0 else [text, who] for text, who in lines])
    pool = {}
    for e in r.events:
        if type(e) is DraftOffered:
            for b in e.base_ids:
                c = r.final.cards[b]
                pool[b] = [c.type, c.cost, c.attack, c.defense, keywords_to_str(c.keywords), c.my_health,
                           c.opp_health, c.draw, c.area, c.name]
    cards = {}
    for i, u in sorted(r.units.items()):
        c = u.card
        cards[i] = [c.base_id, c.type, c.cost, c.my_health, c.opp_health, c.draw, c.area, c.name]
    events = []
    for e in r.events:
        events.append([e.seq, type(e).__struct_config__.tag, e.rule, e.cause, describe(e, r.units),
                       e.player if type(e) is CardDrawn else -1])
    created = r.events[0]
    ended = r.final
    meta = {
        "source": r.source, "ruleset": created.ruleset, "version": created.ruleset_version, "seed": created.seed,
        "agents": list(created.agents) if any(created.agents) else list(r.meta.get("agents", ["", ""])),
        "winner": ended.winner, "reason": ended.end_reason,
        "start": r.turns()[0].start_seq if r.turns() else 0,
    }
    return {
        "meta": meta, "cards": cards, "pool": pool, "views": "[" + ",".join(views) + "]", "at": at, "events": events,
        "diffs": diffs, "rules": {rid: rule(rid).as_dict() for rid in sorted({e.rule for e in r.events})},
        "turns": [[t.number, t.player, t.first_seq, t.start_seq, t.last_seq] for t in r.turns()],
        "stops": stops(r),
        "warning": r.warning, "departs": {str(k): v for k, v in r.departs().items()},
    }


def render_html(r: Replay) -> str:
    data = game_data(r)
    views = data.pop("views")
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    payload = payload[:-1] + ',"views":' + views + "}"
    payload = payload.replace("</", "<\\/")
    template = (files("locm.replay") / "viewer.html").read_text(encoding="utf-8")
    title = f"LOCM {data['meta']['ruleset']} replay: {r.source}"
    return template.replace("__TITLE__", _escape(title)).replace("/*__DATA__*/null", payload)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
