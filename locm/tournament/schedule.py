"""A tournament's schedule, for any registered game and 2 to N seats: its games (`Job`), computed on demand,
and what a store keeps of it (its manifest and key), read back by `Schedule.from_manifest`.

A schedule is slots played over consecutive seeds: a slot is the agents in seat order and a seed offset, and the
slots come in groups; game ``i`` is, in order, the group, the seed (``seed + step + offset``) and the slot
within the group. Indexing, `len` and `Schedule.place_of` are arithmetic, so a schedule of millions of games is
never held in memory, and every game knows its place (``(key, index)``), kept in the stored game's meta so that
`locm verify` names a missing game by its place.

Two kinds, both this one class's arithmetic, each a subclass that says its slots, its ids and its manifest:

- `SeatsRoundRobin` (``seats_round_robin``, any game, `seats_schedule`): every combination of ``seats`` agents
  is a group, its slots each rotation of its seats, so each seed is played in every seating;
- LOCM's round robin (``round_robin``, `locm.games.locm.tournament.RoundRobin`): one group, every ordered pair
  of agents and, for an agent given twice, itself (self-play), seed by seed, so a partial run is balanced.

The kinds a store may hold beyond this module's are handed in (`Schedule.from_manifest`'s ``kinds``: the edges'
registry's `locm.games.registry.SCHEDULE_KINDS`). With two
seats and two agents, both kinds give each seed's two seatings as consecutive games (the mirrored pairs a
sequential test reads, `locm.tournament.sequential`).
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
import os
import shutil
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import msgspec

from locm.engine import registry
from locm.errors import TournamentError

MAX_GAMES = 10_000_000
"""The most games one tournament run may schedule (a store of that many games is hundreds of gigabytes);
more is refused up front. Play a bigger experiment as several runs with different ``--seed``."""


class Job(NamedTuple):
    """One scheduled game of any game: its id (what its content will give, known before it is played), the
    game's registered name, its rules (a built-in ruleset's name or a rules value), its seed, its agents by
    seat, each seat's bot version when the schedule was made ("" for a built-in agent), its place in a
    recorded schedule (``(key, index)``, kept in the stored game's meta), and what a series' rule gives the
    match beside its seed and seats (``opening``: my-card-game's starting seat, R-SERIES; None for a game
    that opens as it always does, `locm.tournament.series`)."""

    game_id: str
    game: str
    ruleset: Any
    seed: int
    agents: tuple[str, ...]
    bots: tuple[str, ...] = ()
    place: tuple[str, int] | None = None
    opening: Any = None

    @property
    def agent0(self) -> str:
        return self.agents[0]

    @property
    def agent1(self) -> str:
        return self.agents[1]

    @property
    def has_bot(self) -> bool:
        """Whether a seat is a command-line bot (not one of the game's built-in agents): the sandbox is then
        required before the game starts."""
        names = _BUILTINS.get(self.game)
        if names is None:
            names = _BUILTINS[self.game] = frozenset(registry.get(self.game).agent_names)
        return not names.issuperset(self.agents)


_BUILTINS: dict[str, frozenset[str]] = {}
"""Each game's built-in agents' names, looked up once per process (`Job.has_bot` is asked of every job); a
schedule puts its game's there when it is made (`Schedule._builtins`)."""


Slot = tuple[tuple[str, ...], int]
"""The agents in seat order and the seed offset of one slot of a schedule."""


class Schedule(Sequence):
    """Every game of a tournament as `Job` values computed on demand (see the module docstring). A subclass
    gives ``kind``, its slots (`_groups`), the id of a game (`_game_id`) and its manifest (`_manifest`,
    `_from_manifest`)."""

    kind: ClassVar[str]

    def __init__(self, game: str, ruleset: Any, agents: Sequence[str], seed: int, seeds: int,
                 versions: dict[str, str]) -> None:
        self.game, self.ruleset, self.agents, self.seed, self.seeds = game, ruleset, tuple(agents), seed, seeds
        self.versions = versions
        _BUILTINS.setdefault(game, self._builtins())
        groups = self._groups()
        self._slots: list[Slot] = [slot for group in groups for slot in group]
        self._bots = [tuple([versions[a] for a in seated]) for seated, _ in self._slots]  # each slot's bots
        self._per = len(groups[0]) if groups else 0
        self._where: dict[tuple[str, ...], list[tuple[int, int]]] = {}  # agents -> (offset, slot index)
        for k, (seated, offset) in enumerate(self._slots):
            self._where.setdefault(seated, []).append((offset, k))
        self.manifest = self._manifest()
        """What a store keeps of this schedule (`EventStore.record_schedule`): everything that decides its games
        (the game, its rules' values, the agents and their bots' versions, the seeds), as canonical JSON. A few
        hundred bytes however many games; `from_manifest` rebuilds the schedule from it."""
        self.key = hashlib.sha256(self.manifest.encode()).hexdigest()[:16]
        """The first 16 hex digits of the SHA-256 of the manifest: the schedule's key in a store."""

    # --- what a kind says ---

    def _groups(self) -> list[list[Slot]]:
        raise NotImplementedError

    def _builtins(self) -> frozenset[str]:
        """The game's built-in agents' names (what is not a command-line bot)."""
        return frozenset(registry.get(self.game).agent_names)

    def _game_id(self, seed: int, agents: tuple[str, ...], bots: tuple[str, ...]) -> str:
        raise NotImplementedError

    def _manifest(self) -> str:
        """The manifest's canonical JSON (`manifest`)."""
        raise NotImplementedError

    @classmethod
    def _from_manifest(cls, manifest: str) -> "Schedule":
        raise NotImplementedError

    def describe(self) -> str:
        """One line naming the schedule (for `locm verify`)."""
        raise NotImplementedError

    # --- the schedule ---

    @classmethod
    def from_manifest(cls, manifest: str, kinds: Mapping[str, tuple[str, str]] | None = None) -> "Schedule":
        """The schedule a kept manifest describes, by its ``kind`` (this module's, or one of ``kinds``: kind ->
        (module, class), the schedule kinds of the games' wings, `locm.games.registry.SCHEDULE_KINDS`), its bots'
        versions as recorded (the files are not read); `TournamentError` for a manifest no kind of this locm
        reads."""
        try:
            doc = json.loads(manifest)
        except ValueError as exc:
            raise TournamentError(f"a schedule manifest that is not JSON: {exc}") from None
        kind = doc.get("kind") if isinstance(doc, dict) else None
        own = getattr(cls, "kind", None)  # a kind's own class reads its manifests without being told
        found = cls if isinstance(kind, str) and own == kind else (
            schedule_kind(kind, kinds or {}) if isinstance(kind, str) else None)
        if found is None:
            raise TournamentError(f"not a schedule manifest this locm reads: kind {kind!r}")
        return found._from_manifest(manifest)

    def __len__(self) -> int:
        return self.seeds * len(self._slots)

    def __eq__(self, other: object) -> bool:
        """Two schedules are the same when their manifests are: the manifest decides every game."""
        return isinstance(other, Schedule) and type(other) is type(self) and other.manifest == self.manifest

    def __hash__(self) -> int:
        return hash(self.key)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        group, rest = divmod(index, self.seeds * self._per)
        step, within = divmod(rest, self._per)
        return self._job(index, step, group * self._per + within)

    def __iter__(self):
        index = 0
        for group in range(0, len(self._slots), self._per):
            for step in range(self.seeds):
                for k in range(group, group + self._per):
                    yield self._job(index, step, k)
                    index += 1

    def _job(self, index: int, step: int, k: int) -> Job:
        seated, offset = self._slots[k]
        seed = self.seed + step + offset
        bots = self._bots[k]
        return Job(self._game_id(seed, seated, bots), self.game, self.ruleset, seed, seated, bots, (self.key, index))

    def place_of(self, record: Any) -> int | None:
        """The index of a stored game's place in this schedule, by its record's seed and agents (a record of
        any game: ``agents``, or LOCM's ``agent0``/``agent1``); None: not one of its games."""
        seed = getattr(record, "seed", None)
        if seed is None:
            return None
        agents = getattr(record, "agents", None)
        seated = tuple(agents) if agents is not None else (record.agent0, record.agent1)
        for offset, k in self._where.get(seated, ()):
            step = seed - self.seed - offset
            if 0 <= step < self.seeds:
                group, within = divmod(k, self._per)
                return (group * self.seeds + step) * self._per + within
        return None

    def holds(self, record: Any) -> bool:
        """Whether a stored game is one of this schedule's (arithmetic: nothing is enumerated)."""
        place = self.place_of(record)
        return place is not None and record.game_id == self[place].game_id


def new_match(game, rules, seed: int, agents: Sequence[str], bots: Sequence[str] = ()):
    """A live match; a game that records its bots' versions (`GameDef.new_versioned`) records them, so
    its id names them."""
    if game.new_versioned is not None and any(bots):
        return game.new_versioned(rules, seed, tuple(agents), tuple(bots))
    return game.new(rules, seed, tuple(agents))


MATCH_KIND = "seats_round_robin"
"""The ``kind`` of a `SeatsRoundRobin` manifest."""


class SeatsManifest(msgspec.Struct, forbid_unknown_fields=True):
    """A `SeatsRoundRobin` manifest as it is read (a game's own schedule kinds extend it)."""

    format: str
    version: int
    kind: str
    game: str
    rules: msgspec.Raw
    agents: list[str]
    bots: list[str]
    seed: int
    games: int
    seats: int
    scheduled: int


_seats_dec = msgspec.json.Decoder(SeatsManifest)


def _rules_type(game) -> Any:
    """The type a game's rules values have (that of its first built-in ruleset): what a manifest decodes."""
    return type(game.rules(game.rulesets[0]))


class SeatsRoundRobin(Schedule):
    """Every combination of ``seats`` agents from the list, each seed in every rotation of its seats (with two
    seats: each seed once in each seating); ids by the game's content (`GameDef.game_id`), each computed once."""

    kind = MATCH_KIND

    def __init__(self, game: str, ruleset: Any, agents: Sequence[str], seed: int, games: int, seats: int,
                 versions: dict[str, str]) -> None:
        self.seats, self.games = seats, games
        self._def = registry.get(game)
        self._ids: dict[tuple[int, tuple[str, ...]], str] = {}
        super().__init__(game, ruleset, agents, seed, games // seats, versions)

    def _groups(self) -> list[list[Slot]]:
        return [[(combo[r:] + combo[:r], 0) for r in range(self.seats)]
                for combo in itertools.combinations(self.agents, self.seats)]

    def _game_id(self, seed: int, agents: tuple[str, ...], bots: tuple[str, ...]) -> str:
        key = (seed, agents)
        gid = self._ids.get(key)
        if gid is None:  # a game's id is its created event's: the match's opening, made once per game
            rules = self._def.rules(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
            gid = self._ids[key] = self._def.game_id(new_match(self._def, rules, seed, agents, bots).log[0])
        return gid

    def _manifest(self) -> str:
        rules = self._def.rules(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
        return msgspec.json.encode({
            "format": "locm-schedule", "version": 1, "kind": MATCH_KIND, "game": self.game,
            "rules": msgspec.Raw(msgspec.json.encode(rules)), "agents": list(self.agents),
            "bots": [self.versions[a] for a in self.agents], "seed": self.seed, "games": self.games,
            "seats": self.seats, "scheduled": len(list(itertools.combinations(self.agents, self.seats))) * self.games,
        }).decode()

    @classmethod
    def _from_manifest(cls, manifest: str) -> "SeatsRoundRobin":
        m = _seats_dec.decode(manifest)
        if m.format != "locm-schedule" or m.version != 1 or m.kind != MATCH_KIND:
            raise TournamentError(f"not a schedule manifest this locm reads: {m.format} {m.version} {m.kind}")
        try:
            game = registry.get(m.game)
        except registry.UnknownGameError:
            raise TournamentError(f"a schedule of {m.game!r}, a game this locm does not know") from None
        if len(m.bots) != len(m.agents):
            raise TournamentError("a schedule manifest whose bots do not agree with its agents")
        rules = msgspec.json.decode(m.rules, type=_rules_type(game))
        return cls(game.name, rules, m.agents, m.seed, m.games, m.seats, dict(zip(m.agents, m.bots)))

    def describe(self) -> str:
        rules = self._def.rules(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
        return (f"{self._def.title} {self._def.rules_name(rules)}, {len(self.agents)} agents, {self.seats} seats, "
                f"seeds {self.seed}..{self.seed + self.seeds - 1}, {len(self)} games")


def schedule_kind(kind: str, kinds: Mapping[str, tuple[str, str]]) -> type[Schedule] | None:
    """The schedule class of a manifest's ``kind``: this module's, or one of ``kinds`` (kind -> (module, class),
    what the games' wings add: `locm.games.registry.SCHEDULE_KINDS`); None for a kind this locm does not know."""
    if kind == MATCH_KIND:
        return SeatsRoundRobin
    where = kinds.get(kind)
    if where is None:
        return None
    module, name = where
    return getattr(importlib.import_module(module), name)


def bot_fingerprint(spec: str, builtins: Collection[str] = ()) -> str | None:
    """The SHA-256 (hex) of a command-line agent's files: its program and every argument that is a file,
    each as its path and content, so that an edited script or a rebuilt binary is a different bot. None for
    a built-in agent (one of the game's `builtins`)."""
    from locm.runner.bots import command_argv, is_builtin

    if is_builtin(spec, builtins):
        return None
    argv = command_argv(spec, builtins)
    h = hashlib.sha256()
    for i, arg in enumerate(argv):
        path = (shutil.which(arg) or arg) if i == 0 else arg
        if os.path.isfile(path):
            h.update(f"{i}\0{arg}\0".encode())
            with open(path, "rb") as f:
                h.update(hashlib.file_digest(f, "sha256").digest())
    return h.hexdigest()


def bot_versions(game, agents: Sequence[str]) -> tuple[str, ...]:
    """Each seat's command-line bot's version, the SHA-256 of its files (`bot_fingerprint`); "" for a
    built-in agent."""
    return tuple("" if a in game.agent_names else (bot_fingerprint(a) or "") for a in agents)


def seats_schedule(game_name: str, ruleset, agents: Sequence[str], games: int, seed: int = 1,
                   seats: int | None = None) -> SeatsRoundRobin:
    """The games of a round robin of `agents` in `seats`-player games of any game (`SeatsRoundRobin`): the
    seeds ``seed .. seed + games/seats - 1`` for every combination, each in every rotation of its seats, so no
    agent keeps a seat's advantage; ``games`` must be a multiple of ``seats``. Agents that are not the game's
    built-ins are command lines, refused here when the game takes none (`GameDef.bots`) or the line cannot
    run."""
    from locm.runner.bots import command_argv

    game = registry.get(game_name)
    n = seats or game.seats[0]
    lo, hi = game.seats
    if not lo <= n <= hi:
        raise TournamentError(f"{game.title} is played by {lo} to {hi} players, not {n}")
    if len(agents) < n:
        raise TournamentError(f"a tournament of {n}-player games needs {n} agents at least, got {len(agents)}")
    if games % n:
        raise TournamentError(f"--games {games}: expected a multiple of {n} (each seed played in every seat)")
    combos = math.comb(len(agents), n)
    if games * combos > MAX_GAMES:
        raise TournamentError(f"--games {games} with {combos} combinations of agents is {games * combos} games, "
                              f"more than one run plays (at most {MAX_GAMES}); split it into runs with different "
                              f"--seed")
    for name in agents:
        if name not in game.agent_names:
            if game.bots == "none":
                raise TournamentError(f"{game.title} has no agent {name!r}: expected one of "
                                      f"{', '.join(game.agent_names)}")
            if game.bots == "served":
                from locm.tournament.players import players

                players(game.name).check_client(name)  # its placeholders too
            command_argv(name, game.agent_names)  # a command line that cannot run: one line, before anything is played
    rules = game.rules(ruleset) if isinstance(ruleset, str) else ruleset  # a name, or rules (a variant's)
    version = dict(zip(agents, bot_versions(game, agents)))  # each bot's files hashed once, at the start
    return SeatsRoundRobin(game.name, rules, agents, seed, games, n, version)


__all__ = ["Job", "Schedule", "SeatsRoundRobin", "SeatsManifest", "MATCH_KIND", "MAX_GAMES", "seats_schedule", "schedule_kind",
           "new_match", "bot_fingerprint", "bot_versions"]
