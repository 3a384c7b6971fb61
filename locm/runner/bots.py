"""External bots: a command line that plays the official referee protocol, as an `engine.locm.agents.Agent`.

An agent is a built-in name (`random`, `pass`, `greedy`) or a command line, as the official referee takes
``-p1 "python3 bot.py"``: any string that is not a built-in name is a command, split with `shlex.split`.
The bot is one long-lived process for the whole game (started with `BotAgent.start`, or at its first turn).
At each of its turns it is sent ``game.input_for(player)`` on stdin and must answer one line on stdout,
which is played with ``game.answer(player, line)``; a line the protocol parser rejects is a hard error
recorded by the engine itself. Lines written ahead stay buffered for the next turn, as with the referee's
pipe.

Time limits (`TimeLimits`, in milliseconds) are the referee's by default: 1.2 draft 1000 for a player's first
pick and 100 after; constructed 4000 for the deck; battle 1000 for each player's first turn and 200 after.
The clock runs from the moment the input starts to be written until the answer's newline is read.
`TimeLimits.parse` reads ``--timeouts``: a multiplier (``x3``) and/or explicit values (``battle=500``).

A bot that misses its time limit, exits, crashes, closes its output, writes an answer that is not UTF-8 or
more than `LINE_LIMIT` bytes without a newline loses by ``game.forfeit(player, reason)``; the reason is one
of `TIMEOUT`, `EXITED`, `FLOOD`, `NOT_UTF8`, ``crashed (exit N)``, ``crashed (signal NAME)``, ``memory limit``
(it ended when its cgroup's memory reached the limit: `locm.runner.sandbox.cgroup`), ``closed its output`` or
``cannot start (...)``. The last `STDERR_KEEP` bytes of its stderr are kept (`BotAgent.stderr`).

Processes: by default a bot runs in the sandbox (`locm.runner.sandbox.bwrap`: bubblewrap, its own PID, network, IPC and
mount namespaces, a read-only view of what its command needs, an unprivileged uid, resource limits). The
sandbox is started in a new session and killed with SIGKILL by `BotAgent.stop` at the end of every game,
whatever ended it (the game runner calls it in a ``finally``); everything the bot started is in its PID
namespace and dies with it, and `stop` returns once the namespace's first process is gone. The sandbox
also dies with the process that started it (``--die-with-parent``). In a tournament's workers the sandbox is
kept for the bot's next game (`locm.runner.sandbox.kept`, run by root or, where it works, by a user): `start` asks
its launcher to start the bot afresh, `kill` and `stop` to end the game and confirm that nothing of it is
left. A sandbox ends with the bot's exit status, or 128 + N when a signal N killed the bot (as a shell
reports it): such a status is recorded as ``crashed (signal NAME)``.

Unsandboxed (`Sandbox.enabled` False, ``--no-sandbox``: only for bots one trusts), the bot runs as the
caller, in a new session, killed with SIGKILL with its process group; it dies when its parent does
(``setpriv --pdeathsig``); a descendant that leaves the group (``setsid``, a double fork) is found by a
token in its environment (`TOKEN_VAR`) and killed, and the process running the games is a child subreaper
(Linux ``prctl``) so that such orphans are reaped. A descendant that both leaves the group and clears its
environment is not found: only the sandbox's PID namespace makes that certain.

Bots that are running are listed in a module-level set so that a worker that is told to die can kill them
all (`kill_all`). Reads and writes are non-blocking, multiplexed with `selectors`, so a limit is enforced
to the millisecond without busy waiting and a bot that never reads its input cannot block the runner.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import time
import uuid
from typing import TYPE_CHECKING

import msgspec

from locm.engine.locm.agents import AGENT_NAMES, Agent, make_agent as make_builtin
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT
from locm.errors import AgentSpecError, TimeLimitError
from locm.runner.processes import wait_gone as _wait_gone
from locm.runner.sandbox import kept as sandbox_kept
from locm.runner.sandbox import cgroup as sandbox_cgroup
from locm.runner.sandbox.bwrap import Sandbox, bot_environment, build, child_pid, wait_child_pid

if TYPE_CHECKING:
    from locm.events.locm.rules import Rules

LINE_LIMIT = 64 * 1024
"""Bytes an answer line may have; more output than this without a newline is an output flood."""
STDERR_KEEP = 16 * 1024
"""Bytes of a bot's stderr kept for the game record (the tail). The store keeps at most 8192 characters."""
READ_CHUNK = 64 * 1024
EXIT_GRACE_S = 0.5
"""How long a bot whose stdout closed is given to exit before it is said to have closed its output."""

TIMEOUT = "timeout"
EXITED = "exited"
FLOOD = "output flood"
NOT_UTF8 = "not UTF-8"
CLOSED = "closed its output"


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
        if phase == DRAFT:
            return self.draft_first if first else self.draft
        if phase == CONSTRUCT:
            return self.construct
        if phase == BATTLE:
            return self.battle_first if first else self.battle
        return self.battle_first if first else self.battle  # another game's phase: a battle's limits

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


# --- agent specs ------------------------------------------------------------------------------------------


def is_builtin(spec: str) -> bool:
    return spec in AGENT_NAMES


def command_argv(spec: str) -> list[str]:
    """The argv of a command-line agent; `AgentSpecError` if it does not parse or its program is missing."""
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise AgentSpecError(spec, f"the command line does not parse: {exc}", AGENT_NAMES) from None
    if not argv:
        raise AgentSpecError(spec, "the command line is empty", AGENT_NAMES)
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            raise AgentSpecError(spec, f"no file {program!r}", AGENT_NAMES)
        if not os.access(program, os.X_OK):
            raise AgentSpecError(spec, f"{program!r} is not executable", AGENT_NAMES)
    elif shutil.which(program) is None:
        raise AgentSpecError(spec, f"no program {program!r} on the PATH", AGENT_NAMES)
    return argv


def agent_files(spec: str) -> list[str]:
    """The files a command-line agent's command names (its program if given by path, its arguments that are
    files), as absolute paths: what another bot's sandbox must not show. None for a built-in."""
    if is_builtin(spec):
        return []
    return [os.path.abspath(a) for a in command_argv(spec) if os.path.isfile(a)]


def check_agent(spec: str) -> str:
    """`spec` if it names an agent that can be made (a built-in or a runnable command line), else raise."""
    if not is_builtin(spec):
        command_argv(spec)
    return spec


def make_agent(spec: str, seed: int = 0, limits: "TimeLimits | None" = None,
               sandbox: Sandbox | None = None) -> Agent:
    """A built-in agent seeded with `seed`, or a `BotAgent` for a command line (not started yet), run in
    `sandbox` (by default: the sandbox with the default limits)."""
    if is_builtin(spec):
        return make_builtin(spec, seed)
    return BotAgent(spec, limits or TimeLimits(), sandbox=sandbox)


# --- timing any agent -------------------------------------------------------------------------------------


class TimedAgent(Agent):
    """A built-in agent with its think time measured like a bot's (turns, total and max milliseconds)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.turns = 0
        self.think_ms_total = 0.0
        self.think_ms_max = 0.0

    def play_turn(self, game, player: int) -> None:
        t0 = time.perf_counter()
        self.inner.play_turn(game, player)
        _count(self, (time.perf_counter() - t0) * 1000.0)

    @property
    def native_inner(self) -> Agent:
        """The agent the native core plays (`locm.engine.locm.native`): a whole game at once, timed turn by turn."""
        return self.inner

    def native_played(self, turn_ms: "list[float]") -> None:
        for ms in turn_ms:
            _count(self, ms)


_TURNS = 0


def turns_played() -> int:
    """Turns played by every agent in this process so far (a worker's heartbeat reports it as progress)."""
    return _TURNS


def _count(agent, ms: float) -> None:
    global _TURNS
    _TURNS += 1
    agent.turns += 1
    agent.think_ms_total += ms
    agent.think_ms_max = max(agent.think_ms_max, ms)


# --- the bot process --------------------------------------------------------------------------------------

_LIVE: set["BotAgent"] = set()
TOKEN_VAR = "LOCM_BOT_TOKEN"
"""The environment variable that marks a bot and every process it starts."""
RULES_VAR = "LOCM_RULES"
"""The environment variable that tells a bot the game's rules: the `Rules` values of its `game_created` as
JSON (``lane_size``, ``deck_size``, ``max_copies``, ...), since the protocol never says them; a bot under the
official referee finds it unset and plays the official values."""
_subreaper = False


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): orphaned descendants of its
    bots are re-parented to it instead of init, so that it can reap them. False where not available."""
    global _subreaper
    if not _subreaper:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def _carriers(token: bytes) -> list[int]:
    """The pids of the live processes whose environment holds ``token``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if token in f.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:
                pass
    return found


def _orphan_zombies(known: set[int]) -> list[int]:
    """This process's children that are zombies and not in ``known`` (orphans re-parented to a subreaper)."""
    me, found = os.getpid(), []
    try:
        children = {int(p) for t in os.scandir(f"/proc/{me}/task")
                    for p in open(f"/proc/{me}/task/{t.name}/children").read().split()}
    except OSError:
        return []
    for pid in children - known:
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] == "Z":
            found.append(pid)
    return found


def reap_escaped(token: str, killed: set[int] | None = None, deadline_s: float = 2.0) -> None:
    """Kill every process carrying the bot ``token`` and reap those re-parented to this process, until each
    one killed (here or before, ``killed``) is gone (or ``deadline_s`` passes)."""
    marker = f"{TOKEN_VAR}={token}".encode()
    known = {b.proc.pid for b in _LIVE if b.proc is not None}
    end = time.monotonic() + deadline_s
    killed = set(killed or ())
    while True:
        found = _carriers(marker)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        for pid in _orphan_zombies(known) if _subreaper else ():
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        killed = {pid for pid in killed if os.path.exists(f"/proc/{pid}")}
        # Done only when a whole scan finds no carrier: a process forked just before its parent was killed
        # shows up in the next scan, not in the one that killed the parent.
        if (not found and not killed) or time.monotonic() >= end:
            return
        time.sleep(0.005)


def _unconfined(argv: list[str]) -> list[str]:
    """An unsandboxed bot's command: under ``setpriv --pdeathsig KILL`` where util-linux has it, so that
    the bot dies with the process that started it."""
    setpriv = _setpriv_pdeathsig()
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)


@functools.lru_cache(maxsize=None)
def _setpriv_pdeathsig() -> str | None:
    path = shutil.which("setpriv")
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "--pdeathsig", "KILL", "--", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if ok.returncode == 0 else None


def _exec_failure(stderr: bytes) -> str | None:
    """What ``prlimit``, ``setpriv`` or a kept sandbox's launcher said when it could not run the bot's program
    (`failed to execute`)."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        for tool in ("prlimit: ", "setpriv: ", "locm-launcher: "):
            if line.startswith(tool) and "failed to execute" in line:
                return line[len(tool):].strip()
    return None


def kill_all() -> None:
    """Kill the process group of every bot still running in this process, and every kept sandbox (for a
    worker told to die)."""
    for bot in list(_LIVE):
        if bot.kept is None:
            bot.kill()
    sandbox_kept.kill_all()


class _KeptPipes:
    """This side of a bot's pipes in a kept sandbox, where `BotAgent` has a `subprocess.Popen` otherwise."""

    pid = None
    returncode = None

    def __init__(self, stdin: int, stdout: int, stderr: int) -> None:
        self.stdin = open(stdin, "wb", buffering=0)
        self.stdout = open(stdout, "rb", buffering=0)
        self.stderr = open(stderr, "rb", buffering=0)


class BotAgent(Agent):
    """An external program playing one game through the referee protocol (see the module docstring)."""

    def __init__(self, command: str, limits: TimeLimits | None = None, *, sandbox: Sandbox | None = None,
                 line_limit: int = LINE_LIMIT, stderr_keep: int = STDERR_KEEP) -> None:
        self.command = self.name = command
        self.argv = command_argv(command)
        self.limits = limits or TimeLimits()
        self.sandbox = Sandbox() if sandbox is None else sandbox
        self.sandbox_pid: int | None = None  # the host pid of the sandbox's first process, once known
        self._info = -1  # where bwrap writes that pid
        self._block = -1  # a prepared sandbox waits for a byte here before it runs the bot
        self.line_limit = line_limit
        self.stderr_keep = stderr_keep
        self.proc: subprocess.Popen | None = None
        self.token = ""  # set at start: marks the bot's process and its descendants (TOKEN_VAR)
        self._killed: set[int] = set()  # descendants outside the group killed by `kill`, to be reaped
        self.failure: str | None = None  # why this bot lost outside the protocol, once it has
        self.timed_out = False
        self.turns = 0
        self.think_ms_total = 0.0
        self.think_ms_max = 0.0
        self._asked: dict[str, int] = collections.defaultdict(int)  # answers asked for, by phase
        self._sel: selectors.BaseSelector | None = None
        self._out = bytearray()  # stdout read but not yet answered with
        self._pending = bytearray()  # input not yet written
        self._err = bytearray()  # the tail of stderr
        self._err_total = 0
        self._exit: tuple[int, int] | None = None  # (si_code, si_status) once seen, before the reaping
        self.kept: sandbox_kept.KeptSandbox | None = None  # the kept sandbox running this game, if one does
        self.cgroup: sandbox_cgroup.BotCgroup | None = None  # the bot's own cgroup (a sandbox of its own)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    # --- lifecycle ----------------------------------------------------------------------------------------

    def prepare(self, rules: "Rules | None" = None) -> None:
        """Make the bot's sandbox ready without running the bot (bubblewrap's ``--block-fd``: it waits before
        running the command), so that `start` only has to let it go: a worker prepares the next game's
        sandboxes while it plays the current one. Unconfined, or where sandboxes are kept across games (a
        tournament worker's, `locm.runner.sandbox.kept`: starting a game there is cheap), nothing is done before
        `start`."""
        if sandbox_kept.keeping(self.sandbox):
            return
        if self.proc is None and self.failure is None and self.sandbox.enabled:
            self._spawn(rules, blocked=True)

    def start(self, rules: "Rules | None" = None) -> None:
        """Start the process (once), with the game's `rules` in its environment (`RULES_VAR`), or let a
        prepared sandbox (made with the same rules) run it. A program that cannot be started makes the bot
        lose at its first turn."""
        if self.proc is None and self.failure is None:
            self._spawn(rules, blocked=False)
        if self._block >= 0:
            try:
                os.write(self._block, b"\n")
            except OSError:  # the sandbox is gone already: the first turn finds out how
                pass
            os.close(self._block)
            self._block = -1

    def _spawn(self, rules: "Rules | None", blocked: bool) -> None:
        become_subreaper()  # a sandbox's first process outliving bwrap, or an unconfined orphan, is reaped here
        if sandbox_kept.keeping(self.sandbox):
            self._spawn_kept(rules)
            return
        if self.sandbox.enabled:
            self.cgroup = sandbox_cgroup.make(self.sandbox.limits.mem, self.sandbox.limits.procs)
        launch = build(self.argv, self.sandbox, counted=self.cgroup is not None) if self.sandbox.enabled else None
        told = {RULES_VAR: msgspec.json.encode(rules).decode()} if rules else {}
        gate = -1
        if launch is None:
            self.token = uuid.uuid4().hex
            argv, env, fds = _unconfined(self.argv), {**os.environ, TOKEN_VAR: self.token, **told}, ()
        else:
            argv, env, fds = launch.argv, {**launch.env, **told}, launch.pass_fds
            if blocked or self.cgroup is not None:  # the bot runs once its sandbox is in its cgroup
                gate, self._block = os.pipe()
                argv = argv[:1] + ["--block-fd", str(gate)] + argv[1:]
                fds = fds + (gate,)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, bufsize=0, start_new_session=True, env=env,
                                         pass_fds=fds)
        except OSError as exc:
            self.failure = f"cannot start ({exc.strerror or exc})"
            if launch is not None:
                launch.close()
            self._remove_cgroup()
            return
        finally:
            if gate >= 0:
                os.close(gate)
        if launch is not None:
            launch.started()
            self._info = launch.info
        _LIVE.add(self)
        if self.cgroup is not None:
            self._enter_cgroup(release=not blocked)
        sel = self._sel = selectors.DefaultSelector()
        for stream, tag in ((self.proc.stdout, "out"), (self.proc.stderr, "err")):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, tag)
        os.set_blocking(self.proc.stdin.fileno(), False)

    def _enter_cgroup(self, release: bool) -> None:
        """Move the sandbox's first process (waiting on ``--block-fd``: the bot has not run) into the bot's
        cgroup, then let it go on (``release``) or leave that to `start`. A sandbox that does not say its pid
        in time, or that cannot be moved, does not run: the bot cannot start."""
        self.sandbox_pid = wait_child_pid(self._info, 5.0)
        try:
            if self.sandbox_pid is None:
                raise OSError("bubblewrap did not say its sandbox's pid")
            self.cgroup.add(self.sandbox_pid)
        except OSError as exc:
            self.failure = f"cannot start (its cgroup: {exc.strerror or exc})"
            os.close(self._block)
            self._block = -1
            self.kill()
            return
        if release:
            os.write(self._block, b"\n")
            os.close(self._block)
            self._block = -1

    def _spawn_kept(self, rules: "Rules | None") -> None:
        """Start the bot for this game in a kept sandbox (`locm.runner.sandbox.kept`); a sandbox whose launcher is gone
        is replaced once."""
        env = bot_environment(self.sandbox.limits)
        if rules:
            env[RULES_VAR] = msgspec.json.encode(rules).decode()
        for attempt in (1, 2):
            try:
                box = sandbox_kept.acquire(self.argv, self.sandbox, os.getcwd())
                fds = box.start(env)
            except OSError as exc:
                if attempt == 1 and isinstance(exc, sandbox_kept.KeptSandboxError):
                    sandbox_kept.release(box, clean=False)
                    continue
                self.failure = f"cannot start ({exc.strerror or exc})"
                return
            break
        self.kept = box
        self.proc = _KeptPipes(*fds)
        _LIVE.add(self)
        sel = self._sel = selectors.DefaultSelector()
        for stream, tag in ((self.proc.stdout, "out"), (self.proc.stderr, "err")):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, tag)
        os.set_blocking(self.proc.stdin.fileno(), False)

    def kill(self) -> None:
        """SIGKILL the bot's process group (the sandbox, or the bot and whatever it started); safe to call
        again. In a kept sandbox: its launcher is told to kill everything of the game."""
        if self.kept is not None:
            self.kept.kill()
        if isinstance(self.proc, _KeptPipes):
            return
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        # bubblewrap says the namespace's first process just after it makes it: killed before that, bubblewrap
        # could leave it running on its own (bwrap's --die-with-parent is set by the child: a race), so wait
        # (bounded) for the word, and kill that process itself
        self._learn_sandbox_pid(wait=2.0)
        if self.sandbox_pid is not None:  # the namespace's first process: everything in it dies with it
            try:
                os.kill(self.sandbox_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the leader is not reaped yet, so its group id is still ours
        except (ProcessLookupError, PermissionError):
            pass
        if self.token:
            for pid in _carriers(f"{TOKEN_VAR}={self.token}".encode()):  # those that left the group
                try:
                    os.kill(pid, signal.SIGKILL)
                    self._killed.add(pid)
                except OSError:
                    pass

    def stop(self) -> None:
        """Kill the process group, reap the bot, keep the rest of its stderr, close the pipes; sandboxed, wait
        until the sandbox's PID namespace is gone (everything in it dies with it)."""
        proc = self.proc
        if proc is None:
            return
        if isinstance(proc, _KeptPipes):
            if self.kept is not None:
                self._stop_kept()
            return
        self.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that SIGKILL cannot end
            pass
        self._drain_stderr()
        _LIVE.discard(self)
        if self.token:
            reap_escaped(self.token, self._killed)
        else:
            self._learn_sandbox_pid()
            if self.sandbox_pid is not None:
                _wait_gone(self.sandbox_pid)
        self._remove_cgroup()
        for fd in (self._info, self._block):
            if fd >= 0:
                os.close(fd)
        self._info = self._block = -1
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        _LIVE.discard(self)

    def _stop_kept(self) -> None:
        """End the game in the kept sandbox: wait until its launcher says nothing of it is left (the sandbox is
        then kept for the bot's next game) or destroy the sandbox; keep the rest of the stderr."""
        box, self.kept = self.kept, None
        clean = box.finish()
        sandbox_kept.release(box, clean)
        self._drain_stderr()
        _LIVE.discard(self)
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def _learn_sandbox_pid(self, wait: float = 0.0) -> None:
        """Read the sandbox's first process's host pid from bubblewrap's info pipe, once it is there (waiting up
        to ``wait`` seconds for it)."""
        if self.sandbox_pid is None and self._info >= 0:
            if wait > 0:
                with selectors.DefaultSelector() as sel:
                    sel.register(self._info, selectors.EVENT_READ)
                    sel.select(wait)
            self.sandbox_pid = child_pid(self._info)

    close = stop

    @property
    def stderr(self) -> str:
        """The kept tail of the bot's stderr, as text (undecodable bytes replaced)."""
        text = self._err.decode("utf-8", "replace")
        cut = self._err_total - len(self._err)
        return f"[... {cut} bytes of stderr cut]\n{text}" if cut else text

    # --- a turn -------------------------------------------------------------------------------------------

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
            _count(self, (time.monotonic() - t0) * 1000.0)
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

    def _ended(self) -> None:
        """Its stdout closed (or stdin broke): find out whether it exited and how, without reaping it."""
        if self.failure is not None:
            return
        if self.kept is not None:
            self._ended_kept()
            return
        pid, waited = self.proc.pid, time.monotonic() + EXIT_GRACE_S
        while True:
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is not None and info.si_pid:
                break
            if time.monotonic() >= waited:
                self.failure = self._memory_or(CLOSED)
                return
            time.sleep(0.005)
        self._say_status(info.si_code, info.si_status)

    def _say_status(self, si_code: int, status: int) -> None:
        """The failure of a bot whose process ended with ``status`` (``si_code``: exited or killed)."""
        if si_code == os.CLD_EXITED and status in (126, 127) and self.turns == 0:
            self._drain_stderr()
            said = _exec_failure(bytes(self._err))
            if said:  # the sandbox (or the unconfined wrapper) could not run the bot's program
                self.failure = f"cannot start ({said})"
                return
        if si_code == os.CLD_EXITED and self.sandbox.enabled and 128 < status < 128 + 65:
            status, killed = status - 128, True  # the sandbox reports a bot killed by signal N as 128 + N
        else:
            killed = si_code != os.CLD_EXITED
        memory = self._memory_or(None) if killed or status != 0 else None  # killed for it, or refused more
        if memory is not None:
            self.failure = memory
        elif not killed:
            self.failure = EXITED if status == 0 else f"crashed (exit {status})"
        else:
            try:
                name = signal.Signals(status).name
            except ValueError:
                name = str(status)
            self.failure = f"crashed (signal {name})"

    def _memory_or(self, failure: str | None) -> str | None:
        """`MEMORY_LIMIT` if the bot's cgroup reached its memory limit in this game, else ``failure`` (a bot
        the kernel is still killing for it may close its output before its end is said)."""
        cgroup = self.kept.cgroup if self.kept is not None else self.cgroup
        return sandbox_cgroup.MEMORY_LIMIT if cgroup is not None and cgroup.memory_reached() else failure

    def _ended_kept(self) -> None:
        """`_ended` in a kept sandbox: its launcher says how the game ended (as a sandbox reports it)."""
        status = self.kept.exit_status(time.monotonic() + EXIT_GRACE_S)
        if self.kept.failed is not None:
            self.failure = f"cannot start (its sandbox: {self.kept.failed})"
        elif status is None:
            self.failure = self._memory_or(CLOSED)
        else:
            self._say_status(os.CLD_EXITED, status)

    def _keep_stderr(self, chunk: bytes) -> None:
        self._err_total += len(chunk)
        self._err += chunk
        if len(self._err) > self.stderr_keep:
            del self._err[:len(self._err) - self.stderr_keep]

    def _drain_stderr(self) -> None:
        """Read what is left in the stderr pipe (the process is dead; a grandchild may still hold it)."""
        fd = self.proc.stderr.fileno() if self.proc.stderr and not self.proc.stderr.closed else -1
        for _ in range(64):
            if fd < 0:
                return
            try:
                chunk = os.read(fd, READ_CHUNK)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._keep_stderr(chunk)


__all__ = ["TimeLimits", "BotAgent", "TimedAgent", "make_agent", "check_agent", "command_argv", "is_builtin",
           "agent_files", "turns_played", "kill_all", "become_subreaper", "reap_escaped", "TOKEN_VAR", "RULES_VAR",
           "LINE_LIMIT", "STDERR_KEEP", "TIMEOUT", "EXITED", "FLOOD", "NOT_UTF8", "CLOSED", "lost_by"]
