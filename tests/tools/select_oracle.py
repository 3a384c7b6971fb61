"""Choose the oracle games the suite keeps: a few hundred per ruleset, covering what the official logs never
reach (1.2 items, deck-out, the 1.2 turn limit, hard errors of every kind, timeouts in every phase, the input
the referee still sends after player 0's bad draft or construct answer, ...).

Games come from the official Java referee through `../shared/oracle/` (`gen.py RULESET N OUT --seed S`). Each
game is replayed with `replay.locm.conformance.check_game`; only identical games are kept (a mismatch is a bug to
fix first, not test data). Every game gets the set of features it shows; the selection takes, feature by
feature (rarest first), the smallest games showing it until each has `--per-feature` examples, then fills up to
`--games` with the rest: those adding features first, then whole battles, smallest first. The result is one gzip file of game
lines in the official format, which `locm conformance` reads.

usage (from the project root):
  .venv/bin/python tests/tools/select_oracle.py --games 250 -o tests/data/oracle-1.2-games.txt.gz GAMES.txt...
"""

from __future__ import annotations

import argparse
import collections
import gzip
import re
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script; imported by the tests, the path is theirs (`make test-fast`: installed)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from locm.replay.locm.conformance import check_game, parse_log_line  # noqa: E402

_NUMBER = re.compile(r"-?\d+")


def features(game, logged) -> set[str]:
    """What a replayed game shows, as short names (the coverage categories)."""
    from locm.events.locm.catalog import (
        ActionRejected, CreatureSummoned, DrawLost, GameEnded, HardError, ItemUsed, PlayerDamaged, PlayerHealed,
        RuneBroken, WardLost,
    )

    out: set[str] = set()
    phase = "draft" if logged.ruleset == "1.2" else "construct"
    for e in game.log:
        t = type(e)
        name = t.__name__
        if t is HardError:
            kind = _NUMBER.sub("N", e.reason.split(":")[0] if e.reason != "timeout" else "timeout")
            where = "battle" if game_turn_of(game, e.seq) >= 0 else phase
            out.add(f"hard_error:{where}:{kind}")
            out.add(f"hard_error:{where}")
            out.add(f"hard_error_player:{e.player}")
        elif t is PlayerDamaged:
            out.add(f"damage:{e.source}")
        elif t is PlayerHealed:
            out.add(f"heal:{e.source}")
        elif t is ItemUsed:
            out.add("item:opponent" if e.target == -1 else "item:creature")
        elif t is CreatureSummoned and e.copy_of:
            out.add("area_copy")
        elif t is ActionRejected:
            out.add("rejected:" + _NUMBER.sub("N", e.reason).split(":")[0])
        elif t is GameEnded:
            out.add(f"ended:{e.reason}:winner{e.winner}")
        elif t in (DrawLost, RuneBroken, WardLost):
            out.add(name)
    if game.owed_input() is not None:
        out.add("owed_input_after_player0_error")
    if logged.params.get("predefinedDraftIds"):
        out.add("predefined_draft")
    return out


def game_turn_of(game, seq: int) -> int:
    """The battle turn at `seq` (-1 before the battle)."""
    turn = -1
    for e in game.log[: seq + 1]:
        if type(e).__name__ == "TurnStarted":
            turn = e.turn
    return turn


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--games", type=int, default=250)
    ap.add_argument("--per-feature", type=int, default=4)
    a = ap.parse_args()
    pool = []  # (size, line, features)
    bad = 0
    for path in a.files:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            logged = parse_log_line(line, lineno - 1, str(path), lineno)
            res = check_game(logged, keep_game=True)
            if not res.identical:
                bad += 1
                print(f"{path}:{lineno}: not identical, left out: {res.message}", file=sys.stderr)
                continue
            pool.append((len(line), line, features(res.game, logged)))
    counts = collections.Counter(f for _, _, fs in pool for f in fs)
    chosen: dict[str, tuple] = {}
    have: collections.Counter = collections.Counter()
    by_size = sorted(pool, key=lambda g: g[0])
    for feature, _ in sorted(counts.items(), key=lambda kv: kv[1]):
        for g in by_size:
            if have[feature] >= a.per_feature:
                break
            if feature in g[2] and g[1] not in chosen and len(chosen) < a.games:
                chosen[g[1]] = g
                have.update(g[2])
    rest = [g for g in by_size if g[1] not in chosen]
    while len(chosen) < a.games and rest:
        # then whole battles first (the official logs' weak spot is rare events inside long games), smallest first
        g = max(rest, key=lambda g: (len(g[2] - set(have)), any(f.startswith("ended:health") for f in g[2]), -g[0]))
        rest.remove(g)
        chosen[g[1]] = g
        have.update(g[2])
    lines = [g[1] for g in pool if g[1] in chosen]  # the original order
    a.output.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(a.output, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(lines) + "\n")
    missing = sorted(f for f in counts if have[f] == 0)
    print(f"{a.output}: {len(lines)} games of {len(pool)} identical ({bad} left out as mismatches), "
          f"{len(have)} of {len(counts)} features covered{'; missing: ' + ', '.join(missing) if missing else ''}")
    for f, n in sorted(have.items()):
        print(f"  {f}: {n} of {counts[f]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
