"""Built-in agents re-run on a game's log: whether the agents a game names would have made its decisions.

A game's built-in agents are deterministic given its seed (`engine.seam.GameDef.make_agent(name, seed, seat)`),
so a log that says "lookahead against random" can be checked as lookahead and random playing it again: the
same rules (its created event's), the same seed, the same agents, decision by decision, each decision's events
compared with the log's. A game relabelled (greedy's moves credited to lookahead, its id and chain recomputed)
follows the rules, so re-deciding its inputs does not catch it; re-running its agents does, at the first
decision that is not theirs (`rerun_agents`). `locm import` refuses such a game and `locm verify` names it
(`locm.verify.checks`).

A game with command-line bots in some seats and built-in agents in the others is re-run all the same: each
bot's recorded inputs are taken as given (played into the match as received, `GameDef.feed`: its program is
not here, and its files' hash in the log is the log's word), and each built-in seat's decisions are its
agent's, compared as in a game of built-in agents only; a game whose built-in seat departs from its agent is
refused at import and named by verify. Its created event must be the one its rules, seed and agents give,
the bots' versions set aside (`GameDef.continue_as` with none) and what its seats' players chose in it
(`GameDef.seated`: Skyport's seat names, a client's its handshake's), and the match is opened from the created
event itself (`GameDef.resume`), so the bots' versions and names it records stand.

A game whose every seat is a built-in agent may be proven in one run instead, where its game plays whole games
out at once (`GameDef.play_out`: LOCM's native core): `played_out` plays it from its created event's rules, seed
and agents and compares the log that gives with the stored one, byte for byte. Equal, the game is its agents'
and its rules' (they made every event of it); different, or not played out, `rerun_agents` goes decision by
decision and names where it departs.

What cannot be re-run is said, not guessed: a game whose every seat is a command-line bot, or of a game
without `feed` and `resume` (`external`), and a game whose created event is not the one its rules, seed and
agents give (`cannot`: parameters given by hand, an older schema): such a game is not refused for it, and an
imported one is never counted as its agents' unless its file was signed by a trusted key
(`locm.store.provenance.Provenance.counted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

MAX_DECISIONS = 1_000_000
"""A re-run stops here (the core's own bound on a match: `engine.core.play`)."""

Status = Literal["same", "differs", "external", "cannot"]


class AgentRerun(NamedTuple):
    """What re-running a game's agents found: ``status``, one line ``why`` (but for ``same``), the ``seq``
    where the log departs from its agents (-1: none) and the ``decision`` there (0: none)."""

    status: Status
    why: str = ""
    seq: int = -1
    decision: int = 0


def rerun_agents(game: Any, events: Sequence[Any], continued: tuple[int, Sequence[str]] | None = None) -> AgentRerun:
    """Re-run the built-in agents a log of ``game`` (`engine.seam.GameDef`) names on its seed and compare what
    they decide with the log, decision by decision (see the module docstring).

    ``continued``: a game played on from a position by other agents (`locm.tournament.continued`: its meta's
    ``continued_from``), as (the position's seq, the agents that played up to it): those agents are re-run up to
    that seq, then each seat whose agent changed gets its new agent as `play_on` gave it (seeded from the game's
    seed and its seat, starting there), and the seats kept go on with theirs."""
    events = list(events)
    if not events:
        return AgentRerun("cannot", "an empty log")
    created = events[0]
    agents = tuple(game.agents(created))
    before = tuple(continued[1]) if continued is not None else agents
    if len(before) != len(agents):
        return AgentRerun("cannot", "its record's continued_from names another number of seats than the game has")
    builtin = set(game.agent_names)
    bots = [(seat, a) for seat, a in enumerate(agents + before) if a not in builtin]
    if bots:
        seat, name = bots[0]
        seat %= len(agents)
        if len(bots) == 2 * len(agents):
            return AgentRerun("external", f"every seat is played by a command-line bot (seat {seat}: "
                                          f"{name[:60]!r}): no built-in agent to re-run")
        if game.feed is None or game.resume is None or game.continue_as is None:
            return AgentRerun("external", f"seat {seat} is played by a command-line bot ({name[:60]!r}), whose "
                                          f"inputs {game.title} cannot take as given in a re-run")
    seed = game.index(created).get("seed")
    rules = getattr(created, "rules", None)
    if not isinstance(seed, int) or rules is None:
        return AgentRerun("cannot", "the game records no seed or rules to re-run its agents with")
    try:
        from locm.engine.seam import behaviour_of

        n = behaviour_of(created)  # a game decided under an earlier behaviour of its rules is re-run under it
        match = game.new(rules, seed, agents) if n == game.behaviour else game.new(rules, seed, agents, behaviour=n)
        opened, expected = match.log[0], created
        if bots:  # its bots' versions are the log's word: the rest of its created event must be what new gives,
            expected = game.continue_as(created, agents, ("",) * len(agents))  # and it opens the match as it is
            if game.seated is not None:  # and what its seats' players chose in it (Skyport's names)
                opened, expected = game.seated(opened), game.seated(expected)
            if opened == expected:
                match = game.resume(created, [])
        players = [game.make_agent(name, seed, seat) if name in builtin else None for seat, name in enumerate(before)]
    except Exception as exc:  # a made-up created event may break creation anywhere  # noqa: BLE001
        return AgentRerun("cannot", f"the game cannot be created again from its rules and seed ({exc})"[:200])
    log = match.log
    if opened != expected or log[0] != created:
        return AgentRerun("cannot", "its game_created is not the one its rules, seed and agents give (parameters "
                                    "given by hand, or an older schema): its agents are not re-run")
    seen = _departure(log, events, 0)
    if seen is not None:
        return AgentRerun("cannot", f"its opening (seq {seen}) is not what its rules and seed give")
    decision = 0
    try:
        switch = continued[0] if continued is not None else -1
        runner = game.runner_command
        while not match.ended and decision < MAX_DECISIONS:
            if switch >= 0 and len(log) > switch:  # the position is reached: the new agents take their seats
                players = [pl if name == old else game.make_agent(name, seed, seat) if name in builtin else None
                           for seat, (pl, name, old) in enumerate(zip(players, agents, before))]
                switch = -1
            seat, start = match.to_move, len(log)
            if players[seat] is None:  # a command-line bot's seat: its recorded input, as it was received
                named = (before if switch >= 0 else agents)[seat]
                if start >= len(events):
                    return AgentRerun("differs", f"its log ends where P{seat}'s bot ({named[:60]!r}) is to move "
                                                 f"(seq {start})", start, decision)
                try:
                    game.feed(match, events[start])
                except Exception as exc:  # a hostile log's event, whatever it breaks  # noqa: BLE001
                    return AgentRerun("differs", f"its seq {start} is not an input of P{seat}'s bot ({named[:60]!r}), "
                                                 f"which is to move there ({str(exc)[:80]})", start, decision)
                seq = _departure(log, events, start)
                if seq is not None:
                    return AgentRerun("differs", f"P{seat}'s bot's input at seq {start} does not give its events "
                                                 f"(seq {seq})", seq, decision)
                continue
            given = runner(events[start]) if runner is not None and start < len(events) else None
            if given is not None:  # the runner's own input (a wall-clock stop): the log's word, as a timeout is
                match.submit(given)
                seq = _departure(log, events, start)
                if seq is not None:
                    return AgentRerun("differs", f"its runner's input at seq {start} does not give its events "
                                                 f"(seq {seq})", seq, decision)
                continue
            decision += 1
            players[seat].play_turn(match, seat)
            seq = _departure(log, events, start)
            if seq is not None:
                named = before if switch >= 0 else agents
                return AgentRerun("differs", _differs(game, named, seat, decision, seq, log, events), seq, decision)
    except Exception as exc:  # an agent refused by a state it never meant: not this game's agents  # noqa: BLE001
        return AgentRerun("differs", f"its agents would not play it: decision {decision}: P{seat} "
                                     f"{agents[seat]!r} fails on it ({type(exc).__name__})", len(log), decision)
    if len(log) != len(events):
        seq = min(len(log), len(events))
        return AgentRerun("differs", f"its agents would not play it: the log has {len(events)} events, its agents' "
                                     f"game {len(log)}", seq, decision)
    return AgentRerun("same")


def played_out(game: Any, events: Sequence[Any], continued: tuple[int, Sequence[str]] | None = None,
               lines: Sequence[bytes] | None = None) -> bool:
    """Whether ``game`` (`engine.seam.GameDef`) plays the whole of this log out at once (``play_out``, from its
    created event's rules, seed and agents, every seat a built-in agent, under its current behaviour) and that
    gives the log byte for byte: then its agents made its decisions and its rules every other event, and neither
    needs re-running decision by decision. False where it does not (no ``play_out``, a command-line bot, a game
    played on from a position (``continued``), an earlier behaviour, or a log that differs): the re-decision and
    `rerun_agents` then say what is wrong, if anything. ``lines``: the JSON lines, as stored, that ``events``
    were decoded from (a stored game's, their chain checked), compared as they are instead of the events encoded
    again."""
    if game.play_out is None or continued is not None or not events:
        return False
    try:
        from locm.engine.seam import behaviour_of

        created = events[0]
        agents = tuple(game.agents(created))
        seed = game.index(created).get("seed")
        rules = getattr(created, "rules", None)
        if (not agents or not set(agents) <= set(game.agent_names) or not isinstance(seed, int) or rules is None
                or behaviour_of(created) != game.behaviour):
            return False
        made = game.play_out(rules, seed, agents)
        if made is None:
            return False
        return made == (game.codec.to_jsonl(events) if lines is None else b"\n".join(lines) + b"\n")
    except Exception:  # a made-up created event may break anything: the per-decision paths say what  # noqa: BLE001
        return False


def _departure(log: Sequence[Any], events: Sequence[Any], start: int) -> int | None:
    """The first seq from ``start`` where the re-run's ``log`` and the stored ``events`` differ (None: the
    re-run's events so far are the log's)."""
    for seq in range(start, len(log)):
        if seq >= len(events) or log[seq] != events[seq]:
            return seq
    return None


def _differs(game: Any, agents: Sequence[str], seat: int, decision: int, seq: int, log: Sequence[Any],
             events: Sequence[Any]) -> str:
    gives = game.codec.to_json(log[seq]).decode() if seq < len(log) else ""
    has = game.codec.to_json(events[seq]).decode() if seq < len(events) else ""
    at = next((k for k, (x, y) in enumerate(zip(gives, has)) if x != y), min(len(gives), len(has)))
    return (f"its agents would not play it: decision {decision} (seq {seq}), P{seat} {agents[seat]!r} gives "
            f"{_around(gives, at)}, the log has {_around(has, at)}")


def _around(text: str, at: int, before: int = 24, width: int = 60) -> str:
    """The part of an event's JSON around where it differs (``nothing`` for no event)."""
    if not text:
        return "nothing"
    start = max(0, at - before)
    return ("..." if start else "") + text[start:start + width] + ("..." if start + width < len(text) else "")


__all__ = ["AgentRerun", "MAX_DECISIONS", "played_out", "rerun_agents"]
