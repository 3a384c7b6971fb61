"""Causes a person can follow: each event's ``cause`` is the nearest fact that produced it, and walking the
causes from any event reaches the command that started it (an `action_received` or a `hard_error` record) or
the game's root, with strictly decreasing seqs. Each event names the rule it applied.

Checked on every event of every committed referee log (official and oracle, both rulesets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from locm.events.locm.catalog import (
    ActionReceived, CardDrawn, CreatureAttacked, CreatureDamaged, CreatureDied, CreatureModified, CreatureSummoned,
    DeckOrdered, DrawBonus, DrawLost, GameCreated, GameEnded, HardError, ItemUsed, PlayerDamaged, PlayerHealed,
    RuneBroken, TurnEnded, TurnStarted, WardLost,
)
from locm.replay.locm.conformance import check_game, read_log_file

DATA = Path(__file__).parent / "data"
LOG_FILES = sorted(DATA.glob("official-*.txt.gz")) + sorted(DATA.glob("oracle-*.txt.gz"))

# event type -> {rule: allowed cause types}
EXPECTED = {
    CreatureDied: {"R-ATTACK": {CreatureAttacked}, "R-USE": {CreatureModified}},
    CreatureDamaged: {"R-ATTACK": {CreatureAttacked}},
    WardLost: {"R-ATTACK": {CreatureAttacked}, "R-USE": {ItemUsed}},
    CreatureModified: {"R-USE": {ItemUsed}},
    RuneBroken: {"R-RUNES": {PlayerDamaged}},
    CardDrawn: {"R-DRAW": {TurnStarted}, "R-TURN": {DeckOrdered}},
    DrawLost: {"R-DRAW": {TurnStarted}},
}
DAMAGE = {  # PlayerDamaged.source -> (rule, cause types)
    "attack": ("R-ATTACK", {CreatureAttacked}),
    "breakthrough": ("R-ATTACK", {CreatureAttacked}),
    "item": ("R-USE", {ItemUsed}),
    "summon": ("R-SUMMON", {CreatureSummoned}),
    "deck": ("R-DRAW", {TurnStarted}),
    "turn_limit": ("R-DRAW", {TurnStarted}),
}
HEAL = {"drain": ("R-ATTACK", {CreatureAttacked}), "item": ("R-USE", {ItemUsed}),
        "summon": ("R-SUMMON", {CreatureSummoned})}
BONUS = {"rune": ("R-RUNES", {RuneBroken}), "damage": ("R-DAMAGEDRAW", {PlayerDamaged}),
         "card": (None, {CreatureSummoned, ItemUsed})}


def _games():
    for path in LOG_FILES:
        for logged in read_log_file(path):
            res = check_game(logged, keep_game=True)
            assert res.identical, res.summary()
            yield f"{path.name}:{logged.index}", res.game.log


@pytest.fixture(scope="module")
def games():
    return list(_games())


def test_there_are_logs_of_both_rulesets(games):
    names = {n.split(":")[0] for n, _ in games}
    assert any("1.2" in n for n in names) and any("1.5" in n for n in names)


def test_every_cause_chain_ends_at_a_command_or_the_root_with_decreasing_seqs(games):
    for name, log in games:
        for e in log:
            seen = e
            while seen.cause != -1:
                nxt = log[seen.cause]
                assert nxt.seq < seen.seq, f"{name}: seq {seen.seq} -> {nxt.seq}"
                seen = nxt
            assert type(seen) in (GameCreated, ActionReceived, HardError), f"{name}: seq {e.seq} ends at {seen}"
            if type(seen) is GameCreated:
                assert seen.seq == 0


def test_each_event_points_to_the_nearest_fact_and_names_its_rule(games):
    checked = {}
    for name, log in games:
        for e in log:
            t = type(e)
            cause = log[e.cause] if e.cause >= 0 else None
            where = f"{name}: seq {e.seq} {t.__name__} ({e.rule}) caused by {type(cause).__name__}"
            if t in EXPECTED:
                assert e.rule in EXPECTED[t] and type(cause) in EXPECTED[t][e.rule], where
            elif t is PlayerDamaged:
                rule, causes = DAMAGE[e.source]
                assert e.rule == rule and type(cause) in causes, where
            elif t is PlayerHealed:
                rule, causes = HEAL[e.source]
                assert e.rule == rule and type(cause) in causes, where
            elif t is DrawBonus:
                rule, causes = BONUS[e.source]
                assert (rule is None or e.rule == rule) and type(cause) in causes, where
            elif t is CreatureSummoned and e.copy_of:
                assert type(cause) is CreatureSummoned and cause.id == e.copy_of, where
            elif t is TurnStarted and e.turn > 0:
                assert type(cause) is TurnEnded and cause.player != e.player, where
            elif t is GameEnded and e.reason == "health":
                assert type(cause) is PlayerDamaged and cause.player != e.winner, where
            elif t is GameEnded and e.reason == "hard_error":
                assert type(cause) is HardError and cause.player != e.winner, where
            else:
                continue
            key = (t.__name__, getattr(e, "source", "") or e.rule)
            checked[key] = checked.get(key, 0) + 1
    # the logs reach the interesting cases (so the checks above are not vacuous)
    for key in [("CreatureDied", "R-ATTACK"), ("CreatureDied", "R-USE"), ("RuneBroken", "R-RUNES"),
                ("DrawBonus", "rune"), ("DrawBonus", "damage"), ("PlayerDamaged", "attack"),
                ("PlayerDamaged", "breakthrough"), ("PlayerDamaged", "item"), ("PlayerDamaged", "deck"),
                ("PlayerHealed", "drain"), ("CreatureSummoned", "R-SUMMON"), ("TurnStarted", "R-TURN"),
                ("GameEnded", "R-WIN"), ("WardLost", "R-ATTACK"), ("CardDrawn", "R-DRAW")]:
        assert checked.get(key, 0) > 0, f"no {key} in the committed logs"
