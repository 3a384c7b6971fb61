"""Tournaments that stop when the answer is known: a sequential test (`locm.analysis.sprt`) over the mirrored
seed pairs of a two-agent schedule of any two-seat game (with two seats and two agents every kind of schedule
plays a seed's two seatings one after the other: `locm.tournament.schedule`), and ratings with intervals (`locm.analysis.ratings`) from stored games.

The test reads the pairs in schedule order: seed ``S`` (both seatings), then ``S + 1``, and so on; its
verdict is the one at the first pair that makes it conclusive. Games are handed to the workers pair by pair
while the stored prefix of pairs is inconclusive; the games already handed out when the verdict comes (a
few per worker, and what other workers took while the verdict's last game was played: the overshoot every
parallel test runner has) are finished and stored, but they do not change the verdict. So the verdict depends on the seeds and agents only, not on the number of workers
or on interruptions: running the same command again resumes and gives the same verdict.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from locm.analysis.ratings import Rating, rate
from locm.analysis.sprt import Sprt, SprtState
from locm.errors import GameNotFoundError, TournamentError
from locm.runner.live import publish_run
from locm.store.eventstore import EventStore, GameRecord
from locm.tournament.run import TournamentRun, count_stored, play_jobs
from locm.tournament.schedule import Job, Schedule
from locm.tournament.standings import _entries, seat_entry


def check_pairs(jobs: Schedule) -> None:
    """A sequential test needs two different agents: its pairs are a seed's two seatings."""
    if len(set(jobs.agents)) != 2 or len(jobs.agents) != 2:
        raise TournamentError(f"--sprt needs exactly two different agents (a mirrored pair is one seed in both "
                              f"seatings), got {list(jobs.agents)}")


def _pair_scores(store: EventStore, pair: Sequence[Job]) -> tuple[float, float] | None:
    """The first agent's score in each game of a pair (by the first agent of the schedule: 1 a win, 1/2 a
    shared place, 0 a loss, by the game's places), or None while a game of the pair is not stored, or is stored
    but not counted (`locm.store.provenance.Provenance.counted`: a run refuses such a game under its id; the
    arena's reading of the test stops there too)."""
    first = pair[0].agents[0]
    out = []
    for job in pair:
        try:
            m = store.game(job.game_id)
            if not store.provenance(job.game_id).counted:
                return None
        except GameNotFoundError:
            return None
        mine, theirs = (m.places[0], m.places[1]) if m.agents[0] == first else (m.places[1], m.places[0])
        out.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    return out[0], out[1]


class SequentialRun:
    """The jobs of a two-agent schedule, pair by pair, for `locm.tournament.run.play_jobs`, stopping when the test
    is conclusive. `state` is the test over the stored prefix of pairs; `advance` brings it up to date (call it
    after the run to count the last pairs stored) and publishes it for the arena when it moved (not with
    ``publish=False``: the arena's own reading)."""

    def __init__(self, store: EventStore, jobs: Schedule, test: Sprt, publish: bool = True) -> None:
        check_pairs(jobs)
        self.store, self.jobs, self.state = store, jobs, SprtState(test)
        self.pairs = len(jobs) // 2
        self._next = 0  # the first pair not yet counted by the test
        self._publish, self._published = publish, False  # `locm.runner.live.publish_run`, when it moves

    def pair(self, k: int) -> list[Job]:
        return [self.jobs[2 * k], self.jobs[2 * k + 1]]

    def advance(self) -> SprtState:
        counted = self._next
        while self.state.verdict is None and self._next < self.pairs:
            scores = _pair_scores(self.store, self.pair(self._next))
            if scores is None:
                break
            self.state.add_pair(*scores)
            self._next += 1
        if self._publish and (not self._published or self._next != counted):  # for the arena: test and state
            publish_run(self.jobs.key, {"schedule": self.jobs.key, "test": self.state.test.text(),
                                        "agents": list(self.jobs.agents), "summary": self.state.summary()})
            self._published = True
        return self.state

    def __iter__(self) -> Iterator[Job]:
        for k in range(self.pairs):
            if self.advance().verdict is not None:
                return
            for job in self.pair(k):
                if not self.store.has_game(job.game_id):
                    yield job


def play_sequential(store: EventStore, jobs: Schedule, test: Sprt, **options) -> tuple[TournamentRun, SprtState]:
    """Play `jobs` (two agents) pair by pair until `test` is conclusive (`SequentialRun`), with the options of
    `locm.tournament.run.play_jobs`; the run and the test. Games are stored one per transaction here, so that the
    test sees each pair as soon as it is played and few games are played past the verdict."""
    seq = SequentialRun(store, jobs, test)
    options.setdefault("count", len(jobs) - count_stored(store, jobs))
    run = play_jobs(store, seq, batch=1, **options)
    return run, seq.advance()


def results(records: Sequence[GameRecord], agents: Sequence[str]) -> Iterator[list[tuple[str, int]]]:
    """Each two-player game as a ranking (winner first) under the standings' names: an agent playing itself is
    two entries, one per seat (`locm.tournament.standings.seat_entry`). Games of other agents are left out."""
    names, selfplay = _entries(agents)
    known = set(names)
    for r in records:
        a, b = r.agents
        if a == b:
            if a not in selfplay:
                continue
            seats = (seat_entry(a, 0), seat_entry(a, 1))
        else:
            seats = (a, b)
        if not known.issuperset(seats):
            continue
        yield [(seats[r.winner], 0), (seats[1 - r.winner], 1)]


def match_rankings(records: Sequence) -> Iterator[list[tuple[str, float]]]:
    """Each game of any number of seats (rows with ``agents`` and ``places``, place 0 the best, ties shared) as a
    ranking of its agents; an agent in several seats of one game enters it once, at the mean of its places."""
    for m in records:
        places: dict[str, list[int]] = {}
        for agent, place in zip(m.agents, m.places):
            places.setdefault(agent, []).append(place)
        yield [(a, sum(p) / len(p)) for a, p in places.items()]


def match_ratings(records: Sequence, agents: Sequence[str]) -> list[Rating]:
    """Ratings with intervals of ``agents`` from games of any number of seats (`match_rankings`), in the order
    given."""
    known = set(agents)
    return rate(([(a, r) for a, r in g if a in known] for g in match_rankings(records)), list(dict.fromkeys(agents)))


def ratings(records: Sequence[GameRecord], agents: Sequence[str]) -> list[Rating]:
    """Ratings with intervals of the standings' entries, the games taken in the order given."""
    names, _ = _entries(agents)
    return rate(results(records, agents), names)


def sprt_text(summary: dict, agents: Sequence[str]) -> str:
    """The test's result in a few lines (`locm.analysis.sprt.SprtState.summary`)."""
    a, b = agents[0], agents[1]
    test = summary["test"]
    if summary["verdict"] is None:
        head = (f"SPRT {test}: inconclusive after {summary['pairs']} pairs (the --games cap or the games stored so "
                f"far)")
    else:
        which = "H1" if summary["verdict"] == "H1" else "H0"
        head = (f"SPRT {test}: {which} accepted at pair {summary['pairs_at_verdict']} (elo of {a} over {b}: "
                f"{'elo1' if which == 'H1' else 'elo0'} rather than {'elo0' if which == 'H1' else 'elo1'})")
    lines = [head, f"  LLR {summary['llr']:.3f} in bounds [{summary['lower']:.3f}, {summary['upper']:.3f}]; pairs "
                   f"by {a}'s score 0, 1/4, 1/2, 3/4, 1: {summary['pentanomial']}"]
    if summary["pairs"]:
        def elo(x):
            return "n/a" if x is None else f"{x:+.1f}"
        lines.append(f"  {a}'s score over the test's pairs {summary['score']:.3f}: Elo {elo(summary['elo'])} "
                     f"[{elo(summary['elo_low'])}, {elo(summary['elo_high'])}] (95%, over pairs)")
    return "\n".join(lines)


def schedule_order(jobs: Schedule) -> Callable[[GameRecord], int]:
    """A sort key putting a schedule's stored games in schedule order (ratings are sequential)."""
    return lambda r: jobs.place_of(r) or 0


__all__ = ["SequentialRun", "play_sequential", "match_rankings", "match_ratings", "check_pairs", "results", "ratings", "schedule_order", "sprt_text"]
