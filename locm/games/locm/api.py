"""`locm.Game`: one object for a notebook, over the event-sourced engine (as python-chess's `Board`).

    >>> import locm
    >>> g = locm.Game("1.2", seed=7)
    >>> while not g.ended:
    ...     g.play(g.legal_actions()[0])
    >>> g.outcome()
    Outcome(winner=..., reason=..., turns=..., scores=None)

Every phase offers its legal actions, the end of a battle turn included:

- draft (1.2): `Pick(player, 0..2)`;
- construct (constructed): `Choose(base_id)`, one card at a time, for cards with copies left; the
  `deck_size`-th choice submits the whole deck (`BuildDeck`), as a bot's answer would;
- battle: the engine's legal `Summon`, `Attack` and `Use` (`engine.locm.legal`), then `EndTurn()`.

`play` also takes an action's text, as a bot writes it (``"PICK 1"``, ``"CHOOSE 12"``, ``"SUMMON 7 0"``, ``"ATTACK 7
-1"``, ``"USE 9 -1"``, ``"PASS"`` to end a battle turn; several separated by ``;`` are played in order), and
`Game` takes a variant file as its ruleset (``locm.Game("examples/variants/low-health.toml")``).

`play` refuses an action that is not legal (`IllegalActionError`, with the engine's reason), so a notebook never
records a refusal by mistake; bots and referee logs, whose refused actions are part of the game, go through
`engine.locm.game.Game.answer`. `undo` takes back the last action: the game is the fold of its log minus that
action's events (a pending `Choose` is simply dropped). The log is the engine's, event for event: what a
`Game` played can be stored, exported, replayed and re-decided like any other game. Its `outcome` is the
seam's (`engine.seam.Outcome`), as every game's definition gives it.

`Game.from_position(text)` continues from a position string (`locm position`; a redacted one with ``db=``, the
store that holds its game) and `Game.from_stored(db, game_id, seq)` from a stored game's event (`engine.position`).

The front module of LOCM's notebook: `import locm; locm.Game` finds it through `locm.games.registry.NOTEBOOK`.
"""

from __future__ import annotations

import msgspec

from locm.engine.locm import game as engine_game
from locm.engine.locm.commands import Attack, BuildDeck, Command, EndTurn, Pick, Summon, Use
from locm.engine.errors import LocmError
from locm.engine.locm.folding import fold
from locm.engine.locm.legal import problem
from locm.engine.locm.rulesets import Rules
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT, ENDED
from locm.engine.seam import Outcome
from locm.events.locm.catalog import GameEnded


class Choose(msgspec.Struct, frozen=True, array_like=True):
    """Constructed: one card of the deck being chosen (`Game` submits the deck when it is complete)."""

    base_id: int

    def text(self) -> str:
        return f"CHOOSE {self.base_id}"


class IllegalActionError(LocmError):
    """`Game.play` of an action that is not among `legal_actions()` now; ``reason`` says why."""

    def __init__(self, action, reason: str) -> None:
        self.action, self.reason = action, reason
        super().__init__(f"{_text(action)} is not legal now: {reason}")


class Game:
    """A live game: `legal_actions`, `play`, `undo`, `outcome`, `view`, `log`."""

    __slots__ = ("_game", "_chosen")

    def __init__(self, ruleset: str | Rules = "1.2", seed: int = 0, *, params: dict | None = None,
                 agents: tuple[str, str] = ("", "")) -> None:
        from locm.games.locm.variants import resolve_ruleset  # a built-in name or alias, a variant file, or Rules

        self._game = engine_game.Game.new(resolve_ruleset(ruleset), seed, params, agents)
        self._chosen: list[int] = []  # constructed: the cards chosen so far by the player to move

    @classmethod
    def from_log(cls, events) -> "Game":
        """Continue a game from its event log (of any schema)."""
        g = cls.__new__(cls)
        g._game = engine_game.Game.from_log(events)
        g._chosen = []
        return g

    @classmethod
    def from_position(cls, position: str, *, db=None) -> "Game":
        """Continue from a position string (`locm position`): a full one by itself, a redacted one from ``db``,
        the store that holds its game (`engine.position`)."""
        from locm.tournament.continued import rebuilt

        return cls._of(rebuilt(position, db=db))

    @classmethod
    def from_stored(cls, db, game_id: str, seq: int) -> "Game":
        """Continue from stored game ``game_id`` (an id or a unique prefix of one) in ``db`` after event ``seq``
        (the end of the decision holding it, as `locm play --from` takes it)."""
        from locm.tournament.continued import rebuilt

        return cls._of(rebuilt(None, game_id, seq, db))

    @classmethod
    def _of(cls, found) -> "Game":
        game, _, match = found
        if game.name != "locm":
            raise LocmError(f"the position is of {game.title}: locm.Game plays Legends of Code and Magic")
        g = cls.__new__(cls)
        g._game = match
        g._chosen = []
        return g

    # --- reading ------------------------------------------------------------------------------------------

    @property
    def log(self) -> tuple:
        """The events so far (immutable values; the tuple is a copy)."""
        return tuple(self._game.log)

    @property
    def rules(self) -> Rules:
        return self._game.rules

    @property
    def phase(self) -> str:
        return self._game.phase

    @property
    def to_move(self) -> int:
        return self._game.to_move

    @property
    def turn(self) -> int:
        return self._game.state.turn

    @property
    def ended(self) -> bool:
        return self._game.ended

    @property
    def chosen(self) -> tuple[int, ...]:
        """Constructed: the cards chosen so far for the deck of the player to move."""
        return tuple(self._chosen)

    def outcome(self) -> Outcome | None:
        """Who won, how and in which turn (``turns``: `GameEnded.turn`); None while the game goes on."""
        last = self._game.log[-1]
        return Outcome(last.winner, last.reason, last.turn) if type(last) is GameEnded else None

    def view(self, player: int | None = None) -> dict:
        """The board as `locm show --json` gives it: `player` 0 or 1 sees what that player could see; None
        shows everything."""
        from locm.engine.locm.views import view

        return view(self._game.state, player)

    def input_for(self, player: int) -> str:
        """The exact text the referee would send `player` now."""
        return self._game.input_for(player)

    # --- acting -------------------------------------------------------------------------------------------

    def legal_actions(self) -> tuple:
        """Every action the player to move may play now (empty once the game is over)."""
        state = self._game.state
        phase = state.phase
        if phase == BATTLE:
            return self._game.legal_actions() + (EndTurn(),)
        if phase == DRAFT:
            return tuple(Pick(state.current, i) for i in range(len(state.offer)))
        if phase == CONSTRUCT:
            limit = state.rules.max_copies
            return tuple(Choose(b) for b in sorted(state.cards) if self._chosen.count(b) < limit)
        return ()

    def play(self, action) -> list:
        """Play one legal action (or its text: see the module docstring); returns the events it caused (none
        for a `Choose` that does not complete the deck)."""
        if isinstance(action, str):
            events: list = []
            for item in [a.strip() for a in action.split(";") if a.strip()] or [action]:
                events += self.play(self.parse(item))
            return events
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(action, self._why(action))
        if type(action) is Choose:
            self._chosen.append(action.base_id)
            if len(self._chosen) < self._game.rules.deck_size:
                return []
            deck, self._chosen = tuple(self._chosen), []
            return self._game.submit(BuildDeck(self._game.to_move, deck))
        return self._game.submit(action)

    def parse(self, text: str):
        """The action a text names in the current phase (`IllegalActionError` if it names none)."""
        verb, *args = text.split()
        phase, player = self._game.phase, self._game.to_move
        try:
            numbers = [int(a) for a in args]
            if phase == BATTLE and verb in ("SUMMON", "ATTACK", "USE") and len(numbers) == 2:
                return {"SUMMON": Summon, "ATTACK": Attack, "USE": Use}[verb](*numbers)
            if phase == BATTLE and verb == "PASS" and not numbers:
                return EndTurn()
            if phase == DRAFT and verb == "PICK" and len(numbers) == 1:
                return Pick(player, numbers[0])
            if phase == CONSTRUCT and verb == "CHOOSE" and len(numbers) == 1:
                return Choose(numbers[0])
        except ValueError:
            pass
        expected = {BATTLE: "SUMMON id lane, ATTACK id target, USE id target or PASS", DRAFT: "PICK 0..2",
                    CONSTRUCT: "CHOOSE baseId"}.get(phase, "nothing: the game is over")
        raise IllegalActionError(text, f"expected {expected} in the {phase} phase")

    def undo(self) -> None:
        """Take back the last action: a pending `Choose`, or the last recorded input and all it caused."""
        if self._chosen:
            self._chosen.pop()
            return
        log = self._game.log
        k = engine_game.last_input(log)
        if k == 0:
            raise LocmError("nothing to undo: no action has been played")
        kept = log[:k]
        self._game = engine_game.Game(fold(kept), list(kept))

    def _why(self, action) -> str:
        state = self._game.state
        if state.phase == ENDED:
            return "the game is over"
        if type(action) in (Summon, Attack, Use):
            return problem(state, action) or "not an action of this phase"
        if type(action) is Choose and state.phase == CONSTRUCT:
            if action.base_id not in state.cards:
                return f"card {action.base_id} is not in the pool (0..{len(state.cards) - 1})"
            return f"the deck already holds {state.rules.max_copies} copies of card {action.base_id}"
        if type(action) is Pick and state.phase == DRAFT:
            return f"player {state.current} picks one of 0..{len(state.offer) - 1}"
        return f"not an action of the {state.phase} phase"

    def __repr__(self) -> str:
        s = self._game.state
        head = f"<locm.Game {s.rules.name} seed={self._game.created.seed}"
        if s.phase == ENDED:
            o = self.outcome()
            body = f"over: player {o.winner} won by {o.reason} in turn {o.turns}" if o else "over"
        elif s.phase == BATTLE:
            p0, p1 = s.players
            body = (f"battle turn {s.turn}, P{s.current} to move; P0 {p0.health} hp {p0.mana}/{p0.max_mana} "
                    f"mana, P1 {p1.health} hp {p1.mana}/{p1.max_mana} mana")
        elif s.phase == DRAFT:
            body = f"draft round {s.round}, P{s.current} to pick"
        else:
            body = f"construct, P{s.current} to choose ({len(self._chosen)}/{s.rules.deck_size} chosen)"
        return f"{head} {body} | {len(self._game.log)} events>"


def _text(action) -> str:
    if isinstance(action, str):
        return repr(action)
    text = getattr(action, "text", None)
    return text() if callable(text) else repr(action)


__all__ = ["Game", "Choose", "Outcome", "IllegalActionError", "Pick", "Summon", "Attack", "Use", "EndTurn",
           "Command"]
