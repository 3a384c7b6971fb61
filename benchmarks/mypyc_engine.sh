#!/usr/bin/env bash
# Experiment, not the shipped build: the rules core compiled with mypyc (part of mypy, already a test
# dependency; needs a C compiler), then `locm bench` with it and without it, side by side.
#
#   bash benchmarks/mypyc_engine.sh                 # build into ${TMPDIR:-/tmp}/locm-mypyc, bench both
#   bash benchmarks/mypyc_engine.sh /tmp/x --test   # also run the whole test suite against the compiled build
#
# The build is a copy of the committed tree (git archive HEAD) with the compiled modules beside their
# sources; it is used through PYTHONPATH, so the checkout itself never gets a .so that would shadow an edited
# .py. Two things differ from the source, both because compiled classes are native:
# - GameState/Player/Unit.copy() build the copy with the constructor (a native class has no bare __new__);
#   interpreted, that copy is 1.4x slower, which is why the source keeps __new__;
# - engine/agents.py stays interpreted (locm.bots subclasses its Agent; compiling it too, with mypyc_attr(
#   allow_interpreted_subclasses=True) on Agent, measured another ~8%), with the modules off the hot path
#   and engine/cardweights.py (msgspec structs in a compiled module no longer decode).
set -euo pipefail
BUILD=${1:-${TMPDIR:-/tmp}/locm-mypyc}
REPO=$(cd "$(dirname "$0")/.." && pwd)
PY="$REPO/.venv/bin/python"
MODULES="state jrandom legal evolve emit decide drawing combat battle items draft game setup construct cardgen"

rm -rf "$BUILD" && mkdir -p "$BUILD"
git -C "$REPO" archive HEAD | tar -x -C "$BUILD"
"$PY" - "$BUILD/engine/state.py" <<'EOF'
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
        sys.exit(f"mypyc_engine.sh: engine/state.py changed, cannot find {old!r}")
    s = s.replace(old, new)
open(path, "w").write(s)
EOF
(cd "$BUILD" && "$REPO/.venv/bin/mypyc" $(for m in $MODULES; do echo "engine/$m.py"; done) > build.log 2>&1) \
  || { tail -20 "$BUILD/build.log"; exit 1; }
echo "compiled: $MODULES (log: $BUILD/build.log)"

SNIPPET='
import json, sys, time
import locm.cli
from locm.play import play_one
import engine.legal
out = {"compiled": engine.legal.__file__.endswith(".so")}
for ruleset, games in (("1.2", 300), ("constructed", 100)):
    play_one(ruleset, 0, ("random", "random"))  # one-off loading out of the clock
    logs, t = [], time.process_time()
    for k in range(games):
        logs.append(play_one(ruleset, 1 + k, ("random", "random")).log)
    out[ruleset] = {"games_per_s": round(games / (time.process_time() - t)), "events": sum(map(len, logs))}
print(json.dumps(out))
'
for round in 1 2 3; do
  echo "round $round"
  (cd "$REPO" && "$PY" -c "$SNIPPET")
  (cd "$BUILD" && PYTHONPATH="$BUILD" "$PY" -c "$SNIPPET")
done
if [ "${2:-}" = "--test" ]; then
  (cd "$BUILD" && PYTHONPATH="$BUILD" "$PY" -m pytest -q -p no:cacheprovider)
fi
