"""A second `locm cardvalue` run (and so a resumed `locm tune`) reads its stored re-runs' outcomes from the facts
the store keeps beside their events (`locm.games.locm.whatif.stored_outcome`), not by checking and folding each
log again, and gives the same figures; a re-run whose log or record was changed behind the store's back is not
answered from its facts: its chain is checked and the re-run fails, naming it."""

from __future__ import annotations

import zlib
from collections import Counter

import pytest

from locm.engine.locm import native
from locm.engine.locm.variants import parse_variant
from locm.games.locm import whatif
from locm.games.locm.cardvalue import base_schedule, cardvalue, make_targets
from locm.store.eventstore import open_store, pack_log
from locm.store.interface import EventStore

pytestmark = pytest.mark.skipif(not native.available(), reason="the native core is not built (make native)")

RULES = parse_variant('base = "1.2"\nname = "strong1"\n[cards.1]\nattack = 12\ndefense = 12\nkeywords = "BCDGLW"\n')
AGENTS = ("random", "random")
SEEDS = 12


@pytest.fixture
def first(tmp_path):
    db = tmp_path / "cv.db"
    targets, variants = make_targets(RULES, ["1"], "vanilla")
    run = cardvalue(db, RULES, AGENTS, targets, variants, SEEDS)
    assert run.played > 0 and not run.errors
    return db, targets, variants, run


def _again(db, targets, variants):
    return cardvalue(db, RULES, AGENTS, targets, variants, SEEDS)


def test_a_second_run_reads_the_re_runs_from_their_facts_and_gives_the_same_figures(first, monkeypatch):
    db, targets, variants, run = first
    checked: list[str] = []
    real = EventStore.verified_events
    monkeypatch.setattr(EventStore, "verified_events", lambda self, gid: checked.append(gid) or real(self, gid))
    whatif._BASE.clear()  # as a new process: every base game is read and checked again
    again = _again(db, targets, variants)
    assert again.played == 0 and again.reused == run.played and not again.errors
    assert again.ranked() == run.ranked()
    base = {job.game_id for job in base_schedule(RULES, AGENTS, SEEDS, 1)}
    assert set(checked) == base  # the base games' chains are checked; the re-runs are answered by their facts


def test_the_outcome_read_from_the_facts_is_the_events_one(first):
    db, _, variants, _ = first
    with open_store(db, create=False, readonly=True) as store:
        ids = [r.game_id for r in store.games(ruleset=variants[0].name)]
        assert ids
        for gid in ids:
            decks, winner = whatif.stored_outcome(store, gid)
            g = whatif.project(store.verified_events(gid))
            assert winner == g.winner and [Counter(d) for d in decks] == [Counter(d) for d in g.decks]


@pytest.mark.parametrize("what", ["log", "record"])
def test_a_re_run_changed_behind_the_stores_back_is_not_read_from_its_facts(first, what):
    db, targets, variants, _ = first
    with open_store(db) as store:
        gid = next(r.game_id for r in store.games(ruleset=variants[0].name))
        where = "game = (SELECT id FROM games WHERE game_id = ?)"
        if what == "log":  # the winner of its last event changed, the record left as it was
            (data,) = store.db.execute(f"SELECT data FROM logs WHERE {where}", (gid,)).fetchone()
            lines = zlib.decompress(data).split(b"\n")
            end = lines[-1]
            lines[-1] = end.replace(b'"winner":0', b'"winner":1') if b'"winner":0' in end else \
                end.replace(b'"winner":1', b'"winner":0')
            assert lines[-1] != end
            store.db.execute(f"UPDATE logs SET data = ? WHERE {where}", (pack_log(lines), gid))
        else:  # the record's head hash no longer the one its facts were computed from
            store.db.execute("UPDATE games SET head_hash = ? WHERE game_id = ?", (bytes(32), gid))
        assert whatif.stored_outcome(store, gid) is None
    whatif._BASE.clear()
    again = _again(db, targets, variants)
    assert len(again.errors) == 1 and "chain" in again.errors[0][1].lower(), again.errors
