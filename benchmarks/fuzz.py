"""The fuzz targets of tests/test_fuzz.py, run for longer: each target gets N Hypothesis examples (or runs
until SECONDS have passed), under a memory limit; any input that raises anything but the reader's one-line
error (a LocmError) is written to tests/data/fuzz/TARGET/ (gzip) and the run goes on to the next target.
The suite replays those files (`test_found_crashes_stay_fixed`).

    .venv/bin/python benchmarks/fuzz.py --examples 5000              # every target
    .venv/bin/python benchmarks/fuzz.py --target events --seconds 600
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from tests import test_fuzz as tf  # noqa: E402

STRATEGIES = {
    "referee": lambda: st.sampled_from(tf.official_lines()).flatmap(tf.mutated),
    "events": lambda: tf.mutated(tf.event_log()),
    "export": lambda: tf.mutated(tf.export_file()),
    "variant": tf.toml_variants,
    **{f"{g}-events": (lambda g=g: tf.game_logs(g)) for g in tf.GAME_LOGS},
    **{f"{g}-variant": (lambda g=g: tf.game_variants(g)) for g in tf.GAME_VARIANTS},
}


class Stop(Exception):
    pass


def run(name: str, examples: int, seconds: float, out: Path) -> dict:
    """Fuzz one target; keep, per crash site (the innermost frame of the project), the smallest input that
    reached it. Crashes are caught here, so Hypothesis goes on exploring instead of shrinking one."""
    target, strategy = tf.TARGETS[name], STRATEGIES[name]()
    stats = {"target": name, "inputs": 0, "crash_sites": 0, "seconds": 0.0, "slowest_s": 0.0}
    crashes: dict[str, bytes] = {}
    t0 = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix=f"locm-fuzz-{name}-"))

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=strategy)
    def fuzz(data):
        if time.monotonic() - t0 > seconds:
            raise Stop
        stats["inputs"] += 1
        t = time.monotonic()
        try:
            target(data, tmp)
        except Exception as exc:
            frames = [f for f in traceback.extract_tb(exc.__traceback__)
                      if f.filename.startswith(str(ROOT)) and "/tests/" not in f.filename]
            site = f"{type(exc).__name__} at {frames[-1].filename}:{frames[-1].lineno}" if frames else repr(exc)
            if site not in crashes or len(data) < len(crashes[site]):
                crashes[site] = data
        took = time.monotonic() - t
        if took > stats["slowest_s"]:
            stats["slowest_s"] = took
            (tmp / "slowest.gz").write_bytes(gzip.compress(data))  # kept to look into, beside the work files

    try:
        fuzz()
    except Stop:
        pass
    for site, data in crashes.items():
        path = out / name / f"{hashlib.sha256(data).hexdigest()[:16]}.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(data))
        print(f"{name}: {site} -> {path}", file=sys.stderr)
    stats["crash_sites"] = len(crashes)
    stats["seconds"] = round(time.monotonic() - t0, 1)
    stats["slowest_s"] = round(stats["slowest_s"], 2)
    stats["slowest_input"] = str(tmp / "slowest.gz")
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=sorted(tf.TARGETS), action="append", help="a target (default: all)")
    ap.add_argument("--examples", type=int, default=2000, help="Hypothesis examples per target")
    ap.add_argument("--seconds", type=float, default=float("inf"), help="stop a target after this long")
    ap.add_argument("--memory-mb", type=int, default=2048, help="address-space limit of this process")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "fuzz")
    args = ap.parse_args()
    limit = args.memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name in args.target or sorted(tf.TARGETS):
        print(run(name, args.examples, args.seconds, args.out), flush=True)


if __name__ == "__main__":
    main()
