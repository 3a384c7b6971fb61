"""Built-in players of my-card-game. An agent answers one decision at a time: `act(state, player)` returns a
command for the seat to move, always one of `legal.legal_actions(state)` (agents never surrender). Each is
seeded: the same seed and the same positions give the same answers.

- `random`: uniformly among the legal actions (ending the turn is one of them), from its own `Random(seed)`.
- `greedy`: lets the other seat start when it wins the coin (with the second seat's extra mana, the second
  seat won 158 of 200 greedy-against-greedy matches, seeds 0..199, when greedy chose to start), puts back its
  cards costing 5 or more, brings the deck of the
  cards with the most value for their cost (`decks.greedy_deck`), then plays the action whose result scores
  best (one step ahead, through the same `decide` the game uses) until none improves on ending the turn.
"""

from __future__ import annotations

from locm.engine.errors import LocmError
from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.commands import ChooseStarter, Command, EndTurn, Mulligan
from locm.engine.mcg.decide import decide_and_apply
from locm.engine.mcg.legal import legal_actions
from locm.engine.mcg.state import CHOOSE, MULLIGAN, McgState, Monster

AGENT_NAMES = ("random", "greedy")
WIN_SCORE = 1e9


class UnknownAgent(LocmError):
    """An agent name that is not a built-in my-card-game agent."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown my-card-game agent {name!r}: expected one of {', '.join(AGENT_NAMES)}")


class Agent:
    name = "agent"

    def __init__(self, seed: int = 0) -> None:
        self.rng = JavaRandom(seed)

    def act(self, state: McgState, player: int) -> Command:  # pragma: no cover - every agent defines it
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def act(self, state: McgState, player: int) -> Command:
        legal = legal_actions(state)
        return legal[self.rng.next_int(len(legal))]


class GreedyAgent(Agent):
    name = "greedy"

    def act(self, state: McgState, player: int) -> Command:
        if state.phase == CHOOSE:
            return ChooseStarter(player, 1 - player)
        if state.phase == MULLIGAN:
            hand = state.players[player].hand
            heavy = sorted((i for i in hand if state.card(i).cost >= 5), key=lambda i: -state.card(i).cost)
            return Mulligan(player, tuple(sorted(heavy[:state.rules.mulligan_max])))
        base = score(state, player)
        best: list[Command] = []
        top = base + 0.01  # an action must do better than ending the turn
        for command in legal_actions(state):
            if type(command) is EndTurn:
                continue
            value = score(decide_and_apply(state, command)[1], player)
            if value > top + 1e-9:
                best, top = [command], value
            elif abs(value - top) <= 1e-9:
                best.append(command)
        if not best:
            return EndTurn(player)
        return best[self.rng.next_int(len(best))] if len(best) > 1 else best[0]


def monster_score(m: Monster) -> float:
    return 1.0 + m.power + 0.7 * m.toughness + 0.5 * m.health


def score(state: McgState, player: int) -> float:
    """How good `state` is for `player`: a won game above all; else the health lead, the board and the hand."""
    if state.winner != -1:
        return WIN_SCORE if state.winner == player else -WIN_SCORE
    me, op = state.players[player], state.players[1 - player]
    board = sum(monster_score(state.monsters[i]) for i in me.board) - sum(
        monster_score(state.monsters[i]) for i in op.board)
    return (me.health - op.health) + board + 0.5 * (len(me.hand) - len(op.hand))


AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(name: str, seed: int = 0) -> Agent:
    """A built-in agent by name, with its seed."""
    cls = AGENTS.get(name)
    if cls is None:
        raise UnknownAgent(name)
    return cls(seed)


__all__ = ["Agent", "RandomAgent", "GreedyAgent", "make_agent", "score", "AGENT_NAMES", "UnknownAgent"]
