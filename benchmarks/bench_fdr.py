"""False discoveries of the starring tools over real games (issue 34, item 1): `locm.games.locm.fdrcheck`'s
worlds (160 identical cards; (a) a rule moved for every card alike, every star false; (b) card 42 made to win
when summoned, a star on any other card false), R repetitions on disjoint seed blocks of random self-play,
each tool's stars counted (`locm report`'s in-hand WR and IIH rows, `locm whatif`'s paired rows,
`locm cardvalue --baseline B.toml`'s rows). Prints per tool and test the realised FDR (mean false-discovery
proportion), the family-wise rate (repetitions with a false star), the mean stars, false stars and
uncorrected excluders, and how often the planted card was starred, against the stated q.

    LOCM_CORE=native .venv/bin/python benchmarks/bench_fdr.py --games 400 --reps 8 --dir /tmp/fdr
    .venv/bin/python benchmarks/bench_fdr.py --games 400 --reps 3 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.analysis.stats import DEFAULT_FDR  # noqa: E402
from locm.games.locm.fdrcheck import repetition, summarise  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="self-play games per repetition (even)")
    ap.add_argument("--reps", type=int, default=4, help="repetitions, each on its own seed block")
    ap.add_argument("--min-n", type=int, default=20, help="holders (report: player-games) a row needs")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--dir", help="keep the stores here (a second run reads them back)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-fdr-"))
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    reps = [repetition(folder, i, args.games, min_n=args.min_n, workers=args.workers) for i in range(args.reps)]
    s = summarise(reps, DEFAULT_FDR)
    s["seconds"] = round(time.perf_counter() - t0, 1)
    s["loadavg"] = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    if args.json:
        print(json.dumps(s, indent=1))
        return
    print(f"{args.reps} repetitions of {args.games} games, min n {args.min_n}, stated q {DEFAULT_FDR}, "
          f"{s['seconds']} s, load {' '.join(s['loadavg'] or [])}")
    for tool in ("report", "whatif", "cardvalue"):
        for test, r in s[tool].items():
            print(f"{tool:9} {test:8} FDR {r['realised_fdr']:.3f}  FWER {r['familywise']:.3f}  tested "
                  f"{r['mean_tested']:.0f}  stars {r['mean_stars']:.2f}  false {r['mean_false']:.2f}  uncorrected "
                  f"{r['mean_uncorrected']:.2f}  planted starred {r['planted_starred']}")


if __name__ == "__main__":
    main()
