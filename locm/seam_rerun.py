"""`locm rerun` for the games other than LOCM, through the game seam (`engine.seam.GameDef`): the recorded
game played again under rules B, with its seed and its built-in agents deciding again (`engine.core.play`),
and where it first departs from the recorded log: the seq, the event under A and under B (the game's own
words), its rule, the settings that differ (`GameDef.rules_diff`), both boards just before it and each
outcome. Nothing here knows a game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from locm.engine import core
from locm.engine.errors import LocmError
from locm.engine.history import History
from locm.replay.match import MatchReplay


class SeamRerunError(LocmError):
    """A game that cannot be played again (no built-in agents recorded, no seed, a bad ruleset)."""


def rules_of(game: Any, spec: str) -> Any:
    """A built-in ruleset's name, or a variant file (TOML) of `game`."""
    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SeamRerunError(f"{spec}: cannot read it ({exc.strerror or exc})") from None
        return game.variant(text, spec)
    return game.rules(spec)


@dataclass
class SeamRerun:
    title: str
    rules_a: str
    rules_b: str
    seq: int | None
    event_a: str
    event_b: str
    rule: str
    changed: list[tuple[str, str, Any, Any]]
    board_a: str
    board_b: str
    outcome_a: Any
    outcome_b: Any

    def lines(self) -> list[str]:
        out = [f"{self.title}: rerun under {self.rules_b} (recorded under {self.rules_a})"]
        out += [f"  {field} ({rule}): {a} -> {b}" for field, rule, a, b in self.changed] or ["  no setting differs"]
        if self.seq is None:
            out.append("no divergence: the same events under both rules")
        else:
            out += [f"first divergence at seq {self.seq} ({self.rule}):", f"  A: {self.event_a}",
                    f"  B: {self.event_b}", "board just before it, under A:", self.board_a,
                    "under B:", self.board_b]
        out.append(f"outcome under A: {_outcome(self.outcome_a)}")
        out.append(f"outcome under B: {_outcome(self.outcome_b)}")
        return out


def _outcome(o: Any) -> str:
    scores = f", scores {', '.join(f'{s:g}' for s in o.scores)}" if o.scores else ""
    return f"winner {'P' + str(o.winner) if o.winner >= 0 else 'none'} ({o.reason}, {o.turns} turns){scores}"


def rerun_match(r: MatchReplay, spec: str) -> SeamRerun:
    game = r.game
    created = r.events[0]
    agents = game.agents(created)
    index = game.index(created)
    if not agents:
        raise SeamRerunError(f"{r.source or 'the game'}: it records no built-in agents (a served or bot game): "
                             "nothing can decide again")
    if index.get("seed") is None:
        raise SeamRerunError(f"{r.source or 'the game'}: it has no seed")
    rules_a = created.rules  # every registered game's created event carries its rules
    rules_b = rules_of(game, spec)
    try:
        match = core.play(game, rules_b, index["seed"], agents)
    except LocmError as exc:
        raise SeamRerunError(f"{game.title} under {game.rules_name(rules_b)}: {exc}") from None
    events_b: Sequence[Any] = match.log
    seq = None
    for i in range(1, max(len(r.events), len(events_b))):
        a = game.codec.to_json(r.events[i]) if i < len(r.events) else b""
        b = game.codec.to_json(events_b[i]) if i < len(events_b) else b""
        if a != b:
            seq = i
            break
    ev_a = ev_b = rule = board_a = board_b = ""
    if seq is not None:
        hb = History(game, events_b)
        final_b = hb.final()
        ev_a = r.describe(seq) if seq < len(r.events) else "(the log ends)"
        ev_b = game.describe(final_b, events_b[seq]) if seq < len(events_b) else "(the game ends)"
        rule = (r.events[seq].rule if seq < len(r.events) else events_b[seq].rule)
        board_a = r.board(seq - 1)
        board_b = game.board_text(game.view(hb.state_at(seq - 1), None))
    return SeamRerun(game.title, game.rules_name(rules_a), game.rules_name(rules_b), seq, ev_a, ev_b, rule,
                     game.rules_diff(rules_a, rules_b), board_a, board_b, game.outcome(r.events),
                     game.outcome(events_b))


__all__ = ["rerun_match", "SeamRerun", "SeamRerunError", "rules_of"]
