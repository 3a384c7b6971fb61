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


def test_skyport_plays_two_to_six_players_ranked_by_points():
    game = registry.get("skyport")
    for n in (2, 3, 4):
        log = core.play(game, "2013", 9, (["hunter", "random"] * 2)[:n]).log
        out = game.outcome(log)
        assert out.scores is not None and len(out.scores) == n
        places = out.places(n)
        assert all((places[a] < places[b]) == (out.scores[a] > out.scores[b]) for a in range(n) for b in range(n))
    with pytest.raises(core.CoreError, match="2 to 6 players"):
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
