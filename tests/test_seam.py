"""The game seam (issue 21): one core that knows no game, one registered definition per game.

- the registry lists the games by hand, and a name or alias that is not one is a one-line error;
- every registered game plays through the core (`engine.core.play`) with its built-in agents, its log passes
  the core's checks and re-decides to itself, and a forged event is found at its seq;
- a Hypothesis state machine per game drives it through the core's questions (legal actions, whose move) and
  checks that the fold of the log is the live state, that seqs are 0..n-1, and that the game ends;
- tic-tac-toe, defined in tests/tictactoe.py, is registered at run time and runs through the same core: adding
  a game touches no core module (and the core modules import no game).
"""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from locm.engine import core, registry
from locm.engine.errors import InvalidLogError
from locm.engine.history import History
from locm.engine.logcheck import causes, check_log
from locm.engine.seam import GameDef
from tests import tictactoe

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"locm": "1.2", "mcg": "standard", "skyport": "2013"}
CORE_MODULES = ("engine/seam.py", "engine/core.py", "engine/history.py", "engine/logcheck.py",
                "engine/registry.py", "events/base.py", "events/codec.py")
GAME_PACKAGES = tuple(f"locm.{layer}.{g}" for layer in ("engine", "events", "replay") for g in GAMES)


def test_the_registry_lists_the_three_games_and_the_alias():
    assert list(registry.GAMES) == ["locm", "mcg", "skyport"]
    assert registry.get("my-card-game") is registry.get("mcg")
    assert [registry.get(n).name for n in GAMES] == list(GAMES)


def test_an_unknown_game_is_a_one_line_error():
    with pytest.raises(registry.UnknownGameError) as exc:
        registry.get("chess")
    assert "\n" not in str(exc.value) and "expected one of locm, mcg, skyport, my-card-game" in str(exc.value)


@pytest.mark.parametrize("name", GAMES)
def test_every_game_plays_through_the_core_and_verifies(name):
    game = registry.get(name)
    agents = game.agent_names[:2]
    match = core.play(game, GAMES[name], 5, agents)
    log = match.log
    assert match.ended and game.to_move(match.state) == -1
    check_log(game, log)
    assert core.verify(game, log) is None
    again = core.play(game, GAMES[name], 5, agents).log  # determinism: the same seed and agents, the same bytes
    assert game.codec.to_jsonl(again) == game.codec.to_jsonl(log)
    assert game.codec.from_jsonl(game.codec.to_jsonl(log)) == log
    out = game.outcome(log)
    assert -1 <= out.winner < len(agents) and out.places(len(agents))[max(out.winner, 0)] == 0
    assert game.agents(log[0]) == tuple(agents)
    assert game.game_id(log[0]) == game.game_id(game.codec.from_json(game.codec.to_json(log[0])))
    assert game.board_text(game.view(game.fold(log), None))
    assert all(game.describe(match.state, e) for e in log)
    assert all(0 <= s < len(log) for s, _, _ in game.turn_starts(log))


@pytest.mark.parametrize("name", GAMES)
def test_a_forged_event_is_found_at_its_seq(name):
    game = registry.get(name)
    log = core.play(game, GAMES[name], 6, game.agent_names[:2]).log
    k = len(log) // 2
    forged = [*log[:k], msgspec.structs.replace(log[k], rule="R-FORGED"), *log[k + 1:]]
    found = core.verify(game, forged)
    assert found is not None and found.seq == k, found


@pytest.mark.parametrize("name", GAMES)
def test_the_core_log_checks_refuse_a_moved_event(name):
    game = registry.get(name)
    log = core.play(game, GAMES[name], 2, game.agent_names[:2]).log
    swapped = [log[0], log[2], log[1], *log[3:]]
    with pytest.raises(InvalidLogError, match="seq"):
        core.verify(game, swapped)
    with pytest.raises(InvalidLogError, match="ends with"):
        check_log(game, log[:-1])


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_locm_through_the_core_is_the_game_locm_play_plays(ruleset):
    from locm.games.locm.play import play_one

    game = registry.get("locm")
    assert core.play(game, ruleset, 5, ("greedy", "random")).log == play_one(ruleset, 5, ("greedy", "random")).log


def test_skyport_plays_two_to_eight_players_ranked_by_points():
    game = registry.get("skyport")
    for n in (2, 3, 4):
        log = core.play(game, "2013", 9, (["hunter", "random"] * 2)[:n]).log
        out = game.outcome(log)
        assert out.scores is not None and len(out.scores) == n
        places = out.places(n)
        assert all((places[a] < places[b]) == (out.scores[a] > out.scores[b]) for a in range(n) for b in range(n))
    with pytest.raises(core.CoreError, match="2 to 8 players"):
        core.play(game, "2013", 1, ("hunter",))


# --- a third game, added without touching the core ---------------------------------------------------------


@pytest.fixture
def ttt():
    registry.register(tictactoe.GAME)
    try:
        yield registry.get("ttt")
    finally:
        registry.unregister("tictactoe")
    assert "tictactoe" not in registry.GAMES and "ttt" not in registry.ALIASES


def test_tictactoe_runs_through_play_verify_history_and_show(ttt):
    assert ttt is tictactoe.GAME and "tictactoe" in registry.names()
    match = core.play(ttt, "standard", 4, ("random", "first"))
    log = match.log
    assert core.verify(ttt, log) is None
    out = core.outcome(ttt, log)
    assert out.reason in ("line", "draw")
    h = History(ttt, log)
    marks = sum(1 for e in log if type(e) is tictactoe.Marked)
    assert sum(c >= 0 for c in h.final().board) == marks
    assert sum(c >= 0 for c in h.state_at(2).board) == 1  # created, answer, mark
    board = core.board(ttt, log)
    assert board.count("X") + board.count("O") == marks
    assert [e.seq for e in causes(log, len(log) - 1)][-1] >= 1  # the end's cause chain reaches an answer
    forged = [*log[:2], msgspec.structs.replace(log[2], cell=(log[2].cell + 1) % 9), *log[3:]]
    assert core.verify(ttt, forged).seq == 2


def test_a_bad_answer_loses_tictactoe_through_the_match(ttt):
    match = ttt.new("standard", 1, ("first", "first"))
    match.answer(0, "9")
    assert match.ended and ttt.outcome(match.log).winner == 1
    assert core.verify(ttt, match.log) is None


def test_a_second_game_of_the_same_name_is_refused(ttt):
    with pytest.raises(Exception, match="already registered"):
        registry.register(ttt)


def _imports(path: Path, top_level_only: bool) -> list[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return out


def test_the_core_modules_import_no_game():
    """The core knows no game: only the registry names them, in the loaders of its list (imported when a
    game is asked for, never at import)."""
    for rel in CORE_MODULES:
        found = _imports(ROOT / rel, top_level_only=rel == "engine/registry.py")
        bad = [m for m in found if m.startswith(GAME_PACKAGES)]
        assert not bad, f"{rel} imports {bad}"


def test_the_scan_sees_a_game_import(tmp_path):
    planted = tmp_path / "core.py"
    planted.write_text("from locm.engine.mcg.game import McgGame\n")
    assert _imports(planted, False) == ["locm.engine.mcg.game"]


# --- a state machine per game over the core ----------------------------------------------------------------


def machine_for(name: str) -> type[RuleBasedStateMachine]:
    class CoreMachine(RuleBasedStateMachine):
        """Moves chosen among the game's legal actions or made by its agents; after every step the fold of
        the log is the live state and the log is well formed; at the end, agents finish the game, which
        ends and verifies."""

        game: GameDef

        @initialize(seed=st.integers(0, 2**31 - 1), data=st.data())
        def start(self, seed, data):
            self.game = registry.get(name)
            lo, hi = self.game.seats
            n = data.draw(st.integers(lo, min(hi, 4)), label="players")
            agents = data.draw(st.lists(st.sampled_from(self.game.agent_names), min_size=n, max_size=n))
            self.seed = seed
            self.match = self.game.new(self.game.rules(GAMES[name]), seed, tuple(agents))
            self.agents = [self.game.make_agent(a, seed, s) for s, a in enumerate(agents)]

        @rule(data=st.data())
        def legal_move(self, data):
            if self.match.ended:
                return
            legal = list(self.game.legal_actions(self.match.state))
            if not legal:  # a phase whose one command is not listed (LOCM's deck building): an agent's
                self.agents[self.match.to_move].play_turn(self.match, self.match.to_move)
                return
            self.match.submit(data.draw(st.sampled_from(legal), label="action"))

        @rule()
        def agent_turn(self):
            if not self.match.ended:
                self.agents[self.match.to_move].play_turn(self.match, self.match.to_move)

        @invariant()
        def fold_is_live(self):
            game, log = self.game, self.match.log
            assert [e.seq for e in log] == list(range(len(log)))
            check_log(game, log, complete=self.match.ended)
            assert game.view(game.fold(log), None) == game.view(self.match.state, None)
            assert game.to_move(self.match.state) == (-1 if self.match.ended else self.match.to_move)

        def teardown(self):
            if not hasattr(self, "match"):
                return
            for _ in range(5000):
                if self.match.ended:
                    break
                self.agents[self.match.to_move].play_turn(self.match, self.match.to_move)
            assert self.match.ended, "the game did not end"
            assert core.verify(self.game, self.match.log) is None

    CoreMachine.__name__ = f"{name}Machine"
    return CoreMachine


_SETTINGS = settings(max_examples=8, stateful_step_count=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
TestLocmMachine = machine_for("locm").TestCase
TestLocmMachine.settings = _SETTINGS
TestMcgMachine = machine_for("mcg").TestCase
TestMcgMachine.settings = _SETTINGS
TestSkyportMachine = machine_for("skyport").TestCase
TestSkyportMachine.settings = _SETTINGS


# --- the store and the command line over every game -----------------------------------------------------


@pytest.mark.parametrize("name", ["mcg", "skyport"])
def test_every_game_is_stored_read_back_and_verified(name, tmp_path):
    from locm.verify.checks import stored_problem
    from locm.store.eventstore import GameExtras, open_store

    game = registry.get(name)
    agents = ("greedy", "random") if name == "mcg" else ("hunter", "random", "random")
    log = core.play(game, GAMES[name], 3, agents).log
    gid = game.game_id(log[0])
    db = tmp_path / "s.db"
    with open_store(db) as store:
        m = store.append_game(game, GameExtras(game_id=gid, meta='{"k": 1}'), log)
        out = game.outcome(log)
        assert (m.game, m.agents, m.winner, m.places, m.scores) == (name, agents, out.winner, out.places(len(agents)),
                                                                     out.scores)
    with open_store(":memory:") as other:  # the store keeps what it is given; verify names a wrong id
        forged = other.append_game(game, GameExtras(game_id="forged-id"), log)
        assert stored_problem(other, forged).problem.startswith("the id is not what its content gives")
    with open_store(db, readonly=True) as store:
        assert store.game(gid) == m and store.games(game=name) == store.games() == [m] and store.games(game="locm") == []
        assert store.events(gid) == log
        assert stored_problem(store, m).ok
    sqlite3_set(db, "UPDATE games SET winner = winner + 1")
    with open_store(db, readonly=True) as store:
        found = stored_problem(store, store.game(gid))
        assert not found.ok and found.problem.startswith("the record says winner"), found


def sqlite3_set(db, statement):
    import sqlite3

    conn = sqlite3.connect(db)
    with conn:
        conn.execute(statement)
    conn.close()


def test_tictactoe_is_stored_and_verified_without_a_core_change(ttt, tmp_path):
    from locm.verify.checks import stored_problem
    from locm.store.eventstore import GameExtras, open_store

    log = core.play(ttt, "standard", 8, ("random", "random")).log
    with open_store(tmp_path / "t.db") as store:
        m = store.append_game(ttt, GameExtras(game_id=ttt.game_id(log[0])), log)
        assert m.game == "tictactoe" and store.events(m.game_id) == log
        assert stored_problem(store, m).ok


def test_play_verify_and_games_of_other_games_from_the_command_line(tmp_path):
    from tests.test_reliability import one_line_error, run_locm

    db, log = tmp_path / "g.db", tmp_path / "m.jsonl"
    r = run_locm("play", "--game", "my-card-game", "--ruleset", "standard", "--seed", "7", "--log", log, "--db", db)
    assert r.returncode == 0 and "stored: mcg-standard-7-" in r.stdout, r.stderr
    r = run_locm("play", "--game", "skyport", "--seed", "3", "--agents", "hunter,random,random", "--db", db)
    assert r.returncode == 0 and "P2 random: place" in r.stdout, r.stderr
    r = run_locm("verify", "--db", db, log)
    assert r.returncode == 0 and r.stdout.endswith("3 games checked: 3 good, 0 bad\n"), r.stdout + r.stderr
    lines = log.read_bytes().splitlines(keepends=True)
    lines[5] = lines[5].replace(b'"rule":"', b'"rule":"X')
    log.write_bytes(b"".join(lines))
    r = run_locm("verify", log)
    assert r.returncode == 1 and "departs from the rules at seq 5: the rules give another event" in r.stdout, r.stdout
    assert len(r.stdout.splitlines()[0]) < 700  # the events shown cut short
    assert "2 to 8 players, not 1" in one_line_error(run_locm("play", "--game", "skyport", "--seed", "1",
                                                                "--agents", "hunter"))


def test_an_n_player_tournament_rotates_seats_and_ranks_by_places():
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule
    from locm.tournament.standings import match_standings
    from locm.store.eventstore import open_store

    jobs = seats_schedule("skyport", "2013", ["hunter", "random", "random"], 3, seed=4, seats=3)
    assert [j.agents for j in jobs] == [("hunter", "random", "random"), ("random", "random", "hunter"),
                                        ("random", "hunter", "random")]  # one seed, every rotation
    assert len({j.game_id for j in jobs}) == 3
    store = open_store(":memory:")
    run = run_matches(store, jobs)
    assert (run.played, run.already) == (3, 0) and run_matches(store, jobs).already == 3
    records = store.games(game="skyport")
    assert [m.game_id for m in records] == [j.game_id for j in jobs]
    table = {s.agent: s for s in match_standings(records, ["hunter", "random"])}
    assert table["hunter"].games == 3 and table["random"].games == 6
    assert sum(s.wins for s in table.values()) == pytest.approx(3)  # one first place (or its shares) a game
    with pytest.raises(Exception, match="multiple of 2"):
        seats_schedule("mcg", "standard", ["greedy", "random"], 3)


def test_a_tournament_of_my_card_game_from_the_command_line(tmp_path):
    from tests.test_reliability import run_locm

    args = ("tournament", "--game", "mcg", "--ruleset", "standard", "--agents", "greedy", "random", "--games", "4",
            "--db", tmp_path / "t.db")
    r = run_locm(*args)
    assert r.returncode == 0 and "4 games played, 0 stored before: 4 of 4 my-card-game games" in r.stdout, r.stderr
    assert "greedy" in r.stdout.splitlines()[3] or "greedy" in r.stdout.splitlines()[2]
    again = run_locm(*args)
    assert "0 games played, 4 stored before" in again.stdout


def test_show_audit_and_replay_of_other_games_through_the_viewer_shell(tmp_path):
    from tests.test_reliability import one_line_error, run_locm

    db, log = tmp_path / "g.db", tmp_path / "m.jsonl"
    assert run_locm("play", "--game", "mcg", "--ruleset", "standard", "--seed", "2", "--log", log).returncode == 0
    assert run_locm("play", "--game", "skyport", "--seed", "2", "--agents", "hunter,random", "--db", db).returncode == 0
    r = run_locm("show", log)
    assert r.returncode == 0 and r.stdout.startswith("my-card-game: seq ") and "events:" in r.stdout, r.stderr
    r = run_locm("show", "--db", db, "skyport-2013-2", "--seq", "30", "--as", "1")
    assert r.returncode == 0 and "Skyport: seq 30 of" in r.stdout and "P1 random1" in r.stdout, r.stderr
    last = len(log.read_bytes().splitlines()) - 1  # the end, caused by the answer that ended the game
    r = run_locm("audit", log, "--seq", last)
    assert r.returncode == 0 and r.stdout.startswith(f"seq {last} mcg_game_ended") and "caused by seq" in r.stdout, \
        r.stdout
    r = run_locm("replay", log, "--all")
    assert r.returncode == 0 and r.stdout.count("turn ") >= 3
    lines = log.read_bytes().splitlines(keepends=True)
    lines[7] = lines[7].replace(b'"rule":"', b'"rule":"X')
    log.write_bytes(b"".join(lines))
    r = run_locm("show", log)
    assert r.returncode == 1 and r.stdout.startswith("WARNING: ") and "departs from them at seq 7" in r.stdout
    page = tmp_path / "x.html"
    r = run_locm("html", log, "-o", page)
    assert r.returncode == 1 and "my-card-game)" in r.stdout  # written, with the log's warning (exit 1)
    text = page.read_text(encoding="utf-8")
    assert 'id="game-data"' in text and "</script><" not in text.split('id="game-data">')[1].split("</script>")[0]
    data = __import__("json").loads(text.split('id="game-data">')[1].split("</script>")[0])
    assert len(data["events"]) == len(lines) and data["warning"].startswith("WARNING: ")
    assert data["meta"]["seats"] == 2
    assert len(data["at"]) == len(lines) and "drawBoard" in text  # its own board, at every event
    assert len(data["boards"][data["at"][0]]["sides"]) == 2


def test_my_card_game_plays_an_external_bot_in_the_sandbox(tmp_path):
    from locm.runner.sandbox.bwrap import probe
    from tests.test_reliability import run_locm

    box = [] if probe().ok else ["--no-sandbox"]
    db, log = tmp_path / "b.db", tmp_path / "b.jsonl"
    bot = f"python3 {ROOT / 'examples' / 'mcg' / 'bot.py'}"
    r = run_locm("play", "--game", "mcg", "--ruleset", "standard", "--seed", "7", "--p0", bot, "--p1", "greedy",
                 "--db", db, "--log", log, *box)
    assert r.returncode == 0 and "stored: mcg-standard-7-" in r.stdout, r.stderr
    answers = [line for line in log.read_text().splitlines() if '"mcg_command_received"' in line and
               '"player":0' in line]
    assert len(answers) > 10  # the bot's own lines, recorded as received
    assert run_locm("verify", "--db", db, log).stdout.endswith("2 games checked: 2 good, 0 bad\n")
    silent = f"python3 {ROOT / 'tests' / 'bots' / 'garbage_bot.py'}"  # waits for LOCM's input: never answers
    r = run_locm("play", "--game", "mcg", "--seed", "7", "--p0", "greedy", "--p1", silent, "--log", log,
                 "--timeouts", "x0.2", *box)
    assert r.returncode == 0 and "P0 (greedy) wins (inactivity)" in r.stdout, r.stdout + r.stderr
    assert "(lost by a timeout)" in r.stdout
    assert '"mcg_game_ended"' in log.read_text().splitlines()[-1]


def test_variants_of_other_games_play_verify_and_diff(tmp_path):
    from tests.test_reliability import one_line_error, run_locm

    mode = ROOT / "examples" / "mcg" / "singleton-sudden-death.toml"
    r = run_locm("rules", "diff", "--game", "mcg", "standard", mode, "--json")
    found = {d["field"]: d for d in __import__("json").loads(r.stdout)}
    assert found["max_copies"] == {"field": "max_copies", "rule": "R-DECK", "left": "3", "right": "1"}
    assert "turn_limit" not in found and "from_turn" in found["end_phase"]["right"]
    assert "Sand Golem" in found["cards"]["right"]
    log = tmp_path / "v.jsonl"
    r = run_locm("play", "--game", "mcg", "--ruleset", mode, "--seed", "3", "--log", log)
    assert r.returncode == 0 and r.stdout.startswith("my-card-game singleton-sudden-death, seed 3"), r.stderr
    assert run_locm("verify", log).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("health = -4\n")
    line = one_line_error(run_locm("play", "--game", "skyport", "--ruleset", bad, "--seed", "1",
                                   "--agents", "hunter,random"))
    assert line == f"locm: error: {bad}: health: expected an integer in 1..10000, got -4"


def test_a_my_card_game_tournament_with_a_sandboxed_bot(tmp_path):
    from locm.runner.sandbox.bwrap import probe
    from tests.test_reliability import run_locm

    box = [] if probe().ok else ["--no-sandbox"]
    bot = f"python3 {ROOT / 'examples' / 'mcg' / 'bot.py'}"
    db = tmp_path / "t.db"
    r = run_locm("tournament", "--game", "mcg", "--ruleset", "standard", "--agents", "greedy", bot, "--games", "2",
                 "--db", db, *box)
    assert r.returncode == 0 and "2 games played, 0 stored before: 2 of 2 my-card-game games" in r.stdout, r.stderr
    assert bot in r.stdout
    from locm.store.eventstore import open_store

    with open_store(db, readonly=True) as store:
        rows = store.games(game="mcg")
        seat = [m.agents.index(bot) for m in rows]
        assert all(m.seats[s].think_ms is not None for m, s in zip(rows, seat))  # the bot's think time, by seat
        assert all(m.seats[1 - s].think_ms is None for m, s in zip(rows, seat))  # none for the built-in agent
    assert run_locm("verify", "--db", db).stdout.endswith("2 games checked: 2 good, 0 bad\n")


def test_verify_re_decides_a_my_card_game_account_log(tmp_path):
    import msgspec

    from locm.engine.mcg.economy import BuyPack, DestroyCard, OpenAccount, decide_account, evolve_account
    from locm.events.mcg.codec import ACCOUNT_CODEC
    from tests.test_reliability import run_locm

    log = decide_account(None, OpenAccount("alice", 7))
    state = evolve_account(None, log[0])
    for command in (BuyPack(), BuyPack()):
        for e in decide_account(state, command):
            state, log = evolve_account(state, e), [*log, e]
    card = next(iter(state.collection))
    for e in decide_account(state, DestroyCard(card)):
        state, log = evolve_account(state, e), [*log, e]
    path = tmp_path / "alice.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(log))
    r = run_locm("verify", path)
    assert r.returncode == 0 and r.stdout.endswith("1 game checked: 1 good, 0 bad\n"), r.stdout + r.stderr
    forged = [*log[:1], msgspec.structs.replace(log[1], cards=(card,) * len(log[1].cards)), *log[2:]]
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(forged))
    r = run_locm("verify", path)
    assert r.returncode == 1 and "account event 1 is not what the rules give" in r.stdout, r.stdout
    r = run_locm("show", path)
    assert r.returncode == 2 and "a my-card-game account's log, not a game" in r.stderr


def test_the_my_card_game_report_gives_card_win_rates_with_their_intervals(tmp_path):
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule
    from locm.games.mcg.report import card_rates
    from locm.store.eventstore import open_store
    from tests.test_reliability import run_locm

    db = tmp_path / "m.db"
    jobs = seats_schedule("mcg", "standard", ["greedy", "random"], 8)
    with open_store(db) as store:
        run_matches(store, jobs)
        pairings, rates = card_rates(store, min_games=3)
    assert {(p.agent, p.opponent, p.games) for p in pairings} == {("greedy", "random", 8), ("random", "greedy", 8)}
    for r in rates:
        assert r.n <= 8 and 0 <= r.low <= r.rate <= r.high <= 1
        assert (r.verdict == "not enough data") == (r.n < 3)
        assert r.verdict != "above" or r.low > r.baseline
    r = run_locm("report", "--game", "mcg", "--db", db, "--min-games", "3")
    assert r.returncode == 0 and "greedy against random: 8 player-games" in r.stdout and "95% interval" in r.stdout
    assert "LOPSIDED" in r.stdout or "won 4 " in r.stdout  # an uneven pairing is flagged
