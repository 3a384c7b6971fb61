"""Fuzz targets (issue 18, issue 33): the readers of what users hand locm, fed mutated real inputs by Hypothesis.
Every input gives a result or the reader's one-line error (a `LocmError`), never another exception.

- the referee-log parser (`locm conformance`, `show FILE --game K`, `import-referee`): mutated official lines;
- the event-log reader (`locm show FILE`, `audit`, `html`): mutated `play --log` files, then every view;
- the export reader (`locm import`): mutated export files;
- the variant parser (every `--ruleset FILE`): mutated TOML; an accepted file plays to an end;
- the same for my-card-game and Skyport (``mcg-events``, ``skyport-events``: `show`, `audit`, `html` and `import`
  of a mutated `play --log` file; ``mcg-variant``, ``skyport-variant``: a mutated variant file, or one whose
  values are replaced by TOML values of any type).

Mutations are byte-level (insert, delete, replace, truncate, repeat) or structural (one JSON value of one line
replaced by any JSON, deeply nested JSON, huge strings and numbers). The examples here are few, for CI;
`benchmarks/fuzz.py` runs the same targets for as long as asked. Inputs that once crashed a reader are kept in
`tests/data/fuzz/` and replayed first (`test_found_crashes_stay_fixed`).
"""

from __future__ import annotations

import gzip
import io
import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, currently_in_test_context, given, settings, strategies as st
from hypothesis import event as _event

from locm.engine.errors import LocmError
from locm.events.locm.codec import to_jsonl
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
FOUND = DATA / "fuzz"
EXAMPLES = 300  # per target in CI (benchmarks/fuzz.py runs many more)


# --- corpora ------------------------------------------------------------------------------------------------------


def official_lines() -> list[bytes]:
    """The shortest game line of each official file (1.2 and 1.5)."""
    out = []
    for name in ("official-1.2-games-00-49.txt.gz", "official-1.5-games-00-49.txt.gz"):
        lines = gzip.decompress((DATA / name).read_bytes()).splitlines()
        out.append(min(lines, key=len))
    return out


def event_log() -> bytes:
    from locm.games.locm.play import play_one

    return to_jsonl(play_one("constructed", 3, ("greedy", "random")).log)


def export_file() -> bytes:
    from locm.games.locm.play import play_one
    from locm.store.eventstore import MemoryStore
    from locm.games.locm.tournament import game_id

    store = MemoryStore()
    for seed in (1, 2):
        game = play_one("1.2", seed, ("greedy", "random"))
        store.append_game(LOCM_GAME, {"game_id": game_id("1.2", seed, ("greedy", "random"))}, game.log)
    out = io.BytesIO()
    store.export_jsonl(None, out)
    return out.getvalue()


def variant_files() -> list[bytes]:
    return [p.read_bytes() for p in sorted((ROOT / "examples" / "variants").glob("*.toml"))]


# --- mutations ----------------------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20) | st.sampled_from(["", "game_created", "\x1b]52;c;aGk=\x07", "9" * 400]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:50]):
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    if not path:
        return value
    *head, last = path
    target = obj
    for k in head:
        target = target[k]
    target[last] = value
    return obj


@st.composite
def structural(draw, data: bytes) -> bytes:
    """One line of `data` with one JSON value replaced (any JSON, deep nesting, a huge string or number)."""
    lines = data.splitlines()
    i = draw(st.integers(0, len(lines) - 1), label="line")
    try:
        line = lines[i].decode()
        obj, end = json.JSONDecoder().raw_decode(line)
    except ValueError:
        return data
    paths = list(_paths(obj))
    path = paths[draw(st.integers(0, len(paths) - 1), label="path")]
    kind = draw(st.sampled_from(["same type", "same type", "same type", "json", "deep", "huge", "drop"]),
                label="kind")
    current = obj
    for k in path:
        current = current[k]
    if kind == "same type":  # a value the schema takes, but maybe not the game: the fold and views must cope
        if type(current) is int:
            value = draw(st.integers(-3, 200) | st.sampled_from([10**100, -(2**63), 2**63 - 1]), label="int")
        elif type(current) is str:
            value = draw(st.text(max_size=30) | st.sampled_from(
                ["SUMMON 1 0;ATTACK 1 -1", "PASS", "PICK 9", "USE 3 -1", "\x1b[2J\x1b]0;owned\x07", "x" * 70000]),
                label="str")
        elif type(current) is list:
            value = draw(st.permutations(current), label="list")[:draw(st.integers(0, len(current)))]
        elif type(current) is bool:
            value = not current
        else:
            value = draw(JSON, label="value")
        new = _set(obj, path, value)
    elif kind == "drop" and path:
        *head, last = path
        parent = obj
        for k in head:
            parent = parent[k]
        del parent[last]
        new = obj
    else:
        value = {"json": lambda: draw(JSON, label="value"), "deep": lambda: "DEEP",
                 "huge": lambda: draw(st.sampled_from(["x" * 2_000_000, 10**400, -(2**64)]), label="huge"),
                 "drop": lambda: None}[kind]()
        new = _set(obj, path, value)
    text = json.dumps(new, separators=(",", ":"), ensure_ascii=False)
    text = text.replace('"DEEP"', "[" * 100_000 + "]" * 100_000)
    lines[i] = (text + line[end:]).encode()
    return b"\n".join(lines) + b"\n"


@st.composite
def bytewise(draw, data: bytes) -> bytes:
    """`data` with a few byte-level edits: insert, delete, replace, truncate, repeat a line."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4), label="edits")):
        if not out:
            break
        pos = draw(st.integers(0, len(out) - 1), label="pos")
        kind = draw(st.sampled_from(["insert", "delete", "replace", "truncate", "repeat"]), label="edit")
        if kind == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=8) | st.sampled_from([b"\n", b"{", b"]", b'"']))
        elif kind == "delete":
            del out[pos:pos + draw(st.integers(1, 64))]
        elif kind == "replace":
            out[pos] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del out[pos:]
        else:
            start = out.rfind(b"\n", 0, pos) + 1
            end = out.find(b"\n", pos)
            end = len(out) if end < 0 else end + 1
            out[end:end] = out[start:end] * draw(st.integers(1, 3))
    return bytes(out)


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(structural(data), bytewise(data))


FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)


# --- the targets (also run by benchmarks/fuzz.py) --------------------------------------------------------------


def event(text: str) -> None:
    """An outcome for `--hypothesis-show-statistics` (nothing outside a Hypothesis test)."""
    if currently_in_test_context():
        _event(text)



def referee_target(data: bytes, tmp: Path) -> None:
    """`locm conformance FILE` and `locm show FILE --game 0`: games checked, bad lines reported."""
    from locm.replay.locm.conformance import check_game, check_generated_cards, read_log_file
    from locm.replay.sources import open_game

    path = tmp / "referee.txt"
    path.write_bytes(data)
    bad = []
    try:
        for logged in read_log_file(path, on_bad_line=bad.append):
            event("identical" if check_game(logged).identical and not check_generated_cards(logged) else
                  "checked, differs")
    except LocmError:
        event("file refused")
    event(f"{len(bad)} bad lines")
    try:
        r = open_game(path, game=0)
        r.view(r.last_seq)
    except LocmError:
        pass


def event_log_target(data: bytes, tmp: Path) -> None:
    """`locm show`, `audit`, `html` of an event-log file: the replay, every view, explanations, the page."""
    from locm.engine.locm.redecide import redecide
    from locm.replay.html import render_html
    from locm.replay.locm.render import all_turns_text, audit_text
    from locm.replay.sources import open_game

    path = tmp / "game.jsonl"
    path.write_bytes(data)
    try:
        r = open_game(path)
    except LocmError as exc:
        event(f"refused: {str(exc)[len(str(path)) + 2:][:60]}")
        return
    # A log the rules would not produce is still shown, with a warning (the readers re-decide a log read from
    # a file and mark where it departs): its views must not break either.
    event("replayed" if redecide(r.events).ok else "replayed, departs from the rules")
    for seq in sorted({0, len(r) // 3, len(r) // 2, r.last_seq}):
        r.view(seq, perspective=seq % 2)
        audit_text(r.explain(seq))
    r.rejected()
    all_turns_text(r)
    render_html(r)


def export_target(data: bytes, tmp: Path) -> None:
    """`locm import FILE`: all of the file's games or none."""
    from locm.games.registry import checker
    from locm.store.eventstore import MemoryStore

    store = MemoryStore(checker=checker())
    try:
        store.import_jsonl(io.BytesIO(data))
    except LocmError:
        event("refused")
        assert store.count() == 0
        return
    event("imported")
    for record in store.games():
        store.events(record.game_id)


def variant_target(data: bytes, tmp: Path) -> None:
    """`--ruleset FILE`: a variant or one error; an accepted variant plays to an end."""
    from locm.engine.locm.variants import parse_variant
    from locm.games.locm.play import play_one

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # the command refuses it when reading the file (`locm.games.locm.variants.resolve_ruleset`)
    try:
        rules = parse_variant(text, "fuzz.toml", "fuzz")
    except LocmError as exc:
        assert "\n" not in str(exc)
        event("refused")
        return
    event("accepted, played")
    assert play_one(rules, 1, ("random", "greedy")).ended


@st.composite
def toml_variants(draw) -> bytes:
    """A variant file: a real one mutated, or a TOML document of real keys with values of any type."""
    if draw(st.booleans(), label="generated"):
        from locm.engine.locm.variants import OVERRIDABLE

        doc = {"base": draw(st.sampled_from(["1.2", "constructed", "1.5", "2.0", ""]))}
        for key in draw(st.sets(st.sampled_from(sorted(OVERRIDABLE)), max_size=4)):
            doc[key] = draw(st.integers(-10, 2000) | st.booleans() | st.text(max_size=5)
                            | st.lists(st.integers(-5, 1200), max_size=6) | st.floats())
        return "\n".join(f"{k} = {_toml_value(v)}" for k, v in doc.items()).encode()
    files = variant_files()
    return draw(bytewise(files[draw(st.integers(0, len(files) - 1))]))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


# --- the other games' logs and variants ---------------------------------------------------------------------------

GAME_LOGS = {"mcg": ("standard", 7, ("greedy", "random")), "skyport": ("2013", 3, ("hunter", "random"))}
GAME_VARIANTS = {"mcg": ROOT / "examples" / "mcg" / "singleton-sudden-death.toml",
                 "skyport": ROOT / "examples" / "skyport" / "glass-cannon.toml"}


def game_log(name: str) -> bytes:
    """A short `locm play --game NAME --log` file."""
    from locm.engine import core, registry

    game = registry.get(name)
    ruleset, seed, agents = GAME_LOGS[name]
    return game.codec.to_jsonl(core.play(game, ruleset, seed, agents).log)


def game_logs(name: str) -> st.SearchStrategy[bytes]:
    """A game's log mutated anywhere, or after its first line (a created event of a whole card list or map
    draws most byte edits, and a log whose first line is not its game's is refused before its game is read)."""
    data = game_log(name)
    head, _, tail = data.partition(b"\n")
    return st.one_of(mutated(data), mutated(tail).map(lambda t: head + b"\n" + t))


def game_log_target(name: str):
    def target(data: bytes, tmp: Path) -> None:
        """`locm show`, `audit`, `html` and `import` of another game's log file: every view, the page, the store."""
        from locm.engine import registry
        from locm.replay.sources import open_game
        from locm.replay.html import render_html
        from locm.games.registry import checker
        from locm.verify.logimport import import_log
        from locm.store.eventstore import MemoryStore

        game = registry.get(name)
        path = tmp / "game.jsonl"
        path.write_bytes(data)
        store = MemoryStore(checker=checker())
        try:
            import_log(store, game, data, str(path))
            event("imported")
        except LocmError:
            assert not list(store.games()), "a refused log stored something"
            event("import refused")
        try:
            r = open_game(path)
        except LocmError as exc:
            event(f"refused: {str(exc)[len(str(path)) + 2:][:60]}")
            return
        event("replayed, departs from the rules" if r.warning else "replayed")
        seats = len(game.agents(r.events[0]))
        for seq in sorted({0, len(r.events) // 3, len(r.events) // 2, r.last_seq}):
            r.view(seq, seq % seats)
            r.board(seq, None)
            r.explain(seq)
        if game.rejections is not None:
            r.rejected()
        render_html(r)
    target.__name__ = f"{name}_log_target"
    return target


def game_variant_target(name: str):
    def target(data: bytes, tmp: Path) -> None:
        """`--game NAME --ruleset FILE`: a variant or one error; an accepted variant plays to an end."""
        from locm.engine import core, registry

        game = registry.get(name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return  # the command refuses it when reading the file
        try:
            rules = game.variant(text, "fuzz.toml")
        except LocmError as exc:
            assert "\n" not in str(exc)
            event("refused")
            return
        event("accepted, played")
        assert core.play(game, rules, 1, GAME_LOGS[name][2]).ended
    target.__name__ = f"{name}_variant_target"
    return target


TOML = st.recursive(
    st.booleans() | st.integers(-10, 2000) | st.floats(-1e6, 1e6) | st.text(max_size=8)
    | st.sampled_from(["standard", "2013", "target", "death", "damage", "monster", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["do", "to", "on", "amount", "id", "name", "damage", "range", "x"]), inner, max_size=3),
    max_leaves=8,
)


def _toml_inline(v) -> str:
    """Any value as an inline TOML value (tables inline, keys quoted)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_inline(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_inline(x) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return _toml_value(v)


@st.composite
def retyped_variant(draw, path: Path) -> bytes:
    """A real variant file with one of its values (a field, a card's field, an effect's) replaced by a TOML
    value of any type (a list where a string is expected, a table where a number is)."""
    doc = tomllib.loads(path.read_text())
    paths = [p for p in _paths(doc) if p]
    where = paths[draw(st.integers(0, len(paths) - 1), label="path")]
    doc = _set(doc, where, draw(TOML, label="value"))
    return "\n".join(f"{json.dumps(k)} = {_toml_inline(v)}" for k, v in doc.items()).encode()


def game_variants(name: str) -> st.SearchStrategy[bytes]:
    path = GAME_VARIANTS[name]
    return st.one_of(retyped_variant(path), bytewise(path.read_bytes()))


TARGETS = {"referee": referee_target, "events": event_log_target, "export": export_target,
           "variant": variant_target,
           **{f"{g}-events": game_log_target(g) for g in GAME_LOGS},
           **{f"{g}-variant": game_variant_target(g) for g in GAME_VARIANTS}}


# --- in the suite -------------------------------------------------------------------------------------------------


@FUZZ
@given(data=st.sampled_from(official_lines()).flatmap(mutated))
def test_the_referee_log_parser_takes_any_input(data, tmp_path_factory):
    referee_target(data, tmp_path_factory.mktemp("referee"))


@FUZZ
@given(data=mutated(event_log()))
def test_the_event_log_reader_takes_any_input(data, tmp_path_factory):
    event_log_target(data, tmp_path_factory.mktemp("events"))


@FUZZ
@given(data=mutated(export_file()))
def test_the_export_reader_takes_any_input(data, tmp_path_factory):
    export_target(data, tmp_path_factory.mktemp("export"))


@FUZZ
@given(data=toml_variants())
def test_the_variant_parser_takes_any_input(data, tmp_path_factory):
    variant_target(data, tmp_path_factory.mktemp("variant"))


GAMES_FUZZ = settings(FUZZ, max_examples=60)  # the other games' targets, briefly (benchmarks/fuzz.py runs more)


@GAMES_FUZZ
@given(data=game_logs("mcg"))
def test_the_mcg_log_readers_take_any_input(data, tmp_path_factory):
    TARGETS["mcg-events"](data, tmp_path_factory.mktemp("mcg-events"))


@GAMES_FUZZ
@given(data=game_logs("skyport"))
def test_the_skyport_log_readers_take_any_input(data, tmp_path_factory):
    TARGETS["skyport-events"](data, tmp_path_factory.mktemp("skyport-events"))


@GAMES_FUZZ
@given(data=game_variants("mcg"))
def test_the_mcg_variant_parser_takes_any_input(data, tmp_path_factory):
    TARGETS["mcg-variant"](data, tmp_path_factory.mktemp("mcg-variant"))


@GAMES_FUZZ
@given(data=game_variants("skyport"))
def test_the_skyport_variant_parser_takes_any_input(data, tmp_path_factory):
    TARGETS["skyport-variant"](data, tmp_path_factory.mktemp("skyport-variant"))


@pytest.mark.parametrize("path", sorted(FOUND.glob("*/*")) if FOUND.exists() else [],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_found_crashes_stay_fixed(path, tmp_path):
    """Each input a fuzzer once crashed a reader with (kept in tests/data/fuzz/TARGET/), read again."""
    TARGETS[path.parent.name](gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes(),
                              tmp_path)


def test_toml_values_are_written_as_toml():
    assert tomllib.loads("a = " + _toml_value([1, 2]) + "\nb = " + _toml_value("x") + "\n") == {"a": [1, 2], "b": "x"}
