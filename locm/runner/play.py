"""Playing games with agents: one game (`play_one`), a short summary of a finished game, seat seeds."""

from __future__ import annotations

from dataclasses import dataclass

from locm.engine.locm.agents import make_agent, seat_seed
from locm.engine.locm.playing import play
from locm.engine.locm.game import Game

def turns_played(turn: int) -> int:
    """A game's length in battle turns, as every command shows it: the turns begun, counting both players'
    (``GameEnded.turn`` + 1; the stored ``turns`` column is ``GameEnded.turn``, -1 for a game that ended
    before its battle, so that is 0 here)."""
    return max(turn + 1, 0)


def build_agents(names: tuple[str, str], game_seed: int, factory=None):
    factory = factory or make_agent
    return [factory(names[s], seat_seed(game_seed, s)) for s in (0, 1)]


def play_one(ruleset: str, seed: int, agents: tuple[str, str], params: dict | None = None,
             factory=None) -> Game:
    game = Game.new(ruleset, seed, params, agents=tuple(agents))
    play(game, build_agents(agents, seed, factory))
    return game


@dataclass
class GameSummary:
    winner: int
    reason: str
    turns: int
    events: int
    health: tuple[int, int]
    plays: tuple[int, int]
    damage_taken: tuple[int, int]

    def lines(self, agents: tuple[str, str]) -> list[str]:
        w = self.winner
        return [
            f"winner: player {w} ({agents[w]}) by {self.reason} after {self.turns} "
            f"turn{'' if self.turns == 1 else 's'}",
            f"health at the end: {self.health[0]} vs {self.health[1]}",
            f"cards played: {self.plays[0]} vs {self.plays[1]}; damage taken: "
            f"{self.damage_taken[0]} vs {self.damage_taken[1]}",
            f"events: {self.events}",
        ]


def summarize(game: Game) -> GameSummary:
    """The end of a game as `locm play` prints it: the state's winner and health, each player's plays and
    damage taken from the game's facts (`analysis.locm.cardfacts.project`)."""
    from locm.analysis.locm.cardfacts import project

    facts = project(game.log)
    plays = [facts.plays(0), facts.plays(1)]
    dmg = facts.damage_taken
    s = game.state
    turns = turns_played(game.log[-1].turn)
    return GameSummary(s.winner, s.end_reason, turns, len(game.log),
                       (s.players[0].health, s.players[1].health), tuple(plays), tuple(dmg))
