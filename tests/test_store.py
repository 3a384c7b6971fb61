"""The event store: one contract run against `MemoryStore` and `SqliteStore`, then SQLite-only behaviour
(schema, atomicity, foreign and damaged files, which must be refused and left byte for byte unchanged)."""

from __future__ import annotations

import hashlib
import io
import math
import os
import random
import sqlite3
import zlib
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from locm.events.locm import catalog as ev
from locm.events.locm.codec import to_json
from locm import errors
from locm.store import eventstore as store_mod
from locm.engine.locm.definition import GAME as LOCM_GAME
from locm.errors import (
    ChainError,
    CorruptStoreError,
    DuplicateEventError,
    DuplicateGameError,
    GameLogError,
    GameNotFoundError,
    ImportFormatError,
    InvalidRecordError,
    LocmError,
    NotAStoreError,
    StoreError,
    StoreNotFoundError,
)
from locm.store.eventstore import (
    GENESIS,
    STDERR_LIMIT,
    GameExtras,
    GameRecord,
    MemoryStore,
    SeatExtras,
    SqliteStore,
    open_store,
)

T0 = datetime(2026, 5, 9, 7, 35, 25, 123456, tzinfo=UTC)


# --- building games ---------------------------------------------------------------------------------------


def make_game(turns: int = 4, seed: int = 7, agents=("greedy", "random"), winner: int = 0,
              ruleset: str = "1.2", text: str = "PASS") -> list[ev.Event]:
    """A small plausible game: created, two decks, ``turns`` turns of draw/summon/attack, ended."""
    out: list[ev.Event] = []

    def add(cls, **kw):
        out.append(cls(seq=len(out), cause=len(out) - 1, rule="R-TEST", **kw))

    add(ev.GameCreated, ruleset=ruleset, ruleset_version=ruleset, seed=seed, shuffle_player0_seed=seed + 1,
        shuffle_player1_seed=seed + 2, draft_choices_seed=seed + 3, agents=agents)
    for p in (0, 1):
        add(ev.DeckOrdered, player=p, ids=tuple(range(1 + 30 * p, 31 + 30 * p)), base_ids=tuple(range(30)))
    for t in range(turns):
        p = t % 2
        add(ev.TurnStarted, player=p, turn=t, max_mana=t // 2 + 1, mana=t // 2 + 1, bonus_spent=False, draws=1)
        add(ev.CardDrawn, player=p, id=t + 1)
        add(ev.ActionReceived, player=p, text=text)
        add(ev.CreatureSummoned, player=p, id=t + 1, base_id=t + 10, lane=t % 2, cost=1)
        add(ev.PlayerDamaged, player=1 - p, amount=t + 1, source="attack")
        add(ev.TurnEnded, player=p)
    add(ev.GameEnded, winner=winner, reason="health", turn=turns)
    return out


def chain(events: list[ev.Event]) -> list[bytes]:
    """The hash chain computed independently of the store: sha256(previous + canonical JSON)."""
    hashes, prev = [], bytes(32)
    for e in events:
        prev = hashlib.sha256(prev + to_json(e)).digest()
        hashes.append(prev)
    return hashes


def renumber(events: list[ev.Event]) -> list[ev.Event]:
    return [msgspec.structs.replace(e, seq=i) for i, e in enumerate(events)]


def export_bytes(store, game_ids=None) -> bytes:
    buf = io.BytesIO()
    store.export_jsonl(game_ids, buf)
    return buf.getvalue()


def file_state(path) -> tuple[bytes, list[str]]:
    """The file's bytes and the names in its directory, to prove that nothing was touched."""
    return path.read_bytes(), sorted(os.listdir(path.parent))


# --- the shared contract ----------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    s = MemoryStore() if request.param == "memory" else open_store(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture(params=["memory", "sqlite"])
def target(request, tmp_path):
    """A second, empty store to import into."""
    s = MemoryStore() if request.param == "memory" else open_store(tmp_path / "target.db")
    yield s
    s.close()


def tamper(store, game_id: str, seq: int, payload: str | None = None, delete: bool = False) -> None:
    """Change (or delete) a stored event behind the store's back: rewrite the game's log blob."""
    if isinstance(store, SqliteStore):
        (data,) = store.db.execute("SELECT data FROM logs WHERE game = (SELECT id FROM games WHERE game_id = ?)",
                                   (game_id,)).fetchone()
    else:
        data = store._games[game_id].data
    lines = zlib.decompress(data).split(b"\n")
    if delete:
        del lines[seq]
    else:
        lines[seq] = payload.encode()
    data = store_mod.pack_log(lines)
    if isinstance(store, SqliteStore):
        store.db.execute("UPDATE logs SET data = ? WHERE game = (SELECT id FROM games WHERE game_id = ?)",
                         (data, game_id))
    else:
        store._games[game_id] = store._games[game_id]._replace(data=data)


def _extras_with(field: str, value) -> GameExtras:
    """Extras with one field set: a seat's (``think_ms0``: seat 0's ``think_ms``) or the game's."""
    if field[-1] in "01" and field[:-1] in SeatExtras.__struct_fields__:
        seats = [SeatExtras(), SeatExtras()]
        seats[int(field[-1])] = SeatExtras(**{field[:-1]: value})
        return GameExtras(game_id="g1", seats=tuple(seats))
    return GameExtras(game_id="g1", **{field: value})


class TestStoreContract:
    def test_append_then_read_back(self, store):
        game = make_game()
        record = store.append_game(LOCM_GAME, GameExtras(game_id="g1", created=T0), game)
        assert store.events("g1") == game
        assert store.game("g1") == record
        f = record.fields
        assert (record.game, record.ruleset, f["ruleset_version"], record.seed, f["shuffle_player0_seed"],
                f["shuffle_player1_seed"], f["draft_choices_seed"], f["card_gen_seed"]) == \
               ("locm", "1.2", "1.2", 7, 8, 9, 10, None)
        assert (record.agents, record.winner, record.places, record.scores, record.reason, record.turns) == \
               (("greedy", "random"), 0, (0, 1), None, "health", 4)
        assert record.n_events == len(game)
        assert record.created == "2026-05-09T07:35:25.123456Z"
        assert f["event_schema_version"] == ev.SCHEMA_VERSION
        assert store.has_game("g1") and not store.has_game("g2")
        assert (store.count(), store.count_events()) == (1, len(game))

    def test_extras_are_kept(self, store):
        extras = GameExtras(game_id="g1", created=T0, meta='{"round": 3}', seats=(SeatExtras(stderr="warn\n", think_ms=12.5, error=True), SeatExtras(stderr="ü ✓", think_ms=3, timeout=True)))
        store.append_game(LOCM_GAME, extras, make_game())
        r = store.game("g1")
        assert [(x.stderr, x.think_ms) for x in r.seats] == [("warn\n", 12.5), ("ü ✓", 3.0)]
        assert [(x.error, x.timeout) for x in r.seats] == [(True, False), (False, True)]
        assert r.meta == '{"round": 3}'
        assert r.extras() == msgspec.structs.replace(extras, created="2026-05-09T07:35:25.123456Z", seats=(
            extras.seats[0], msgspec.structs.replace(extras.seats[1], think_ms=3.0)))

    def test_extras_as_a_mapping(self, store):
        store.append_game(LOCM_GAME, {"game_id": "g1", "seats": [{"think_ms": 1.5}, {}]}, make_game())
        assert store.game("g1").seats[0].think_ms == 1.5

    def test_created_is_utc(self, store):
        paris = timezone(timedelta(hours=2))
        store.append_game(LOCM_GAME, GameExtras(game_id="a", created=datetime(2026, 5, 9, 9, 0, tzinfo=paris)), make_game())
        store.append_game(LOCM_GAME, GameExtras(game_id="b", created="2026-05-09T09:00:00+02:00"), make_game())
        before = datetime.now(UTC)
        store.append_game(LOCM_GAME, GameExtras(game_id="c"), make_game())
        after = datetime.now(UTC)
        assert store.game("a").created == store.game("b").created == "2026-05-09T07:00:00.000000Z"
        assert before <= datetime.fromisoformat(store.game("c").created) <= after

    @pytest.mark.parametrize("field, value, message", [
        ("created", datetime(2026, 5, 9), "game 'g1': field 'created': expected a timestamp with a time zone"),
        ("created", "yesterday", "game 'g1': field 'created': expected an ISO-8601 timestamp, got 'yesterday'"),
        ("think_ms0", -1.0, "game 'g1': field 'think_ms0': expected milliseconds >= 0 or None, got -1.0"),
        ("think_ms1", math.nan, "field 'think_ms1': expected milliseconds >= 0 or None, got nan"),
        ("meta", "{oops", "game 'g1': field 'meta': expected JSON text, got '{oops'"),
        ("stderr0", None, "game 'g1': field 'stderr0': expected text, got None"),
    ])
    def test_bad_extras_are_refused(self, store, field, value, message):
        with pytest.raises(InvalidRecordError) as info:
            store.append_game(LOCM_GAME, _extras_with(field, value), make_game())
        assert message in str(info.value)
        assert (info.value.field, info.value.got) == (field, value) or field == "think_ms1"
        assert store.count() == 0

    def test_seed_must_fit_64_bits(self, store):
        with pytest.raises(InvalidRecordError) as info:
            store.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game(seed=2**63 - 3))
        assert str(info.value) == f"game 'g1': field 'draft_choices_seed': expected a 64-bit integer, got {2**63}"
        assert store.count() == 0

    def test_unknown_extras_field_is_refused(self, store):
        with pytest.raises(InvalidRecordError, match="field 'extras'"):
            store.append_game(LOCM_GAME, {"game_id": "g1", "colour": "red"}, make_game())
        with pytest.raises(InvalidRecordError, match="field 'game_id': expected a non-empty string"):
            store.append_game(LOCM_GAME, {"game_id": ""}, make_game())

    def test_stderr_is_bounded_keeping_its_tail(self, store):
        long = "".join(f"line {i}\n" for i in range(5000))
        store.append_game(LOCM_GAME, GameExtras(game_id="g1", seats=(SeatExtras(stderr=long), SeatExtras(stderr="short"))), make_game())
        r = store.game("g1")
        kept = r.seats[0].stderr
        assert len(long) > STDERR_LIMIT >= len(kept)
        assert kept.startswith(f"[... {len(long)} characters, start cut]\n")
        assert long.endswith(kept.split("\n", 1)[1])
        assert len(kept) > STDERR_LIMIT - 100
        assert r.seats[1].stderr == "short"

    def test_duplicate_game_is_refused_and_the_first_kept(self, store):
        first = make_game(seed=1)
        store.append_game(LOCM_GAME, GameExtras(game_id="g1"), first)
        with pytest.raises(DuplicateGameError) as info:
            store.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game(seed=2))
        assert str(info.value) == "game 'g1' is already stored" and info.value.game_id == "g1"
        assert store.events("g1") == first and store.count_events() == len(first)

    @pytest.mark.parametrize("case, message", [
        ("gap", "game 'g1': event 3: expected seq 3, got 4"),
        ("swap", "game 'g1': event 3: expected seq 3, got 4"),
        ("repeat", "game 'g1': event 4: expected seq 4, got 3"),
        ("start", "game 'g1': event 0: expected seq 0, got 1"),
        ("no_created", "game 'g1': event 0: expected game_created first and only first, got 'deck_ordered'"),
        ("no_end", "game 'g1': event 26: expected game_ended last and only last, got 'turn_ended'"),
        ("end_inside", "game 'g1': event 5: expected game_ended last and only last, got 'game_ended'"),
        ("created_twice", "game 'g1': event 1: expected game_created first and only first, got 'game_created'"),
        ("empty", "game 'g1': event 0: expected at least game_created and game_ended, got '0 event(s)'"),
        ("not_event", "game 'g1': event 2: expected an event of Legends of Code and Magic, got 'hello'"),
    ])
    def test_bad_logs_are_refused_and_nothing_written(self, store, case, message):
        game = make_game()
        if case == "gap":
            game = game[:3] + game[4:]
        elif case == "swap":
            game[3], game[4] = game[4], game[3]
        elif case == "repeat":
            game.insert(4, game[3])
        elif case == "start":
            game = game[1:]
        elif case == "no_created":
            game = renumber(game[1:])
        elif case == "no_end":
            game = game[:-1]
        elif case == "end_inside":
            game = renumber(game[:5] + [game[-1]] + game[5:])
        elif case == "created_twice":
            game = renumber(game[:1] + game)
        elif case == "empty":
            game = []
        elif case == "not_event":
            game[2] = "hello"
        with pytest.raises(GameLogError) as info:
            store.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)
        assert str(info.value) == message
        assert not store.has_game("g1") and store.count() == 0 and store.count_events() == 0

    def test_winner_must_be_a_seat(self, store):
        game = make_game()
        game[-1] = msgspec.structs.replace(game[-1], winner=2)
        with pytest.raises(GameLogError, match=r"expected a winner in -1\.\.1, got 2"):
            store.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)

    def test_games_listing_and_filters(self, store):
        specs = [("a", "1.2", ("greedy", "random"), 0), ("b", "1.5", ("random", "greedy"), 1),
                 ("c", "1.5", ("greedy", "greedy"), 0), ("d", "1.2", ("random", "random"), 1)]
        for game_id, ruleset, agents, winner in specs:
            store.append_game(LOCM_GAME, GameExtras(game_id=game_id), make_game(agents=agents, winner=winner, ruleset=ruleset))

        def ids(**kw):
            return [r.game_id for r in store.games(**kw)]

        assert ids() == ["a", "b", "c", "d"]
        assert ids(ruleset="1.5") == ["b", "c"]
        assert ids(agent="greedy") == ["a", "b", "c"]
        assert ids(winner=1) == ["b", "d"]
        assert ids(agent="random", winner=0) == ["a"]
        assert ids(ruleset="1.2", agent="random", winner=1, limit=5) == ["d"]
        assert ids(limit=2) == ["a", "b"] and ids(limit=0) == []
        assert ids(agent="nobody") == []
        with pytest.raises(StoreError, match="limit: expected an integer >= 0 or None, got -1"):
            store.games(limit=-1)

    def test_unknown_game(self, store):
        store.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game())
        for call in (lambda: store.game("zz"), lambda: store.events("zz"), lambda: store.verify_chain("zz"),
                     lambda: list(store.iter_events(["g1", "zz"]))):
            with pytest.raises(GameNotFoundError) as info:
                call()
            assert str(info.value) == "no game 'zz' in the store" and info.value.game_id == "zz"

    def test_iter_events_streams_games_in_order(self, store):
        games = {gid: make_game(turns=t, seed=t) for gid, t in (("b", 2), ("a", 3), ("c", 1))}
        for gid, game in games.items():
            store.append_game(LOCM_GAME, GameExtras(game_id=gid), game)
        assert list(store.iter_events()) == [(gid, e) for gid, g in games.items() for e in g]
        assert list(store.iter_events(["c", "b"])) == [(g, e) for g in ("c", "b") for e in games[g]]
        turns = list(store.iter_events(types=["turn_started", "game_ended"]))
        assert [(g, type(e).__name__) for g, e in turns] == \
               [(g, "TurnStarted") for g in ("b", "b")] + [("b", "GameEnded")] + \
               [("a", "TurnStarted")] * 3 + [("a", "GameEnded"), ("c", "TurnStarted"), ("c", "GameEnded")]

    def test_chain_is_sha256_of_previous_and_canonical_json(self, store):
        game = make_game()
        record = store.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)
        expected = chain(game)
        assert GENESIS == bytes(32)
        assert record.head_hash == expected[-1].hex() == store.verify_chain("g1")
        event_lines = export_bytes(store).splitlines()[2:-1]
        assert [msgspec.json.decode(line)["hash"] for line in event_lines] == [h.hex() for h in expected]

    def test_verify_chain_catches_a_changed_event(self, store):
        game = make_game()
        store.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)
        store.append_game(LOCM_GAME, GameExtras(game_id="g2"), make_game(seed=3))
        tamper(store, "g1", 7, to_json(msgspec.structs.replace(game[7], amount=99)).decode())
        with pytest.raises(ChainError) as info:
            store.verify_chain("g1")
        # schema 2 keeps the head hash only: the chain says that the log was altered, not where (the
        # re-decide of `locm verify` finds the first event the rules would not produce)
        assert (info.value.game_id, info.value.seq) == ("g1", -1)
        assert str(info.value).startswith("game 'g1': head of chain: expected hash ")
        assert store.verify_chain("g2")
        with pytest.raises(ChainError):
            export_bytes(store)

    def test_verify_chain_catches_a_lost_last_event(self, store):
        game = make_game()
        store.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)
        tamper(store, "g1", len(game) - 1, delete=True)
        with pytest.raises(ChainError) as info:
            store.verify_chain("g1")
        assert info.value.seq == -1
        assert str(info.value) == f"game 'g1': head of chain: expected event count {len(game)}, got {len(game) - 1}"

    def test_verify_chain_catches_a_changed_head(self, store):
        record = store.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game())
        if isinstance(store, SqliteStore):
            store.db.execute("UPDATE games SET head_hash = zeroblob(32)")
        else:
            store._games["g1"] = store._games["g1"]._replace(
                record=msgspec.structs.replace(record, head_hash="00" * 32))
        with pytest.raises(ChainError) as info:
            store.verify_chain("g1")
        assert str(info.value) == f"game 'g1': head of chain: expected hash {'00' * 32}, got {record.head_hash}"

    def test_verify_chain_catches_a_lost_middle_event(self, store):
        store.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game())
        tamper(store, "g1", 4, delete=True)
        with pytest.raises(ChainError, match="^game 'g1': event 4: expected seq 4, got 5$"):
            store.verify_chain("g1")

    # export and import ------------------------------------------------------------------------------------

    def test_export_import_round_trip_exactly(self, store, target):
        for i in range(3):
            store.append_game(LOCM_GAME, GameExtras(game_id=f"g{i}", created=T0, meta=f'{{"i": {i}}}', seats=(SeatExtras(stderr="é\n" * i, timeout=bool(i % 2)), SeatExtras(think_ms=i * 1.5))),
                              make_game(turns=i + 2, seed=i, text="SUMMON 1 0;ATTACK 1 -1 ✓"))
        data = export_bytes(store)
        assert target.import_jsonl(io.BytesIO(data), check=False) == (3, store.count_events(), 0, 0, 0, 0)
        assert export_bytes(target) == data
        assert target.games() == store.games()
        assert list(target.iter_events()) == list(store.iter_events())
        lines = data.splitlines()
        assert lines[0] == b'{"locm_export":1,"store_schema":2,"event_schema":%d}' % ev.SCHEMA_VERSION
        assert lines[1].startswith(b'{"game":{"game_id":"g0",')
        assert lines[2] == b'{"hash":"%s","event":%s}' % (chain(store.events("g0"))[0].hex().encode(),
                                                          to_json(store.events("g0")[0]))
        assert lines[-1] == b'{"end":{"games":3,"events":%d}}' % store.count_events()

    def test_export_some_games_in_the_order_asked(self, store, target):
        for gid in "abc":
            store.append_game(LOCM_GAME, GameExtras(game_id=gid), make_game())
        target.import_jsonl(io.BytesIO(export_bytes(store, ["c", "a"])), check=False)
        assert [r.game_id for r in target.games()] == ["c", "a"]
        with pytest.raises(GameNotFoundError):
            export_bytes(store, ["zz"])

    def test_import_skip_existing_only_skips_identical_games(self, store, target):
        store.append_game(LOCM_GAME, GameExtras(game_id="a", created=T0), make_game())
        store.append_game(LOCM_GAME, GameExtras(game_id="b", created=T0), make_game())
        data = export_bytes(store)
        target.append_game(LOCM_GAME, GameExtras(game_id="a", created=T0), make_game())
        with pytest.raises(ImportFormatError) as info:
            target.import_jsonl(io.BytesIO(data), check=False)
        assert str(info.value) == "line 2: game 'a' is already in the store (--skip-existing skips identical games)"
        assert target.count() == 1
        assert target.import_jsonl(io.BytesIO(data), skip_existing=True, check=False) == \
            (1, store.game("b").n_events, 1, 0, 0, 0)  # and no schedule, no account
        assert export_bytes(target) == data
        other = MemoryStore()
        other.append_game(LOCM_GAME, GameExtras(game_id="a", created=T0), make_game(seed=99))
        with pytest.raises(ImportFormatError, match="line 2: game 'a' is already in the store$"):
            other.import_jsonl(io.BytesIO(data), skip_existing=True, check=False)


# --- tampered and truncated import files ------------------------------------------------------------------


@pytest.fixture
def exported():
    """An export of two games, as a list of lines (without newlines)."""
    s = MemoryStore()
    s.append_game(LOCM_GAME, GameExtras(game_id="g1", created=T0), make_game(turns=2))
    s.append_game(LOCM_GAME, GameExtras(game_id="g2", created=T0), make_game(turns=2, seed=5, winner=1))
    return export_bytes(s).split(b"\n")[:-1]


def join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def import_refused(target, data: bytes) -> ImportFormatError:
    """Import ``data``, expect a refusal, check that nothing was written, return the error."""
    with pytest.raises(ImportFormatError) as info:
        target.import_jsonl(io.BytesIO(data), check=False)
    assert target.count() == 0 and target.count_events() == 0
    assert "\n" not in str(info.value)
    return info.value


class TestImportRefusals:
    # The file: line 1 header; line 2 game g1; lines 3..18 its 16 events (event k on line 3 + k);
    # line 19 game g2; lines 20..35 its events (event k on line 20 + k); line 36 the end line.

    def test_layout(self, exported):
        assert len(exported) == 36
        assert exported[1].startswith(b'{"game":{"game_id":"g1"')
        assert exported[18].startswith(b'{"game":{"game_id":"g2"')
        assert b'"seq":0,' in exported[19] and b'"seq":15,' in exported[34]
        assert exported[35] == b'{"end":{"games":2,"events":32}}'

    def test_changed_event_in_the_second_game_refuses_the_whole_file(self, target, exported):
        line = 20 + 7
        assert b'"type":"player_damaged"' in exported[line - 1] and b'"amount":1' in exported[line - 1]
        exported[line - 1] = exported[line - 1].replace(b'"amount":1', b'"amount":3')
        err = import_refused(target, join(exported))
        assert err.line == line
        assert str(err).startswith(f"line {line}: game 'g2' event 7: expected hash ")

    def test_consistently_rehashed_chain_is_caught_by_the_record(self, target, exported):
        events = [msgspec.json.decode(line)["event"] for line in exported[2:18]]
        events[7]["amount"] = 50
        prev = bytes(32)
        for i, e in enumerate(events):
            raw = msgspec.json.encode(e)
            prev = hashlib.sha256(prev + raw).digest()
            exported[2 + i] = b'{"hash":"%s","event":%s}' % (prev.hex().encode(), raw)
        err = import_refused(target, join(exported))
        assert err.line == 2 and "game 'g1': field 'head_hash': the events give" in str(err)

    def test_changed_record(self, target, exported):
        exported[18] = exported[18].replace(b'"winner":1', b'"winner":0')
        err = import_refused(target, join(exported))
        assert str(err) == "line 19: game 'g2': field 'winner': the events give 1, the line has 0"

    def test_unknown_field_in_record(self, target, exported):
        exported[1] = exported[1].replace(b'{"game_id":', b'{"extra":1,"game_id":')
        err = import_refused(target, join(exported))
        assert err.line == 2 and "unknown field" in str(err).lower()

    def test_removed_event_line(self, target, exported):
        del exported[9]  # event 7 of g1
        err = import_refused(target, join(exported))
        assert str(err) == "line 10: game 'g1': event 7: expected seq 7, got 8"

    def test_swapped_event_lines(self, target, exported):
        exported[5], exported[6] = exported[6], exported[5]
        err = import_refused(target, join(exported))
        assert str(err) == "line 6: game 'g1': event 3: expected seq 3, got 4"

    def test_truncated_at_a_game_boundary(self, target, exported):
        err = import_refused(target, join(exported[:18]))
        assert str(err) == "line 19: the file ends where a game line or the end line was expected (truncated?)"

    def test_truncated_inside_a_game(self, target, exported):
        err = import_refused(target, join(exported[:26]))
        assert str(err) == "line 27: the file ends where event 7 of game 'g2' (16 events) was expected (truncated?)"

    def test_truncated_inside_a_line(self, target, exported):
        data = join(exported)
        cut = len(join(exported[:29])) + 20
        err = import_refused(target, data[:cut])
        assert err.line == 30 and str(err).startswith("line 30: expected event 10 of game 'g2': ")

    def test_wrong_totals(self, target, exported):
        exported[35] = exported[35].replace(b'"games":2', b'"games":3')
        err = import_refused(target, join(exported))
        assert str(err) == "line 36: end line says 3 games, 32 events; the file has 2 games, 32 events"

    def test_text_after_the_end(self, target, exported):
        err = import_refused(target, join(exported + [b"{}"]))
        assert str(err) == "line 37: expected nothing after the end line"

    def test_not_an_export(self, target):
        err = import_refused(target, b"hello\n")
        assert err.line == 1 and str(err).startswith("line 1: expected the file header line: ")
        err = import_refused(target, b"")
        assert str(err) == "line 1: the file ends where the file header was expected (truncated?)"

    def test_newer_export_version(self, target, exported):
        exported[0] = exported[0].replace(b'"locm_export":1', b'"locm_export":2')
        assert str(import_refused(target, join(exported))) == "line 1: expected export format 1, got 2"

    def test_game_twice_in_the_file(self, target, exported):
        twice = exported[:18] + exported[1:18] + [b'{"end":{"games":2,"events":32}}']
        assert str(import_refused(target, join(twice))) == "line 19: game 'g1' appears twice in the file"

    def test_bad_hash_text(self, target, exported):
        exported[2] = exported[2].replace(b'{"hash":"', b'{"hash":"zz')
        err = import_refused(target, join(exported))
        assert err.line == 3 and "game 'g1' event 0: non-hexadecimal" in str(err)

    def test_event_line_where_a_game_line_belongs(self, target, exported):
        err = import_refused(target, join(exported[:18] + exported[19:]))
        assert err.line == 19 and str(err).startswith("line 19: expected a game line or the end line: ")


# --- property: any game round-trips -----------------------------------------------------------------------


texts = st.text(max_size=40)  # any Unicode but surrogates, newlines and quotes included


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.integers(0, 6), seed=st.integers(-2**63, 2**63 - 4), text=texts, agents=st.tuples(texts, texts),
       stderr=texts, think=st.one_of(st.none(), st.floats(0, 1e9)))
def test_any_game_round_trips_through_sqlite_and_export(tmp_path_factory, turns, seed, text, agents, stderr, think):
    game = make_game(turns=turns, seed=seed, text=text, agents=agents)
    extras = GameExtras(game_id=text or "x", created=T0, seats=(SeatExtras(think_ms=think), SeatExtras(stderr=stderr)))
    with open_store(tmp_path_factory.mktemp("p") / "s.db") as s:
        record = s.append_game(LOCM_GAME, extras, game)
        assert s.events(extras.game_id) == game
        assert s.game(extras.game_id) == record
        data = export_bytes(s)
    copy = MemoryStore()
    copy.import_jsonl(io.BytesIO(data), check=False)
    assert copy.events(extras.game_id) == game and export_bytes(copy) == data


# --- SQLite only ------------------------------------------------------------------------------------------


def test_schema_is_documented_and_matches_the_record():
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "guides" / "store.md").read_text(encoding="utf-8")
    assert "```sql\n" + store_mod.SCHEMA_SQL.rstrip("\n") + "\n```" in guide
    conn = sqlite3.connect(":memory:")
    conn.executescript(store_mod.SCHEMA_SQL)
    columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(games)"))
    assert columns == ("id",) + GameRecord.__struct_fields__
    # a LOCM game's export line is the row's columns with LOCM's own fields and its two seats as columns
    from locm.store.export import _FLAT_FIELDS, _FlatRecord

    own = set(_FlatRecord.__struct_fields__) - set(columns)
    assert own == set(_FLAT_FIELDS) | {"agent0", "agent1", "stderr0", "stderr1", "think_ms0", "think_ms1",
                                       "error0", "error1", "timeout0", "timeout1"}


def test_games_table_holds_every_seed_and_parameter():
    created = set(ev.GameCreated.__struct_fields__) - {"seq", "cause", "rule"}
    # the resolved rules, the bots' versions and the rules' behaviour travel in the stored game_created payload,
    # not in a column
    from locm.engine.locm.definition import INDEX_FIELDS

    assert created == set(INDEX_FIELDS) | {"agents", "schema_version", "rules", "rules_hash", "bot_sha256",
                                           "behaviour"}


def test_new_store_is_wal_with_meta(tmp_path):
    with open_store(tmp_path / "s.db") as s:
        assert s.db.journal_mode == "wal"
        assert dict(s.db.execute("SELECT key, value FROM locm_meta").fetchall()) == \
               {"format": "locm-event-store", "schema_version": "3"}
        assert set(s.db.table_names()) == {"locm_meta", "games", "logs"}
        assert s.db.view_names() == ["events"]


def test_primary_key_refuses_a_second_log_of_a_game(tmp_path):
    with open_store(tmp_path / "s.db") as s:
        s.append_game(LOCM_GAME, GameExtras(game_id="g1"), make_game())
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed: logs.game"):
            s.db.execute("INSERT INTO logs VALUES ((SELECT id FROM games WHERE game_id = 'g1'), x'00')")
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed: games.game_id"):
            s.db.execute("INSERT INTO games SELECT id + 1, game_id, game, ruleset, seed, agents, winner, places, scores, "
                         "reason, turns, n_events, head_hash, created, seats, fields, meta FROM games")


def test_a_refused_log_row_rolls_back_its_game(tmp_path):
    """Bypass the Python checks: the database refuses the log (NOT NULL) and the game row goes with it."""
    with open_store(tmp_path / "s.db") as s:
        prepared = store_mod.prepare_game(LOCM_GAME, GameExtras(game_id="g1"), make_game())._replace(data=None)
        with pytest.raises(StoreError) as info:
            s._write([prepared])
        assert str(info.value).startswith(f"{s.path}: game 'g1' refused by the database: NOT NULL constraint failed")
        assert s.count() == 0 and s.count_events() == 0


def test_the_events_view_gives_every_stored_payload(tmp_path):
    """The documented view (`locm_log_json` over the compressed logs) shows each event's canonical JSON."""
    games = {"g1": make_game(), "g2": make_game(seed=3)}
    with open_store(tmp_path / "s.db") as s:
        for gid, game in games.items():
            s.append_game(LOCM_GAME, GameExtras(game_id=gid), game)
        rows = s.db.execute("SELECT game_id, seq, type, payload FROM events ORDER BY game, seq").fetchall()
        expected = [(gid, e.seq, type(e).__struct_config__.tag, to_json(e).decode())
                    for gid, game in games.items() for e in game]
        assert rows == expected
        damage = s.db.execute("SELECT game_id, json_extract(payload, '$.amount') FROM events "
                              "WHERE type = 'player_damaged'").fetchall()
        assert damage == [(gid, e.amount) for gid, game in games.items() for e in game
                          if type(e) is ev.PlayerDamaged]
    with open_store(tmp_path / "s.db", readonly=True) as s:  # registered on read-only connections too
        assert s.db.execute("SELECT count(*) FROM events").fetchone()[0] == sum(map(len, games.values()))


def test_an_error_midway_writes_nothing(tmp_path):
    with open_store(tmp_path / "s.db") as s:
        s.append_game(LOCM_GAME, GameExtras(game_id="old"), make_game())

        def games():
            yield store_mod.prepare_game(LOCM_GAME, GameExtras(game_id="a"), make_game())
            yield store_mod.prepare_game(LOCM_GAME, GameExtras(game_id="b"), make_game())
            raise ImportFormatError(99, "boom")

        with pytest.raises(ImportFormatError):
            s._write(games())
        assert [r.game_id for r in s.games()] == ["old"]
        assert s.count_events() == len(make_game())


def test_reopen_and_readonly(tmp_path):
    path = tmp_path / "s.db"
    game = make_game()
    with open_store(path) as s:
        s.append_game(LOCM_GAME, GameExtras(game_id="g1"), game)
    with open_store(path, create=False) as s:
        assert s.events("g1") == game and s.verify_chain("g1")
    before = path.read_bytes()
    with open_store(path, readonly=True) as s:
        assert s.events("g1") == game
        with pytest.raises(StoreError, match="opened read-only, cannot write"):
            s.append_game(LOCM_GAME, GameExtras(game_id="g2"), game)
    assert path.read_bytes() == before


def test_missing_file_is_not_created_unless_asked(tmp_path):
    path = tmp_path / "nope.db"
    for kw in ({"create": False}, {"readonly": True}):
        with pytest.raises(StoreNotFoundError) as info:
            open_store(path, **kw)
        assert str(info.value) == f"{path}: no event store here (expected an existing locm database)"
    assert os.listdir(tmp_path) == []
    with pytest.raises(StoreError, match="cannot open"):
        open_store(tmp_path / "no" / "dir" / "s.db")


def test_empty_files_become_stores(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.db"
    sqlite3.connect(blank).execute("PRAGMA user_version = 1").connection.close()
    for path in (empty, blank):
        with pytest.raises(StoreNotFoundError):
            open_store(path, create=False)
        with open_store(path) as s:
            s.append_game(LOCM_GAME, GameExtras(game_id="g"), make_game())
        with open_store(path, create=False) as s:
            assert s.count() == 1


def _real_store(path) -> bytes:
    with open_store(path) as s:
        for i in range(40):
            s.append_game(LOCM_GAME, GameExtras(game_id=f"g{i}"), make_game(turns=8, seed=i))
    return path.read_bytes()


def _foreign(tmp_path, kind: str):
    path = tmp_path / "f" / "x.db"
    path.parent.mkdir()
    if kind == "random":
        path.write_bytes(random.Random(0).randbytes(8192))
    elif kind == "text":
        path.write_text("game_id,winner\ng1,0\n")
    elif kind == "tiny_header":
        path.write_bytes(_real_store(tmp_path / "real.db")[:50])
    elif kind == "truncated":
        data = _real_store(tmp_path / "real.db")
        path.write_bytes(data[: len(data) // 2])
    elif kind == "other_tables":
        conn = sqlite3.connect(path)
        conn.executescript("CREATE TABLE users (id INTEGER, name TEXT); INSERT INTO users VALUES (1, 'x');")
        conn.close()
    elif kind == "other_wal_db":
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=wal")
        conn.executescript("CREATE TABLE games (id INTEGER); INSERT INTO games VALUES (1);")
        conn.close()
    elif kind in ("newer_schema", "wrong_format", "missing_column"):
        _real_store(path)
        conn = sqlite3.connect(path)
        if kind == "newer_schema":
            conn.execute("UPDATE locm_meta SET value = '4' WHERE key = 'schema_version'")
        elif kind == "wrong_format":
            conn.execute("UPDATE locm_meta SET value = 'something-else' WHERE key = 'format'")
        else:
            conn.executescript("ALTER TABLE games DROP COLUMN meta")
        conn.commit()
        conn.close()
    elif kind == "directory":
        path.mkdir()
        return path
    return path


@pytest.mark.parametrize("kind, error, message", [
    ("random", CorruptStoreError, "corrupt event store: not an SQLite database (no SQLite header)"),
    ("text", CorruptStoreError, "corrupt event store: not an SQLite database (no SQLite header)"),
    ("tiny_header", CorruptStoreError, "corrupt event store: truncated: 50 bytes, less than an SQLite header"),
    ("truncated", CorruptStoreError, "corrupt event store: truncated: the header says"),
    ("other_tables", NotAStoreError, "not a locm event store: expected a locm_meta table, found tables users"),
    ("other_wal_db", NotAStoreError, "not a locm event store: expected a locm_meta table, found tables games"),
    ("newer_schema", NotAStoreError, "not a locm event store: expected schema version 3, got '4'"),
    ("wrong_format", NotAStoreError, "expected format 'locm-event-store', got 'something-else'"),
    ("missing_column", NotAStoreError, "not a locm event store: table games does not have the columns of schema 3"),
])
@pytest.mark.parametrize("mode", [{}, {"create": False}, {"readonly": True}])
def test_foreign_or_damaged_file_is_refused_and_untouched(tmp_path, kind, error, message, mode):
    path = _foreign(tmp_path, kind)
    before = file_state(path)
    with pytest.raises(error) as info:
        open_store(path, **mode)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text
    assert info.value.path == str(path)
    assert file_state(path) == before


def test_directory_is_refused(tmp_path):
    path = _foreign(tmp_path, "directory")
    with pytest.raises(NotAStoreError, match="not a regular file"):
        open_store(path)


def test_damaged_page_is_a_project_error_on_read(tmp_path):
    path = tmp_path / "s.db"
    data = bytearray(_real_store(path))
    conn = sqlite3.connect(path)  # the middle page of the games' logs (not one of the tables beside them)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'logs' ORDER BY pageno")]
    conn.close()
    at = (pages[len(pages) // 2] - 1) * size + size // 2
    data[at: at + 3000] = random.Random(1).randbytes(3000)
    path.write_bytes(bytes(data))
    with open_store(path, readonly=True) as s:
        with pytest.raises(CorruptStoreError) as info:
            for i in range(40):  # everything the store keeps of a game: its log, and the facts beside it
                s.events(f"g{i}")
                s.verify_chain(f"g{i}")
                s.stored_facts(f"g{i}")
        assert "\n" not in str(info.value) and len(str(info.value)) < 300


# --- the exception tree -----------------------------------------------------------------------------------


def test_store_errors_join_the_one_exception_tree():
    """The CLI catches `engine.errors.LocmError`: every store error must be one, with a docstring."""
    import locm.engine.errors

    assert LocmError is locm.engine.errors.LocmError
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert LocmError in classes and len(classes) > 5
    for cls in classes:
        assert issubclass(cls, locm.engine.errors.LocmError) and cls.__doc__, cls
    assert str(LocmError("a\nb")) == "a b"
    assert str(ImportFormatError(3, "bad\nthing")) == "line 3: bad thing"

