"""The sequential test over mirrored pairs (analysis/sprt.py, locm/tournament/sequential.py) and the ratings with intervals
(analysis/ratings.py): error rates by simulation, known outcomes on real games, the command."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from locm.analysis.ratings import rate
from locm.analysis.sprt import H0, H1, Sprt, SprtError, SprtState, elo_to_score, llr, mirrored_cells, simulate
from locm.errors import TournamentError
from locm.tournament.sequential import SequentialRun, play_sequential, ratings
from locm.store.eventstore import MemoryStore
from locm.games.locm.tournament import schedule
from locm.tournament.run import HANDOFF

ROOT = Path(__file__).resolve().parent.parent

# --- the statistics -------------------------------------------------------------------------------------------


def test_the_llr_is_zero_without_pairs_and_signed_by_the_mean():
    s0, s1 = elo_to_score(0), elo_to_score(20)
    assert float(llr([0, 0, 0, 0, 0], s0, s1)) == 0.0
    assert float(llr([1, 3, 10, 5, 1], s0, s1)) > 0  # mean 0.525: nearer s1 (0.529) than s0 (0.5)
    assert float(llr([1, 5, 10, 3, 1], s0, s1)) < 0
    # the generalized ratio is below the one of a known distribution: a pair of wins counts log(s1 / s0) at most
    assert 0 < float(llr([0, 0, 0, 0, 10], s0, s1)) <= 10 * math.log(s1 / s0) + 1e-9


def test_many_tests_at_once_give_each_one_its_own_llr():
    counts = [[0, 2, 5, 3, 1], [3, 1, 2, 0, 0], [0, 0, 0, 0, 0]]
    together = llr(counts, 0.5, 0.55)
    assert [float(x) for x in together] == pytest.approx([float(llr(c, 0.5, 0.55)) for c in counts])


@pytest.mark.parametrize("test,true_elo,wrong,rate_limit", [
    (Sprt(0, 60, 0.05, 0.05), 0, H1, 0.05),  # H0 holds: H1 accepted with chance alpha at most
    (Sprt(0, 60, 0.05, 0.05), 60, H0, 0.05),  # H1 holds: H0 accepted with chance beta at most
    (Sprt(-20, 40, 0.05, 0.15), 40, H0, 0.15),
])
def test_the_error_rates_hold_on_synthetic_pairs(test, true_elo, wrong, rate_limit):
    runs = 800
    out = simulate(test, mirrored_cells(elo_to_score(true_elo), 0.15), runs=runs, max_pairs=2000, seed=11)
    print(out)
    assert out["inconclusive"] == 0.0
    sd = math.sqrt(rate_limit * (1 - rate_limit) / runs)
    assert out[wrong] <= rate_limit + 3 * sd  # the nominal rate, within the simulation's own noise
    assert out[wrong] > 0  # an error rate of 0 would be a test far more cautious than asked


def test_self_play_never_accepts_h1_and_stays_inconclusive_at_a_small_cap():
    # equal agents (elo 0) tested for 0 against 5 Elo: capped at 300 pairs, far below what 5 Elo needs
    out = simulate(Sprt(0, 5, 0.05, 0.05), mirrored_cells(0.5, 0.2), runs=300, max_pairs=300, seed=3)
    print(out)
    assert out[H1] <= 0.02 and out["inconclusive"] > 0.9


def test_the_verdict_is_kept_at_the_first_conclusive_pair():
    state = SprtState(Sprt(0, 50))
    for _ in range(22):
        assert state.add_pair(1, 1) is None
    assert state.add_pair(1, 1) == H1 and state.pairs_at_verdict == 23
    assert state.add_pair(0, 0) == H1 and state.pairs == 23  # pairs after the verdict are not counted


@pytest.mark.parametrize("text,expected", [
    ("elo0=5,elo1=1", "expected elo0 < elo1, got elo0=5 and elo1=1"),
    ("elo0=0,elo1=5,alpha=0.7", "expected 0 < alpha < 0.5, got 0.7"),
    ("elo1=nan", "elo1 must be a finite number"),
    ("elo1=5,gamma=2", "expected name=value items among elo0, elo1, alpha, beta, got 'gamma=2'"),
    ("elo1=five", "elo1: expected a number, got 'five'"),
    ("elo1=5,elo1=6", "elo1 given twice"),
])
def test_malformed_tests_are_refused_saying_why(text, expected):
    with pytest.raises(SprtError) as info:
        Sprt.parse(text)
    assert info.value.why == expected


def test_the_options_left_out_take_the_defaults():
    assert Sprt.parse("elo1=10") == Sprt(0, 10, 0.05, 0.05)
    assert Sprt.parse("") == Sprt()


# --- ratings --------------------------------------------------------------------------------------------------


def test_ratings_order_players_by_results_with_intervals_that_shrink():
    # a round robin's order: the results interleaved (the updates are sequential)
    games = [[("b", 0), ("a", 1), ("c", 2)] if i % 4 == 3 else [("a", 0), ("b", 1), ("c", 2)] for i in range(40)]
    few = rate(games[:4], ["a", "b", "c"])
    many = rate(games, ["a", "b", "c"])
    assert many[0].mu > many[1].mu > many[2].mu
    assert all(m.sigma < f.sigma for m, f in zip(many, few))
    assert [r.games for r in many] == [40, 40, 40]
    lo, hi = many[2].interval
    assert hi < many[0].interval[0]  # c last in every game: its interval is below a's


def test_ratings_refuse_a_game_of_unknown_agents():
    with pytest.raises(ValueError, match="'z'"):
        rate([[("a", 0), ("z", 1)]], ["a", "b"])


# --- real games -----------------------------------------------------------------------------------------------


def test_a_clearly_stronger_agent_is_accepted_quickly_and_the_verdict_does_not_depend_on_workers():
    verdicts = []
    for workers in (1, 2):
        store = MemoryStore()
        jobs = schedule("1.2", ["greedy", "random"], 400, seed=1)
        played, state = play_sequential(store, jobs, Sprt(0, 50), workers=workers)
        assert state.verdict == H1 and state.pairs_at_verdict <= 40
        # stopped before the cap of 400. One worker plays in order: past the verdict, only the games it was
        # handed. With two, the other worker goes on taking games while the verdict's last game is played, as
        # long as that takes (a busy machine can stall a worker): no tighter bound holds
        if workers == 1:
            assert played.played <= 2 * state.pairs_at_verdict + 2 * HANDOFF + 2
        assert played.played < len(jobs)
        verdicts.append(state.summary())
    assert verdicts[0] == verdicts[1]
    # the ratings put the stronger agent above, their intervals apart
    r = ratings(store.games(), ["greedy", "random"])
    assert r[0].interval[0] > r[1].interval[1]


def test_a_sequential_run_needs_two_different_agents():
    with pytest.raises(TournamentError, match="exactly two different agents"):
        SequentialRun(MemoryStore(), schedule("1.2", ["greedy", "random", "pass"], 4), Sprt())
    with pytest.raises(TournamentError, match="exactly two different agents"):
        SequentialRun(MemoryStore(), schedule("1.2", ["greedy", "greedy"], 4), Sprt())


def run_locm(*args):
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


def test_the_command_stops_at_the_verdict_and_a_rerun_plays_nothing(tmp_path):
    args = ["tournament", "-r", "1.2", "--agents", "greedy", "random", "--games", 400, "--db", tmp_path / "s.db",
            "--sprt", "elo0=0,elo1=50,alpha=0.05,beta=0.05"]
    first = run_locm(*args)
    assert first.returncode == 0, first.stderr
    assert "SPRT elo0=0,elo1=50,alpha=0.05,beta=0.05: H1 accepted at pair 23" in first.stdout
    ratings_table = first.stdout.split("think ms")[1].split("agent A")[0]  # between standings and head to head
    assert ["agent", "games", "rating", "95%", "interval"] in [line.split() for line in ratings_table.splitlines()]
    again = run_locm(*args)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0].startswith("0 games played")
    assert again.stdout.split("SPRT")[1] == first.stdout.split("SPRT")[1]


def test_the_command_refuses_a_malformed_test_in_one_line(tmp_path):
    r = run_locm("tournament", "--agents", "greedy", "random", "--games", 4, "--db", tmp_path / "s.db",
                 "--sprt", "elo0=5,elo1=1")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "expected elo0 < elo1" in r.stderr and not (tmp_path / "s.db").exists()


def test_games_of_more_seats_rate_each_agent_once_at_its_mean_place():
    from collections import namedtuple

    from locm.tournament.sequential import match_rankings, match_ratings

    Row = namedtuple("Row", "agents places")
    games = [Row(("hunter", "random", "hunter"), (0, 2, 1)), Row(("random", "hunter", "idle"), (1, 0, 2))] * 20
    assert list(match_rankings(games[:1])) == [[("hunter", 0.5), ("random", 2.0)]]
    r = {x.agent: x for x in match_ratings(games, ["hunter", "random", "idle"])}
    assert r["hunter"].interval[0] > r["random"].interval[1] and r["random"].mu > r["idle"].mu
    assert (r["hunter"].games, r["random"].games, r["idle"].games) == (40, 40, 20)
