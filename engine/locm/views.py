"""What a person sees of a game state: plain JSON-ready views, diffs between two states, and one-line
descriptions of events. Everything here reads states built by the engine's fold; nothing re-applies a rule.
"""

from __future__ import annotations

from typing import Any

from locm.events.locm.cards import AREA_NAMES, CREATURE, TYPE_NAMES, keywords_to_str
from locm.engine.locm.rulesets import CONSTRUCTED  # the deck-building policy tells a ruleset family, not its name
from locm.engine.locm.state import GameState, Unit

LANES = 2


def card_obj(u: Unit, constructed: bool, on_board: bool = False) -> dict[str, Any]:
    """A card instance as the referee describes it (name-free): ids, type, cost, stats, keywords."""
    c = u.card
    d = {
        "id": u.id, "base_id": c.base_id, "type": TYPE_NAMES[c.type], "cost": c.cost,
        "attack": u.attack, "defense": u.defense, "keywords": keywords_to_str(u.keywords),
        "my_health": c.my_health, "opp_health": c.opp_health, "draw": c.draw,
    }
    if constructed:
        d["area"] = AREA_NAMES[c.area]
    if c.name:
        d["name"] = c.name
    if on_board:
        d["lane"] = u.lane
        d["can_attack"] = u.can_attack
        d["has_attacked"] = u.has_attacked
    return d


def view(state: GameState, perspective: int | None = None) -> dict[str, Any]:
    """The board as a JSON-ready dict. ``perspective`` 0 or 1 hides the other player's hand (a count) and
    both decks' order; None shows everything, with each deck's cards top first under ``deck_cards``."""
    if perspective not in (None, 0, 1):
        raise ValueError(f"perspective must be 0, 1 or None, got {perspective!r}")
    constructed = state.rules.deck_building == CONSTRUCTED
    players = []
    for pl in state.players:
        hidden = perspective is not None and perspective != pl.index
        lanes: list[list[dict[str, Any]]] = [[] for _ in range(LANES)]
        for u in pl.board:
            lanes[u.lane].append(card_obj(u, constructed, True))
        p: dict[str, Any] = {
            "player": pl.index, "health": pl.health, "mana": pl.mana, "max_mana": pl.max_mana,
            "deck": len(pl.deck),
            "hand": len(pl.hand) if hidden else [card_obj(u, constructed) for u in pl.hand],
            "hand_size": len(pl.hand),
            "board": lanes,
            "next_draw": pl.next_draw,
        }
        if constructed:
            p["damage_counter"] = pl.damage_counter
        else:
            p["runes"] = list(pl.runes)
            p["next_rune"] = pl.next_rune
        if perspective is None:
            p["deck_cards"] = [card_obj(u, constructed) for u in reversed(pl.deck)]
        players.append(p)
    out = {
        "seq": state.seq - 1, "turn": state.turn, "active": state.current, "phase": state.phase,
        "ruleset": state.rules.name, "perspective": perspective, "players": players,
    }
    if state.phase == "draft" and state.offer:
        out["draft"] = {"round": state.round, "offer": list(state.offer),
                        "picks": [len(pl.picks) if perspective not in (None, pl.index) else list(pl.picks)
                                  for pl in state.players]}
    if state.ended:
        out["winner"] = state.winner
        out["end_reason"] = state.end_reason
    return out


# --- diffs ------------------------------------------------------------------------------------------------

_PLAYER_FIELDS = ("health", "mana", "max_mana", "next_draw", "damage_counter")
_UNIT_FIELDS = ("attack", "defense", "keywords", "can_attack", "has_attacked", "lane")


def _unit_values(u: Unit) -> dict[str, Any]:
    return {"attack": u.attack, "defense": u.defense, "keywords": keywords_to_str(u.keywords),
            "can_attack": u.can_attack, "has_attacked": u.has_attacked, "lane": u.lane}


def diff(a: GameState, b: GameState) -> dict[str, Any]:
    """Only what changed from state ``a`` to state ``b``: ``[before, after]`` pairs.

    Keys (each present only when something changed): ``turn``, ``active``, ``phase``, ``winner``;
    ``players``: one object per player that changed (``player``, and any of health, mana, max_mana,
    next_draw, damage_counter, runes, deck (size), hand_size, hand_added / hand_removed (ids));
    ``creatures``: creatures on the board in both with changed attack, defense, keywords, can_attack,
    has_attacked or lane; ``entered`` / ``left``: creatures that came onto or left the board.
    """
    constructed = a.rules.deck_building == CONSTRUCTED
    out: dict[str, Any] = {}
    for f in ("turn", "current", "phase", "winner"):
        va, vb = getattr(a, f), getattr(b, f)
        if va != vb:
            out["active" if f == "current" else f] = [va, vb]
    players = []
    for pa, pb in zip(a.players, b.players):
        d: dict[str, Any] = {}
        for f in _PLAYER_FIELDS:
            va, vb = getattr(pa, f), getattr(pb, f)
            if va != vb and not (constructed is False and f == "damage_counter"):
                d[f] = [va, vb]
        if not constructed and pa.runes != pb.runes:
            d["runes"] = [list(pa.runes), list(pb.runes)]
        if len(pa.deck) != len(pb.deck):
            d["deck"] = [len(pa.deck), len(pb.deck)]
        ha, hb = [u.id for u in pa.hand], [u.id for u in pb.hand]
        if ha != hb:
            d["hand_size"] = [len(ha), len(hb)]
            added = [i for i in hb if i not in ha]
            removed = [i for i in ha if i not in hb]
            if added:
                d["hand_added"] = added
            if removed:
                d["hand_removed"] = removed
        if d:
            players.append({"player": pa.index, **d})
    if players:
        out["players"] = players
    ua = {u.id: u for p in a.players for u in p.board}
    ub = {u.id: u for p in b.players for u in p.board}
    changed = []
    for i, u in ub.items():
        if i in ua:
            va, vb = _unit_values(ua[i]), _unit_values(u)
            d = {f: [va[f], vb[f]] for f in _UNIT_FIELDS if va[f] != vb[f]}
            if d:
                changed.append({"id": i, "owner": u.owner, "base_id": u.card.base_id, **d})
    if changed:
        out["creatures"] = changed
    entered = [{"owner": u.owner, **card_obj(u, constructed, True)} for i, u in ub.items() if i not in ua]
    left = [{"owner": u.owner, **card_obj(u, constructed, True)} for i, u in ua.items() if i not in ub]
    if entered:
        out["entered"] = entered
    if left:
        out["left"] = left
    return out


def _v(x: Any) -> str:
    return ("yes" if x else "no") if isinstance(x, bool) else str(x)


def diff_lines(d: dict[str, Any]) -> list[str]:
    """A diff as short lines a person reads, e.g. ``P1 health 30 -> 28``."""
    return [line for line, _ in tagged_diff_lines(d)]


def tagged_diff_lines(d: dict[str, Any]) -> list[tuple[str, int]]:
    """`diff_lines` with, for each line, the player whose hidden cards it names (-1: anyone may see it)."""
    lines: list[Any] = []
    for key in ("turn", "active", "phase", "winner"):
        if key in d:
            lines.append(f"{key} {d[key][0]} -> {d[key][1]}")
    for p in d.get("players", []):
        who = f"P{p['player']}"
        for f, v in p.items():
            if f == "player":
                continue
            if f == "hand_added":
                lines.append((f"{who} hand + {', '.join(f'#{i}' for i in v)}", p["player"]))
            elif f == "hand_removed":
                lines.append((f"{who} hand - {', '.join(f'#{i}' for i in v)}", p["player"]))
            else:
                lines.append(f"{who} {f.replace('_', ' ')} {_v(v[0])} -> {_v(v[1])}")
    for c in d.get("creatures", []):
        for f, v in c.items():
            if f in ("id", "owner", "base_id"):
                continue
            lines.append(f"#{c['id']} (P{c['owner']}) {f.replace('_', ' ')} {_v(v[0])} -> {_v(v[1])}")
    for c in d.get("entered", []):
        lines.append(f"#{c['id']} (P{c['owner']}) enters lane {c['lane']}: {c['attack']}/{c['defense']} "
                     f"{c['keywords']}")
    for c in d.get("left", []):
        lines.append(f"#{c['id']} (P{c['owner']}) leaves the board")
    return [x if isinstance(x, tuple) else (x, -1) for x in lines]


# --- text -------------------------------------------------------------------------------------------------


def card_label(c: dict[str, Any]) -> str:
    """``#7 Slimer (1) 2/1 ---G--`` (creatures) or ``#5 Healing Potion (2) itemGreen +1/+3 ---G--`` (items):
    the card's name where it has one (the 1.2 list), else its base id (``b94``: generated cards have none)."""
    if c["type"] == TYPE_NAMES[CREATURE]:
        stats = f"{c['attack']}/{c['defense']}"
    else:
        stats = f"{c['type']} {c['attack']:+d}/{c['defense']:+d}"
    extra = []
    for key, short in (("my_health", "me"), ("opp_health", "opp"), ("draw", "draw")):
        if c.get(key):
            extra.append(f"{short}{c[key]:+d}")
    if c.get("area") and c["area"] != "target":
        extra.append(c["area"])
    text = f"#{c['id']} {c.get('name') or 'b' + str(c['base_id'])} ({c['cost']}) {stats} {c['keywords']}"
    if "can_attack" in c:
        text += " ready" if c["can_attack"] else ""
    return text + ("".join(f" {x}" for x in extra))


def _n(x: Any) -> int:
    return x if isinstance(x, int) else len(x)


def board_text(v: dict[str, Any]) -> list[str]:
    """A view as text lines: each player's line, hand and lanes (the opponent of the active player on top)."""
    lines = []
    head = f"seq {v['seq']}  turn {v['turn']}  phase {v['phase']}  active P{v['active']}  ruleset {v['ruleset']}"
    if v["perspective"] is not None:
        head += f"  (as P{v['perspective']})"
    if "winner" in v:
        head += f"  WINNER P{v['winner']} ({v['end_reason']})"
    lines.append(head)
    if "draft" in v:
        d = v["draft"]
        lines.append(f"draft round {d['round']}: P{v['active']} picks one of "
                     + ", ".join(f"b{b}" for b in d["offer"])
                     + f"  (picked so far: P0 {_n(d['picks'][0])}, P1 {_n(d['picks'][1])})")
    for p in v["players"]:
        extra = (f"next rune {p['next_rune']}" if "next_rune" in p else f"damage {p['damage_counter']}")
        marker = ">" if p["player"] == v["active"] else " "
        lines.append(f"{marker}P{p['player']}  health {p['health']}  mana {p['mana']}/{p['max_mana']}  "
                     f"deck {p['deck']}  hand {p['hand_size']}  {extra}  next draw {p['next_draw']}")
        if isinstance(p["hand"], list):
            lines.append("    hand: " + ("  ".join(card_label(c) for c in p["hand"]) or "-"))
        else:
            lines.append(f"    hand: {p['hand']} hidden cards")
        for lane, cs in enumerate(p["board"]):
            lines.append(f"    lane {lane}: " + ("  ".join(card_label(c) for c in cs) or "-"))
    return lines
