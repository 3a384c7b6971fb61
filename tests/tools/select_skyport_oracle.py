"""Choose the Skyport oracle games the suite keeps: a few dozen logs of the official 2013 server that between them
show every event, every refusal and every reply the corpus has, the rarest ones (a droid too long, a mortar on
rock, hits on a spawn tile or a body, a crash of the server, a reader stopped by a bad escape, disconnections)
included.

Games come from `../shared/skyport-oracle/run.sh N SEED` (one gzipped log per game). Each is replayed with
`replay.skyport.conformance.check_log`; only identical games are kept (a mismatch is a bug to fix first, not
test data), and only those whose actions the plain reading of the log gives (no turn read from the GUI feed).
Every game gets the set of features it shows (its coverage keys, its number of players, its map); feature by
feature, rarest first, the smallest games showing it are taken until each has `--per-feature` examples, within
`--max-bytes`. The chosen logs are copied unchanged into the output folder.

usage (from the project root):
  .venv/bin/python tests/tools/select_skyport_oracle.py -o tests/data/skyport/oracle GAME.jsonl.gz...
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script; imported by the tests, the path is theirs (`make test-fast`: installed)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from locm.replay.skyport.conformance import check_log, read_records  # noqa: E402


def features(path: Path) -> set[str] | None:
    """What a log shows, or None when it does not replay identically."""
    records = read_records(path)
    result = check_log(path, records)
    if not result.identical:
        print(f"{path}: {result.summary()}", file=sys.stderr)
        return None
    if result.coverage.get("timing:resolved"):
        return None  # its reading depended on the server's timing: not a clean test case
    header = records[0]
    out = {key for key in result.coverage}
    out.add(f"players:{len(header['players'])}")
    out.add(f"map:{Path(header['map']).stem}")
    return out


def select(found: dict[Path, set[str]], per_feature: int, max_bytes: int) -> list[Path]:
    count = collections.Counter(f for fs in found.values() for f in fs)
    chosen: list[Path] = []
    have: collections.Counter[str] = collections.Counter()
    total = 0
    for feature in sorted(count, key=lambda f: (count[f], f)):
        for path in sorted((p for p in found if feature in found[p]), key=lambda p: p.stat().st_size):
            if have[feature] >= per_feature:
                break
            if path in chosen or total + path.stat().st_size > max_bytes:
                continue
            chosen.append(path)
            total += path.stat().st_size
            have.update(found[path])
    return sorted(chosen)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+", type=Path)
    ap.add_argument("-o", "--out", type=Path, required=True, help="folder for the chosen logs")
    ap.add_argument("--per-feature", type=int, default=2)
    ap.add_argument("--max-bytes", type=int, default=2_500_000)
    a = ap.parse_args()
    found = {}
    for path in a.logs:
        fs = features(path)
        if fs is not None:
            found[path] = fs
    print(f"{len(found)}/{len(a.logs)} logs identical by the plain reading of their turns", file=sys.stderr)
    chosen = select(found, a.per_feature, a.max_bytes)
    a.out.mkdir(parents=True, exist_ok=True)
    for path in chosen:
        shutil.copyfile(path, a.out / path.name)
    every = collections.Counter(f for fs in found.values() for f in fs)
    kept = collections.Counter(f for p in chosen for f in found[p])
    for feature in sorted(every):
        print(f"{feature:45s} {every[feature]:6d} games, kept {kept[feature]}")
    print(f"kept {len(chosen)} logs, {sum(p.stat().st_size for p in chosen)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
