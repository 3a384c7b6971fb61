# Two entry points for a fresh machine with Python 3.11+ and make:
#   make demo   set up, then play a demo tournament into a local SQLite file and show the results
#   make test   set up, then run the whole test suite, then the engine-facing tests again on the compiled core
#               (make test-fast: built where a C compiler exists, skipped saying so where none does)
# and the manual: make docs   the site of docs/ (MkDocs, warnings as errors) into site/, open site/index.html
PYTHON ?= python3
# Python may cache the checkout's compiled bytecode (__pycache__/, git-ignored) even where the environment says
# not to (PYTHONDONTWRITEBYTECODE=1, as this project's machines and many containers set it): the suite starts
# `python -m locm.cli.main` and worker processes a few thousand times, and each compiled every module again.
unexport PYTHONDONTWRITEBYTECODE
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RAY    := $(VENV)/.ray
DOCS   := $(VENV)/.docs

# The compiled core (setup.py: LOCM's rules core built with mypyc where a C compiler exists, pure Python where none
# does) goes into its own venv, .venv-fast/, installed from a wheel: .venv/ stays the developers' pure editable
# install, and a compiled module whose source changed since the build is refused on import (engine/corebuild.py).
#   make fast        build and install it (again whenever engine/ or events/ changed)
#   make test-fast   the engine-facing tests on it (skipped, saying so, where no C compiler made it compiled)
FAST       := .venv-fast
FAST_STAMP := $(FAST)/.installed
# Engine-facing: conformance with the referee, oracle games, golden logs, properties, rules, variants, the core
# through the seam, the card generator and the Java random port, and the build's own checks.
FAST_TESTS := tests/test_conformance.py tests/test_oracle_games.py tests/test_golden.py tests/test_properties.py \
              tests/test_rules.py tests/test_variants.py tests/test_variant_safety.py tests/test_seam.py \
              tests/test_cardgen.py tests/test_jrandom.py tests/test_construct.py tests/test_lookahead.py \
              tests/test_replay_fold.py tests/test_corebuild.py
# On the native core, those and the tests that only it can run (they skip in .venv/, where it is not built)
NATIVE_TESTS = $(FAST_TESTS) tests/test_native.py tests/test_native_vec.py tests/test_native_redecide.py \
               tests/test_verify_whole_game.py tests/test_cardvalue_native.py tests/test_behaviour.py

export IS_COMPILED := import sys; from locm.engine.corebuild import python_core; sys.exit(python_core().kind != "compiled")
export HAS_NATIVE := import sys; from locm.engine.corebuild import native_module; sys.exit(native_module("locm")[0] is None)
# The native C++ core (engine/locm/cpp/core.cpp, pybind11) is built into .venv-fast/ beside the compiled one where a
# C++ compiler exists; LOCM_CORE=native|compiled picks one there. Its own tests (tests/test_native.py) compare it
# with the Python core game for game. `make native` builds it in place for the editable .venv/ (developers).
NATIVE_SO  = $(shell $(PYTHON) -c "import sysconfig; print('engine/locm/_native' + sysconfig.get_config_var('EXT_SUFFIX'))" 2>/dev/null)

.PHONY: demo test setup bench conformance clean fast test-fast native docs

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
	@# sqlite3: SQLite's own recovery (.recover), which `locm export --salvage` tries first (locm/store/salvage.py)
	@.ci/apt-install sqlite3 sqlite3 || echo "setup: sqlite3 could not be installed: salvage goes without SQLite's recovery" >&2
	@# Debian 12's sqlite3 (3.40.1) has no sqlite_dbpage table, so its .recover cannot run: a shell that can is built
	@# from SQLite's own shell.c and sqlite3.c as the npm package sqlite3 ships them (its deps/sqlite-autoconf-*),
	@# with SQLITE_ENABLE_DBPAGE_VTAB, into .venv/bin/sqlite3-recover (salvage's recover_shell finds it there)
	@$(MAKE) --no-print-directory $(BIN)/sqlite3-recover || echo "setup: no sqlite3-recover: salvage goes without SQLite's recovery where the system shell cannot" >&2

SQLITE_NPM := sqlite3@6.0.1
$(BIN)/sqlite3-recover: | $(STAMP)
	@command -v npm >/dev/null && command -v cc >/dev/null || { echo "setup: sqlite3-recover needs npm and a C compiler" >&2; exit 1; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; cd "$$tmp"; \
	    npm pack --silent $(SQLITE_NPM) >/dev/null; tar xzf sqlite3-*.tgz; tar xzf package/deps/sqlite-autoconf-*.tar.gz; \
	    cd sqlite-autoconf-*/; echo "setup: building sqlite3-recover (SQLite's shell with sqlite_dbpage, about 30 s)" >&2; \
	    cc -O1 -DSQLITE_ENABLE_DBPAGE_VTAB -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION shell.c sqlite3.c -lm \
	        -o "$(CURDIR)/$(BIN)/sqlite3-recover"

demo: $(STAMP)
	@# which core runs (pure Python here; .venv-fast/bin/locm --version after make fast: compiled, its build's hash)
	$(BIN)/locm --version
	$(BIN)/locm demo
	$(BIN)/locm conformance --game skyport --quiet tests/data/skyport/samples/*.jsonl.gz
	$(BIN)/python -m locm.games.skyport.wire --quiet tests/data/skyport/samples/*.jsonl.gz
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
	@# my-card-game's collection: an account (its starter deck), a pack bought and opened, a game with its deck
	@$(BIN)/locm mcg show alice --db mcg-demo.db >/dev/null 2>&1 || $(BIN)/locm mcg account new alice --db mcg-demo.db
	$(BIN)/locm mcg buy alice --packs 1 --db mcg-demo.db
	$(BIN)/locm play --game mcg --ruleset standard --seed 7 --account alice --deck 0 --p1 greedy --db mcg-demo.db
	$(BIN)/locm mcg show alice --db mcg-demo.db | head -3
	@# results that travel signed: the store's key signs its export, the import trusts that key only
	@$(BIN)/locm key show --db locm-demo.db >/dev/null 2>&1 || $(BIN)/locm key new --db locm-demo.db
	$(BIN)/locm export --all --db locm-demo.db -o locm-demo-export.jsonl
	$(BIN)/locm import locm-demo-export.jsonl --db locm-demo-copy.db --skip-existing \
	    --trust "$$($(BIN)/locm key show --db locm-demo.db)"
	@# a tournament that stops when the answer is known: a sequential test over mirrored seed pairs
	$(BIN)/locm tournament --agents lookahead greedy --games 400 --db locm-demo-sprt.db --sprt elo0=0,elo1=100
	@echo
	@echo "demo done: open locm-demo-replay.html (a game to step through) and locm-demo-report/index.html (card balance)."
	@echo "next: $(BIN)/locm arena --db locm-demo.db   (standings, games and replays in your browser at http://127.0.0.1:8765/)"
	@echo "  or: $(BIN)/locm games --db locm-demo.db   then   $(BIN)/locm replay --db locm-demo.db GAME_ID   (make test runs the suite)"

# Ray (the extra locm[ray], about 240 MB: the demo does not need it) for the multi-node test, tests/test_ray.py,
# which is skipped with its reason where Ray cannot be installed (offline, or no wheel for this platform)
$(RAY): $(STAMP)
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[ray]' && touch $(RAY) \
	    || echo "test: ray could not be installed: the Ray tests will be skipped" >&2

# The manual: the extra locm[docs] (MkDocs, its Material theme, mkdocs-click for the command reference, which
# reads the installed CLI), then the site of docs/ built into site/ (git-ignored), every warning an error.
$(DOCS): $(STAMP) pyproject.toml
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[docs]'
	@touch $(DOCS)

docs: $(DOCS)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The suite's files spread over the machine's cores (pytest-xdist; a file's tests stay together in one worker, so
# its module fixtures are made once): PARALLEL= runs it in one process.
PARALLEL ?= -n auto --dist loadfile
test: $(STAMP) $(RAY)
	$(BIN)/python -m pytest $(PARALLEL)
	@$(MAKE) --no-print-directory test-fast

$(FAST_STAMP): pyproject.toml setup.py $(shell git ls-files engine events 2>/dev/null)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "locm needs Python 3.11 or newer: set PYTHON=python3.11")'
	$(PYTHON) -m venv $(FAST)
	$(FAST)/bin/python -m pip install --quiet --upgrade pip
	@# a wheel built with the pinned tools of pyproject.toml's [build-system], then installed (not editable)
	PYTHONWARNINGS=ignore $(FAST)/bin/python -m pip install --quiet '.[test]'
	@touch $(FAST_STAMP)

fast: $(FAST_STAMP)
	@$(FAST)/bin/locm --version

test-fast: $(FAST_STAMP)
	@# The checkout's locm/ must not shadow the installed package: PYTHONSAFEPATH (python -P, in the tests'
	@# subprocesses too) keeps the working directory off sys.path, --import-mode=append puts the checkout last.
	@# Every core built there in turn: the compiled one (LOCM_CORE=compiled), then the native one (LOCM_CORE=native).
	@if PYTHONSAFEPATH=1 $(FAST)/bin/python -c "$$IS_COMPILED"; \
	then PYTHONSAFEPATH=1 LOCM_TEST_INSTALLED=1 LOCM_TEST_CORE=compiled LOCM_CORE=compiled \
	     $(FAST)/bin/python -m pytest $(PARALLEL) --import-mode=append $(FAST_TESTS); \
	else echo "test-fast: no compiled core (no C compiler or no Python headers): its tests are skipped"; fi
	@if PYTHONSAFEPATH=1 $(FAST)/bin/python -c "$$HAS_NATIVE"; \
	then PYTHONSAFEPATH=1 LOCM_TEST_INSTALLED=1 LOCM_TEST_CORE=native LOCM_CORE=native \
	     $(FAST)/bin/python -m pytest $(PARALLEL) --import-mode=append $(NATIVE_TESTS); \
	else echo "test-fast: no native core (no C++ compiler or no Python headers): its tests are skipped"; fi

native: $(STAMP)
	@# the native core in place, beside the checkout's sources, for the editable .venv/ (git-ignored)
	@$(BIN)/python -m pip install --quiet pybind11==3.1.0
	LOCM_MYPYC=0 LOCM_NATIVE=1 $(BIN)/python setup.py --quiet build_ext --inplace
	@$(BIN)/locm --version

bench: $(STAMP)
	$(BIN)/locm bench --ruleset 1.2 --games 500
	$(BIN)/locm bench --ruleset constructed --games 500

conformance: $(STAMP)
	$(BIN)/locm conformance tests/data/official-1.2-games-00-49.txt.gz tests/data/official-1.5-games-00-49.txt.gz --quiet
	$(BIN)/locm conformance --game skyport --quiet tests/data/skyport/samples/*.jsonl.gz tests/data/skyport/oracle/*.jsonl.gz
	$(BIN)/python -m locm.games.skyport.wire --quiet tests/data/skyport/samples/*.jsonl.gz tests/data/skyport/oracle/*.jsonl.gz

clean:
	rm -rf $(VENV) $(FAST) build site *.egg-info .pytest_cache .hypothesis $(NATIVE_SO)
