"""The games' parts at the edges that the layers below are handed (the one module here that names them): how a
kept tournament manifest reads back as its schedule (LOCM's round robin, `locm.games.locm.tournament.Schedule`,
or any game's N-seat one, `locm.tournament.matchplay.MatchSchedule`, told apart by the manifest's ``kind``),
and the checker the command line hands the store (`checker`: `locm.verify.checks.Checker` over these
schedules). The store and verify import none of this: their callers pass it in.
"""

from __future__ import annotations

import json
from typing import Any


class Schedules:
    """The tournament schedules a store may keep, as `locm.verify.checks` reads them (`SCHEDULES`)."""

    def of(self, manifest: str) -> Any:
        """The schedule a kept manifest describes (`ValueError` or a `LocmError` if it does not read)."""
        from locm.games.locm.tournament import Schedule
        from locm.tournament.matchplay import MATCH_KIND, MatchSchedule

        doc = json.loads(manifest)
        if isinstance(doc, dict) and doc.get("kind") == MATCH_KIND:
            return MatchSchedule.from_manifest(manifest)
        return Schedule.from_manifest(manifest)

    def not_the_job(self, jobs: Any, job: Any, record: Any) -> str:
        """"" if a stored record is the scheduled job's game (its ruleset, seed, agents, and the seeds that seed
        derives: a scheduled game gives no parameter); else what differs."""
        from locm.tournament.matchplay import MatchSchedule

        if isinstance(jobs, MatchSchedule):  # another game's: its id names its created event (`match_problem`)
            want_match = {"seed": job.seed, "agents": tuple(job.agents)}
            for field, value in want_match.items():
                if getattr(record, field, None) != value:
                    return f"its {field} is {getattr(record, field, None)!r:.40}, the schedule's {value!r:.40}"
            return ""
        from locm.engine.locm.rulesets import by_name
        from locm.engine.locm.setup import PARAM_FIELDS, derive_params

        if not hasattr(record, "agent0"):
            return f"it is a {record.game} game, the schedule's are LOCM's"
        rules = by_name(jobs.ruleset) if isinstance(jobs.ruleset, str) else jobs.ruleset
        want = {"ruleset": rules.name, "seed": job.seed, "agent0": job.agent0, "agent1": job.agent1}
        want.update({PARAM_FIELDS[k]: v for k, v in derive_params(rules, job.seed).items() if k != "seed"})
        for field, value in want.items():
            if getattr(record, field) != value:
                return f"its {field} is {getattr(record, field)!r:.40}, the schedule's {value!r:.40}"
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


__all__ = ["Schedules", "SCHEDULES", "schedule_of", "checker"]
