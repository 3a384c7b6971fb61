"""External bots: a command line that plays a game one line each way (`BotAgent`), its time limits
(`TimeLimits`) and how an agent given on the command line is read (`is_builtin`, `command_argv`, `check_agent`).

An agent is one of the game's built-in names (`GameDef.agent_names`) or a command line, as LOCM's official
referee takes ``-p1 "python3 bot.py"``: any string that is not a built-in name is a command, split with
`shlex.split`. The bot is one long-lived process for the whole game (`locm.runner.botprocess.BotProcess`: started
with `BotAgent.start`, or at its first turn; sandboxed, killed and reaped there). At each of its turns it is sent
``match.input_for(seat)`` on stdin and must answer one line on stdout, which is played with ``match.answer(seat,
line)`` (`engine.seam.Match`); a line the game's protocol parser rejects is a hard error recorded by the rules
themselves. Lines written ahead stay buffered for the next turn, as with the referee's pipe.

Time limits (`TimeLimits`, in milliseconds) are the LOCM referee's by default, by the name of the phase the
match is in (``match.state.phase``): draft 1000 for a player's first pick and 100 after; construct 4000 for the
deck; battle 1000 for each player's first turn and 200 after; a phase with no limit of its own (another game's)
has the battle's. The clock runs from the moment the input starts to be written until the answer's newline is
read. `TimeLimits.parse` reads ``--timeouts``: a multiplier (``x3``) and/or explicit values (``battle=500``).

A bot that misses its time limit, exits, crashes, closes its output, writes an answer that is not UTF-8 or
more than `LINE_LIMIT` bytes without a newline loses by ``match.forfeit(seat, reason)``, the reason its
process's (`locm.runner.botprocess`). Reads and writes are non-blocking, multiplexed with `selectors`, so a
limit is enforced to the millisecond without busy waiting and a bot that never reads its input cannot block
the runner.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import selectors
import shlex
import shutil
import time
from typing import Any, Collection

from locm.errors import AgentSpecError, TimeLimitError
from locm.runner.botprocess import FLOOD, LINE_LIMIT, NOT_UTF8, READ_CHUNK, STDERR_KEEP, TIMEOUT, BotProcess
from locm.runner.sandbox.bwrap import Sandbox


def lost_by(error: bool, timeout: bool) -> str:
    """How a seat that lost outside the rules lost, in the words every command says it with (``play``'s summary,
    ``games --stderr``): "a timeout", "an error", or "" for a seat that did not."""
    return "a timeout" if timeout else "an error" if error else ""


# --- time limits ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TimeLimits:
    """Milliseconds a bot has to answer, by phase; ``*_first`` is a player's first turn of that phase."""

    draft_first: float = 1000.0
    draft: float = 100.0
    construct: float = 4000.0
    battle_first: float = 1000.0
    battle: float = 200.0

    def limit_ms(self, phase: str, first: bool) -> float:
        """The limit of an answer in ``phase``: the field named after the phase, its ``_first`` field for a
        player's first answer of the phase where it has one; a phase with no field (another game's) has the
        battle's."""
        name = phase if phase in _PHASES else "battle"
        if first and name + "_first" in _FIELDS:
            name += "_first"
        return getattr(self, name)

    def scaled(self, factor: float) -> "TimeLimits":
        return TimeLimits(**{k: v * factor for k, v in self.as_dict().items()})

    def as_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)

    @classmethod
    def parse(cls, spec: str | None) -> "TimeLimits":
        """``None``/empty: the referee's limits. Otherwise comma-separated items: a multiplier of the
        defaults (``x2``, ``2``, ``0.5x``) and/or ``name=milliseconds`` with a name among the fields
        (``draft_first``, ``draft``, ``construct``, ``battle_first``, ``battle``). Explicit values are not
        multiplied: ``x2,battle=500`` doubles every limit but the battle's."""
        if not spec or not spec.strip():
            return cls()
        factor, explicit = 1.0, {}
        names = {f.name for f in dataclasses.fields(cls)}
        for item in (i.strip() for i in spec.split(",")):
            if not item:
                continue
            name, sep, value = item.partition("=")
            if sep:
                name = name.strip().replace("-", "_")
                if name not in names:
                    raise TimeLimitError(spec, f"unknown limit {name!r}, expected one of {', '.join(sorted(names))}")
                explicit[name] = _positive(spec, value.strip().removesuffix("ms"))
            else:
                factor = _positive(spec, item.strip("xX* "))
        return dataclasses.replace(cls().scaled(factor), **explicit)


def _positive(spec: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise TimeLimitError(spec, f"expected a positive number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > 1e7:
        raise TimeLimitError(spec, f"expected a positive number up to 10000000, got {text!r}")
    return value


_FIELDS = frozenset(f.name for f in dataclasses.fields(TimeLimits))
_PHASES = frozenset(n for n in _FIELDS if not n.endswith("_first"))


# --- agent specs ------------------------------------------------------------------------------------------


def is_builtin(spec: str, names: Collection[str]) -> bool:
    """Whether `spec` is one of a game's built-in agents (`names`: its `GameDef.agent_names`), not a command line."""
    return spec in names


def command_argv(spec: str, builtins: Collection[str] = ()) -> list[str]:
    """The argv of a command-line agent; `AgentSpecError` if it does not parse or its program is missing (the
    message names the game's built-in agents, `builtins`)."""
    expected = tuple(builtins)
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise AgentSpecError(spec, f"the command line does not parse: {exc}", expected) from None
    if not argv:
        raise AgentSpecError(spec, "the command line is empty", expected)
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            raise AgentSpecError(spec, f"no file {program!r}", expected)
        if not os.access(program, os.X_OK):
            raise AgentSpecError(spec, f"{program!r} is not executable", expected)
    elif shutil.which(program) is None:
        raise AgentSpecError(spec, f"no program {program!r} on the PATH", expected)
    return argv


def agent_files(spec: str, builtins: Collection[str] = ()) -> list[str]:
    """The files a command-line agent's command names (its program if given by path, its arguments that are
    files), as absolute paths: what another bot's sandbox must not show. None for a built-in (one of `builtins`)."""
    if is_builtin(spec, builtins):
        return []
    return [os.path.abspath(a) for a in command_argv(spec, builtins) if os.path.isfile(a)]


def check_agent(spec: str, builtins: Collection[str]) -> str:
    """`spec` if it names an agent that can be made (one of the game's `builtins` or a runnable command line),
    else raise `AgentSpecError`."""
    if not is_builtin(spec, builtins):
        command_argv(spec, builtins)
    return spec


# --- timing -----------------------------------------------------------------------------------------------

_TURNS = 0


def turns_taken() -> int:
    """Turns played by every agent in this process so far (a worker's heartbeat reports it as progress)."""
    return _TURNS


def count_turn(agent: Any, ms: float) -> None:
    """One turn of `agent` taken in `ms` milliseconds: its ``turns``, ``think_ms_total`` and ``think_ms_max``,
    and this process's count (`turns_taken`)."""
    global _TURNS
    _TURNS += 1
    agent.turns += 1
    agent.think_ms_total += ms
    agent.think_ms_max = max(agent.think_ms_max, ms)
    kept = getattr(agent, "turn_ms", None)
    if kept is not None and len(kept) < TURNS_KEPT:
        kept.append(ms)


TURNS_KEPT = 500
"""A bot's think time is kept turn by turn (``turn_ms``, the game's meta ``think_turn_ms``) for this many turns."""


# --- the bot ----------------------------------------------------------------------------------------------


class BotAgent(BotProcess):
    """An external program playing one game one line each way (see the module docstring)."""

    def __init__(self, command: str, limits: TimeLimits | None = None, *, sandbox: Sandbox | None = None,
                 line_limit: int = LINE_LIMIT, stderr_keep: int = STDERR_KEEP) -> None:
        super().__init__(command, command_argv(command), sandbox=sandbox, line_limit=line_limit,
                         stderr_keep=stderr_keep)
        self.limits = limits or TimeLimits()
        self.think_ms_total = 0.0
        self.think_ms_max = 0.0
        self.turn_ms: list[float] = []  # each turn's think time (`count_turn`), the first `TURNS_KEPT`
        self._asked: dict[str, int] = collections.defaultdict(int)  # answers asked for, by phase
        self._out = bytearray()  # stdout read but not yet answered with
        self._pending = bytearray()  # input not yet written

    def play_turn(self, game, player: int) -> None:
        self.start(game.rules)
        phase = game.state.phase
        first = self._asked[phase] == 0
        self._asked[phase] += 1
        if self.failure is None:
            limit = self.limits.limit_ms(phase, first)
            self._pending += game.input_for(player).encode()
            t0 = time.monotonic()
            line = self._exchange(t0 + limit / 1000.0)
            count_turn(self, (time.monotonic() - t0) * 1000.0)
            if line is not None:
                game.answer(player, line)
                return
        self.stop()
        game.forfeit(player, self.failure, self._partial())

    def receive_input(self, text: str, phase: str) -> None:
        """An input the referee sends after the game is over (`Game.owed_input`: player 1's draft or construct
        input when player 0's answer of that round lost). It is written to the bot, and its answer is waited
        for within the phase's limit, then dropped, as the referee never reads it; nothing here changes the
        game or the bot's record."""
        if self.proc is None or self.failure is not None:
            return
        first = self._asked[phase] == 0
        self._asked[phase] += 1
        self._pending += text.encode()
        self._exchange(time.monotonic() + self.limits.limit_ms(phase, first) / 1000.0)
        self.failure, self.timed_out = None, False

    def _partial(self) -> str:
        """What the bot had written of its answer when it failed (for the record), cut to 200 characters."""
        text = bytes(self._out[:200]).decode("utf-8", "replace")
        return text + ("..." if len(self._out) > 200 else "")

    def _exchange(self, deadline: float) -> str | None:
        """Write the pending input and read one answer line before `deadline` (monotonic seconds); None
        with ``self.failure`` set if the bot fails."""
        sel, proc = self._sel, self.proc
        stdin = proc.stdin.fileno()
        writing = False
        try:
            while True:
                line = self._take_line()
                if line is not None or self.failure is not None:
                    return line
                if self._pending and not writing:
                    sel.register(stdin, selectors.EVENT_WRITE, "in")
                    writing = True
                timeout = deadline - time.monotonic()
                if timeout <= 0:
                    self.failure, self.timed_out = TIMEOUT, True
                    return None
                for key, _ in sel.select(timeout):
                    if key.data == "out":
                        chunk = os.read(key.fd, READ_CHUNK)
                        if not chunk:
                            self._ended()
                        self._out += chunk
                    elif key.data == "err":
                        chunk = os.read(key.fd, READ_CHUNK)
                        if chunk:
                            self._keep_stderr(chunk)
                        else:
                            sel.unregister(key.fd)
                    else:
                        try:
                            del self._pending[:os.write(stdin, self._pending)]
                        except BlockingIOError:
                            pass
                        except BrokenPipeError:  # it closed its input: it exited or is about to
                            self._ended()
                        if not self._pending:
                            sel.unregister(stdin)
                            writing = False
        finally:
            if writing:
                sel.unregister(stdin)

    def _take_line(self) -> str | None:
        out = self._out
        end = out.find(b"\n", 0, self.line_limit + 1)
        if end < 0:
            if len(out) > self.line_limit:
                self.failure = FLOOD
            return None
        raw = bytes(out[:end]).removesuffix(b"\r")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.failure = NOT_UTF8
            return None
        del out[:end + 1]
        return line


__all__ = ["TimeLimits", "BotAgent", "check_agent", "command_argv", "is_builtin", "agent_files", "turns_taken",
           "count_turn", "lost_by"]
