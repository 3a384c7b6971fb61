"""The application layer's errors (STYLE 9): this module extends the one exception tree rooted at
`engine.errors.LocmError` (re-exported here), so a CLI that catches `LocmError` catches these too.

Every error raised on purpose is a `LocmError`: its message is one line that says what was expected and what
was found, and the offending values are kept as attributes, so a CLI can print ``str(exc)`` and exit without a
traceback, and a test can check both the message and the values.

Add new subclasses below, grouped by module and roughly alphabetical, each with a docstring saying when it
is raised.
"""

from __future__ import annotations

from typing import Sequence

from locm.engine.errors import LocmError  # re-exported: the root of the one tree


def _short(value: object, width: int = 60) -> str:
    """``repr`` of a value, cut to ``width`` characters so a message stays one readable line."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


# --- outputs (locm.common.outputs, the CLI) -----------------------------------------------------------------------


class OutputError(LocmError):
    """An output the CLI was asked to write cannot be written (``path``: what the user named)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)


# --- event store (locm.store.eventstore) -----------------------------------------------------------------------------


class StoreError(LocmError):
    """Base of the event store's errors (`locm.store.eventstore`)."""


class ChainError(StoreError):
    """A stored or imported event's hash does not match the hash recomputed from the chain.

    Raised by ``verify_chain`` and ``export_jsonl`` (and, as `ImportFormatError`, on import): the event or the
    one before it was altered, removed or reordered. ``seq`` is the first wrong event, or -1 when the events
    chain well but do not end at the game's recorded head hash or count; ``what`` is ``hash``, ``seq`` or
    ``event count``.
    """

    def __init__(self, game_id: str, seq: int, expected: object, got: object, what: str = "hash") -> None:
        self.game_id, self.seq, self.expected, self.got, self.what = game_id, seq, expected, got, what
        where = "head of chain" if seq < 0 else f"event {seq}"
        super().__init__(f"game {game_id!r}: {where}: expected {what} {expected}, got {got}")


class CorruptStoreError(StoreError):
    """The store file cannot be read as SQLite: random bytes, a truncated or damaged database.

    Raised when opening (the file is then left untouched) or when a read hits a damaged page or a row that
    does not decode. ``path`` is the file, ``reason`` what was wrong, ``hint`` how to recover what can be read.
    """

    def __init__(self, path: str, reason: str, hint: str = "") -> None:
        self.path, self.reason, self.hint = path, reason, hint
        super().__init__(f"{path}: corrupt event store: {reason[:200]}" + ("..." if len(reason) > 200 else "")
                         + (f"; {hint}" if hint else ""))


class DuplicateEventError(StoreError):
    """The database refused an event row whose ``(game_id, seq)`` is already stored (PRIMARY KEY)."""

    def __init__(self, game_id: str, seq: int | None, detail: str = "") -> None:
        self.game_id, self.seq, self.detail = game_id, seq, detail
        at = f"seq {seq}" if seq is not None else "an event"
        super().__init__(f"game {game_id!r}: {at} is already stored" + (f" ({detail})" if detail else ""))


class DuplicateGameError(StoreError):
    """A game with this ``game_id`` is already in the store (append or import of the same game twice)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id!r} is already stored")


class GameLogError(StoreError):
    """A game's event list cannot be stored: seqs not exactly 0..n-1, or it does not start with
    ``game_created`` and end with ``game_ended``, or an item is not an event.

    ``index`` is the position in the list, ``expected`` and ``got`` what should be there and what is.
    """

    def __init__(self, game_id: str, index: int, expected: object, got: object) -> None:
        self.game_id, self.index, self.expected, self.got = game_id, index, expected, got
        super().__init__(f"game {game_id!r}: event {index}: expected {expected}, got {_short(got)}")


class GameNotFoundError(StoreError):
    """No game with this ``game_id`` is in the store."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"no game {game_id!r} in the store")


class ImportFormatError(StoreError):
    """A JSON-lines import file is malformed, truncated or tampered with; ``line`` is the 1-based line number
    of the first wrong line (one past the last line for a file that ends too early). Nothing of the file is
    written."""

    def __init__(self, line: int, reason: str) -> None:
        self.line, self.reason = line, reason
        super().__init__(f"line {line}: {reason}")


class InvalidRecordError(StoreError):
    """A game record's field has a value the store does not accept (naive timestamp, ``meta`` not JSON,
    negative think time, ...), or an imported record disagrees with what its events say."""

    def __init__(self, game_id: str, field: str, expected: str, got: object) -> None:
        self.game_id, self.field, self.expected, self.got = game_id, field, expected, got
        super().__init__(f"game {game_id!r}: field {field!r}: expected {expected}, got {_short(got)}")


class MigrateError(StoreError):
    """A store cannot be migrated (`locm.store.migrate`): not a schema-1 store, a game that does not check, a file in
    the way. The old store is left as it was."""


class NotAStoreError(StoreError):
    """The file is a readable SQLite database but not a locm event store: other tables, no ``locm_meta``,
    another schema version or a table whose columns differ. The file is left untouched."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"{path}: not a locm event store: {reason}")


class OldStoreError(NotAStoreError):
    """The file is an event store of an older schema that this version reads only after ``locm migrate``
    (`locm.store.migrate`), which converts it keeping the original beside it. The file is left untouched."""

    def __init__(self, path: str, found: int, current: int) -> None:
        self.found, self.current = found, current
        StoreError.__init__(self, f"{path}: an event store of schema {found}; this locm reads schema {current}: "
                                  f"run `locm migrate {path}` to convert it (the original is kept as {path}.v{found})")
        self.path, self.reason = path, f"schema {found}"


class StoreBusyError(StoreError):
    """Another writer held the store's write lock for longer than the busy timeout (``seconds``) allows."""

    def __init__(self, path: str, seconds: float) -> None:
        self.path, self.seconds = path, seconds
        super().__init__(f"{path}: locked by another writer for {seconds:.0f} s, longer than the busy timeout "
                         f"(--busy-timeout or LOCM_BUSY_TIMEOUT, in seconds); nothing was written")


class StoreNotFoundError(StoreError):
    """The store file does not exist (or is empty) and the caller asked not to create one."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: no event store here (expected an existing locm database)")


# --- external bots and tournaments (locm.runner.bots, locm.games.locm.tournament) -------------------------------------------


class UsageProblem(LocmError):
    """Options of a command that do not go together, found by the library (e.g. --sprt with a game that has no
    mirrored seed pairs): the command line shows it as its usage error (`locm.cli.options.usage_errors`)."""


class AgentSpecError(LocmError):
    """An agent given on the command line is neither a built-in name nor a command line that can be run
    (its program is not found or not executable, or the quoting does not parse). ``spec`` is the agent as
    given, ``reason`` what is wrong with it, ``expected`` the game's built-in agents (`GameDef.agent_names`)."""

    def __init__(self, spec: str, reason: str, expected: Sequence[str] = ()) -> None:
        self.spec, self.reason, self.expected = spec, reason, tuple(expected)
        names = ", ".join(expected) if expected else "a built-in agent"
        super().__init__(f"unknown agent {spec!r}: expected {names} or a command line; {reason}")


class TimeLimitError(LocmError):
    """A time-limit specification (``--timeouts``) that does not parse: an unknown name, a value that is not
    a positive number. ``spec`` is the text given."""

    def __init__(self, spec: str, reason: str) -> None:
        self.spec, self.reason = spec, reason
        super().__init__(f"--timeouts {spec!r}: {reason} (expected e.g. 'x2' or 'battle=500,draft=200')")


class TournamentError(LocmError):
    """A tournament that cannot be run as asked (fewer than two agents, the same agent twice, an odd number
    of games, seeds out of range) or whose worker process failed. ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class WorkerPoolError(LocmError):
    """A parallel job's worker processes (`locm.tournament.pool`) could not do it: workers lost again and again before
    they started, or a task whose worker was lost on it as many times as it may start. ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class InputFileError(LocmError):
    """A file given to a command was refused; the message is the file name followed by the reason (for an
    import: the line number and what is wrong on it). ``path`` is the file, ``cause`` the underlying error."""

    def __init__(self, path: str, cause: object) -> None:
        self.path, self.cause = path, cause
        super().__init__(f"{path}: {cause}")


# --- the bot sandbox (locm.runner.sandbox.bwrap) ------------------------------------------------------------------------


class BotLimitsError(LocmError):
    """A resource-limit specification (``--bot-limits``) that does not parse: an unknown name, a value that
    is not a size or a whole number, one below the least a program needs. ``spec`` is the text given."""

    def __init__(self, spec: str, reason: str) -> None:
        self.spec, self.reason = spec, reason
        super().__init__(f"--bot-limits {spec!r}: {reason} (expected e.g. 'mem=1g,procs=64,cpu=30')")


class BotBindError(LocmError):
    """A path given to ``--bot-bind`` that must not be shown to bots: ``/``, a system folder or one inside it
    (``/etc``, ``/usr``, ``/proc``, ``/sys``, ``/dev``, ...), or a folder as broad as ``/home`` or ``/tmp``,
    as given or where a symlink leads. ``path`` is the path given, ``reason`` which rule it broke."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"--bot-bind {path!r}: {reason} (expected a folder or file of your own, e.g. "
                         f"--bot-bind ./models)")


class SandboxUnavailableError(LocmError):
    """External bots were to be run in the sandbox (the default) but this machine cannot make one: bubblewrap
    is missing or the kernel refuses its namespaces. ``reason`` says which and how to fix it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot sandbox external bots: {reason}; or pass --no-sandbox to run them unconfined "
                         "(only for bots you trust)")


# --- the Skyport server (locm.games.skyport.server, locm.games.skyport.netbots) ------------------------------------------------


class ServeError(LocmError):
    """A Skyport game cannot be served as asked: a port or socket that cannot be listened on, a map or a
    number of players that do not go together, a seat that cannot be made. ``what`` names the setting."""

    def __init__(self, message: str, what: str = "") -> None:
        self.what = what
        super().__init__(message)


class JoinError(ServeError):
    """Not every seat joined in time: a client that never connected, never sent an accepted handshake or left
    before choosing its loadout, so the game cannot start. ``missing`` maps each such slot to what it lacked
    (``connection``, ``handshake``, ``loadout``); ``waited`` is the time allowed, in seconds."""

    def __init__(self, missing: dict[int, str], waited: float, detail: str = "") -> None:
        self.missing, self.waited, self.detail = missing, waited, detail
        seats = ", ".join(f"seat {slot}: no {what}" for slot, what in sorted(missing.items()))
        super().__init__(f"the game could not start within {waited:g} s ({seats}){detail}", "join")
