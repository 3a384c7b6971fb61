"""Any registered game (`locm.engine.registry`) as the environments see it, through its game definition.

`SeamSpec` is a `locm.rl.adapter.GameSpec` made of a game's definition (`engine.seam.GameDef`: create, legal
actions, whose move, phase, outcome, views, the bot's message, built-in agents) and an `Encoder`, the one
piece a game adds: its phases (each a block of the action space and of the observation), the slot of each
legal action, and the numbers of a position. my-card-game's and Skyport's encoders are in
`locm.rl.mcg` and `locm.rl.skyport`; LOCM keeps its own adapter (`locm.rl.locm`: a constructed
deck is 30 decisions there, one answer in the game).
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from locm.rl.adapter import Phase


class Encoder(Protocol):
    """What a game adds to its definition for the environments."""

    phases: tuple[Phase, ...]
    phase_names: tuple[str, ...]
    """The game's own name of each phase (`GameDef.phase`), in the order of `phases`."""

    def slots(self, state: Any, seat: int, legal: Sequence[Any]) -> tuple[list[int], list[Any]]:
        """The slot of each legal command of `seat` in its phase's block (a command without a slot is left
        out), as (slots, commands)."""

    def observe(self, state: Any, seat: int) -> list[float]:
        """The numbers of the current phase's block from `seat`'s side (only what the seat may see)."""


class SeamMatch:
    """A live game of a definition (`locm.rl.adapter.Match`)."""

    def __init__(self, game: Any, encoder: Encoder, match: Any, seed: int) -> None:
        self.definition = game
        self.encoder = encoder
        self.match = match
        self.log = match.log
        self.seed = seed
        self._phase = {name: i for i, name in enumerate(encoder.phase_names)}

    @property
    def state(self) -> Any:
        return self.match.state

    def to_move(self) -> int:
        return int(self.definition.to_move(self.match.state))

    def phase(self) -> int:
        if self.to_move() < 0:
            return -1
        return self._phase.get(self.definition.phase(self.match.state), -1)

    def choices(self) -> tuple[list[int], list[Any]]:
        state = self.match.state
        return self.encoder.slots(state, self.to_move(), self.definition.legal_actions(state))

    def observe(self, player: int) -> list[float]:
        return self.encoder.observe(self.match.state, player)

    def play(self, action: Any) -> None:
        self.match.submit(action)

    def result(self) -> tuple[float, ...] | None:
        if self.to_move() >= 0:
            return None
        places = self.definition.outcome(self.log).places(2)
        if places[0] == places[1]:
            return (0.0, 0.0)
        return tuple(1.0 if p == 0 else -1.0 for p in places)

    def view(self, player: int | None) -> dict[str, Any]:
        return dict(self.definition.view(self.match.state, player))

    def text(self, player: int) -> str:
        return str(self.definition.message(self.match.state, player))


class SeamOpponent:
    """A built-in agent of the game (`GameDef.make_agent`), made for its seat on its first decision."""

    def __init__(self, game: Any, name: str, seed: int) -> None:
        if name not in game.agent_names:
            from locm.engine.errors import LocmError

            raise LocmError(f"unknown {game.title} agent {name!r}: expected one of {', '.join(game.agent_names)}")
        self.game, self.name, self.seed = game, name, seed
        self.agent: Any = None

    def play(self, match: SeamMatch, player: int) -> None:
        if self.agent is None:
            self.agent = self.game.make_agent(self.name, self.seed, player)
        self.agent.play_turn(match.match, player)

    def close(self) -> None:
        pass


class SeamSpec:
    """A registered game under one rules value, with its encoder (`Encoder`), as a `GameSpec`. Its episodes
    are stored as JSONL logs in a folder (`locm.rl.logfolder`)."""

    seats = 2
    bounded = False

    def __init__(self, game: str, rules: Any, encoder: Encoder, rewards: dict[str, Any]) -> None:
        from locm.engine.registry import get

        self.definition = get(game)
        self.game = self.definition.name
        self.rules = rules
        self.encoder = encoder
        self.phases = encoder.phases
        self.rewards = rewards

    def new(self, seed: int, agents: Sequence[str]) -> SeamMatch:
        return SeamMatch(self.definition, self.encoder, self.definition.new(self.rules, seed, tuple(agents[:2])),
                         seed)

    def opponent(self, spec: str, seed: int) -> SeamOpponent:
        return SeamOpponent(self.definition, spec, seed)

    def open_store(self, option: Any) -> Any:
        from locm.rl.logfolder import LogFolder

        return option if isinstance(option, LogFolder) else LogFolder(option, self.game)

    def store_episode(self, store: Any, match: SeamMatch) -> str:
        return str(store.append(match.seed, match.log, self.definition.codec.to_jsonl))


__all__ = ["Encoder", "SeamMatch", "SeamOpponent", "SeamSpec"]
