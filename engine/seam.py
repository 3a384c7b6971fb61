"""The seam between the core and the games: what a game is, as the core sees it (`GameDef`).

The core (the store, verify, History, the runner, bots and their sandbox, tournaments, the replay tools, the
reports' shell, the command line) knows no game: it is handed a `GameDef` and asks it everything a game
decides. A game is one registered definition, the shape OpenSpiel and boardgame.io use:

=========================  =================================================================================
events                     ``codec`` (its union's `events.codec.Codec`), ``created``/``ended`` (the types that
                           open and close every log of the game), ``upcast`` (older schemas)
rules                      ``rules(name)`` a built-in ruleset, ``variant(text, source)`` a variant file's,
                           ``rules_diff``, ``rules_name``, ``rulesets``, ``rules_file``
create                     ``new(rules, seed, agents)`` a live `Match`, ``from_log(events)`` one rebuilt from
                           its log
decide, evolve             the `Match`'s ``submit``/``answer``/``forfeit`` (every input goes through the game's
                           ``decide`` and its events through ``evolve``); ``fold(events)``, ``apply(state,
                           events)`` and ``copy(state)`` for reading a log
legal actions, whose move  ``legal_actions(state)`` for every phase, ``to_move(state)`` (-1 once over),
                           ``phase(state)``
outcome                    ``outcome(events)``: winner, scores and places, 2 to N players (`Outcome`)
agents, bots               ``agent_names``, ``make_agent(name, seed, seat)``; ``message(state, seat)`` the text
                           a bot is sent, the `Match`'s ``answer`` its parser; ``bots`` how a command-line
                           player takes part (`BotKind`)
views                      ``view(state, seat)`` what a seat may see (None: everything), ``board_text(view)``
describing                 ``describe(state, event)``, ``turn_starts(events)``
auditing                   ``rejections(events)`` the refused inputs, ``instance_events(events, id)`` one
                           card's life (both optional); ``html_board`` the module drawing its board
environments               ``rl_encoder`` the module of its observation encoder (optional)
replay                     ``replay_wing`` its wing of the replay tools (`replay.wing.Wing`: what `show`,
                           `audit`, `replay` and `html` ask a game beyond this definition; optional)
re-deciding                ``redecide(events)``: the first event the rules would not produce (`Divergence`)
behaviours                 ``behaviour``: the behaviour of its rules new games are decided under; every
                           earlier one stays selectable (`behaviour_of`, `check_behaviour`, `behaviour_line`)
ids and the store          ``game_id(created)`` (what a game's content names it), ``index(created)`` (the
                           fields the store keeps beside the log), ``agents(created)``
environments               ``rl_adapter`` the module and class of its `locm.rl` adapter, ``rl_envs`` its
                           Gymnasium ids (both optional; named, not imported)
continuing                 ``resume(created, inputs)``, ``continue_as(created, agents, bots)``,
                           ``continued_id(events)``:
                           a position's match rebuilt from its inputs, and a game played on by other agents
                           (`engine.position`; all optional)
re-running agents          ``runner_command(event)`` an input the runner gave, ``feed(match, event)`` a bot's
                           recorded input played as received (`locm.provenance.agents`; both optional);
                           ``play_out(rules, seed, agents)`` a whole game of built-in agents at once (a
                           faster core's), ``seated(created)`` a created event without its players' choices
                           (all optional)
=========================  =================================================================================

The core's own functions over any game are in `engine.core` (play a match with built-in agents, verify a log)
and `engine.history` (any state of a log), `engine.logcheck` (a log's order and causes).

A game is registered in `engine.registry.GAMES` (a module-level dict, listed by hand), or by another installed
package through an entry point of group ``locm.games`` (`engine.registry`). Adding a game adds its package and
one line there: no core module changes (tests/test_seam.py defines tic-tac-toe in a test and runs it through
play, verify and show; tests/test_outside_game.py installs tests/outside_game/, Nim in a package of its own,
and drives it through the command line).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, NamedTuple, Protocol, Sequence, TypeVar

import msgspec

from locm.engine.errors import InvalidLogError, UnknownBehaviourError
from locm.events.base import Event
from locm.events.codec import Codec


class Outcome(NamedTuple):
    """How a game ended, for any number of players.

    ``winner``: the seat that won, -1 for none (a draw, a tie on points). ``scores``: each seat's score in a game
    of points (Skyport), None in a game won or lost (LOCM, my-card-game). ``turns``: the game's length as the
    game counts it (what the store keeps). `places` ranks the seats."""

    winner: int
    reason: str
    turns: int
    scores: tuple[float, ...] | None = None

    def places(self, seats: int) -> tuple[int, ...]:
        """Each seat's place, 0 for the first; seats that tie share a place (the next place skips them, as
        in a race: 0, 0, 2). Scores rank a game of points; else the winner is first and the rest tie after
        it (no winner: all tie first)."""
        if self.scores is not None:
            return tuple(sum(1 for t in self.scores if t > s) for s in self.scores)
        if self.winner < 0:
            return (0,) * seats
        return tuple(0 if s == self.winner else 1 for s in range(seats))


@dataclass(frozen=True)
class Divergence:
    """Where a log stops following the rules: the first event that differs (``seq``), what the log says there
    and what the rules give (JSON text, or "" where one side has no event), and a one-line message."""

    seq: int
    message: str
    stored: str = ""
    decided: str = ""

    def __str__(self) -> str:
        text = f"seq {self.seq}: {self.message}"
        if self.stored or self.decided:
            text += f"; the log has {self.stored or 'no event'}, the rules give {self.decided or 'no event'}"
        return text


class Match(Protocol):
    """A live game: its state and its log, and the three ways an input reaches the rules. Each appends the
    events it causes to ``log`` and returns them; every one goes through the game's ``decide`` and ``evolve``.

    - ``submit(command)``: one structured command (a built-in agent, a test);
    - ``answer(seat, line)``: a bot's answer line, recorded as received, parsed by the game's protocol (a
      line the protocol refuses is recorded and loses, as the game's rules say);
    - ``forfeit(seat, reason, text)``: the seat failed outside any answer (a timeout, a crash, a flood).

    A match that command-line bots play (`locm.runner.bots.BotAgent`) also has ``rules`` (its rules value,
    given to the bot as JSON in its environment), ``state.phase`` (the name its time limits go by) and
    ``input_for(seat)`` (the text the bot is sent: the game's ``message``).
    """

    log: list[Any]
    state: Any

    @property
    def ended(self) -> bool: ...

    @property
    def to_move(self) -> int: ...

    def submit(self, command: Any) -> list[Any]: ...

    def answer(self, seat: int, line: str) -> list[Any]: ...

    def forfeit(self, seat: int, reason: str, text: str = "") -> list[Any]: ...


class Agent(Protocol):
    """A player: ``play_turn(match, seat)`` makes the seat's next decision on the match (one command, or a
    whole turn when the game's turn is one answer), through the match's ``submit`` or ``answer``."""

    name: str

    def play_turn(self, match: Any, seat: int) -> None: ...


BotKind = Literal["none", "lines", "served"]
"""How a game's command-line players take part: ``none`` (built-in agents only), ``lines`` (a bot run by the
runner, reading the game's text on stdin and answering on stdout: LOCM's referee protocol, my-card-game's line
each way), ``served`` (a client that connects to the game's server: Skyport's TCP protocol)."""


@dataclass(frozen=True, kw_only=True)
class GameDef:
    """One game, as the core sees it (see the module docstring for each part). Every callable is pure: it
    reads its arguments, returns a value, and changes nothing it was given except ``apply``'s state."""

    name: str
    title: str
    aliases: tuple[str, ...] = ()
    seats: tuple[int, int] = (2, 2)
    """The fewest and the most players."""

    # events
    codec: Codec[Any]
    created: type[Event]
    ended: type[Event]
    rules_file: str
    """Its rules file, under the package's ``data/`` (sections ``## R-ID  title``)."""

    # rules
    rulesets: tuple[str, ...]
    rules: Callable[[str], Any]
    """A built-in ruleset's name (or alias) to its rules value."""
    rules_name: Callable[[Any], str]
    variant: Callable[[str, str], Any]
    """``variant(text, source)``: the rules of a variant file's text (TOML), checked on load: a bad value is
    one `LocmError` line naming the source and the field."""
    rules_diff: Callable[[Any, Any], list[tuple[str, str, Any, Any]]]
    """(field, rule id, left value, right value) of every setting that differs between two rules."""

    # create, play
    new: Callable[[Any, int, Sequence[str]], Match]
    """``new(rules, seed, agents)``: a live match with its opening events; ``agents`` names each seat's player
    (its length is the number of players). A game with more than one `behaviour` also takes ``behaviour=N``,
    a new match decided under an earlier one (`engine.core.play`)."""
    from_log: Callable[[Sequence[Event]], Match]
    new_versioned: Callable[[Any, int, Sequence[str], Sequence[str]], Match] | None = None
    """``new_versioned(rules, seed, agents, bots)``: `new` with each seat's command-line bot's version (the
    SHA-256 of its files, "" for a built-in agent) recorded in the created event, so a game's id names the
    bots' versions (None: the game records none)."""
    agent_names: tuple[str, ...]
    make_agent: Callable[[str, int, int], Agent]
    """``make_agent(name, game_seed, seat)``: a built-in agent, seeded from the game's seed and its seat."""
    message: Callable[[Any, int], str]
    """The text a bot is sent when it is to move."""
    bots: BotKind = "none"
    """How its command-line players take part (`BotKind`): what a tournament of the game accepts besides its
    built-in agents."""
    phase: Callable[[Any], str]

    # reading
    fold: Callable[[Sequence[Event]], Any]
    apply: Callable[[Any, Sequence[Event]], Any]
    """``apply(state, events)``: the state after `events` (the one given, changed in place, or a new one)."""
    copy: Callable[[Any], Any]
    upcast: Callable[[list[Event]], list[Event]]
    """A log of an older schema of the game's events as the current one reads it (most games: itself)."""
    legal_actions: Callable[[Any], Sequence[Any]]
    """The commands the player to move may give now, whatever the phase (empty once the game is over)."""
    to_move: Callable[[Any], int]
    """The seat to move (the first of them where several may act at once), -1 once the game is over."""
    outcome: Callable[[Sequence[Event]], Outcome]
    """The outcome of an ended log, read from its end event."""
    view: Callable[[Any, int | None], dict[str, Any]]
    """What a seat may see of a state, as JSON-ready values (None: everything)."""
    board_text: Callable[[dict[str, Any]], str]
    describe: Callable[[Any, Event], str]
    """``describe(state, event)``: one line for an event; ``state`` is the game's final state (every card or
    unit the game ever had is named there)."""
    turn_starts: Callable[[Sequence[Event]], list[tuple[int, int, int]]]
    """(seq, turn, seat) of each turn's start, for stepping through a game."""
    redecide: Callable[[Sequence[Event]], Divergence | None]
    """The first event where the log is not what the rules give for its recorded inputs (None: it is)."""

    # ids and the store
    agents: Callable[[Event], tuple[str, ...]]
    """The players a created event names, by seat."""
    game_id: Callable[[Event], str]
    """The id a game's content gives it (the same game asked for twice has the same id)."""
    index: Callable[[Event], dict[str, Any]]
    """The fields the store keeps beside a game's log (JSON values), from its created event."""

    # auditing (optional: a game without them is audited by --seq only)
    rejections: Callable[[Sequence[Event]], list[int]] | None = None
    """The seqs of the events that record an input the rules refused (a skipped action, a hard error)."""
    instance_events: Callable[[Sequence[Event], int], list[int]] | None = None
    """``instance_events(events, id)``: the seqs of the events about one card (or unit) instance, its life."""
    holdings: Callable[[Event], Sequence[dict[str, int]]] | None = None
    """Each seat's cards at the start (name -> copies), from a created event: what `whatif` pairs card by card
    (None: a game without decks)."""
    seat_stats: Callable[[Sequence[Event]], Sequence[dict[str, float]]] | None = None
    """Each seat's figures in a game's log (name -> value, the same names for every seat): what `whatif`
    pairs by seed beside the outcome (None: the outcome only)."""
    listed: tuple[str, ...] = ()
    """The index fields `locm games` shows as columns of this game's table (e.g. Skyport's map); any index
    field may be filtered on (``--field NAME=VALUE``)."""
    html_board: str = ""
    """The module that draws the game's board in `locm html` (``compact``, ``BOARD_CSS``, ``BOARD_JS``: see
    `replay.mcg.board`); "" for the text board (or its wing's picture). Named, not imported: the rules never load a page's code."""
    edges: str = ""
    """The module holding the game's parts at the edges (its store projections, its checks: `locm.store.hooks`),
    e.g. ``locm.games.locm.edges``; "" for a game without any. Named, not imported: the rules never load the
    edges, and the store and verify find a game's parts through its definition, never by its name."""
    player: str = ""
    """The module that plays this game's games when the core's runner (`locm.tournament.matchplay`) is not enough
    (LOCM's referee-protocol bots and its card facts, Skyport's clients through its server): a tournament's
    ``play(job, limits, sandbox, seats)``, optionally ``ahead``, ``init``, ``close`` and ``check_client``, and
    what `locm play` and `locm tournament` take from it where only this game has it (``play_one``, ``rules``,
    ``parse_params``, ``summary_lines``, ``earlier_versions``, ``schedule``, ``changed_bots``,
    ``standings_lines``: `locm.tournament.workflow`), found by `locm.tournament.players`; "" for the core's.
    Named, not imported: the rules never load the tournaments' code."""
    rl_encoder: str = ""
    """``module:attr`` of the function ``encoder(rules)`` that gives the game's observation encoder for the
    environments (`locm.rl.seam_game.Encoder`: its phases, action slots and observations); "" for a game with
    no environment of that kind. Named, not imported: the rules never load the environments' code. The
    built-in games' adapters are `locm.rl`'s own; a game from another package names its encoder here and gets
    ``gym.make("locm.rl:Game-v0", game=NAME)``."""
    replay_wing: str = ""
    """Its wing of the replay tools as ``module:NAME`` (a `replay.wing.Wing`: its own file kinds, turns, audit,
    page...); "" for the plain `Wing`, which reads everything from this definition. Named, not imported: the
    rules never load the replay's code."""
    rl_adapter: str = ""
    """Its reinforcement-learning adapter (`locm.rl.adapter`) as ``module:Class``, the class called with a
    ruleset (None: the game's first); "" for a game without environments. Named, not imported: the rules
    never load the environments' code (`locm.rl.game_spec` imports it)."""
    rl_envs: tuple[tuple[str, tuple[str, ...] | None, str], ...] = ()
    """Its Gymnasium environment ids (`locm.rl.ENV_IDS`): (id, the phases the learner plays (None: every
    phase), the ruleset when none is given)."""

    behaviour: int = 1
    """The behaviour of its rules this engine decides new games under: a number that changes only when what a
    rule does changes (a rule's bug fixed, not the code's build), counted from 1. Every new game's created
    event records it (its field ``behaviour``; a log without it is of behaviour 1); the engine keeps every
    earlier one, 1 to this, so a stored game re-decides as it was decided: the game's rules read the number
    its state took from its created event where a rule's behaviour changed. A log naming a later one is refused
    (`check_behaviour`). docs/guides/behaviours.md says when to raise it."""

    log_id: Callable[[Sequence[Event]], str | None] | None = None
    """``log_id(events)``: the id of a game whose created event does not decide it, named by its whole log (a
    game served to clients that connected by themselves: the same map, seed and turns may end any way), or
    None for a game its ``game_id(created)`` names. `game_id_of` is the id of any log."""

    # continuing from a position (`engine.position`; optional)
    resume: Callable[[Event, Sequence[Event]], Match] | None = None
    """``resume(created, inputs)``: the match that a created event and the log's recorded inputs after it (its
    events with cause -1) rebuild, the rules deciding every other event again; a position of the game then
    carries its inputs only (None: it carries its whole log up to the position, rebuilt by `from_log`)."""
    continue_as: Callable[[Event, Sequence[str], Sequence[str]], Event] | None = None
    """``continue_as(created, agents, bots)``: the created event of a game played on from a position by
    ``agents`` (one per seat), which are not all the ones it names: them named in it, with ``bots``, each
    seat's command-line bot's version ("" for a built-in agent or a person), in place of the earlier
    players' (None: the game is played on by its own agents only)."""
    continued_id: Callable[[Sequence[Event]], str] | None = None
    """``continued_id(events)``: the id of such a game (with `continue_as`'s created event): its agents' names
    do not fix the choices made before the position, so it is named by its created event and its inputs."""

    # the inputs a runner gives (optional)
    runner_command: Callable[[Event], Any] | None = None
    """``runner_command(event)``: the command a recorded input is when the runner gave it, not a seat's player
    (Skyport's wall-clock stop), to be submitted as it stands when a game's built-in agents are re-run
    (`locm.provenance.agents`); None for any other event (None: the game has no such input)."""
    feed: Callable[[Any, Event], None] | None = None
    """``feed(match, event)``: one recorded input (an event with ``cause`` -1) played into a live match as it was
    received, a `LocmError` where the event is not one, or not the input of the seat to move: how a re-run of a
    game's built-in agents takes a command-line bot's inputs as given (`locm.provenance.agents`; None: the
    bots' seats of the game are not re-run, and neither are the built-in seats beside them)."""
    play_out: Callable[[Any, int, Sequence[str]], bytes | None] | None = None
    """``play_out(rules, seed, agents)``: the whole log of the game `new` and `make_agent` make of these (its
    current behaviour, every seat a built-in agent), played to its end at once, as its codec's JSON lines
    (``codec.to_jsonl``), where the game has a faster way than decision by decision (LOCM's native core,
    when it is the selected one and has these agents); None where it has not. A stored game it gives byte
    for byte is proven its agents' and its rules' in one run: `locm.provenance.agents.played_out`, which
    `locm verify` and an import ask before re-deciding and re-running it decision by decision (None: they
    always do that)."""
    seated: Callable[[Event], Event] | None = None
    """``seated(created)``: a created event with what its seats' players chose in it set aside, as `new` makes
    it (Skyport: the names the server gave its seats, a client's the username of its handshake, R-SETUP); what
    the re-run of a game with bots compares, its seed-drawn rest the rules' (None: a created event holds nothing
    its players chose)."""

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


def game_id_of(game: GameDef, events: Sequence[Event]) -> str:
    """The id a game's log is stored under: `GameDef.log_id` where the game gives one for it, else its created
    event's (`GameDef.game_id`)."""
    found = game.log_id(events) if game.log_id is not None else None
    return found if found is not None else game.game_id(events[0])


def behaviour_of(created: Event) -> int:
    """The behaviour of the rules that decided a game, from its created event (1 for a log without the field:
    stored before it was recorded, or of a game that has never had a second behaviour)."""
    n = getattr(created, "behaviour", 1)
    return 1 if n is msgspec.UNSET else int(n)


def check_behaviour(created: Event, known: int) -> int:
    """`behaviour_of` a created event, where this engine knows it (1 to ``known``, the game's
    `GameDef.behaviour`); else `UnknownBehaviourError` ("decided under behaviour 7; this engine knows 1..2")."""
    n = behaviour_of(created)
    if not 1 <= n <= known:
        raise UnknownBehaviourError(n, known)
    return n


def behaviour_line(game: GameDef, created: Event) -> str:
    """What `verify`, `show` and the viewer say of a game's behaviour: "decided under behaviour N (this
    engine: M)"."""
    return f"decided under behaviour {behaviour_of(created)} (this engine: {game.behaviour})"


S = TypeVar("S")


def fold_log(initial_state: Callable[[Event], S], evolve: Callable[[S, Event], object], events: Iterable[Event]) -> S:
    """A game's `fold`: the state its log leads to, from `initial_state(first event)` through `evolve` of each
    later one. An empty log raises `InvalidLogError`."""
    it = iter(events)
    first = next(it, None)
    if first is None:
        raise InvalidLogError("an empty log has no game")
    state = initial_state(first)
    for e in it:
        evolve(state, e)
    return state


class RuleDifference(NamedTuple):
    """One setting that differs between two rules: its field, rule id and meaning, and both values."""

    field: str
    rule: str
    doc: str
    left: object
    right: object


def diff_rules(a: Any, b: Any, fields: Mapping[str, Sequence[Any]],
               skip: Sequence[str] = ("name", "base")) -> list[RuleDifference]:
    """Every field of the rules structs `a` and `b` whose values differ, in declaration order, with the rule id
    and meaning `fields` gives it (``fields[name][0]``, ``[1]``); the fields in `skip` (names, not values) and
    those `fields` does not describe are left out."""
    out = []
    for name in type(a).__struct_fields__:
        if name in skip or name not in fields:
            continue
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            out.append(RuleDifference(name, fields[name][0], fields[name][1], va, vb))
    return out


def diff_tuples(differences: Sequence[RuleDifference]) -> list[tuple[str, str, Any, Any]]:
    """`GameDef.rules_diff`'s rows: (field, rule id, left, right)."""
    return [(d.field, d.rule, d.left, d.right) for d in differences]


def content_id(game: str, ruleset: str, seed: int | None, created_json: bytes) -> str:
    """An id that names a game by its whole created event (rules, seeds, agents, bots' versions, decks...):
    ``GAME-RULESET-SEED-h`` with h the first 12 hex digits of the SHA-256 of its canonical JSON with ``seq``,
    ``cause`` and ``rule`` left out, and ``behaviour`` when it is 1 (so the ids of games stored before it was
    recorded stay what they were; a game of another behaviour is another game). The same game asked for twice
    has the same id, before it is played."""
    doc = json.loads(created_json)
    for k in ("seq", "cause", "rule"):
        doc.pop(k, None)
    if doc.get("behaviour") == 1:
        del doc["behaviour"]
    key = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    return f"{game}-{ruleset}-{'x' if seed is None else seed}-{hashlib.sha256(key).hexdigest()[:12]}"


def continued_content_id(game: str, ruleset: str, seed: int | None, events: Sequence[Event],
                         to_json: Callable[[Any], bytes]) -> str:
    """The id of a game played on from a position by other agents than the ones that played up to it (a
    `GameDef.continued_id` of a game named by its content): its created event names the agents that played on,
    so it does not fix the choices made before the position, and the id covers the recorded inputs (events with
    ``cause`` -1) too: ``cont-GAME-RULESET-SEED-h``."""
    digest = hashlib.sha256(content_id(game, ruleset, seed, to_json(events[0])).encode())
    for e in events[1:]:
        if getattr(e, "cause", None) == -1:
            digest.update(b"\n" + to_json(e))
    return f"cont-{game}-{ruleset}-{'x' if seed is None else seed}-{digest.hexdigest()[:12]}"


def first_difference(produced: Sequence[Event], stored: Sequence[Event],
                     to_json: Callable[[Any], bytes]) -> Divergence | None:
    """The first event where two logs differ, compared on their canonical JSON (None: identical)."""
    for i, (a, b) in enumerate(zip(produced, stored)):
        ja, jb = to_json(a), to_json(b)
        if ja != jb:
            return Divergence(i, "the rules give another event", jb.decode(), ja.decode())
    if len(produced) == len(stored):
        return None
    i = min(len(produced), len(stored))
    if len(produced) < len(stored):
        return Divergence(i, "the rules end the game here", to_json(stored[i]).decode(), "")
    return Divergence(i, "the log stops before the game ends", "", to_json(produced[i]).decode())


__all__ = ["GameDef", "BotKind", "Match", "Agent", "Outcome", "Divergence", "content_id", "continued_content_id", "first_difference",
           "game_id_of", "behaviour_of", "check_behaviour", "behaviour_line"]
