"""Games where a command-line bot plays beside a built-in agent (issue 32, item 1): the built-in seat is re-run
decision by decision at import and in verify, the bot's inputs taken as given. A forger who changes one of the
built-in seat's decisions (the log re-decided by the engine, so the rules accept it) is refused at import and
named by verify; a bot's inputs are the bot's own business, so a log whose bot seat played otherwise is kept.
The games are real: played by `locm play` with a real bot process, then edited as a forger would."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine import registry
from locm.games.registry import checker
from locm.provenance.agents import rerun_agents
from locm.store.eventstore import GameExtras, MemoryStore, open_store

ROOT = Path(__file__).resolve().parent.parent
BOTS = {"locm": f"{sys.executable} {ROOT / 'tests' / 'bots' / 'good_bot.py'}",
        "mcg": f"{sys.executable} {ROOT / 'examples' / 'mcg' / 'bot.py'}",
        "skyport": f"{sys.executable} {ROOT / 'examples' / 'skyport' / 'client.py'} {{host}} {{port}}"}


def locm(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def played(tmp_path: Path, name: str, seed: int, bot_seat: int, agent: str = "random"):
    """A game of ``name`` played by `locm play` (no sandbox: the bot is ours), the bot in ``bot_seat`` and the
    built-in ``agent`` in the other: its game definition and events."""
    db = tmp_path / f"{name}-{seed}.db"
    seats = [agent, agent]
    seats[bot_seat] = BOTS[name]
    code, out, err = locm("play", "--game", name, "--seed", seed, "--p0", seats[0], "--p1", seats[1], "--db", db,
                          "--no-sandbox")
    assert code == 0, err
    with open_store(db, create=False, readonly=True) as store:
        [record] = store.games()
        return registry.get(name), store.events(record.game_id)


def replayed(game, events, bot_seat: int, bot_inputs=None, swap_at: int = -1):
    """The game played again from its created event: the bot's seat given ``bot_inputs`` (default: its recorded
    inputs, in order; "PASS"-like fallbacks once they run out are the first legal line the game takes), the
    built-in seat by its own agent but for its decision number ``swap_at``, played by another built-in: a log the
    rules accept throughout, as a forger who knows the engine writes it."""
    created = events[0]
    seed = game.index(created)["seed"]
    seat = 1 - bot_seat
    name = game.agents(created)[seat]
    swap = next(a for a in game.agent_names if a != name)
    agent, other = game.make_agent(name, seed, seat), game.make_agent(swap, seed, seat)
    recorded = [e for e in events[1:] if e.cause == -1 and e.player == bot_seat]
    inputs = iter(recorded if bot_inputs is None else bot_inputs)
    match, decision = game.resume(created, []), 0
    while not match.ended:
        if match.to_move == bot_seat:
            given = next(inputs, None)
            if given is None and game.name == "skyport":  # its clients speak no line: the turn ends, as at a timeout
                from locm.engine.skyport.commands import EndTurn

                match.submit(EndTurn(bot_seat))
            elif given is None:
                match.forfeit(bot_seat, "timeout", "")
            else:
                game.feed(match, given) if not isinstance(given, str) else match.answer(bot_seat, given)
            continue
        (other if decision == swap_at else agent).play_turn(match, seat)
        decision += 1
    return list(match.log)


def export_of(game, events) -> bytes:
    """An export file of one game, every checksum computed (the forger's file)."""
    store = MemoryStore()
    store.append_game(game, GameExtras(game_id=game.game_id(events[0])), events)
    buf = io.BytesIO()
    store.export_jsonl(None, buf)
    return buf.getvalue()


@pytest.mark.parametrize("name,seed,bot_seat", [("locm", 3, 0), ("locm", 4, 1), ("mcg", 5, 1), ("skyport", 3, 1),
                                                ("skyport", 4, 0)])
def test_a_mixed_games_builtin_seat_is_re_run_and_a_forged_decision_of_it_is_found(tmp_path, name, seed, bot_seat):
    game, events = played(tmp_path, name, seed, bot_seat)
    assert rerun_agents(game, events).status == "same"  # the genuine game: the built-in seat is its agent
    for swap_at in (0, 6):  # a draft pick or a mulligan, and a later decision
        forged = replayed(game, events, bot_seat, swap_at=swap_at)
        assert forged != events and game.redecide(forged) is None  # the rules accept the forgery
        found = rerun_agents(game, forged)
        agent = game.agents(events[0])[1 - bot_seat]
        assert found.status == "differs" and f"P{1 - bot_seat} {agent!r} gives" in found.why, found
        assert found.decision > swap_at and 0 < found.seq < len(forged)  # (the swapped agent may agree a while)


@pytest.mark.parametrize("name,seed,bot_seat", [("locm", 3, 0), ("mcg", 5, 1)])
def test_a_mixed_games_bot_inputs_are_taken_as_given(tmp_path, name, seed, bot_seat):
    """The bot seat played otherwise (another bot's lines, then nothing: a timeout): its inputs are its own,
    and the built-in seat, still its agent, re-runs to the log."""
    game, events = played(tmp_path, name, seed, bot_seat)
    lines = {"locm": ["PASS"] * 40, "mcg": ['{"do": "mulligan", "ids": []}', '{"do": "end"}']}[name]
    other = replayed(game, events, bot_seat, bot_inputs=lines)
    assert other != events and game.redecide(other) is None
    assert rerun_agents(game, other).status == "same"


def test_a_forged_builtin_decision_in_a_mixed_game_is_refused_at_import_and_named_by_verify(tmp_path):
    game, events = played(tmp_path, "locm", 3, 0)
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(export_of(game, replayed(game, events, 0, swap_at=3)))
    code, _, err = locm("import", forged, "--db", tmp_path / "b.db")
    assert code != 0 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "its agents would not play it: decision" in err and "P1 'random' gives" in err, err
    assert not (tmp_path / "b.db").exists()
    code, out, _ = locm("verify", forged)
    assert code == 1 and "its agents would not play it: decision" in out, out
    db = tmp_path / "c.db"  # planted past the import's checks: verify names it in the store too
    with open_store(db, checker=checker()) as store:
        store.import_jsonl(io.BytesIO(forged.read_bytes()), check=False)
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "its agents would not play it: decision" in out, out
    genuine = tmp_path / "genuine.jsonl"  # and the bot's inputs are never what is refused
    genuine.write_bytes(export_of(game, replayed(game, events, 0, bot_inputs=["PASS"] * 40)))
    code, _, err = locm("import", genuine, "--db", tmp_path / "d.db")
    assert code == 0, err


def test_a_forged_builtin_decision_in_a_mixed_skyport_game_is_refused_at_import(tmp_path):
    """Skyport's clients name their seats (their handshakes' usernames): set aside, its built-in seat (random) re-runs."""
    game, events = played(tmp_path, "skyport", 3, 1)
    genuine, forged = tmp_path / "genuine.jsonl", tmp_path / "forged.jsonl"
    genuine.write_bytes(export_of(game, events))
    forged.write_bytes(export_of(game, replayed(game, events, 1, swap_at=6)))
    code, _, err = locm("import", forged, "--db", tmp_path / "b.db")
    assert code != 0 and err.count("\n") == 1 and "its agents would not play it: decision" in err, err
    assert "P0 'random' gives" in err, err
    code, _, err = locm("import", genuine, "--db", tmp_path / "c.db")
    assert code == 0, err
