"""Game ids: an id names its game's content, and can be recomputed from it.

A game played by locm (``locm play``, a tournament, a what-if re-run, a notebook game with agents) has the id

    f"{ruleset}-{seed}-{h}"   with h = the first 12 hex digits of sha256(key), key the compact JSON of
    [ruleset, seed, agent0, agent1, sorted(params)]  + [rules_hash]            if the rules are not the built-in
                                                      + ["bots", sha0, sha1]    if a seat is a command-line bot
                                                      + ["behaviour", n]        if it is not behaviour 1

where everything comes from its `game_created`: ``ruleset`` its name, ``seed``, ``agents``; ``params`` the seeds
(referee names, e.g. ``shufflePlayer0Seed``) whose value is not what ``seed`` derives (R-SEEDS), and
``predefinedDraftIds`` when set (`canonical_params`); ``rules_hash`` of its rules' values when they are not the
built-in ruleset of that name (a variant); ``bot_sha256``, the bots' versions; ``behaviour``, the behaviour of
the rules that decided it (left out for behaviour 1, so ids made before it was recorded stay as they were). The
tournament computes the same id before playing (`game_id`), so the id of a scheduled game is known, and a game
stored under another game's id is caught (`id_problem`): its content gives another id.

A game from an official referee log (``locm import-referee``) has no named agents: two referee games with the
same seeds differ only by their answers, so their id also covers the answers:

    f"ref-{ruleset}-{seed}-{h}"   with h over [key of its game_created, its recorded inputs]   (`referee_id`)

(``seed`` is ``x`` when the log gives none). A game played through a reinforcement-learning environment
(`locm.rl`) has a seat whose choices its agent's name does not fix (a policy being trained), so its id covers
the answers the same way, under its own prefix:

    f"env-{ruleset}-{seed}-{h}"   with h over [key of its game_created, its recorded inputs]   (`episode_id`)

A game played on from a position of another (`engine.position`) by other agents than the ones that played up
to it is named the same way: its agents' names do not fix the choices made before the position.

    f"cont-{ruleset}-{seed}-{h}"  with h over [key of its game_created, its recorded inputs]   (`continued_id`)

Older ids stay valid as stored (`id_problem` accepts them when
they are what the older function gives for the same content): ids of games played with a redundant
``--param`` (a seed given equal to the derived one, once part of the key), and ``ref-`` ids made before, whose
hash covered the referee file's own parameter text and answers (recomputed from the game's ``meta``).

12 hex digits (48 bits) after the ruleset and the seed: the games that share a ruleset and a seed are a
handful (the agent pairs of a tournament), so an accidental collision is out of reach. One made on purpose (a
second game for a given id takes about 2**48 hashes) is not a signature's guarantee: `locm verify` also
compares each scheduled place's record with the schedule (ruleset, seed, agents, seeds), and a tournament
refuses to resume over a stored game whose record is not its job's.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple, cast

import msgspec

from locm.engine.errors import LocmError
from locm.engine.locm import behaviour as _behaviour
from locm.engine.locm.rulesets import RULESETS, Rules, by_name, rules_hash
from locm.engine.locm.setup import PARAM_FIELDS, derive_params
from locm.engine.seam import behaviour_of
from locm.events.locm.catalog import ActionReceived, Event, GameCreated, HardError

HASH_HEX = 12
"""Hex digits of the content hash in an id."""
REFEREE_PREFIX = "ref-"
EPISODE_PREFIX = "env-"
CONTINUED_PREFIX = "cont-"


def game_id(ruleset: str | Rules, seed: int | None, agents: Sequence[str], params: Mapping[str, Any] | None = None,
            bots: Sequence[str | None] | None = None, behaviour: int | None = None) -> str:
    """The id of the game that ``Game.new(ruleset, seed, params, agents, bots, behaviour)`` creates, without
    creating it (a tournament's schedule computes it for every game). Equal to `created_id` of that game's
    `game_created`."""
    rules = by_name(ruleset) if isinstance(ruleset, str) else ruleset
    return _id(rules.name, seed, agents, canonical_params(rules, seed, params), _variant_hash(rules),
               _bots(bots), _behaviour.BEHAVIOUR if behaviour is None else behaviour)


def created_id(created: GameCreated) -> str:
    """The id that a game's `game_created` gives (a game played by locm, not a referee game)."""
    rules = _rules_of(created)
    return _id(created.ruleset, created.seed, created.agents, _created_params(created, rules), _variant_hash(rules),
               _bots(created.bot_sha256), behaviour_of(created))


def referee_id(events: Sequence[Event], prefix: str = REFEREE_PREFIX) -> str:
    """The id of a game replayed from an official referee log: its `game_created` and its recorded inputs."""
    created = cast(GameCreated, events[0])
    rules = _rules_of(created)
    key = _key(created.ruleset, created.seed, created.agents, _created_params(created, rules), _variant_hash(rules),
               _bots(created.bot_sha256), behaviour_of(created))
    inputs = [_input(e) for e in events[1:] if e.cause == -1 and isinstance(e, (ActionReceived, HardError))]
    seed = "x" if created.seed is None else created.seed
    return f"{prefix}{created.ruleset}-{seed}-{_hash([key, inputs])}"


def episode_id(events: Sequence[Event]) -> str:
    """The id of a game played through an environment (`locm.rl`): like `referee_id`, its `game_created` and
    its recorded inputs, under the prefix ``env-``."""
    return referee_id(events, EPISODE_PREFIX)


def continued_id(events: Sequence[Event]) -> str:
    """The id of a game played on from a position by other agents (`engine.position`): like `referee_id`, its
    `game_created` and its recorded inputs, under the prefix ``cont-``."""
    return referee_id(events, CONTINUED_PREFIX)


class IdCheck(NamedTuple):
    """What `check_id` found: ``ok`` False with what is wrong, or True, with a note when the id is of an older
    form that the game's content can no longer reproduce (see `check_id`)."""

    ok: bool
    message: str = ""


def check_id(gid: str, events: Sequence[Event], meta: str = "{}") -> IdCheck:
    """Whether ``gid`` is the id the game's content gives (`created_id`, `referee_id`, or an older form of them).
    ``events`` is the whole log (schema 1 is upcast here); ``meta`` the stored game's meta JSON (an older
    referee id covered the parameters it keeps).

    One older form cannot always be recomputed: a ``ref-`` id made before ids named their content, of a game
    that a hard error ended while the referee still sent the other player its input: the file's answer to
    that input, never read, was part of the hash. Such an id is accepted with a note."""
    from locm.engine.locm.upcast import upcast

    if not events or type(events[0]) is not GameCreated:
        return IdCheck(False, "the log does not start with game_created")
    created = events[0]
    if created.rules is None:
        created = cast(GameCreated, upcast([created])[0])
    problem = created_problem(created)
    if problem:
        return IdCheck(False, problem)
    if gid.startswith(REFEREE_PREFIX):
        expected = referee_id([created, *events[1:]])
        old = _old_referee_id(created, events, meta)
        if gid == expected or (old is not None and gid == old):
            return IdCheck(True)
        if old is not None and _owed_answer(events) and gid.startswith(old.rpartition("-")[0] + "-"):
            return IdCheck(True, "an id of an older locm, not recomputable: it covered an answer of the referee "
                                 "file that the game never read")
    elif gid.startswith(EPISODE_PREFIX):
        expected = episode_id([created, *events[1:]])
        if gid == expected:
            return IdCheck(True)
    elif gid.startswith(CONTINUED_PREFIX):
        expected = continued_id([created, *events[1:]])
        if gid == expected:
            return IdCheck(True)
    else:
        expected = created_id(created)
        if gid == expected or gid in _older_ids(created):
            return IdCheck(True)
    return IdCheck(False, f"the id is not what its content gives: its game_created gives {expected!r}")


def id_problem(gid: str, events: Sequence[Event], meta: str = "{}") -> str | None:
    """`check_id`'s problem, or None when the id is sound."""
    found = check_id(gid, events, meta)
    return None if found.ok else found.message


def created_problem(created: GameCreated) -> str | None:
    """None if a `game_created` agrees with itself: its ``ruleset`` names its rules, its ``rules_hash`` is
    their hash (a forged ruleset with the old hash kept is caught here, not only by the id)."""
    rules = created.rules
    if rules is None:
        return None
    if created.ruleset != rules.name:
        return f"game_created says ruleset {created.ruleset!r}, its rules are named {rules.name!r}"
    if created.rules_hash and created.rules_hash != rules_hash(rules):
        return (f"game_created says rules_hash {created.rules_hash[:12]}..., its rules hash to "
                f"{rules_hash(rules)[:12]}...")
    return None


def canonical_params(rules: Rules, seed: int | None, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The parameters that name a game: each seed of ``rules`` given with a value that ``seed`` does not derive,
    and ``predefinedDraftIds``. A seed given equal to its derived value is the same game, so it is left out."""
    given = dict(params or {})
    full = derive_params(rules, seed, given)  # refuses unknown names and bad values, as creating the game does
    derived = derive_params(rules, seed) if seed is not None else {}
    out = {name: full[name] for name in rules.seed_params if derived.get(name) != full[name]}
    if "predefinedDraftIds" in full:
        out["predefinedDraftIds"] = full["predefinedDraftIds"]
    return out


# --- private ------------------------------------------------------------------------------------------------


def _id(name: str, seed: int | None, agents: Sequence[str], params: dict[str, Any], variant: str | None,
        bots: tuple[str, str] | None, behaviour: int = 1) -> str:
    return f"{name}-{seed}-{_hash(_key(name, seed, agents, params, variant, bots, behaviour))}"


def _key(name: str, seed: int | None, agents: Sequence[str], params: dict[str, Any], variant: str | None,
         bots: tuple[str, str] | None, behaviour: int = 1) -> list[Any]:
    key: list[Any] = [name, seed, agents[0], agents[1], sorted(params.items())]
    if variant is not None:
        key.append(variant)
    if bots is not None:
        key.append(["bots", *bots])
    if behaviour != 1:
        key.append(["behaviour", behaviour])
    return key


def _hash(key: Any) -> str:
    text = json.dumps(key, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_HEX]


def _variant_hash(rules: Rules) -> str | None:
    return None if RULESETS.get(rules.name) == rules else rules_hash(rules)


def _bots(bots: Sequence[str | None] | msgspec.UnsetType | None) -> tuple[str, str] | None:
    if bots is None or bots is msgspec.UNSET or not any(bots):
        return None
    return (bots[0] or "", bots[1] or "")


def _rules_of(created: GameCreated) -> Rules:
    return created.rules if created.rules is not None else by_name(created.ruleset)


def _created_params(created: GameCreated, rules: Rules) -> dict[str, Any]:
    given = {name: getattr(created, PARAM_FIELDS[name]) for name in rules.seed_params}
    if created.predefined_draft_ids is not None:
        given["predefinedDraftIds"] = created.predefined_draft_ids
    return canonical_params(rules, created.seed, {k: v for k, v in given.items() if v is not None})


def _input(e: ActionReceived | HardError) -> list[Any]:
    if isinstance(e, ActionReceived):
        return [e.player, e.kind, e.text]
    return [e.player, "hard_error", e.reason, e.text]


def _older_ids(created: GameCreated) -> Iterator[str]:
    """Ids an older locm gave this content: a seed given with ``--param`` equal to its derived value was part of
    the key (every such subset of the seeds, at most 31)."""
    rules = _rules_of(created)
    if created.seed is None or behaviour_of(created) != 1:  # an older locm had behaviour 1 only
        return
    params = _created_params(created, rules)
    derived = derive_params(rules, created.seed)
    redundant = [n for n in rules.seed_params if n not in params]
    for k in range(1, len(redundant) + 1):
        for names in itertools.combinations(redundant, k):
            yield _id(created.ruleset, created.seed, created.agents, {**params, **{n: derived[n] for n in names}},
                      _variant_hash(rules), _bots(created.bot_sha256))


def _owed_answer(events: Sequence[Event]) -> bool:
    """Whether the game ended (by a hard error) while the referee owed the other player an input."""
    from locm.engine.locm.game import Game

    try:
        return Game.from_log(events).owed_input() is not None
    except LocmError:
        return False


def _old_referee_id(created: GameCreated, events: Sequence[Event], meta: str) -> str | None:
    """The ``ref-`` id of locm before ids named their content: sha256 of [ruleset, the referee file's parameter
    text, every answer as the file has it]; the parameters come from the stored ``meta`` and must give this
    game's seeds, the answers from the recorded inputs (a line and its newline; None for a timeout)."""
    try:
        params = json.loads(meta).get("params")
    except (ValueError, AttributeError):
        return None
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        return None
    rules = _rules_of(created)
    try:
        seed = int(params["seed"]) if "seed" in params else None
        given = {k: (v if k == "predefinedDraftIds" else int(v)) for k, v in params.items()
                 if k in rules.seed_params or k == "predefinedDraftIds"}
        if canonical_params(rules, seed, given) != _created_params(created, rules) or seed != created.seed:
            return None
    except (ValueError, LocmError):  # parameters that are not this game's
        return None
    answers: list[str | None] = []
    for e in events[1:]:
        if e.cause != -1:
            continue
        if isinstance(e, ActionReceived):
            answers.append(e.text + "\n")
        elif isinstance(e, HardError) and e.reason == "timeout":
            answers.append(None)
        elif isinstance(e, HardError):
            return None
    name = "constructed" if rules.deck_building != "draft" else "1.2"
    key = json.dumps([name, sorted(params.items()), answers], separators=(",", ":"), ensure_ascii=False)
    return f"{REFEREE_PREFIX}{name}-{params.get('seed', 'x')}-{hashlib.sha256(key.encode()).hexdigest()[:HASH_HEX]}"


__all__ = ["game_id", "created_id", "referee_id", "check_id", "IdCheck", "id_problem", "created_problem",
           "canonical_params", "HASH_HEX"]
