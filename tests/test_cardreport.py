"""Card-balance reports (issue 9): the card-facts projection, its metrics, the report files and commands."""

from __future__ import annotations

import json
import math
import sqlite3
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from locm.analysis.locm.cardfacts import DEFINITIONS_VERSION, project
from locm.analysis.locm.cardmetrics import rate
from locm.engine.locm.agents import Agent, GreedyAgent, RandomAgent
from locm.engine.locm.playing import play
from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.game import Game
from locm.events.locm.catalog import (CardDrawn, CardPicked, CardPoolDefined, CreatureSummoned, DeckOrdered, DraftOffered,
                            GameCreated, GameEnded, ItemUsed, TurnStarted)
from locm.games.locm import facts_store as cs
from locm.cli.main import cli
from locm.games.locm.cardreport import CARD_KEYS, collect, write_report
from locm.store.eventstore import open_store
from locm.games.locm.tournament import run_game
from locm.engine.locm.definition import GAME as LOCM_GAME

CARDS = cardlist_12()


# --- hand-written logs with known answers -----------------------------------------------------------------


class _Log:
    """Builds a hand-written log: events get their seq in order."""

    def __init__(self, agents=("a", "b"), seed=1, ruleset="1.2"):
        self.events = []
        self.add(GameCreated, ruleset=ruleset, ruleset_version=ruleset, seed=seed, shuffle_player0_seed=1,
                 shuffle_player1_seed=2, draft_choices_seed=3, agents=agents)

    def add(self, cls, rule="R-TEST", **fields):
        self.events.append(cls(seq=len(self.events), cause=-1, rule=rule, **fields))
        return self


def _game_a(agents=("a", "a")):
    """Winner 0. Player 0: deck 10, 10, 20 (ids 1, 2, 3); player 1: deck 10, 30 (ids 4, 5). One agent in
    both seats by default: the report then counts both seats in one pairing."""
    g = _Log(agents, seed=1)
    g.add(CardPoolDefined, cards=tuple(CARDS[b] for b in (10, 20, 30, 40, 50)))
    g.add(DraftOffered, round=0, base_ids=(10, 20, 30))
    g.add(CardPicked, player=0, round=0, base_id=10).add(CardPicked, player=1, round=0, base_id=10)
    g.add(DraftOffered, round=1, base_ids=(10, 20, 30))
    g.add(CardPicked, player=0, round=1, base_id=10).add(CardPicked, player=1, round=1, base_id=30)
    g.add(DraftOffered, round=2, base_ids=(20, 40, 50))
    g.add(CardPicked, player=0, round=2, base_id=20).add(CardPicked, player=1, round=2, base_id=40)
    g.add(DeckOrdered, player=0, ids=(1, 2, 3), base_ids=(10, 10, 20))
    g.add(DeckOrdered, player=1, ids=(4, 5), base_ids=(10, 30))
    g.add(CardDrawn, rule="R-TURN", player=0, id=1).add(CardDrawn, rule="R-TURN", player=1, id=4)
    g.add(TurnStarted, player=0, turn=0, max_mana=1, mana=1, bonus_spent=False, draws=1)
    g.add(CardDrawn, player=0, id=2)
    g.add(CreatureSummoned, player=0, id=2, base_id=10, lane=0, cost=1)
    g.add(CreatureSummoned, player=0, id=99, base_id=10, lane=0, cost=0, copy_of=2)  # an Area copy: no play
    g.add(TurnStarted, player=1, turn=1, max_mana=1, mana=1, bonus_spent=False, draws=1)
    g.add(CardDrawn, player=1, id=5)
    g.add(ItemUsed, player=1, id=5, base_id=30, target=-1, cost=1)
    g.add(TurnStarted, player=0, turn=2, max_mana=2, mana=2, bonus_spent=False, draws=0)
    g.add(CreatureSummoned, player=0, id=1, base_id=10, lane=1, cost=1)
    g.add(GameEnded, winner=0, reason="test", turn=2)
    return g.events


def _game_b(agents=("a", "a")):
    """Winner 1. Player 0: deck 20, 10 (ids 1, 2): 20 drawn after the opening hand and never played, 10 never
    seen. Player 1: deck 30 (id 3), not drawn."""
    g = _Log(agents, seed=2)
    g.add(CardPoolDefined, cards=tuple(CARDS[b] for b in (10, 20, 30)))
    g.add(DeckOrdered, player=0, ids=(1, 2), base_ids=(20, 10))
    g.add(DeckOrdered, player=1, ids=(3,), base_ids=(30,))
    g.add(TurnStarted, player=0, turn=0, max_mana=1, mana=1, bonus_spent=False, draws=1)
    g.add(CardDrawn, player=0, id=1)
    g.add(GameEnded, winner=1, reason="test", turn=0)
    return g.events


def _store(path, *games):
    store = open_store(path)
    for i, events in enumerate(games):
        store.append_game(LOCM_GAME, {"game_id": f"g{i}-{path.name}"}, events)
    store.close()


def _row(rows, key):
    return next(r for r in rows if r.get("base_id") == key)


def test_hand_written_logs_give_the_exact_counts(tmp_path):
    db = tmp_path / "s.db"
    _store(db, _game_a(), _game_b())
    data = collect(db, min_n=1)
    rows = data.rulesets["1.2"].cards
    c10 = _row(rows, 10)
    assert (c10["deck_n"], c10["deck_wins"]) == (3, 1)  # two copies in one deck count once
    assert (c10["opening_hand_n"], c10["opening_hand_wins"]) == (2, 1)
    assert (c10["drawn_n"], c10["drawn_wins"]) == (1, 1)
    assert (c10["in_hand_n"], c10["in_hand_wins"]) == (2, 1)
    assert (c10["not_seen_n"], c10["not_seen_wins"]) == (1, 0)
    assert (c10["played_n"], c10["played_wins"]) == (1, 1)
    assert c10["iih"] == 0.5 and c10["in_hand_wr"] == 0.5 and c10["not_seen_wr"] == 0.0
    assert (c10["offered"], c10["picked"], c10["pick_rate"], c10["avg_pick"]) == (4, 3, 0.75, 1.33)
    assert c10["avg_turn_played"] == 1.5 and c10["avg_turns_held"] == 0.5  # the Area copy is no play
    c20 = _row(rows, 20)  # drawn in game B, not in game A, never played
    assert (c20["deck_n"], c20["deck_wins"], c20["drawn_n"], c20["drawn_wins"]) == (2, 1, 1, 0)
    assert (c20["in_hand_n"], c20["not_seen_n"], c20["not_seen_wins"]) == (1, 1, 1)
    assert (c20["played_n"], c20["played_wr"], c20["avg_turn_played"]) == (0, None, None)
    assert (c20["offered"], c20["picked"], c20["avg_pick"]) == (6, 1, 3.0)
    c30 = _row(rows, 30)
    assert (c30["deck_n"], c30["played_n"], c30["played_wins"], c30["avg_turn_played"]) == (2, 1, 0, 1.0)
    assert c30["not_seen_n"] == 1 and c30["in_hand_n"] == 1
    c40 = _row(rows, 40)  # picked, not in the deck
    assert (c40["deck_n"], c40["picked"], c40["offered"], c40["pick_rate"]) == (0, 1, 2, 0.5)
    assert data.version == DEFINITIONS_VERSION
    seat = data.rulesets["1.2"].games
    assert [g["turns"] for g in seat] == [3, 1] and [g["winner"] for g in seat] == [0, 1]


def test_minimum_sample_hides_the_rate_but_keeps_the_counts(tmp_path):
    db = tmp_path / "s.db"
    _store(db, _game_a(), _game_b())
    c10 = _row(collect(db, min_n=3).rulesets["1.2"].cards, 10)
    assert c10["deck_n"] == 3 and c10["deck_wr"] == 0.3333 and c10["deck_ci"] is not None
    assert c10["in_hand_n"] == 2 and c10["in_hand_wr"] is None and c10["in_hand_ci"] is None
    assert c10["iih"] is None


def test_seat_and_agent_filters(tmp_path):
    db = tmp_path / "s.db"
    _store(db, _game_a(("a", "b")), _game_b(("a", "b")))
    seat1 = collect(db, min_n=1, seat=1).rulesets["1.2"].cards
    assert _row(seat1, 10)["deck_n"] == 1 and _row(seat1, 10)["offered"] == 2
    agent_b = collect(db, min_n=1, agent="b").rulesets["1.2"].cards
    assert _row(agent_b, 30)["deck_n"] == 2 and _row(agent_b, 10)["deck_n"] == 1


def test_projection_ignores_event_types_and_fields_it_does_not_use():
    events = _game_a()
    before = project(events)

    class Unknown:  # a future event type: no handler, no failure
        seq = 99

    after = project(events[:3] + [Unknown()] + events[3:])
    assert [f.row() for f in after.cards] == [f.row() for f in before.cards]


# --- properties -------------------------------------------------------------------------------------------


@given(st.integers(0, 400), st.integers(1, 400))
def test_the_interval_contains_the_rate_and_narrows_as_n_grows(wins, n):
    wins = min(wins, n)
    p, (lo, hi) = rate(wins, n, 1)
    assert lo <= p <= hi
    p2, (lo2, hi2) = rate(4 * wins, 4 * n, 1)
    assert p2 == p and hi2 - lo2 < hi - lo


_seen_games: dict = {}


def _played(ruleset, seed, agents):
    key = (ruleset, seed, agents)
    if key not in _seen_games:
        _seen_games[key] = run_game(ruleset, seed, agents).game.log
    return _seen_games[key]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["1.2", "constructed"]), st.lists(st.integers(1, 40), min_size=1, max_size=4, unique=True),
       st.sampled_from([("random", "random"), ("greedy", "random"), ("random", "greedy")]))
def test_metric_identities_hold_on_played_games(ruleset, seeds, agents):
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "p.db"
        store = open_store(db)
        for s in seeds:
            store.append_game(LOCM_GAME, {"game_id": f"{ruleset}-{s}"}, _played(ruleset, s, agents))
        store.close()
        data = collect(db, min_n=1)
    for r in data.rulesets[ruleset].cards:
        assert r["in_hand_n"] + r["not_seen_n"] == r["deck_n"], r
        assert r["opening_hand_n"] <= r["in_hand_n"] and r["drawn_n"] <= r["in_hand_n"]
        assert r["played_n"] <= r["in_hand_n"]
        if r["iih"] is not None:
            assert math.isclose(r["iih"], r["in_hand_wr"] - r["not_seen_wr"], abs_tol=1e-9)
        for m in ("deck", "in_hand", "not_seen", "played"):
            if r[f"{m}_wr"] is not None:
                lo, hi = r[f"{m}_ci"]
                assert lo <= r[f"{m}_wr"] <= hi
        if r["avg_pick"] is not None:
            assert 1 <= r["avg_pick"] <= 30


# --- a planted signal -------------------------------------------------------------------------------------

PLANTED = 22  # any 1.2 card: the signal comes from the agent, not from the card


class PlantedAgent(Agent):
    """Drafts PLANTED whenever it is offered, else at random; plays greedily once PLANTED reached its hand,
    at random before. So PLANTED in hand means a much better player."""

    name = "planted"

    def __init__(self, seed):
        self.greedy, self.random, self.lucky = GreedyAgent(), RandomAgent(seed), False

    def pick(self, state, player):
        offer = list(state.offer)
        return offer.index(PLANTED) if PLANTED in offer else self.random.pick(state, player)

    def battle(self, game, player):
        self.lucky = self.lucky or any(u.card.base_id == PLANTED for u in game.state.players[player].hand)
        (self.greedy if self.lucky else self.random).battle(game, player)


class AvoidingAgent(RandomAgent):
    """Random, but never drafts PLANTED."""

    name = "avoiding"

    def pick(self, state, player):
        options = [i for i, b in enumerate(state.offer) if b != PLANTED]
        return options[self.rng.next_int(len(options))]


def test_a_planted_card_tops_the_ranking_with_an_interval_above_half(tmp_path):
    db = tmp_path / "planted.db"
    store = open_store(db)
    for seed in range(1, 161):
        for seat in (0, 1):
            names = ("planted", "avoiding") if seat == 0 else ("avoiding", "planted")
            game = Game.new("1.2", seed, agents=names)
            agents = [PlantedAgent(seed) if n == "planted" else AvoidingAgent(seed + 1000) for n in names]
            play(game, agents)
            store.append_game(LOCM_GAME, {"game_id": f"p-{seed}-{seat}"}, game.log)
    store.close()
    data = collect(db, min_n=20)
    ranked = sorted((r for r in data.rulesets["1.2"].cards if r["in_hand_wr"] is not None),
                    key=lambda r: r["in_hand_wr"], reverse=True)
    top = ranked[0]
    assert top["base_id"] == PLANTED, [(r["base_id"], r["in_hand_wr"], r["in_hand_n"]) for r in ranked[:5]]
    assert top["in_hand_ci"][0] > 0.5
    assert top["iih"] > 0.2


# --- the projection: rebuilt equals incremental -----------------------------------------------------------


def test_rebuilt_projection_equals_the_incremental_one(tmp_path, monkeypatch):
    db = tmp_path / "inc.db"
    store = open_store(db)
    batches = [[("1.2", s, ("greedy", "random")) for s in range(1, 4)],
               [("constructed", s, ("random", "greedy")) for s in range(1, 4)],
               [("1.2", s, ("random", "random")) for s in range(4, 9)]]
    summaries = []
    for batch in batches:
        for rs, s, agents in batch:
            store.append_game(LOCM_GAME, {"game_id": f"{rs}-{s}-{agents}"}, _played(rs, s, agents))
        summaries.append(cs.refresh(db, workers=1))
    store.close()
    # every game was stored with its facts: counted from them, its log not read
    assert [(s.projected, s.already, s.rebuilt, s.from_stored) for s in summaries] == [
        (3, 0, False, 3), (3, 3, False, 3), (5, 6, False, 5)]
    incremental = cs.dump(db)
    assert len(incremental[0]) == 11 and len(incremental[1]) > 11 * 10 and all(incremental[1:4])
    monkeypatch.setattr(cs, "CHUNK", 3)  # several chunks, projected from the events by two worker processes
    rebuilt = cs.refresh(db, rebuild=True, workers=2)
    assert (rebuilt.projected, rebuilt.rebuilt, rebuilt.from_stored) == (11, True, 0)
    assert cs.dump(db) == incremental
    with sqlite3.connect(db) as conn:  # a changed definitions version or layout is never trusted: rebuilt
        conn.execute("UPDATE cardfacts_meta SET value = 'old' WHERE key = 'definitions_version'")
    assert cs.refresh(db, workers=1).rebuilt and cs.dump(db) == incremental
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE cardfacts_meta SET value = 'other' WHERE key = 'layout'")
    assert cs.refresh(db, workers=1).rebuilt and cs.dump(db) == incremental
    assert not cs.refresh(db, workers=1).rebuilt


def test_games_without_usable_stored_facts_are_projected_from_their_events_and_get_them(tmp_path, monkeypatch):
    """A game whose facts are missing (a store written before them), of another version, of another head (the
    game changed since) or undecodable is read from its events, with the same result; its facts are stored
    back, so the next rebuild from stored facts reads no log."""
    from locm.analysis.locm.packedfacts import FACTS_VERSION

    db = tmp_path / "old.db"
    store = open_store(db)
    for s in range(1, 7):
        for rs in ("1.2", "constructed"):
            store.append_game(LOCM_GAME, {"game_id": f"{rs}-{s}"}, _played(rs, s, ("greedy", "random")))
    store.close()
    assert cs.refresh(db, workers=1).from_stored == 12
    expected = cs.dump(db)
    with sqlite3.connect(db) as conn:
        key = "(SELECT id FROM games WHERE game_id = ?)"
        conn.execute(f"DELETE FROM game_facts WHERE game = {key}", ("1.2-1",))
        conn.execute(f"UPDATE game_facts SET version = 'cardfacts-0/packed-0' WHERE game = {key}", ("1.2-2",))
        conn.execute(f"UPDATE game_facts SET head_hash = zeroblob(32) WHERE game = {key}", ("constructed-3",))
        conn.execute(f"UPDATE game_facts SET data = x'c1' WHERE game = {key}", ("constructed-4",))
    _drop_projection(db)  # as if no report had run
    monkeypatch.setattr(cs, "CHUNK", 5)
    summary = cs.refresh(db, workers=2)
    assert (summary.projected, summary.from_stored) == (12, 8)
    assert cs.dump(db) == expected
    with sqlite3.connect(db) as conn:
        kept = conn.execute("SELECT count(*) FROM games g JOIN game_facts f ON f.game = g.id AND "
                            "f.head_hash = g.head_hash AND f.version = ?", (FACTS_VERSION,)).fetchone()[0]
        sources = dict(conn.execute("SELECT game_id, stored FROM cardfacts_games"))
    assert kept == 12
    assert {g for g, stored in sources.items() if not stored} == {"1.2-1", "1.2-2", "constructed-3", "constructed-4"}
    assert cs.refresh(db, workers=1).projected == 0
    _drop_projection(db)
    assert cs.refresh(db, workers=1).from_stored == 12 and cs.dump(db) == expected


def _drop_projection(db) -> None:
    conn = cs.connect(db)
    cs.drop(conn)
    conn.close()


# The totals' definitions written as SQL over the card rows (as the projection computed them before the facts
# were stored) and as plain Python over each game's bucket counts: the reference the stored-facts sums must
# equal.
_SUMS = """SUM(copies > 0), SUM((copies > 0) AND won), SUM(opening > 0), SUM((opening > 0) AND won),
       SUM(drawn > 0), SUM((drawn > 0) AND won), SUM(opening + drawn > 0), SUM((opening + drawn > 0) AND won),
       SUM(copies > 0 AND opening + drawn = 0), SUM((copies > 0 AND opening + drawn = 0) AND won),
       SUM(plays > 0), SUM((plays > 0) AND won), SUM(picked), SUM(pick_sum), SUM(picked > 0),
       SUM(COALESCE(pick_first, 0)), SUM(plays), SUM(play_turn_sum), SUM(held_sum)"""
_REFERENCE_TOTALS = f"""SELECT ruleset, agent, opponent, player, card, fkey, {_SUMS} FROM cards
WHERE game_id NOT IN (SELECT game_id FROM pooled) GROUP BY 1, 2, 3, 4, 5, 6"""
_REFERENCE_BUCKETS = f"""SELECT ruleset, agent, opponent, player, b.feature, {_SUMS}
FROM cards JOIN buckets b ON b.fkey = cards.fkey WHERE game_id IN (SELECT game_id FROM pooled) GROUP BY 1, 2, 3, 4, 5"""
_REFERENCE_TURNS = ("SELECT ruleset, agent, opponent, player, first_play_turn, count(*), SUM(won) FROM cards "
                    "WHERE plays > 0 GROUP BY 1, 2, 3, 4, 5")


def _reference(games: list[tuple[str, list]]) -> list[list[tuple]]:
    """The six totals tables of ``games`` ((game id, events)), by the reference definitions, sorted."""
    from collections import Counter, defaultdict

    from locm.analysis.locm.cardfacts import FEATURE_ORDER, features_of_key, unpack_counts

    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE cards ({', '.join(cs.ROW_COLUMNS)})")
    conn.execute("CREATE TABLE pooled (game_id)")  # the games whose decks were built from a generated pool
    conn.execute("CREATE TABLE buckets (fkey, feature)")  # each feature key's buckets, as FEATURE_ORDER indices
    offered: Counter = Counter()
    clusters: dict = defaultdict(Counter)
    cross: dict = defaultdict(Counter)
    for gid, events in games:
        g = project(events)
        agents = g.agents
        conn.executemany(f"INSERT INTO cards VALUES ({', '.join('?' * len(cs.ROW_COLUMNS))})",
                         [(gid, g.ruleset, agents[f.player], agents[1 - f.player], *f.row()) for f in g.cards])
        if g.pool:
            conn.execute("INSERT INTO pooled VALUES (?)", (gid,))
        conn.executemany("INSERT INTO buckets VALUES (?, ?)",
                         {(f.fkey, FEATURE_ORDER.index(b)) for f in g.cards for b in features_of_key(f.fkey)})
        counts = {str(k): n for k, n in (g.pool or g.offered).items()}
        for p in (0, 1):
            head = (g.ruleset, agents[p], agents[1 - p], p)
            for key, n in counts.items():
                offered[(*head, key)] += n
            for code, v in g.buckets[p].items():
                for m, n in enumerate(unpack_counts(v)):
                    clusters[(*head, code, m)].update(s2=n * n, s2w=n * n * (g.winner == p), g=int(n > 0))
        if agents[0] == agents[1]:
            for code in g.buckets[0].keys() & g.buckets[1].keys():
                for m, (n0, n1) in enumerate(zip(unpack_counts(g.buckets[0][code]), unpack_counts(g.buckets[1][code]))):
                    cross[(g.ruleset, agents[0], code, m)].update(x=n0 * n1, c=int(n0 > 0 and n1 > 0))
    conn.execute("CREATE TABLE b AS SELECT DISTINCT fkey, feature FROM buckets")
    conn.execute("DROP TABLE buckets")
    conn.execute("ALTER TABLE b RENAME TO buckets")
    return [sorted(conn.execute(_REFERENCE_TOTALS)), sorted(conn.execute(_REFERENCE_TURNS)),
            sorted((*k, n) for k, n in offered.items()),
            sorted((*k, v["s2"], v["s2w"], v["g"]) for k, v in clusters.items() if v["g"]),
            sorted((*k, v["x"], v["c"]) for k, v in cross.items() if v["c"]),
            sorted(conn.execute(_REFERENCE_BUCKETS))]


def test_the_totals_are_the_definitions_and_are_added_chunk_by_chunk(tmp_path, monkeypatch):
    """No serial tail: after each chunk is stored, the running totals already hold every game so far, and
    equal what the definitions give over those games' card rows and bucket counts (1.2 and constructed,
    self-play included, whose bucket sums cross the two seats)."""
    db = tmp_path / "chunks.db"
    store = open_store(db)
    games = []
    for rs, agents in (("1.2", ("greedy", "random")), ("constructed", ("lookahead", "lookahead")),
                       ("constructed", ("random", "greedy"))):
        for s in range(1, 4):
            games.append((f"{rs}-{s}-{agents[0]}", _played(rs, s, agents)))
            store.append_game(LOCM_GAME, {"game_id": games[-1][0]}, games[-1][1])
    store.close()
    monkeypatch.setattr(cs, "CHUNK", 2)
    seen = []

    def after_chunk(n):
        with sqlite3.connect(db) as conn:
            done = {r[0] for r in conn.execute("SELECT game_id FROM cardfacts_games")}
            tables = [sorted(conn.execute(f"SELECT * FROM {t}")) for t in
                      ("cardfacts_totals", "cardfacts_turns", "cardfacts_offered", "cardfacts_clusters",
                       "cardfacts_cross", "cardfacts_buckets")]
        seen.append((n, tables == _reference([g for g in games if g[0] in done])))

    cs.refresh(db, workers=1, progress=after_chunk)
    assert seen == [(2, True)] * 4 + [(1, True)]
    assert all(_reference(games)[1:])  # every table has rows to compare (cross: the self-play buckets)


def test_the_store_still_opens_with_the_projection_tables(tmp_path):
    db = tmp_path / "s.db"
    _store(db, _game_a())
    cs.refresh(db, workers=1)
    store = open_store(db, create=False)
    assert store.count() == 1
    store.close()


# --- the report files and the commands --------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("rep") / "r.db"
    store = open_store(db)
    for rs in ("1.2", "constructed"):
        for s in range(1, 9):
            for agents in (("greedy", "random"), ("random", "greedy")):
                store.append_game(LOCM_GAME, {"game_id": f"{rs}-{s}-{agents[0]}"}, _played(rs, s, agents))
    store.close()
    return db


def test_report_writes_every_file_with_the_issue_keys(small_db, tmp_path):
    out = tmp_path / "rep"
    result = CliRunner().invoke(cli, ["report", "--db", str(small_db), "--min-games", "5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "cards.json").read_text())
    assert {r["ruleset"] for r in rows} == {"1.2", "constructed"}
    for r in rows:
        key = "base_id" if r["ruleset"] == "1.2" else "feature"
        assert list(r) == [k for k in CARD_KEYS if k not in ("base_id", "feature") or k == key]
        assert r["definitions_version"] == DEFINITIONS_VERSION
    assert any(r.get("feature") == "keyword: guard" for r in rows)
    csv_lines = (out / "cards.csv").read_text().splitlines()
    assert len(csv_lines) == len(rows) + 1 and "in_hand_ci_lo" in csv_lines[0]
    html = (out / "index.html").read_text()
    for text in ("32 (1.2: 16, constructed: 16)", DEFINITIONS_VERSION, "minimum sample", "selection bias",
                 "Lopsided data", "greedy vs random", "random vs greedy", "clustered by game", "locm cardvalue",
                 "data:image/png;base64,", "greedy", "1.2 and constructed side by side", "sortable"):
        assert text in html, text
    assert "http://" not in html and "https://" not in html  # self-contained
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert {"seat.png", "length-damage.png", "cost.png", "turn-played.png", "constructed-features.png"} <= set(pngs)
    assert all((out / p).read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_cards_stats_prints_a_sorted_table(small_db):
    result = CliRunner().invoke(cli, ["cards", "stats", "--db", str(small_db), "-r", "1.2", "--sort", "deck_n",
                                      "--top", "5", "--min-games", "3"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ruleset") and len(lines) >= 2 + 5 + 1
    # greedy against random is lopsided: each row says so, and so does a warning per pairing
    assert all(" !" in line for line in lines[2:7])
    # the footer counts the games of each pairing shown, not the store's
    data = collect(small_db, ruleset="1.2", min_n=3)
    shown = {(r["agent"], r["opponent"]) for r in sorted(data.rulesets["1.2"].cards, key=lambda r: -r["deck_n"])[:5]}
    for s in data.rulesets["1.2"].strata:
        said = [line for line in lines[7:] if line.startswith(f"1.2 {s.label}: ")]
        assert len(said) == ((s.agent, s.opponent) in shown)
        assert not said or said[0].startswith(f"1.2 {s.label}: {s.games} games ({s.player_games} player-games)")
    assert result.stderr.count("warning: 1.2: ") == 2 and "lopsided beyond 10 points" in result.stderr
    assert "definitions cardfacts-" in lines[-1] and "sorted by deck_n" in lines[-1]
    data = collect(small_db, ruleset="1.2", min_n=3)
    best = max(data.rulesets["1.2"].cards, key=lambda r: r["deck_n"])
    assert f"#{best['base_id']} " in lines[2]


def test_cards_without_a_subcommand_still_prints_a_card_set():
    result = CliRunner().invoke(cli, ["cards", "--ruleset", "constructed", "--seed", "3"])
    assert result.exit_code == 0 and result.output.startswith("id ")


def test_cards_rebuild(small_db):
    result = CliRunner().invoke(cli, ["cards", "rebuild", "--db", str(small_db)])
    assert result.exit_code == 0 and "rebuilt from the events: 32 games" in result.output


def _run(args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "locm.cli.main", *args], capture_output=True, text=True)


def test_bad_input_is_one_line_and_exit_2(tmp_path, small_db):
    empty = tmp_path / "empty.db"
    open_store(empty).close()
    only12 = tmp_path / "only12.db"
    _store(only12, _game_a())
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    cases = [
        (["report", "--db", str(empty), "-o", str(tmp_path / "o1")], "holds no games"),
        (["report", "--db", str(only12), "-r", "constructed", "-o", str(tmp_path / "o2")], "holds no constructed"),
        (["report", "--db", str(small_db), "-o", str(a_file)], "is a file, expected a directory"),
        (["report", "--db", str(tmp_path / "missing.db"), "-o", str(tmp_path / "o3")], "missing.db"),
        (["cards", "stats", "--db", str(empty)], "holds no games"),
    ]
    for args, message in cases:
        r = _run(args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("locm: error: ") and message in r.stderr, r.stderr
    assert not (tmp_path / "missing.db").exists()


def test_the_demo_writes_a_balance_report_and_says_where(tmp_path):
    import contextlib

    from locm.games.locm.demo import run_demo

    @contextlib.contextmanager
    def bar(length, label):
        yield type("Bar", (), {"update": lambda self, n: None})()

    lines = []
    run_demo(tmp_path / "demo.db", 2, 1, tmp_path / "demo.png", lines.append, bar)
    index = tmp_path / "locm-demo-report" / "index.html"
    assert index.is_file() and (tmp_path / "locm-demo-report" / "cards.json").is_file()
    said = next(line for line in lines if line.startswith("card-balance report:"))
    assert str(index) in said and "locm cards stats --db" in said
    assert any("flagged as lopsided" in line for line in lines)  # the round robin's pairings
    assert any(line.startswith("== card value:") for line in lines)
    assert any(line.startswith("(a demonstration") and "cardvalue --db" in line for line in lines)
    # both card games and Skyport, through the game seam, each verified
    assert any(line.startswith("== mcg: 2 games through the game seam, 2 verified") for line in lines)
    assert any(line.startswith("== skyport: 3 games through the game seam, 3 verified") for line in lines)
    from locm.runner.sandbox.bwrap import probe

    if probe().ok:  # it plays the example bot in its sandbox
        assert any(line.startswith("an external bot in its sandbox: examples/bot.py against greedy, won by ")
                   for line in lines)
    said = next(line for line in lines if line.startswith("== reinforcement learning: 3 episodes"))
    from locm.store.eventstore import open_store

    with open_store(tmp_path / "demo.db", create=False, readonly=True) as store:  # the episodes are stored games
        ids = [r.game_id for r in store.games() if r.game_id.startswith("env-")]
        selfplay = {rs: sum(1 for r in store.games(ruleset=rs, agent="lookahead") if r.agents == ("lookahead",) * 2)
                    for rs in ("1.2", "constructed")}
    assert len(ids) == 3 and all(gid in said for gid in ids)
    assert "MCG-v0" in lines[-1] and "Skyport-v0" in lines[-1]
    # 1.2's per-card rows need more self-play than its 17 buckets do constructed's (SELFPLAY_12 times --games)
    assert selfplay == {"1.2": 12, "constructed": 2}, selfplay


def test_agent_matrix_and_ruleset_comparison_count_what_the_store_says(small_db):
    data = collect(small_db, min_n=5)
    store = open_store(small_db)
    for rs in ("1.2", "constructed"):
        records = store.games(ruleset=rs)
        greedy_wins = sum((r.agents[0] == "greedy") == (r.winner == 0) for r in records)
        assert data.agents[rs]["cells"][("greedy", "random")] == (greedy_wins, len(records))
        assert data.agents[rs]["cells"][("random", "greedy")] == (len(records) - greedy_wins, len(records))
        assert data.agents[rs]["mirrored"] == (16, 16)
    store.close()
    assert data.comparison["keys"] == 16
    assert data.comparison["1.2"]["games"] == data.comparison["constructed"]["games"] == 16
    only12 = collect(small_db, ruleset="1.2", min_n=5)
    assert only12.comparison is None and list(only12.rulesets) == ["1.2"]


def test_constructed_offered_counts_the_pool_cards_of_each_bucket(small_db):
    from locm.events.locm.cards import CREATURE

    data = collect(small_db, ruleset="constructed", min_n=5)
    store = open_store(small_db)
    creatures = 0
    for r in store.games(ruleset="constructed"):
        pool = next(e for e in store.events(r.game_id) if isinstance(e, CardPoolDefined))
        creatures += 2 * sum(c.type == CREATURE for c in pool.cards)  # both players see the whole pool
    store.close()
    rows = [r for r in data.rulesets["constructed"].cards if r["feature"] == "type: creature"]
    assert [(r["agent"], r["opponent"]) for r in rows] == [("greedy", "random"), ("random", "greedy")]
    assert sum(r["offered"] for r in rows) == creatures  # each pairing: one seat of every game
    assert all(r["offered"] == creatures // 2 and r["pick_rate"] == round(r["picked"] / r["offered"], 4)
               for r in rows)


@given(st.builds(lambda t, cost, a, d, kw, area, draw, my, opp: __import__("locm.events.locm.cards", fromlist=["Card"]).Card(
    base_id=0, type=t, cost=cost, attack=a, defense=d, keywords=kw, area=area, draw=draw, my_health=my,
    opp_health=opp), st.integers(0, 3), st.integers(0, 12), st.integers(-12, 12), st.integers(-12, 12),
    st.integers(0, 63), st.integers(0, 2), st.integers(0, 4), st.integers(-5, 5), st.integers(-5, 5)))
def test_feature_key_agrees_with_the_efficiency_definition(card):
    from locm.analysis.locm.cardfacts import EFFICIENCY, efficiency_bucket, feature_key, features_of_key

    features = features_of_key(feature_key(card))
    eff = efficiency_bucket(card)
    assert (f"efficiency: {EFFICIENCY[eff]}" in features) if eff else not any(
        f.startswith("efficiency:") for f in features)
    assert f"cost: {card.cost if card.cost < 7 else '7+'}" in features


def test_a_variant_is_reported_as_its_base_family_not_by_its_name(tmp_path):
    """A constructed variant's cards are generated per game: its rows are feature buckets, as constructed's;
    a 1.2 variant's rows are base ids. Told by the games, never by the ruleset's name."""
    from locm.engine.locm.rulesets import RULES_12, RULES_CONSTRUCTED

    variants = (RULES_CONSTRUCTED.replace(name="gen-25", start_health=25), RULES_12.replace(name="draft-25", runes=(20, 15, 10, 5),
                                                                                              start_health=25))
    games = []
    for rules in variants:
        for seed in range(1, 5):
            game = Game.new(rules, seed, agents=("greedy", "random"))
            play(game, (GreedyAgent(), RandomAgent(seed)))
            games.append(game.log)
    db = tmp_path / "v.db"
    _store(db, *games)
    data = collect(db, min_n=1)
    assert set(data.rulesets) == {"gen-25", "draft-25"}
    assert data.rulesets["gen-25"].constructed and not data.rulesets["draft-25"].constructed
    assert all("feature" in r for r in data.rulesets["gen-25"].cards)
    assert all("base_id" in r for r in data.rulesets["draft-25"].cards)


# --- honest reports: pairings, lopsided data, clustered bucket intervals ------------------------------------


@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory):
    """Constructed: look-ahead self-play (seeds 1-16) and greedy against random in both seats (seeds 1-4)."""
    db = tmp_path_factory.mktemp("mixed") / "m.db"
    store = open_store(db)
    for s in range(1, 17):
        store.append_game(LOCM_GAME, {"game_id": f"self-{s}"}, _played("constructed", s, ("lookahead", "lookahead")))
    for s in range(1, 5):
        for agents in (("greedy", "random"), ("random", "greedy")):
            store.append_game(LOCM_GAME, {"game_id": f"gr-{s}-{agents[0]}"}, _played("constructed", s, agents))
    store.close()
    return db


def test_the_report_flags_lopsided_pairings_and_keeps_every_pairing_apart(mixed_db, tmp_path):
    data = collect(mixed_db, min_n=1)
    strata = data.rulesets["constructed"].strata
    assert [(s.agent, s.opponent) for s in strata][0] == ("lookahead", "lookahead")  # self-play first
    assert {(s.agent, s.opponent, s.lopsided) for s in strata} == {
        ("lookahead", "lookahead", False), ("greedy", "random", True), ("random", "greedy", True)}
    selfplay = strata[0]
    assert selfplay.player_games == 32 and selfplay.wins == 16  # both seats of every game
    rows = data.rulesets["constructed"].cards
    assert {r["lopsided"] for r in rows if r["agent"] == "lookahead"} == {False}
    assert {r["lopsided"] for r in rows if r["agent"] != "lookahead"} == {True}
    out = tmp_path / "r"
    write_report(data, out)
    html = (out / "index.html").read_text()
    assert "Lopsided data" in html and "greedy vs random" in html and "lookahead vs lookahead (self-play)" in html
    only_self = collect(mixed_db, min_n=1, agent="lookahead")
    assert not only_self.lopsided
    write_report(only_self, tmp_path / "s")
    assert "Balanced data" in (tmp_path / "s" / "index.html").read_text()
    # a looser threshold accepts the pairing
    assert not collect(mixed_db, min_n=1, max_imbalance=0.5).lopsided


def _direct_bucket_interval(db, bucket: str, agent: str) -> tuple[float, list[float], int]:
    """The in-hand rate of a bucket in a self-play pairing and its interval clustered by game, computed here
    from each game's events (not from the projection's sums)."""
    from locm.analysis.locm.cardfacts import features_of_key
    from locm.analysis.locm.cardmetrics import wilson_float

    per_game = []
    with open_store(db, create=False) as store:
        for r in store.games(ruleset="constructed"):
            if r.agents != (agent, agent):
                continue
            g = project(store.events(r.game_id))
            counts = [0, 0]
            for f in g.cards:
                if f.opening + f.drawn > 0 and bucket in features_of_key(f.fkey):
                    counts[f.player] += 1
            per_game.append((counts, g.winner))
    n = sum(sum(c) for c, _ in per_game)
    wins = sum(c[w] for c, w in per_game)
    p = wins / n
    resid = [sum(c[s] * ((w == s) - p) for s in (0, 1)) for c, w in per_game if sum(c)]
    g = len(resid)
    variance = g / (g - 1) * sum(x * x for x in resid) / n ** 2
    n_eff = min(n, p * (1 - p) / variance)
    lo, hi = wilson_float(p, n_eff)
    return p, [lo, hi], n


@pytest.mark.parametrize("bucket", ["type: creature", "keyword: guard", "cost: 2"])
def test_a_buckets_interval_is_clustered_by_game(mixed_db, bucket):
    row = next(r for r in collect(mixed_db, min_n=1).rulesets["constructed"].cards
               if r["feature"] == bucket and r["agent"] == "lookahead")
    p, ci, n = _direct_bucket_interval(mixed_db, bucket, "lookahead")
    assert row["in_hand_n"] == n and row["in_hand_wr"] == round(p, 4)
    assert row["in_hand_ci"] == pytest.approx(ci, abs=1e-4)
    assert row["interval"] == "wilson, clustered by game"
    naive = rate(row["in_hand_wins"], n, 1)[1]  # pairs as if independent: never wider
    assert row["in_hand_ci"][1] - row["in_hand_ci"][0] >= naive[1] - naive[0] - 1e-4


def test_self_play_with_the_same_deck_on_both_sides_is_flagged(mixed_db, tmp_path):
    """Greedy drafts deterministically from offers both seats share: its self-play decks are the same, so every
    card's deck rate is 50% and the report says so; look-ahead's seeded jitter gives different decks."""
    db = tmp_path / "g.db"
    store = open_store(db)
    for s in range(1, 7):
        store.append_game(LOCM_GAME, {"game_id": f"gg-{s}"}, _played("1.2", s, ("greedy", "greedy")))
    store.close()
    data = collect(db, min_n=1)
    (stratum,) = data.rulesets["1.2"].strata
    assert stratum.same_decks == 6 and stratum.mirrored_decks and data.mirrored == [("1.2", stratum)]
    assert all(r["deck_wr"] == 0.5 for r in stratum.cards if r["deck_n"])
    write_report(data, tmp_path / "r")
    assert "Mirrored decks" in (tmp_path / "r" / "index.html").read_text()
    r = CliRunner().invoke(cli, ["cards", "stats", "--db", str(db), "--min-games", "1"])
    assert "both seats had the same deck in 6 of 6 games" in r.stderr
    looked = collect(mixed_db, min_n=1).rulesets["constructed"].strata[0]
    assert looked.selfplay and looked.same_decks < 8 and not looked.mirrored_decks


def test_a_store_holding_other_games_too_reports_its_locm_games(tmp_path):
    """The projection reads LOCM's games only: my-card-game's beside them are left to `report --game mcg`."""
    from locm.engine import core, registry

    db = tmp_path / "mixed.db"
    _store(db, _game_a(), _game_b())
    mcg = registry.get("mcg")
    with open_store(db) as store:
        match = core.play(mcg, "standard", 3, ("greedy", "random"))
        store.append_game(mcg, {"game_id": mcg.game_id(match.log[0])}, match.log)
    data = collect(db, min_n=1)
    assert data.coverage["games"] == 2 and list(data.rulesets) == ["1.2"]


def test_the_lopsided_note_is_one_line_and_each_lopsided_pairing_is_folded(mixed_db, tmp_path):
    import re

    data = collect(mixed_db, min_n=1)
    write_report(data, tmp_path / "r")
    html = (tmp_path / "r" / "index.html").read_text()
    note = next(p for p in re.findall(r"<p class=note>(.*?)</p>", html, re.S) if "Lopsided data" in p)
    text = re.sub(r"<[^>]+>", "", note)
    assert "2 of 3 pairings" in text and "\n" not in text and len(text) <= 120, text
    # each lopsided pairing's table is folded under a line saying so; the self-play table is not
    for agent, opponent in (("greedy", "random"), ("random", "greedy")):
        section = html.split(f"constructed: {agent} vs {opponent} <span")[1].split("<h3>")[0]
        assert section.lstrip().split("\n")[1].startswith("<details class=folded><summary"), section[:300]
        assert "Lopsided pairing" in section.split("</summary>")[0]
    selfplay = html.split("constructed: lookahead vs lookahead (self-play) <span")[1].split("<h3>")[0]
    assert "<details" not in selfplay


def test_the_whole_ruleset_charts_say_they_count_every_pairing_with_its_games(mixed_db, tmp_path):
    from locm.analysis.locm.cardcharts import draw_all

    data = collect(mixed_db, min_n=1)
    games = len(data.rulesets["constructed"].games)
    assert games == 16 + 8
    titles = [c.title for c in draw_all(data, tmp_path)]
    seat = next(t for t in titles if t.startswith("First player"))
    length = next(t for t in titles if t.startswith("Game length"))
    for t in (seat, length):
        assert f"every pairing's games (constructed: {games})" in t, t


def test_the_pick_rate_chart_names_the_pairing_it_plots(small_db, tmp_path):
    from locm.analysis.locm.cardcharts import draw_all

    data = collect(small_db, min_n=1)
    first = data.rulesets["1.2"].strata[0]
    pick = next(c for c in draw_all(data, tmp_path) if "pick rate" in c.title)
    assert f"{first.label}, {first.player_games} player-games" in pick.title, pick.title


def test_the_demo_chart_of_game_lengths_is_titled_by_the_agents_and_games_it_plots():
    from locm.games.locm.demo import played_by

    assert played_by(("lookahead", "lookahead"), {"1.2": 100, "constructed": 100}) == \
        "lookahead against itself, 100 games per ruleset"
    assert played_by(("greedy", "random"), {"1.2": 6, "constructed": 4}) == \
        "greedy vs random, 1.2: 6 games, constructed: 4 games"


def test_the_report_keeps_the_rulesets_it_is_asked_for_and_says_so(small_db):
    # the demo reports its own rulesets, not the variants its card values re-ran into the same store
    data = collect(small_db, rulesets=("1.2",))
    assert list(data.rulesets) == ["1.2"] and data.filters["ruleset"] == "1.2"
    assert data.coverage["games"] == len(data.rulesets["1.2"].games) == 16
    assert list(collect(small_db).rulesets) == ["1.2", "constructed"] and collect(small_db).filters["ruleset"] is None


def test_the_report_keeps_the_games_between_the_agents_it_is_asked_for(mixed_db):
    # the demo's store also holds its RL episodes (policy vs greedy): its report counts its tournaments only
    data = collect(mixed_db, min_n=1, agents=("lookahead",))
    assert [s.label for s in data.rulesets["constructed"].strata] == ["lookahead vs lookahead (self-play)"]
    assert data.coverage["games"] == 16 and data.filters["agents"] == "lookahead"
    both = collect(mixed_db, min_n=1, agents=("greedy", "random", "pass"))
    assert {s.label for s in both.rulesets["constructed"].strata} == {"greedy vs random", "random vs greedy"}


def test_the_cards_stats_footer_counts_the_self_play_pairings_games_as_the_store_holds_them(mixed_db):
    # the footer the demo suggests (self-play, --sort iih_centred): the pairing's games, counted here from the
    # store's records, not the report's player-games (two per self-play game) nor the store's total
    with open_store(mixed_db, create=False) as store:
        games = sum(r.agents == ("lookahead", "lookahead") for r in store.games(ruleset="constructed"))
        total = len(store.games(ruleset="constructed"))
    assert (games, total) == (16, 24)
    result = CliRunner().invoke(cli, ["cards", "stats", "--db", str(mixed_db), "-r", "constructed", "--agent",
                                      "lookahead", "--opponent", "lookahead", "--sort", "iih_centred",
                                      "--min-games", "1"])
    assert result.exit_code == 0, result.output
    footer = [line for line in result.stdout.splitlines() if line.startswith("constructed lookahead vs lookahead")]
    assert len(footer) == 1 and f": {games} games ({2 * games} player-games)" in footer[0], footer
    rows = [line for line in result.stdout.splitlines()[2:] if line.startswith("constructed  ")]
    assert rows and all(line.count(" q=") == 2 for line in rows)  # the sorted column has a value in every row
