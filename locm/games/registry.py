"""What each game's wing adds at the edges: its own commands and the hooks generic commands call for it.

The one module of `locm/` outside a game's folder that names the games (as module paths, loaded on first use
with `importlib`, so a command about one game imports no other game's code). A generic command asks for a
hook by its name and the game's (`hook("report", "mcg")`) and runs the same code for every game; a game
without that hook gets the hook's generic version, or the command says the game has none.

Another installed package adds its game's commands through an entry point of the group ``locm.commands``
(its value: a function that takes the `click.Group` and adds commands to it) and its hooks through the group
``locm.hooks`` (an entry point named ``GAME.HOOK``, its value the hook: ``mygame.play = mypkg.cli:play``).

It also names the schedule kinds a store may hold
beyond the generic one (`SCHEDULE_KINDS`), and what the layers below are handed: how a kept manifest reads back
as its schedule (`Schedules`) and the checker the command line hands the store (`checker`:
`locm.verify.checks.Checker` over these schedules). The store and verify import none of this: their callers
pass it in.
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points
from typing import Any, Callable

COMMANDS: tuple[str, ...] = (
    "locm.games.locm.cli:register",
    "locm.games.skyport.cli:register",
    "locm.games.mcg.cli:register",
)
"""Functions that add a wing's own commands to the `locm` group: ``module:function``."""

HOOKS: dict[str, dict[str, str]] = {
    # `locm play --account`: my-card-game's accounts' decks (`locm play` and `locm tournament` are one path for
    # every game: what only one game has comes from its player, `locm.tournament.players`)
    "play_accounts": {"mcg": "locm.games.mcg.play:play_with_accounts"},
    # seats taken by command-line bots that do not speak one line each way (Skyport's: its server's clients)
    "play_seated": {"skyport": "locm.games.skyport.hooks:play_seated"},
    # a tournament's time limits and sandbox check for bots that connect to the game's server
    "served_limits": {"skyport": "locm.games.skyport.hooks:served_limits"},
    # `locm rules diff`, `locm report`, `locm conformance`, `locm dataset`
    "rules_diff": {"locm": "locm.games.locm.hooks:rules_diff"},
    "report": {"locm": "locm.games.locm.report_cli:report", "mcg": "locm.games.mcg.hooks:report",
               "skyport": "locm.games.skyport.hooks:report"},
    "conformance": {"locm": "locm.games.locm.hooks:conformance", "skyport": "locm.games.skyport.hooks:conformance"},
    "dataset": {"locm": "locm.games.locm.hooks:dataset"},
    # `locm tune`: a search for a ruleset in balance (`locm.analysis.tune`), the game's fields and play
    "tune": {"locm": "locm.games.locm.tune_cli:run", "mcg": "locm.games.mcg.tune:run"},
    # `locm verify`, `locm export --all`, `locm import`: what a game keeps beside its games (my-card-game's
    # accounts)
    "verify_store": {"mcg": "locm.games.mcg.hooks:verify_store"},
    "export_count": {"mcg": "locm.games.mcg.hooks:export_count"},
    "import_log": {"mcg": "locm.games.mcg.hooks:import_log"},
    # `locm rerun`, `locm whatif` (`locm.tournament.rerun`): how a game is played again, two events that differ
    # only as the rules do, the rules' differences, a ruleset's identity, the bots' recorded versions, an outcome
    "rerun_play": {"locm": "locm.games.locm.rerun:play"},
    "rerun_same_event": {"locm": "locm.games.locm.rerun:same_event"},
    "rerun_changed": {"locm": "locm.games.locm.rerun:changed"},
    "rerun_identity": {"locm": "locm.games.locm.rerun:identity"},
    "rerun_bots": {"locm": "locm.games.locm.rerun:bots"},
    "rerun_outcome": {"locm": "locm.games.locm.rerun:outcome"},
    # `locm whatif` (`locm.tournament.whatif`): a re-run's id before it is played, the re-run prepared for the
    # store, what a game and its re-run give beside their outcomes, and the sections and lines those add
    "rerun_id": {"locm": "locm.games.locm.whatif:rerun_id"},
    "rerun_stored": {"locm": "locm.games.locm.whatif:rerun_stored"},
    "rerun_refused": {"locm": "locm.games.locm.whatif:rerun_refused"},
    "whatif_facts": {"locm": "locm.games.locm.whatif:whatif_facts"},
    "whatif_summary": {"locm": "locm.games.locm.whatif:whatif_summary"},
    "whatif_lines": {"locm": "locm.games.locm.whatif:whatif_lines"},
}
"""Per hook, the games' own versions: ``module:function``."""

NOTEBOOK = "locm.games.locm.api"
"""The module of the notebook front object, `import locm; locm.Game` (`locm.__init__` asks `notebook`): LOCM's."""

SCHEDULE_KINDS: dict[str, tuple[str, str]] = {
    "round_robin": ("locm.games.locm.tournament", "RoundRobin"),
    "skyport_map_round_robin": ("locm.games.skyport.tournament", "MapRoundRobin"),
}
"""LOCM's round robin (mirrored seeds, self-play), kept as its stores have it since schema 1; Skyport's round
robin on a map file of the organiser's (its map in its manifest)."""


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@functools.lru_cache(maxsize=None)
def _installed(group: str) -> tuple:
    """The installed packages' entry points of ``group`` (read once a process)."""
    return tuple(entry_points(group=group))


def hook(name: str, game: str, default: Callable | None = None) -> Callable | None:
    """The hook ``name`` of the game called ``game`` (a registered name, not an alias): its wing's version,
    an installed package's (entry point ``GAME.NAME`` of ``locm.hooks``), else ``default``."""
    path = HOOKS.get(name, {}).get(game)
    if path is not None:
        return _load(path)
    for ep in _installed("locm.hooks"):
        if ep.name == f"{game}.{name}":
            return ep.load()
    return default


def games_with(name: str) -> list[str]:
    """The games that have their own hook ``name``, in the order listed (then installed packages')."""
    own = list(HOOKS.get(name, {}))
    more = [ep.name.rpartition(".")[0] for ep in _installed("locm.hooks") if ep.name.endswith(f".{name}")]
    return own + [g for g in more if g not in own]


def notebook() -> Any:
    """The notebook front module (`NOTEBOOK`: its ``Game``, ``Choose``, ``Outcome``, ``IllegalActionError``)."""
    return importlib.import_module(NOTEBOOK)


def add_commands(group) -> None:
    """Add every wing's own commands to ``group``, then those of installed packages (``locm.commands``)."""
    for path in COMMANDS:
        _load(path)(group)
    for ep in _installed("locm.commands"):
        ep.load()(group)


# --- what the store and verify are handed ------------------------------------------------------------------


class Schedules:
    """The tournament schedules a store may keep, as `locm.verify.checks` reads them (`SCHEDULES`)."""

    def of(self, manifest: str) -> Any:
        """The schedule a kept manifest describes (`ValueError` or a `LocmError` if it does not read)."""
        from locm.tournament.schedule import Schedule

        return Schedule.from_manifest(manifest, SCHEDULE_KINDS)  # the kind its manifest names

    def not_the_job(self, jobs: Any, job: Any, record: Any) -> str:
        """"" if a stored record is the scheduled job's game (its ruleset, seed, agents, and the seeds that seed
        derives: a scheduled game gives no parameter); else what differs."""
        from locm.tournament.schedule import SeatsRoundRobin

        if isinstance(jobs, SeatsRoundRobin):  # another game's: its id names its created event (`stored_problem`)
            want_match = {"seed": job.seed, "agents": tuple(job.agents)}
            for field, value in want_match.items():
                if getattr(record, field, None) != value:
                    return f"its {field} is {getattr(record, field, None)!r:.40}, the schedule's {value!r:.40}"
            return ""
        from locm.engine.locm.rulesets import by_name
        from locm.engine.locm.setup import PARAM_FIELDS, derive_params

        if record.game != "locm":
            return f"it is a {record.game} game, the schedule's are LOCM's"
        rules = by_name(jobs.ruleset) if isinstance(jobs.ruleset, str) else jobs.ruleset
        want = {"ruleset": rules.name, "seed": job.seed, "agent0": job.agent0, "agent1": job.agent1}
        want.update({PARAM_FIELDS[k]: v for k, v in derive_params(rules, job.seed).items() if k != "seed"})
        given = {"ruleset": record.ruleset, "seed": record.seed, "agent0": record.agents[0],
                 "agent1": record.agents[1], **record.fields}
        for field, value in want.items():
            if given.get(field) != value:
                return f"its {field} is {given.get(field)!r:.40}, the schedule's {value!r:.40}"
        return ""

    def describe(self, jobs: Any) -> str:
        if hasattr(jobs, "describe"):
            return jobs.describe()
        name = jobs.ruleset if isinstance(jobs.ruleset, str) else jobs.ruleset.name
        return (f"{name}, {len(jobs.agents)} agents, seeds {jobs.seed}..{jobs.seed + jobs.seeds - 1}, "
                f"{len(jobs)} games")


SCHEDULES = Schedules()


def schedule_of(manifest: str) -> Any:
    """`Schedules.of` of `SCHEDULES`."""
    return SCHEDULES.of(manifest)


def checker():
    """The checker the command line hands the store (`locm.store.hooks.Checker`): `locm verify`'s checks of a
    game's content, and these schedules."""
    from locm.verify.checks import Checker

    return Checker(SCHEDULES)

__all__ = ["SCHEDULE_KINDS", "COMMANDS", "HOOKS", "NOTEBOOK", "hook", "games_with", "notebook", "add_commands",
           "Schedules", "SCHEDULES", "schedule_of", "checker"]
