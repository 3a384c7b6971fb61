"""LOCM's board in the viewer shell (`replay.html`, named by its wing: `replay.locm.wing`): ``viewer_data``
and ``BOARD_JS`` (`replay/locm/board.js`, its ``drawBoard``, the cards' hover text and the arrows).

Every board the page can show is computed here, by the engine's fold, and embedded as compact JSON; the
page's script only draws them. Layout of the board's data (the shell's own keys, the events, rules, turns,
stops, warning and departures, are `replay.html.page_data`'s):

- ``cards``: ``{id: [base_id, type, cost, my_health, opp_health, draw, area, name, attack, defense,
  keywords, text]}`` (printed values); ``pool``: ``{base_id: [type, cost, attack, defense, keywords, my, opp,
  draw, area, name, text]}`` of the cards offered in the draft or chosen in the draft or deck building;
- ``views``: distinct boards; ``at[seq]`` is the index of the board just after event ``seq``. A board is
  ``[turn, active, phase, winner, p0, p1, offer, picks]`` with ``p = [health, mana, max_mana, deck,
  next_draw, rune or damage counter, hand, board]``, ``offer`` ``[round, offered base ids]`` in the draft
  (else null) and ``picks`` each player's cards taken so far (base ids; the draft's picks or the constructed
  deck) in the draft and deck building, up to the first turn; a hand card ``[id, attack, defense,
  keywords]`` and a creature ``[id, lane, attack, defense, keywords, can_attack, has_attacked]``;
- ``root[seq]``: the seq of the record (the player's command) whose decision made event ``seq`` (-1 from a
  turn's start to the next record);
  ``arrows[root]``: that decision's attacks and item uses as ``[seq, kind, from, to, to_player, to_lane,
  from_lane, player]``: kind ``attack`` (from a creature) or the item's type (from the hand of ``player``,
  who acts), ``to`` a creature id or -1 for the player ``to_player`` itself; lanes are where the creatures
  stood, so that an arrow still points somewhere once they died. The page draws one: the decision's last
  at or before the event shown (its first, on the record itself);
- ``diffs[seq]``: lines, a line that names a player's hand cards as ``[text, player]`` (not shown in the
  other player's view; the shell draws them);
- ``locm``: the ruleset, its version, the seed, the winner and how the game ended.
"""

from __future__ import annotations

import json
from importlib.resources import files

from locm.events.locm.cards import keywords_to_str
from locm.events.locm.catalog import CardDrawn, CardPicked, DeckChosen, DraftOffered
from locm.engine.locm.rulesets import CONSTRUCTED  # the deck-building policy tells a ruleset family, not its name
from locm.engine.locm.evolve import evolve, initial_state
from locm.replay.game import Replay
from locm.engine.locm.views import diff, tagged_diff_lines

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
    out.append([state.round, list(state.offer)] if state.phase == "draft" and state.offer else None)
    if state.phase in ("draft", "construct") or (state.phase == "battle" and state.turn < 0):
        out.append([list(pl.picks) for pl in state.players])  # up to the first turn: the decks as built
    return out


def _arrows(events, before_states) -> tuple[list[int], dict[int, list]]:
    """``root`` and ``arrows`` of the module note, from the events and the state before each of them."""
    from locm.events.locm.catalog import CreatureAttacked, ItemUsed
    from locm.events.locm.cards import TYPE_NAMES

    from locm.events.locm.catalog import TurnStarted

    root, arrows, current = [], {}, 0
    for e, prev in zip(events, before_states):
        if e.cause == -1:
            current = e.seq
        elif type(e) is TurnStarted:
            current = -1  # a new turn (caused by the last one's end): no decision's arrow
        root.append(current)
        t = type(e)
        if t is CreatureAttacked:
            att, tgt = prev.units[e.attacker], e.target
            to_lane = prev.units[tgt].lane if tgt != -1 else -1
            arrows.setdefault(current, []).append([e.seq, "attack", e.attacker, tgt, 1 - e.player, to_lane,
                                                   att.lane, e.player])
        elif t is ItemUsed:
            tgt = e.target
            item = prev.units[e.id].card
            owner = prev.units[tgt].owner if tgt != -1 else 1 - e.player
            to_lane = prev.units[tgt].lane if tgt != -1 else -1
            if tgt != -1 or item.defense or item.opp_health:  # a blue item at the opponent, or any target
                arrows.setdefault(current, []).append([e.seq, TYPE_NAMES[item.type], e.id, tgt, owner, to_lane,
                                                       -1, e.player])
    return root, arrows


def game_data(r: Replay) -> dict:
    views, index, at, diffs = [], {}, [], []
    state = initial_state(r.events[0])
    prev = None
    befores = []
    for e in r.events:
        if e.seq:
            prev = state.copy()
            evolve(state, e)
        befores.append(prev if prev is not None else state)
        v = json.dumps(_compact(state), separators=(",", ":"))
        k = index.get(v)
        if k is None:
            k = index[v] = len(views)
            views.append(v)
        at.append(k)
        lines = tagged_diff_lines(diff(prev, state)) if prev is not None else []
        diffs.append([text if who < 0 else [text, who] for text, who in lines])
    pool = {}
    shown = {b for e in r.events if type(e) is DraftOffered for b in e.base_ids}
    shown |= {b for e in r.events if type(e) in (CardPicked, DeckChosen)
              for b in (e.base_ids if type(e) is DeckChosen else (e.base_id,))}
    for b in sorted(shown & r.final.cards.keys()):  # a forged log (shown with its warning) may name others
        c = r.final.cards[b]
        pool[b] = [c.type, c.cost, c.attack, c.defense, keywords_to_str(c.keywords), c.my_health,
                   c.opp_health, c.draw, c.area, c.name, c.text]
    cards = {}
    for i, u in sorted(r.final.units.items()):
        c = u.card
        cards[i] = [c.base_id, c.type, c.cost, c.my_health, c.opp_health, c.draw, c.area, c.name, c.attack,
                    c.defense, keywords_to_str(c.keywords), c.text]
    root, arrows = _arrows(r.events, befores)
    created, ended = r.events[0], r.final
    locm = {"ruleset": created.ruleset, "version": created.ruleset_version, "seed": created.seed,
            "winner": ended.winner, "reason": ended.end_reason}
    return {"locm": locm, "cards": cards, "pool": pool, "views": views, "at": at, "diffs": diffs,
            "root": root, "arrows": arrows}


def viewer_data(r: Replay) -> dict:
    """The board's part of the page's data (the module text), its boards as parsed JSON."""
    data = game_data(r)
    data["views"] = [json.loads(v) for v in data["views"]]
    return data


BOARD_JS = (files("locm.replay.locm") / "board.js").read_text(encoding="utf-8")
