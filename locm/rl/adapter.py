"""What the environments need from a game: one small adapter per game, everything else generic.

An environment (`locm.rl.env`, `locm.rl.pz`, `locm.rl.vector`) knows no game. It asks a `GameSpec` for a live
`Match` and, at every decision, for three things about the player to move:

- which **phase** the decision belongs to (a deck-building pick, a battle action, ...): each phase is a block of
  the fixed discrete action space and a block of the observation (`Phase`);
- the phase's **observation** from that player's seat: a flat list of numbers, each feature named in
  `Phase.features` (the README's tables come from those names);
- the **choices**: the legal actions of the game's own rules (its `legal_actions`), each with its slot in the
  phase's block of the action space. The mask is the set of those slots, so a masked policy can only play
  what the rules allow, and the game's own `decide` still judges every action.

Everything else is the game's: `play` goes through its `decide`/`evolve`, `log` is its event log, `result`
its outcome, `view` its per-player view (hidden information hidden) and `text` what a bot of that seat would
be sent. A game's adapter is thus an observation encoder (features and slots over the same entities, the
hand's third card, the second monster of a lane) plus a few one-line bindings to the game's core; the
environments, the opponents' loop, rewards, masks, storing episodes and the vectorised stepping are shared.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol, Sequence


class Phase(NamedTuple):
    """One kind of decision: its block of the action space (``actions`` slots, ``slot_names[i]`` says what
    slot i does) and of the observation (``features``, one name per number)."""

    name: str
    actions: int
    features: tuple[str, ...]
    slot_names: tuple[str, ...]


class Match(Protocol):
    """A live game as the environments drive it."""

    log: list[Any]

    def to_move(self) -> int:
        """The seat whose decision the game waits for; -1 once it is over."""

    def phase(self) -> int:
        """The index (in `GameSpec.phases`) of the decision the player to move faces; -1 once over."""

    def observe(self, player: int) -> list[float] | bytearray:
        """The current phase's features from `player`'s seat (`Phase.features`, in order): numbers, or their
        float32 bytes (a `bytearray`), which the environments read as an array without converting them."""

    def choices(self) -> tuple[list[int], list[Any]]:
        """The legal actions of the player to move, as (slots in the phase's block, actions), one slot each."""

    def play(self, action: Any) -> None:
        """Play one legal action (one the game's rules listed in `choices`)."""

    def result(self) -> tuple[float, ...] | None:
        """Per seat: 1 for the winner, -1 for a loser (0 for a draw); None while the game goes on."""

    def view(self, player: int | None) -> dict[str, Any]:
        """The game's own per-player view (what `player` may see); None: everything."""

    def text(self, player: int) -> str:
        """What a bot in `player`'s seat would be sent now."""


class Opponent(Protocol):
    """A built-in agent or an external bot that plays for one seat: `play` makes at least one decision of
    `player` (a LOCM agent plays a whole turn); `close` ends what it started (a bot's process)."""

    def play(self, match: Match, player: int) -> None: ...

    def close(self) -> None: ...


Potential = Callable[[Match, int], float]
"""A reward shaping term: a value of the position for a seat; the reward is the change of the weighted sum
between two decisions of the learner (gym-locm's reward functions are such values)."""


class GameSpec(Protocol):
    """One game (and ruleset) as the environments see it."""

    game: str
    seats: int
    phases: tuple[Phase, ...]
    rewards: dict[str, Potential]

    def new(self, seed: int, agents: Sequence[str]) -> Match:
        """A new game from its seed; `agents` are the seat names its log records."""

    def opponent(self, spec: str, seed: int) -> Opponent:
        """A built-in agent by name, or an external bot by command line, seeded with `seed`."""

    def open_store(self, option: Any) -> Any:
        """The store an environment's ``store`` option names (a path, or a store already open: kept as is)."""

    def store_episode(self, store: Any, match: Match) -> str:
        """Store a finished game in the store `open_store` gave; returns its game id."""


__all__ = ["Phase", "Match", "Opponent", "Potential", "GameSpec"]
