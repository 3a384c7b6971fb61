# Two entry points for a fresh machine with Python 3.11+ and make:
#   make demo   set up, then play a demo tournament into a local SQLite file and show the results
#   make test   set up, then run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RAY    := $(VENV)/.ray

.PHONY: demo test setup bench conformance clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "locm needs Python 3.11 or newer: set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# PYTHONWARNINGS: setuptools warns about the locm/ folder beside the editable install, which is intended
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

setup: $(STAMP)
	@# bubblewrap: the sandbox of external bots (locm refuses them without it, saying how to get it)
	@.ci/apt-install bwrap bubblewrap || echo "setup: bubblewrap could not be installed: see 'locm sandbox check'" >&2
	@# socat: relays a sandboxed Skyport client to its server (locm serve --game skyport --seat COMMAND)
	@.ci/apt-install socat socat || echo "setup: socat could not be installed: sandboxed Skyport clients cannot run" >&2

demo: $(STAMP)
	$(BIN)/locm demo
	$(BIN)/locm conformance --game skyport --quiet tests/data/skyport/samples/*.jsonl.gz
	$(BIN)/python -m locm.skyport_wire --quiet tests/data/skyport/samples/*.jsonl.gz
	@# a Skyport game served over TCP: the Node.js client against a hunter and two random agents
	@if command -v node >/dev/null 2>&1; then $(BIN)/locm serve --game skyport --map crossroads-4p --turns 40 \
	    --seed 7 --log skyport-demo.jsonl --seat hunter --seat "node examples/skyport/client.js {host} {port}" \
	    --seat random --seat random; else echo "demo: node is not installed: no Skyport client game" >&2; fi
	@# Skyport's tools: the SVG board, the text hex map, why a shot hit whom it hit, rates by loadout and map
	$(BIN)/locm play --game skyport --seed 3 --agents hunter,random,random,hunter --log skyport-tools-demo.jsonl
	$(BIN)/locm html skyport-tools-demo.jsonl -o skyport-tools-demo.html
	$(BIN)/locm show skyport-tools-demo.jsonl --seq 255 | head -45
	$(BIN)/locm audit skyport-tools-demo.jsonl --seq 254
	$(BIN)/locm tournament --game skyport --seats 2 --agents hunter random --games 10 --db skyport-demo.db
	$(BIN)/locm report --game skyport --db skyport-demo.db --min-games 10
	@# a tournament that stops when the answer is known: a sequential test over mirrored seed pairs
	$(BIN)/locm tournament --agents lookahead greedy --games 400 --db locm-demo-sprt.db --sprt elo0=0,elo1=100
	@echo
	@echo "demo done: open locm-demo-replay.html (a game to step through) and locm-demo-report/index.html (card balance)."
	@echo "next: $(BIN)/locm games --db locm-demo.db   then   $(BIN)/locm replay --db locm-demo.db GAME_ID   (make test runs the suite)"

# Ray (the extra locm[ray], about 240 MB: the demo does not need it) for the multi-node test, tests/test_ray.py,
# which is skipped with its reason where Ray cannot be installed (offline, or no wheel for this platform)
$(RAY): $(STAMP)
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[ray]' && touch $(RAY) \
	    || echo "test: ray could not be installed: the Ray tests will be skipped" >&2

test: $(STAMP) $(RAY)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/locm bench --ruleset 1.2 --games 500
	$(BIN)/locm bench --ruleset constructed --games 500

conformance: $(STAMP)
	$(BIN)/locm conformance tests/data/official-1.2-games-00-49.txt.gz tests/data/official-1.5-games-00-49.txt.gz --quiet
	$(BIN)/locm conformance --game skyport --quiet tests/data/skyport/samples/*.jsonl.gz tests/data/skyport/oracle/*.jsonl.gz
	$(BIN)/python -m locm.skyport_wire --quiet tests/data/skyport/samples/*.jsonl.gz tests/data/skyport/oracle/*.jsonl.gz

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
