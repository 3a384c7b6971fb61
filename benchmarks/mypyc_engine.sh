#!/usr/bin/env bash
# Measurement, not a shipped build: what compiling the rules core with mypyc (part of mypy, a test
# dependency; needs a C compiler and Python's headers) would give, against the interpreted core, in one run.
#
#   bash benchmarks/mypyc_engine.sh                  # build into ${TMPDIR:-/tmp}/locm-mypyc, 5 interleaved rounds
#   bash benchmarks/mypyc_engine.sh /tmp/x 9         # another build directory, 9 rounds
#
# The build is the committed tree (git archive HEAD) laid out as installed (locm/engine, locm/events, ...),
# with the compiled modules beside their sources; it is used through PYTHONPATH, so the checkout never gets
# a .so that would shadow an edited .py. Two things differ from the source, because compiled classes are
# native: GameState/Player/Unit.copy() build the copy with the constructor (a native class has no bare
# __new__; interpreted, that copy is 1.4x slower, which is why the source keeps __new__); and
# engine/locm/agents.py (locm.bots subclasses its Agent), engine/locm/cardgen.py (its msgspec tables) and the modules
# off the hot path stay interpreted. Each round plays the same seeded random-vs-random games (log kept,
# CPU time) interpreted and compiled, the order alternating, and checks that both made the same event logs.
set -euo pipefail
BUILD=${1:-${TMPDIR:-/tmp}/locm-mypyc}
ROUNDS=${2:-5}
REPO=$(cd "$(dirname "$0")/.." && pwd)
PY="$REPO/.venv/bin/python"
MODULES="state jrandom legal evolve emit decide drawing combat battle items draft game setup construct"

rm -rf "$BUILD" && mkdir -p "$BUILD/src"
git -C "$REPO" archive HEAD | tar -x -C "$BUILD/src"
cp -r "$BUILD/src/locm" "$BUILD/locm"
for d in engine events replay analysis data; do cp -r "$BUILD/src/$d" "$BUILD/locm/$d"; done
"$PY" - "$BUILD/locm/engine/state.py" <<'PYEOF'
import sys
path = sys.argv[1]
s = open(path).read()
for old, new in [
    ("u = Unit.__new__(Unit)", "u = Unit(self.id, self.card, self.owner)"),
    ("p = Player.__new__(Player)", "p = Player(self.index, rules)"),
    ('def copy(self, units: dict[int, Unit]) -> "Player":',
     'def copy(self, units: dict[int, Unit], rules: Ruleset) -> "Player":'),
    ("s.players = (self.players[0].copy(s.units), self.players[1].copy(s.units))",
     "s.players = (self.players[0].copy(s.units, self.rules), self.players[1].copy(s.units, self.rules))"),
    ("s = GameState.__new__(GameState)", "s = GameState(self.rules)"),
]:
    if s.count(old) != 1:
        sys.exit(f"mypyc_engine.sh: engine/locm/state.py changed, cannot find {old!r}")
    s = s.replace(old, new)
open(path, "w").write(s)
PYEOF
(cd "$BUILD" && "$REPO/.venv/bin/mypyc" $(for m in $MODULES; do echo "locm/engine/$m.py"; done) > build.log 2>&1) \
  || { tail -20 "$BUILD/build.log"; exit 1; }
echo "compiled: $MODULES (log: $BUILD/build.log)"

cat > "$BUILD/games.py" <<'PYEOF'
import hashlib, json, sys, time
import locm.engine.locm.legal
from locm.events.locm.codec import to_json
from locm.play import play_one
ruleset, games = sys.argv[1], int(sys.argv[2])
play_one(ruleset, 0, ("random", "random"))  # one-off loading out of the clock
logs, t = [], time.process_time()
for k in range(games):
    logs.append(play_one(ruleset, 1 + k, ("random", "random")).log)
seconds = time.process_time() - t
digest = hashlib.sha256(b"".join(to_json(e) for log in logs for e in log)).hexdigest()[:16]
print(json.dumps({"compiled": locm.engine.locm.legal.__file__.endswith(".so"), "games_per_s": games / seconds,
                  "logs": digest}))
PYEOF
"$PY" - "$REPO" "$BUILD" "$ROUNDS" <<'PYEOF'
import json, os, statistics, subprocess, sys
repo, build, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
py = os.path.join(repo, ".venv", "bin", "python")

def run(compiled, ruleset, games):
    env = dict(os.environ, PYTHONPATH=build) if compiled else dict(os.environ)
    out = subprocess.run([py, "-P", os.path.join(build, "games.py"), ruleset, str(games)], cwd=build if compiled else repo,
                         env=env, capture_output=True, text=True, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["compiled"] == compiled, f"expected compiled={compiled}, got {r}"
    return r

for ruleset, games in (("1.2", 300), ("constructed", 200)):
    pure, comp = [], []
    for k in range(rounds):
        order = (False, True) if k % 2 == 0 else (True, False)
        res = {c: run(c, ruleset, games) for c in order}
        if res[False]["logs"] != res[True]["logs"]:
            sys.exit(f"{ruleset}: the compiled core made other event logs")
        pure.append(res[False]["games_per_s"])
        comp.append(res[True]["games_per_s"])
    ratios = [c / p for c, p in zip(comp, pure)]
    print(f"{ruleset}: interpreted {statistics.median(pure):.0f} games/s, compiled {statistics.median(comp):.0f}; "
          f"compiled/interpreted median of {rounds} rounds {statistics.median(ratios):.2f}x "
          f"(rounds {', '.join(f'{r:.2f}' for r in ratios)}); event logs identical")
PYEOF
