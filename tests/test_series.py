"""Best-of-N series (`locm.tournament.series`; `locm play --best-of`, `locm tournament --best-of`): a best-of-3
played and stored, my-card-game's starter alternation as its text says (R-SERIES: after the first coin flip,
the player who did not start the previous match starts), a series stopping at a majority, LOCM's seats swapped
every match, standings by series checked against the stored games, a series cut short resumed, and the
starter's win rate in my-card-game's report and standings."""

from __future__ import annotations

import json
from collections import defaultdict

from click.testing import CliRunner

from locm.cli.main import cli
from locm.events.mcg.catalog import CoinFlipped, StarterChosen
from locm.store.eventstore import open_store


def locm(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def series_games(store, game="mcg"):
    """The stored games of each series, by its id, in match order (from their meta)."""
    by: dict[str, list] = defaultdict(list)
    for m in store.games(game=game):
        meta = json.loads(m.meta)
        if "series" in meta:
            by[meta["series"]].append((meta["match"], m, meta))
    return {sid: [(m, meta) for _, m, meta in sorted(rows, key=lambda r: r[0])] for sid, rows in by.items()}


def majority_side(games) -> tuple[list[int], int]:
    wins = [0, 0]
    for m, meta in games:
        if m.winner >= 0:
            wins[meta["sides"][m.winner]] += 1
    return wins, (0 if wins[0] > wins[1] else 1 if wins[1] > wins[0] else -1)


def test_a_best_of_3_is_played_and_stored_each_match_with_its_series(tmp_path):
    db = tmp_path / "s.db"
    r = locm("play", "--game", "mcg", "--seed", 7, "--p0", "greedy", "--p1", "random", "--best-of", 3, "--db", db)
    assert r.exit_code == 0, r.output
    with open_store(db) as store:
        series = series_games(store)
        assert len(series) == 1
        (sid, games), = series.items()
        assert [meta["match"] for _, meta in games] == list(range(1, len(games) + 1))
        assert all(meta["best_of"] == 3 and meta["series"] == sid for _, meta in games)
        assert [m.seed for m, _ in games] == [7 + k for k in range(len(games))]
        wins, lead = majority_side(games)
        assert max(wins) == 2 and len(games) == sum(wins)  # it stopped at the majority, not after 3 regardless
    assert f"series {sid}" in r.output and f"stored: {len(games)} of {len(games)} matches" in r.output
    again = locm("play", "--game", "mcg", "--seed", 7, "--p0", "greedy", "--p1", "random", "--best-of", 3, "--db", db)
    assert again.exit_code == 0 and f"stored: 0 of {len(games)} matches" in again.output  # the same ids


def test_the_player_who_did_not_start_the_previous_match_starts_the_next(tmp_path):
    db = tmp_path / "s.db"
    r = locm("play", "--game", "mcg", "--seed", 7, "--p0", "greedy", "--p1", "greedy", "--best-of", 7, "--db", db)
    assert r.exit_code == 0, r.output
    with open_store(db) as store:
        (_, games), = series_games(store).items()
        assert len(games) >= 4
        starters = []
        for k, (m, meta) in enumerate(games):
            events = store.events(m.game_id)
            chosen = [e for e in events if type(e) is StarterChosen]
            assert len(chosen) == 1
            coin = [e for e in events if type(e) is CoinFlipped]
            if k == 0:  # the first match: the coin, whose winner chooses
                assert len(coin) == 1 and chosen[0].rule == "R-COIN" and chosen[0].player == coin[0].winner
            else:  # then no coin: the series gives the starter
                assert not coin and chosen[0].rule == "R-SERIES" and chosen[0].player == -1
            assert tuple(m.agents) == ("greedy", "greedy") and meta["sides"] == [0, 1]  # the seats are kept
            assert meta["starter"] == chosen[0].first
            starters.append(chosen[0].first)
    assert all(b == 1 - a for a, b in zip(starters, starters[1:])), starters


def test_locm_series_swap_the_seats_every_match(tmp_path):
    db = tmp_path / "s.db"
    r = locm("play", "--seed", 3, "--p0", "greedy", "--p1", "random", "--best-of", 5, "--db", db)
    assert r.exit_code == 0, r.output
    with open_store(db) as store:
        (_, games), = series_games(store, "locm").items()
    for k, (m, meta) in enumerate(games):
        assert tuple(m.agents) == (("greedy", "random") if k % 2 == 0 else ("random", "greedy"))
        assert meta["sides"] == ([0, 1] if k % 2 == 0 else [1, 0])
    wins, lead = majority_side(games)
    assert max(wins) == 3 and lead == 0 and f"greedy {wins[0]}-{wins[1]} random: greedy wins the series" in r.output


def test_a_tournament_of_series_has_standings_by_series_and_resumes(tmp_path):
    db = tmp_path / "t.db"
    args = ("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 4, "--best-of", 3, "--db", db)
    # series 0's first match stored before, as `locm play` stores it (the same game: the coin opens both)
    first = locm("play", "--game", "mcg", "--seed", 1, "--p0", "greedy", "--p1", "random", "--db", db)
    assert first.exit_code == 0, first.output
    gid = first.output.split("stored: ")[1].split()[0]
    r = locm(*args)
    assert r.exit_code == 0, r.output
    with open_store(db) as store:
        series = series_games(store)
        assert len(series) == 4
        resumed = [games for games in series.values() if games[0][1]["match"] == 2]
        assert len(resumed) == 1  # played on from its match 2, its match 1 the game stored before
        resumed[0].insert(0, (store.game(gid), {"match": 1, "sides": [0, 1]}))
        total = sum(len(g) for g in series.values())
        won = defaultdict(int)
        for games in series.values():
            assert [meta["match"] for _, meta in games] == list(range(1, len(games) + 1))
            wins, lead = majority_side(games)
            assert max(wins) == 2  # over at the majority
            won[games[0][0].agents[lead]] += 1
        # seatings: two series with greedy in the first match's seat 0, two with random
        assert sorted(tuple(g[0][0].agents) for g in series.values()) == [("greedy", "random")] * 2 + [
            ("random", "greedy")] * 2
    assert f"{total - 1} games played in 4 series" in r.output and "4 of 4 series over" in r.output
    table = r.output[r.output.index("by series (best of 3):"):].splitlines()[3:5]
    rows = {line.split()[0]: line.split()[1:5] for line in table}
    assert rows == {a: ["4", str(won[a]), str(4 - won[a]), "0"] for a in ("greedy", "random")}, r.output
    assert "the starter won" in r.output  # the mcg standings say the starter's win rate
    again = locm(*args)
    assert again.exit_code == 0 and "0 games played in 0 series" in again.output
    assert again.output[again.output.index("by series"):] == r.output[r.output.index("by series"):]
    assert locm("verify", "--db", db).exit_code == 0


def test_workers_store_the_same_series(tmp_path):
    ids = []
    for workers in (1, 2):
        db = tmp_path / f"w{workers}.db"
        r = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 4, "--best-of", 3,
                 "--db", db, "--workers", workers)
        assert r.exit_code == 0, r.output
        with open_store(db) as store:
            ids.append(sorted((m.game_id, m.meta) for m in store.games(game="mcg")))
    assert ids[0] == ids[1]


def test_series_refusals_are_one_line(tmp_path):
    r = locm("play", "--game", "mcg", "--seed", 1, "--best-of", 4)
    assert r.exit_code == 2 and "--best-of 4: expected an odd number" in r.output
    r = locm("play", "--game", "mcg", "--seed", 1, "--best-of", 3, "--log", tmp_path / "g.jsonl")
    assert r.exit_code == 2 and "--log writes one game" in r.output
    r = locm("tournament", "--game", "skyport", "--seats", 3, "--agents", "hunter", "random", "hunter", "--games", 6,
             "--best-of", 3, "--db", tmp_path / "s.db")
    assert r.exit_code == 2 and "a series is two sides" in r.output
    r = locm("tournament", "--agents", "greedy", "random", "--games", 4, "--best-of", 3, "--sprt", "elo1=5",
             "--db", tmp_path / "t.db")
    assert r.exit_code == 2 and "--best-of plays series on local workers" in r.output


def test_the_report_and_the_standings_say_the_starters_win_rate(tmp_path):
    db = tmp_path / "m.db"
    r = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 10, "--db", db)
    assert r.exit_code == 0, r.output
    games = won = 0
    with open_store(db) as store:
        for m in store.games(game="mcg"):
            first = [e.first for e in store.events(m.game_id) if type(e) is StarterChosen]
            games += 1
            won += m.winner == first[0]
    assert games == 10
    said = f"the starter won {won} of {games} games ({won / games:.1%}, 95% interval "
    assert said in r.output, r.output
    report = locm("report", "--game", "mcg", "--db", db, "--min-games", 3)
    assert report.exit_code == 0 and report.output.splitlines()[0].startswith(said), report.output

