"""Conformance: replay official referee logs through the engine and check every input, byte for byte.

The log format (`shared/conformance/official-*.txt`, one game per line): a JSON object with `errors`,
`outputs` and `summaries`, followed by ` score0 score1 key=value ...` (the game parameters). Both bots
echoed their whole input to stderr, so `errors["0"|"1"][frame]` is the input of that frame, except that the
last line of each echo lacks its trailing space; the 1.5 construct input is split over the player's first two
non-null entries. `outputs[p][frame]` is what the bot answered.
"""

from __future__ import annotations

import contextlib
import gzip
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import msgspec

from locm.engine.errors import LocmError
from locm.events.locm.codec import DECODE_ERRORS, bounded_lines
from locm.engine.locm.game import Game


class ConformanceFileError(LocmError):
    """A conformance file that cannot be read or is not in the official log format (``whole_file``: the file
    is another kind of log altogether, so no line of it is a game)."""

    def __init__(self, message: str, path: str = "", line: int = 0, *, whole_file: bool = False) -> None:
        self.path = path
        self.line = line
        self.whole_file = whole_file
        super().__init__(message)


@dataclass
class LoggedGame:
    index: int
    params: dict
    scores: tuple[int, int]
    turns: list[tuple[int, int, str, str | None]]  # (frame, player, input echo, answer)
    generated_cards: str | None
    ruleset: str

    @property
    def expected_winner(self) -> int:
        return 0 if self.scores[0] > self.scores[1] else 1


@dataclass
class GameResult:
    index: int
    identical: bool
    inputs_checked: int = 0
    winner: int = -1
    expected_winner: int = -1
    frame: int = -1
    player: int = -1
    line: int = 0
    expected: str = ""
    got: str = ""
    message: str = ""
    events: int = 0
    owed_checked: bool = False
    game: Game | None = field(default=None, repr=False)

    def summary(self) -> str:
        if self.identical:
            return (f"game {self.index:02d}: identical ({self.inputs_checked} inputs, winner {self.winner}, "
                    f"{self.events} events)")
        where = f" at frame {self.frame}, player {self.player}" if self.frame >= 0 else ""
        where += f", line {self.line}" if self.line else ""
        text = f"game {self.index:02d}: MISMATCH{where}: {self.message}"
        if self.expected or self.got:
            text += f"\n    expected {self.expected!r}\n    got      {self.got!r}"
        return text


MAX_LINE = 16 << 20
"""The longest line of an official log this reader takes (the official games' lines are below 100 KB)."""
_INT64 = (-(1 << 63), (1 << 63) - 1)


class _OfficialLog(msgspec.Struct):
    """The parts of an official log line's JSON object that are read (the rest is skipped unread)."""

    errors: dict[str, list[str | None]]
    outputs: dict[str, list[str | None]]
    summaries: list[str | None] | None = None


_official_dec = msgspec.json.Decoder(_OfficialLog)


def read_log_file(path: str | Path, on_bad_line: Callable[[ConformanceFileError], None] | None = None
                  ) -> Iterator[LoggedGame]:
    """The games of an official log file (plain or .gz). A line that is not a game log raises
    `ConformanceFileError` naming it, or, with ``on_bad_line``, is passed to it and skipped. A file that is
    another kind of log (an event log, a store export) is refused as a whole, in one error."""
    path = Path(path)
    stdin = str(path) == "-"
    if not stdin and not path.is_file():
        raise ConformanceFileError(f"{path}: no such file", str(path))
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with (contextlib.nullcontext(sys.stdin.buffer) if stdin else opener(path, "rb")) as f:
            n = 0
            for lineno, raw in enumerate(bounded_lines(f, MAX_LINE), 1):
                try:
                    if raw is None:
                        raise ConformanceFileError(f"{path}:{lineno}: longer than {MAX_LINE >> 20} MiB: not an "
                                                   "official game log line", str(path), lineno)
                    line = raw.decode("utf-8")
                    if not line.strip():
                        continue
                    if n == 0:
                        _not_another_kind(line, path, lineno)
                    logged = parse_log_line(line, n, str(path), lineno)
                except ConformanceFileError as exc:
                    if on_bad_line is None or exc.whole_file:
                        raise
                    on_bad_line(exc)
                    n += 1
                    continue
                except UnicodeDecodeError:
                    exc = ConformanceFileError(f"{path}:{lineno}: not UTF-8 text", str(path), lineno)
                    if on_bad_line is None:
                        raise exc from None
                    on_bad_line(exc)
                    n += 1
                    continue
                yield logged
                n += 1
            if n == 0:
                raise ConformanceFileError(f"{path}: no games in the file", str(path))
    except (OSError, EOFError, zlib.error) as exc:
        raise ConformanceFileError(f"{path}: cannot read: {exc}", str(path)) from None


class _Kind(msgspec.Struct):
    type: object = None
    locm_export: object = None


def _not_another_kind(line: str, path: Path, lineno: int) -> None:
    """Refuse, in one error, a file whose first line says it is an event log or a store export."""
    try:
        kind = msgspec.json.decode(line.strip(), type=_Kind)
    except DECODE_ERRORS:
        return
    what = ("an event log (locm play --log): check it with 'locm verify' after 'locm import', or read it with "
            "'locm show'" if kind.type == "game_created" else
            "a store export: 'locm import' it" if kind.locm_export is not None else None)
    if what is not None:
        raise ConformanceFileError(f"{path}: is {what}; conformance reads official referee logs", str(path),
                                   lineno, whole_file=True)


def parse_log_line(line: str, index: int, path: str = "<log>", lineno: int = 0) -> LoggedGame:
    """One game of an official log, or `ConformanceFileError` naming the line and what is wrong with it."""
    where = f"{path}:{lineno}"
    text = line.strip()
    end = text.rfind("}") + 1  # the JSON object, then ' score0 score1 key=value ...' (no braces)
    try:
        obj = _official_dec.decode(text[:end])
        echoes = [obj.errors["0"], obj.errors["1"]]
        answers = [obj.outputs["0"], obj.outputs["1"]]
    except (*DECODE_ERRORS, KeyError) as exc:
        raise ConformanceFileError(f"{where}: not an official game log line ({_short(exc)})", path, lineno) from None
    rest = text[end:].split()
    try:
        scores = (int(rest[0]), int(rest[1]))
        params: dict = {}
        for tok in rest[2:]:
            k, v = tok.split("=", 1)
            params[k] = v
    except (ValueError, IndexError):
        raise ConformanceFileError(f"{where}: expected ' score0 score1 key=value ...' after the JSON object",
                                   path, lineno) from None
    for k, v in params.items():
        if k != "predefinedDraftIds" and not _is_int64(v):
            raise ConformanceFileError(f"{where}: parameter {k}={_short(v)}: expected a 64-bit integer", path,
                                       lineno)
    summaries = obj.summaries or []
    generated = next((s for s in summaries if isinstance(s, str) and s.startswith("Generated cards:")), None)
    ruleset = "constructed" if (generated is not None or "cardGenSeed" in params) else "1.2"
    turns = []
    for p in (0, 1):
        entries = [(f, e, answers[p][f] if f < len(answers[p]) else None)
                   for f, e in enumerate(echoes[p]) if e is not None]
        if ruleset == "constructed" and len(entries) >= 2:
            (f0, e0, a0), (_, e1, _) = entries[0], entries[1]
            entries = [(f0, e0 + e1, a0)] + entries[2:]
        turns += [(f, p, e, a) for f, e, a in entries]
    turns.sort(key=lambda t: t[0])
    return LoggedGame(index, params, scores, turns, generated, ruleset)


def _is_int64(text: str) -> bool:
    try:
        return _INT64[0] <= int(text) <= _INT64[1]
    except ValueError:
        return False


def _short(v: object) -> str:
    text = str(v)
    return text if len(text) <= 80 else text[:77] + "..."


def game_params(logged: LoggedGame) -> tuple[int | None, dict]:
    from locm.engine.locm.rulesets import DRAFT, by_name

    rules = by_name(logged.ruleset)
    seed = int(logged.params["seed"]) if "seed" in logged.params else None
    wanted = set(rules.seed_params) | ({"predefinedDraftIds"} if rules.deck_building == DRAFT else set())
    overrides = {}
    for k, v in logged.params.items():
        if k in wanted:
            overrides[k] = v if k == "predefinedDraftIds" else int(v)
    return seed, overrides


def check_game(logged: LoggedGame, keep_game: bool = False) -> GameResult:
    """Replay one logged game: every input must match the echo, and the winner the scores."""
    res = GameResult(logged.index, False, expected_winner=logged.expected_winner)
    seed, overrides = game_params(logged)
    try:
        game = Game.new(logged.ruleset, seed, overrides)
    except LocmError as exc:
        res.message = f"cannot create the game: {exc}"
        return res
    if keep_game:
        res.game = game
    for frame, player, echo, answer in logged.turns:
        res.frame, res.player = frame, player
        if game.ended:
            # A draft/construct round sends both inputs before reading the answers: player 1 still gets its
            # input after player 0's hard error ends the game (its answer is never read).
            owed = game.owed_input()
            if owed is not None and owed[0] == player and not res.owed_checked:
                if not _same_as_echo(owed[1], echo, res):
                    return res
                res.inputs_checked += 1
                res.owed_checked = True
                continue
            res.message = f"the engine's game is over (winner {game.winner}) but the log goes on"
            return res
        if game.to_move != player:
            res.message = f"the log asks player {player} to play, the engine player {game.to_move}"
            return res
        got = game.input_for(player)
        if not _same_as_echo(got, echo, res):
            return res
        res.inputs_checked += 1
        if answer is None:
            game.forfeit(player, "timeout")
        else:
            game.answer(player, answer[:-1] if answer.endswith("\n") else answer)
    res.frame = res.player = -1
    res.events = len(game.log)
    res.winner = game.winner
    if not game.ended:
        res.message = "the log ends before the engine's game does"
        return res
    if game.winner != logged.expected_winner:
        res.message = f"winner: expected player {logged.expected_winner}, got player {game.winner}"
        return res
    res.identical = True
    return res



def _same_as_echo(got: str, echo: str, res: GameResult) -> bool:
    # The echo drops the trailing space of the input's last line; everything else must be identical.
    body = got[:-1] if got.endswith("\n") else got
    last = body.rfind("\n") + 1
    comparable = body[:last] + body[last:].rstrip(" ") + "\n"
    if comparable == echo:
        return True
    exp_lines, got_lines = echo.split("\n"), comparable.split("\n")
    for i in range(max(len(exp_lines), len(got_lines))):
        e = exp_lines[i] if i < len(exp_lines) else "<no line>"
        g = got_lines[i] if i < len(got_lines) else "<no line>"
        if e != g:
            res.line, res.expected, res.got = i + 1, e, g
            break
    res.message = "the input differs from what the referee sent"
    return False


def check_generated_cards(logged: LoggedGame) -> str | None:
    """For 1.5: None when the engine's card set equals the referee's "Generated cards:" summary."""
    if logged.generated_cards is None:
        return None
    from locm.engine.locm.cardgen import format_generated_cards, generate_cards
    from locm.engine.locm.setup import derive_params
    from locm.engine.locm.rulesets import by_name

    seed, overrides = game_params(logged)
    params = derive_params(by_name("constructed"), seed, overrides)
    got = format_generated_cards(generate_cards(params["cardGenSeed"]))
    if got.strip() == logged.generated_cards.strip():
        return None
    return "generated cards differ from the referee's summary"
