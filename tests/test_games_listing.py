"""`locm games` of games of 2 to N players: a seat for --winner checked against the game's seats, filters by the
number of players, an agent's place, the winner's agent and the game's index fields, and each seat's agent,
place and score shown."""

from __future__ import annotations

import pytest

from locm.tournament.matchplay import run_matches
from locm.tournament.schedule import seats_schedule
from locm.store.eventstore import SeatExtras, open_store
from locm.store.records import GameRecord
from tests.test_store_cli import locm


@pytest.fixture(scope="module")
def skyport_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("sky") / "s.db"
    with open_store(db) as store:
        run_matches(store, seats_schedule("skyport", "2013", ["hunter", "random", "random"], 3,
                                                              seed=4, seats=3))
        run_matches(store, seats_schedule("skyport", "2013", ["hunter", "random"], 2, seed=1))
        rows = store.games(game="skyport")
    return db, rows


def listing(*args) -> tuple[int, str, str]:
    code, out, err = locm("games", *args)
    return code, out.decode(), err


def ids_of(text: str) -> set[str]:
    return {line.split()[0] for line in text.splitlines() if line.startswith("skyport-")}


@pytest.mark.parametrize("args, message", [
    (("--game", "skyport", "--winner", "8"), "--winner 8: Skyport has 2 to 8 seats: expected a seat 0..7, or -1 "
                                             "for games without a winner"),
    (("--game", "mcg", "--winner", "2"), "--winner 2: my-card-game has 2 seats: expected a seat 0..1"),
    (("--winner", "2"), "--winner 2: Legends of Code and Magic has 2 seats: expected a seat 0..1"),
    (("--game", "skyport", "--winner", "-2"), "--winner -2: Skyport has 2 to 8 seats"),
    (("--game", "skyport", "--seats", "9"), "--seats 9: Skyport is played by 2 to 8 players"),
    (("--game", "skyport", "--place", "1"), "--place K needs --agent: the place is that agent's"),
    (("--game", "skyport", "--agent", "hunter", "--place", "9"), "--place 9: Skyport has 2 to 8 seats: expected a "
                                                                 "place 1..8"),
    (("--game", "skyport", "--field", "map"), "--field 'map': expected NAME=VALUE"),
])
def test_a_seat_filter_out_of_the_games_seats_is_one_line(skyport_db, args, message):
    db, _ = skyport_db
    code, out, err = listing("--db", db, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err, err


def test_the_winner_is_any_seat_of_the_game(skyport_db):
    db, rows = skyport_db
    for seat in range(3):
        code, out, _ = listing("--db", db, "--game", "skyport", "--winner", seat)
        assert code == 0 and ids_of(out) == {m.game_id for m in rows if m.winner == seat}
    code, out, _ = listing("--db", db, "--game", "skyport", "--winner", -1)
    assert code == 0 and ids_of(out) == {m.game_id for m in rows if m.winner == -1}
    won_by = {m.agents[m.winner] for m in rows if m.winner >= 0}
    for agent in ("hunter", "random"):
        code, out, _ = listing("--db", db, "--game", "skyport", "--winner-agent", agent)
        assert ids_of(out) == {m.game_id for m in rows if m.winner >= 0 and m.agents[m.winner] == agent}
        assert bool(ids_of(out)) == (agent in won_by)


def test_filters_by_players_by_an_agents_place_and_by_index_field(skyport_db):
    db, rows = skyport_db
    code, out, _ = listing("--db", db, "--game", "skyport", "--seats", 3)
    assert ids_of(out) == {m.game_id for m in rows if len(m.agents) == 3} and len(ids_of(out)) == 3
    for k in (1, 2, 3):
        code, out, _ = listing("--db", db, "--game", "skyport", "--agent", "random", "--place", k)
        assert ids_of(out) == {m.game_id for m in rows
                               if any(a == "random" and p == k - 1 for a, p in zip(m.agents, m.places))}
    code, out, _ = listing("--db", db, "--game", "skyport", "--field", "map=duel-2p")
    assert ids_of(out) == {m.game_id for m in rows if len(m.agents) == 2}
    code, out, err = listing("--db", db, "--game", "skyport", "--field", "mapp=duel-2p")
    assert code == 2 and "--field mapp: Skyport's stored games have the index fields map, names, ruleset, seed" in err


def test_each_seat_shows_its_agent_place_and_score_and_the_agents_own_columns(skyport_db):
    db, rows = skyport_db
    code, out, _ = listing("--db", db, "--game", "skyport", "--agent", "hunter", "--seats", 3)
    header, _, *lines = out.splitlines()
    assert header.split()[:8] == ["game", "id", "ruleset", "map", "seed", "seats", "seat", "place"]
    three = [m for m in rows if len(m.agents) == 3]
    for m, line in zip(three, lines):
        seat = m.agents.index("hunter")
        cells = line.split()
        assert cells[:8] == [m.game_id, "2013", "triangle-3p", "4", "3", str(seat), str(m.places[seat] + 1),
                             f"{m.scores[seat]:g}"]
        assert " | ".join(f"{a} {p + 1} ({s:g})" for a, p, s in zip(m.agents, m.places, m.scores)) in line
        assert f"{m.winner} {m.agents[m.winner]}" in line if m.winner >= 0 else " - " in line
    assert lines[-1] == "3 Skyport games"


def test_a_shared_place_is_marked():
    from locm.reports.listing import seat_results as _seat_results

    m = GameRecord(game_id="x", game="skyport", ruleset="2013", seed=1, agents=("a", "b", "c"), winner=-1,
                    places=(0, 0, 2), scores=(5.0, 5.0, 1.5), reason="turn-limit", turns=1, n_events=2,
                    head_hash="", created="", seats=(SeatExtras(),) * 3, fields={}, meta="{}")
    assert _seat_results(m) == "a 1= (5) | b 1= (5) | c 3 (1.5)"


def test_a_locm_agents_place(tmp_path):
    from locm.games.locm.tournament import run_tournament

    db = tmp_path / "t.db"
    with open_store(db) as store:
        run_tournament(store, "1.2", ["greedy", "random"], 4)
        records = store.games()
    for k in (1, 2):
        code, out, _ = listing("--db", db, "--agent", "random", "--place", k)
        shown = {line.split()[0] for line in out.splitlines() if line.startswith("1.2-")}
        assert code == 0 and shown == {r.game_id for r in records
                                       if (r.agents[r.winner] == "random") == (k == 1)}
