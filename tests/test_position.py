"""Continue from here (`engine.position`, `locm.tournament.continued`, `locm position`, `locm play --from`): a game
played on from a position with the same agents is the game played from the start; a changed position is refused
in one line; a redacted position holds nothing of the other seat's hidden cards or the seeds."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import locm
from locm.engine import core, registry
from locm.engine.position import PositionError, cut, decode, encode, position, rebuild
from locm.store.eventstore import GameExtras, open_store, prepare_game
from locm.tournament.continued import ContinueRequest, play_on, position_text, warmed

ROOT = Path(__file__).resolve().parents[1]
LOCM = registry.get("locm")


def run_locm(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT)


def _played_on(game, text: str, agents, seed: int):
    """The game a position string gives, played on by ``agents`` (each seat's agent warmed up to it)."""
    match = rebuild(game, decode(text))
    players = warmed(game, match.log, agents, seed)
    assert players is not None
    while not match.ended:
        seat = match.to_move
        players[seat].play_turn(match, seat)
    return match.log


def _head(game, events) -> str:
    return prepare_game(game, GameExtras(game_id=game.game_id(events[0])), events).record.head_hash


def _seqs(events, kind: str) -> list[int]:
    """Seqs of a draft/construct input and of battle events to cut at."""
    first_battle = next(e.seq for e in events if type(e).__name__ == "TurnStarted")
    early = [e.seq for e in events[1:first_battle] if e.cause == -1]
    assert early, f"no {kind} input before the battle"
    return [early[len(early) // 2], first_battle, first_battle + 7, len(events) // 2, len(events) - 3]


@pytest.mark.parametrize("ruleset, kind", [("1.2", "draft"), ("constructed", "construct")])
@pytest.mark.parametrize("agents", [("greedy", "random"), ("random", "lookahead")])
def test_a_game_played_on_from_a_position_is_the_game_played_from_the_start(ruleset, kind, agents):
    seed = 11
    full = core.play(LOCM, ruleset, seed, agents).log
    for seq in _seqs(full, kind):
        text = encode(position(LOCM, full, seq, LOCM.game_id(full[0])))
        assert text.startswith("locm1:") and len(text) < 3000, f"seed {seed} seq {seq}: {len(text)} characters"
        again = _played_on(LOCM, text, agents, seed)
        assert LOCM.codec.to_jsonl(again) == LOCM.codec.to_jsonl(full), f"seed {seed} seq {seq}"
        assert _head(LOCM, again) == _head(LOCM, full)


@pytest.mark.parametrize("name, ruleset, agents", [("mcg", "standard", ("greedy", "random")),
                                                   ("skyport", "2013", ("random", "hunter"))])
def test_every_game_plays_on_from_its_positions(name, ruleset, agents):
    game = registry.get(name)
    full = core.play(game, ruleset, 5, agents).log
    for seq in (len(full) // 3, len(full) // 2):
        again = _played_on(game, encode(position(game, full, seq, "g")), agents, 5)
        assert game.codec.to_jsonl(again) == game.codec.to_jsonl(full), f"{name} seed 5 seq {seq}"


def test_a_variant_game_plays_on_from_its_position_under_its_own_rules():
    from locm.engine.locm.rulesets import rules_hash
    from locm.games.locm.variants import resolve_ruleset

    rules = resolve_ruleset(str(ROOT / "examples" / "variants" / "low-health.toml"))
    full = core.play(LOCM, rules, 6, ("greedy", "random")).log
    p = position(LOCM, full, len(full) // 2, "g")
    assert p.rules_hash == full[0].rules_hash != rules_hash(LOCM.rules(rules.base or "1.2"))
    again = _played_on(LOCM, encode(p), ("greedy", "random"), 6)
    assert LOCM.codec.to_jsonl(again) == LOCM.codec.to_jsonl(full)
    assert decode(encode(position(LOCM, full, 20, "g", seat=1))).rules_hash == full[0].rules_hash


def test_a_position_ends_where_its_decision_ends():
    full = core.play(LOCM, "1.2", 3, ("greedy", "greedy")).log
    inputs = [e.seq for e in full[1:] if e.cause == -1]
    k = inputs[40]
    assert cut(full, k) == inputs[41] - 1  # an input's position holds every event it caused
    assert cut(full, k + 1) == inputs[41] - 1
    with pytest.raises(PositionError, match="the game has events 0.."):
        cut(full, len(full))


def _raw(text: str) -> dict:
    """A position string's JSON, read here without the library (what anyone holding the string can read)."""
    body = text.removeprefix("locm1:").rpartition(".")[0]
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


def _card_ids(doc) -> set[int]:
    """The instance ids of every card object anywhere in a JSON document."""
    found: set[int] = set()
    if isinstance(doc, dict):
        if "base_id" in doc and "id" in doc:
            found.add(doc["id"])
        for v in doc.values():
            found |= _card_ids(v)
    elif isinstance(doc, list):
        for v in doc:
            found |= _card_ids(v)
    return found


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_redacted_position_holds_nothing_of_the_other_seats_hand_or_the_seeds(ruleset):
    full = core.play(LOCM, ruleset, 8, ("greedy", "greedy")).log
    seq = len(full) // 2
    for seat in (0, 1):
        text = encode(position(LOCM, full, seq, LOCM.game_id(full[0]), seat=seat))
        doc = _raw(text)
        state = LOCM.fold(full[:doc["seq"] + 1])
        other = state.players[1 - seat]
        assert other.hand and state.players[seat].hand  # both hold cards: a real test
        hidden = {u.id for u in other.hand} | {u.id for pl in state.players for u in pl.deck}
        assert not _card_ids(doc) & hidden, f"seat {seat}: the other's hand or a deck's card is in the position"
        assert {u.id for u in state.players[seat].hand} <= _card_ids(doc)  # its own hand is there
        assert doc["view"]["players"][1 - seat]["hand"] == len(other.hand)
        for key in ("created", "inputs", "events", "id"):
            assert key not in doc, key
        raw = json.dumps(doc)
        assert "seed" not in raw and LOCM.game_id(full[0]) not in raw  # a LOCM id holds its seed
        with pytest.raises(PositionError, match="redacted for seat"):
            rebuild(LOCM, decode(text))


def _tampered(text: str, change) -> str:
    """``text`` with its JSON changed by ``change`` and its hash made good again (a forger's string)."""
    import hashlib

    doc = change(_raw(text))
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    body = base64.urlsafe_b64encode(zlib.compress(raw)).rstrip(b"=").decode()
    return f"locm1:{body}.{hashlib.sha256(raw).hexdigest()[:16]}"


def test_a_changed_position_is_refused():
    full = core.play(LOCM, "1.2", 4, ("greedy", "greedy")).log
    text = encode(position(LOCM, full, 200, LOCM.game_id(full[0])))
    k = len("locm1:") + 30
    flipped = text[:k] + ("A" if text[k] != "A" else "B") + text[k + 1:]
    with pytest.raises(PositionError, match="damaged|changed"):
        decode(flipped)
    with pytest.raises(PositionError, match="does not match its hash"):
        decode(text[:-1] + ("0" if text[-1] != "0" else "1"))

    def other_pick(doc):  # the first draft pick changed, the hash recomputed
        first = doc["inputs"][0]
        first["text"] = "PICK 0" if first["text"] != "PICK 0" else "PICK 1"
        return doc

    with pytest.raises(PositionError, match="does not rebuild the game it names"):
        rebuild(LOCM, decode(_tampered(text, other_pick)))

    def other_seed(doc):
        doc["created"]["shuffle_player0_seed"] += 1
        return doc

    with pytest.raises(PositionError, match="does not rebuild the game it names"):
        rebuild(LOCM, decode(_tampered(text, other_seed)))
    for bad in ("", "locm2:abc.def", "locm1:!!!.0", "locm1:" + "A" * 50):
        with pytest.raises(PositionError):
            decode(bad)
    for field, value in (("inputs", {"a": 1}), ("seq", "12"), ("created", [1]), ("agents", None)):
        with pytest.raises(PositionError, match=f"'{field}' should be a"):
            decode(_tampered(text, lambda d: {**d, field: value}))  # noqa: B023
    forged = _tampered(text, lambda d: {**d, "inputs": [{"type": "no_such_event"}]})
    with pytest.raises(PositionError, match="cannot be rebuilt"):
        rebuild(LOCM, decode(forged))


def test_a_later_behaviour_is_refused():
    full = core.play(LOCM, "1.2", 4, ("greedy", "greedy")).log
    text = encode(position(LOCM, full, 100, "g"))
    later = getattr(LOCM, "behaviour", 1) + 1
    with pytest.raises(PositionError, match=f"behaviour {later}"):
        rebuild(LOCM, decode(_tampered(text, lambda d: {**d, "behaviour": later})))


@pytest.fixture()
def stored(tmp_path):
    db = tmp_path / "g.db"
    match = core.play(LOCM, "1.2", 9, ("greedy", "random"))
    gid = LOCM.game_id(match.log[0])
    with open_store(db) as store:
        store.append_game(LOCM, GameExtras(game_id=gid), match.log)
    return db, gid, match.log


def test_playing_on_with_the_same_agents_stores_nothing_new_and_with_others_a_continued_game(stored, tmp_path):
    db, gid, full = stored
    lines: list[str] = []
    assert play_on(ContinueRequest(game_id=gid, seq=150, db=db), lines.append) == gid
    assert lines[-1] == f"already stored: {gid} in {db}: the same game, event for event"
    other = play_on(ContinueRequest(game_id=gid[:8], seq=150, db=db, agents=("greedy", "lookahead")), lines.append)
    assert other.startswith("cont-1.2-9-") and lines[-1] == f"stored: {other} in {db}"
    with open_store(db) as store:
        record = store.game(other)
        events = store.events(other)
    assert json.loads(record.meta)["continued_from"] == {"game": gid, "seq": cut(full, 150),
                                                         "agents": ["greedy", "random"]}
    assert record.agents == ("greedy", "lookahead")
    k = cut(full, 150) + 1
    assert LOCM.codec.to_jsonl(events[1:k]) == LOCM.codec.to_jsonl(full[1:k])  # the prefix is the stored game's
    assert core.verify(LOCM, events) is None  # the rules give every event of it
    r = run_locm("verify", "--db", str(db))
    assert r.returncode == 0 and "2 good, 0 bad" in r.stdout + r.stderr, r.stdout + r.stderr


def test_the_command_line_prints_shows_and_plays_positions(stored):
    db, gid, full = stored
    r = run_locm("position", gid, "--seq", "120", "--db", str(db))
    assert r.returncode == 0, r.stderr
    redacted = r.stdout.strip()
    assert decode(redacted).redacted
    r = run_locm("position", "--show", redacted)
    assert r.returncode == 0 and "redacted for seat" in r.stdout and "hidden cards" in r.stdout, r.stdout
    r = run_locm("play", "--position", redacted)
    assert r.returncode == 2 and r.stderr.startswith("locm: error: the position is redacted for seat")
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_locm("play", "--position", redacted, "--db", str(db), "--agents", "lookahead,random")
    assert r.returncode == 0 and "stored: cont-1.2-9-" in r.stdout, r.stderr
    moved = _tampered(redacted, lambda d: {**d, "seq": d["seq"] + 1})  # another position of the same game
    r = run_locm("play", "--position", moved, "--db", str(db))
    assert r.returncode == 2 and "the stored game is not the one the position names" in r.stderr, r.stderr
    full_text = run_locm("position", gid, "--seq", "120", "--db", str(db), "--reveal").stdout.strip()
    r = run_locm("play", "--position", full_text)  # a full position plays on anywhere, with no store
    assert r.returncode == 0 and "played on from seq" in r.stdout, r.stderr
    r = run_locm("play", "--position", full_text[:-3] + "xyz")
    assert r.returncode == 2 and r.stderr.startswith("locm: error: a changed or damaged position")
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run_locm("play", "--seed", "3", "--seq", "5")
    assert r.returncode == 2 and "--seq goes with --from" in r.stderr
    r = run_locm("play", "--from", gid, "--db", str(db))
    assert r.returncode == 2 and "--from takes --seq" in r.stderr
    r = run_locm("play", "--from", gid, "--seq", str(len(full) - 1), "--db", str(db))
    assert r.returncode == 2 and "the game is over at seq" in r.stderr


def test_a_notebook_game_continues_from_a_position(stored):
    db, gid, full = stored
    g = locm.Game.from_stored(db, gid, 100)
    assert list(g.log) == full[:cut(full, 100) + 1]
    text = position_text(db, gid, 100, reveal=True)
    h = locm.Game.from_position(text)
    assert list(h.log) == list(g.log)
    while not h.ended:
        h.play(h.legal_actions()[-1])  # a person (or a notebook) plays on: the game ends under the rules
    assert h.outcome() is not None
    r = locm.Game.from_position(position_text(db, gid, 100), db=db)  # redacted: from the store that holds it
    assert list(r.log) == list(g.log)


def test_a_person_plays_on_seeing_only_their_seat(stored):
    db, gid, full = stored
    shown: list[str] = []
    answers = iter(["9", "x"] + ["0"] * 500)  # out of range and not a number: asked again
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    other = play_on(ContinueRequest(game_id=gid, seq=200, db=db, agents=("person", "greedy")), shown.append, read)
    with open_store(db) as store:
        record = store.game(other)
        events = store.events(other)
    assert record.agents == ("person", "greedy") and core.verify(LOCM, events) is None
    boards = [s for s in shown if s.startswith("seq ")]
    assert boards and all("(as P0)" in b and "hidden cards" in b for b in boards)  # P1's hand is a count
    assert shown.count("expected a number 0..2") == 2 and prompts[0].startswith("P0 (Legends of Code and Magic)")

    def leave(prompt: str) -> str:
        raise EOFError

    left = play_on(ContinueRequest(game_id=gid, seq=200, db=db, agents=("person", "greedy")), shown.append, leave)
    with open_store(db) as store:
        events = store.events(left)
    assert events[-1].winner == 1 and any("the person left" in getattr(e, "reason", "") for e in events)


def test_a_bot_plays_on_from_a_position_in_the_sandbox(stored):
    from locm.runner.sandbox.bwrap import probe

    db, gid, full = stored
    bot = f"{sys.executable} {ROOT / 'examples' / 'bot.py'}"
    box = [] if probe().ok else ["--no-sandbox"]
    r = run_locm("play", "--from", gid, "--seq", "150", "--db", str(db), "--agents", f"greedy,{bot}",
                 "--timeouts", "x10", *box)
    assert r.returncode == 0, r.stderr
    other = r.stdout.split("stored: ")[1].split()[0]
    with open_store(db) as store:
        record, events = store.game(other), store.events(other)
    assert record.agents == ("greedy", bot) and not record.seats[1].error and not record.seats[1].timeout
    assert events[0].bot_sha256[1] and not events[0].bot_sha256[0]  # the bot's version names the game
    assert any(type(e).__name__ == "ActionReceived" and e.player == 1 and e.kind == "line" for e in events)
    assert core.verify(LOCM, events) is None


@pytest.mark.parametrize("name, ruleset, agents, others", [("mcg", "standard", ("greedy", "random"), ("random", "greedy")),
                                                           ("skyport", "2013", ("random", "hunter"), ("hunter", "hunter"))])
def test_every_game_is_played_on_by_other_agents_as_a_continued_game_that_verifies(tmp_path, name, ruleset, agents,
                                                                                     others):
    game = registry.get(name)
    db = tmp_path / "g.db"
    match = core.play(game, ruleset, 4, agents)
    gid = game.game_id(match.log[0])
    with open_store(db) as store:
        store.append_game(game, GameExtras(game_id=gid), match.log)
    seq = len(match.log) // 2
    lines: list[str] = []
    other = play_on(ContinueRequest(game_id=gid, seq=seq, db=db, agents=others), lines.append)
    assert other.startswith(f"cont-{name}-") and lines[-1] == f"stored: {other} in {db}", lines
    with open_store(db) as store:
        record, events = store.game(other), store.events(other)
    k = cut(match.log, seq) + 1
    assert game.codec.to_jsonl(events[1:k]) == game.codec.to_jsonl(match.log[1:k])  # the stored game's prefix
    assert tuple(record.agents) == others and tuple(game.agents(events[0])) == others
    assert core.verify(game, events) is None
    r = run_locm("verify", "--db", str(db))
    assert r.returncode == 0 and "2 good, 0 bad" in r.stdout + r.stderr, r.stdout + r.stderr
