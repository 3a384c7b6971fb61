#!/usr/bin/env bash
# Set up the peer engine gym-locm 2.0.0b1 in its own venv, OUTSIDE this repo.
# gym-locm is never a dependency of locm; it is only measured side by side
# (see benchmarks/README.md).  Idempotent: safe to re-run.
#
#   bash benchmarks/setup_peer.sh
#
# Environment overrides:
#   PEER_VENV         venv to create       (default: <repo>/../peer-venv)
#   PEER_BASE_PYTHON  python 3.12 to use   (default: pyenv 3.12.1, else python3.12)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER_VENV="${PEER_VENV:-$(cd "$REPO/.." && pwd)/peer-venv}"
PEER_PKG="gym-locm==2.0.0b1"

if [[ -z "${PEER_BASE_PYTHON:-}" ]]; then
    if [[ -x /root/.pyenv/versions/3.12.1/bin/python ]]; then
        PEER_BASE_PYTHON=/root/.pyenv/versions/3.12.1/bin/python
    elif command -v python3.12 >/dev/null 2>&1; then
        PEER_BASE_PYTHON="$(command -v python3.12)"
    else
        echo "setup_peer.sh: no Python 3.12 found; set PEER_BASE_PYTHON" >&2
        exit 2
    fi
fi

# The card data gym-locm 2.0.0b1 ships without: prefer ../shared/data, else data/.
if [[ -f "$REPO/../shared/data/cardlist-1.2.txt" && -f "$REPO/../shared/data/cardWeights-1.5.json" ]]; then
    DATA="$(cd "$REPO/../shared/data" && pwd)"
else
    DATA="$REPO/data"
fi
for f in cardlist-1.2.txt cardWeights-1.5.json; do
    [[ -f "$DATA/$f" ]] || { echo "setup_peer.sh: missing $DATA/$f" >&2; exit 2; }
done

if [[ ! -x "$PEER_VENV/bin/python" ]]; then
    echo "creating venv $PEER_VENV with $PEER_BASE_PYTHON"
    "$PEER_BASE_PYTHON" -m venv "$PEER_VENV"
fi

INSTALLED="$("$PEER_VENV/bin/python" -m pip show gym-locm 2>/dev/null || true)"
if ! grep -qx 'Version: 2.0.0b1' <<<"$INSTALLED"; then
    echo "installing $PEER_PKG into $PEER_VENV"
    "$PEER_VENV/bin/python" -m pip install --disable-pip-version-check -q "$PEER_PKG"
fi

# gym_locm/engine/card.py loads engine/resources/cardlist.txt and
# gym_locm/engine/card_generator.py loads engine/resources/cardWeights.json.
# Locate the package without importing it (importing gym_locm pulls in gymnasium).
RES="$("$PEER_VENV/bin/python" - <<'PY'
import importlib.util, os
spec = importlib.util.find_spec("gym_locm")
print(os.path.join(os.path.dirname(spec.origin), "engine", "resources"))
PY
)"
mkdir -p "$RES"
cp -f "$DATA/cardlist-1.2.txt" "$RES/cardlist.txt"
cp -f "$DATA/cardWeights-1.5.json" "$RES/cardWeights.json"

# Smoke check: the card list loads (160 cards) and the 1.5 generator works.
"$PEER_VENV/bin/python" - <<'PY'
import numpy as np
from gym_locm.engine.card import get_locm12_card_list
from gym_locm.engine.card_generator import generate_card
assert len(get_locm12_card_list()) == 160
generate_card(0, np.random.default_rng(0))
PY
echo "peer ready: $PEER_VENV/bin/python (data from $DATA -> $RES)"
