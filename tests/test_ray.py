"""Tournaments on Ray (locm/tournament/ray_backend.py) on a real cluster of several nodes on this machine
(`ray.cluster_utils.Cluster`): a node killed mid-run loses no game and stores none twice; the store is the
one a local run of the same schedule gives; resume and the command work as locally. Skipped where Ray is not
installed (`pip install -e '.[ray]'`; CI installs it: .ci/run)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from locm.runner.sandbox.bwrap import probe
from locm.store.eventstore import MemoryStore, open_store
from locm.games.locm.tournament import schedule
from locm.tournament.run import play_jobs, record_schedule, to_play

ray = pytest.importorskip("ray", reason="Ray is not installed here: pip install -e '.[ray]'")
from ray.cluster_utils import Cluster  # noqa: E402

from locm.tournament.ray_backend import play_jobs_ray  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMALL = 80 * 1024 * 1024  # each node's object store: the games are small


@pytest.fixture(scope="module")
def cluster():
    """A head node that plays nothing (this process, the writer, joins it) and two nodes of one CPU each."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "object_store_memory": SMALL,
                                                      "include_dashboard": False})
    nodes = [c.add_node(num_cpus=1, object_store_memory=SMALL) for _ in range(2)]
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    c.wait_for_nodes()
    try:
        yield c, nodes
    finally:
        ray.shutdown()
        c.shutdown()


def logs(store) -> dict:
    """Every stored game's events (as JSON bytes) and its chain's head, by id."""
    import msgspec

    return {r.game_id: (r.head_hash, [msgspec.json.encode(e) for e in store.events(r.game_id)])
            for r in store.games()}


def test_a_node_killed_mid_run_loses_no_game_and_the_store_is_the_local_one(cluster, tmp_path):
    c, (doomed, _) = cluster
    jobs = schedule("constructed", ["greedy", "random"], 160, seed=3)
    store = open_store(tmp_path / "ray.db")
    record_schedule(store, jobs)
    stored, killed = [0], []

    def progress(n):
        stored[0] += n
        if stored[0] >= 16 and not killed:  # both nodes are busy: a batch is lost with this one
            c.remove_node(doomed, allow_graceful=False)
            killed.append(stored[0])

    run = play_jobs_ray(store, jobs, count=len(jobs), batch_games=8, progress=progress)
    assert killed and (run.played, run.duplicates, run.failed) == (160, 0, [])
    local = MemoryStore()
    play_jobs(local, jobs, workers=1)
    assert logs(store) == logs(local)
    store.close()
    r = subprocess.run([sys.executable, "-m", "locm.cli.main", "verify", "--db", tmp_path / "ray.db"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "1 tournament schedule complete" in r.stdout, r.stdout + r.stderr


def test_a_run_resumed_on_ray_plays_only_what_the_store_lacks(cluster):
    jobs = schedule("1.2", ["greedy", "random"], 40, seed=9)
    store = MemoryStore()
    play_jobs(store, list(jobs)[:12], workers=1)
    todo, count = to_play(store, jobs)
    run = play_jobs_ray(store, todo, count=count, scheduled=len(jobs), batch_games=5)
    assert (run.scheduled, run.already, run.played, run.duplicates) == (40, 12, 28, 0)
    assert store.count() == 40


@pytest.mark.skipif(not probe().ok, reason="no sandbox here: external bots are refused")
def test_the_command_joins_the_cluster_and_sandboxed_bots_play_on_its_nodes(cluster, tmp_path):
    c, _ = cluster
    bot = shlex.join([sys.executable, str(ROOT / "examples" / "bot.py")])
    r = subprocess.run([sys.executable, "-m", "locm.cli.main", "tournament", "--agents", bot, "greedy", "--games", "4",
                        "--db", tmp_path / "t.db", "--backend", "ray", "--address", c.address],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("4 games played") and "bots: 4 games sandboxed" in r.stdout


def test_whatif_and_cardvalue_on_ray_give_what_they_give_locally(cluster, tmp_path):
    from locm.games.locm.cardvalue import cardvalue, make_targets
    from locm.engine.locm.rulesets import by_name
    from locm.games.locm.variants import resolve_ruleset
    from locm.engine import registry
    from locm.tournament.whatif import whatif

    rules_a = by_name("1.2")
    targets, variants = make_targets(rules_a, ["116", "5"], "vanilla")
    out = {}
    for backend in ("local", "ray"):
        db = tmp_path / f"{backend}.db"
        run = cardvalue(db, rules_a, ("greedy", "random"), targets, variants, 8, backend=backend)
        with open_store(db) as store:
            low = whatif(store, registry.get("locm"), resolve_ruleset(str(ROOT / "examples" / "variants" /
                                                                          "low-health.toml")), backend=backend)
        assert run.errors == [] and low.played == 16
        out[backend] = (run.summary() | {"seconds": None}, low.summary() | {"seconds": None}, logs(open_store(db)))
    assert out["ray"] == out["local"]


def test_the_reports_projection_on_ray_is_the_local_one(cluster, tmp_path, monkeypatch):
    from locm.games.locm import facts_store as cs

    db = tmp_path / "r.db"
    store = open_store(db)
    for ruleset in ("1.2", "constructed"):
        play_jobs(store, schedule(ruleset, ["greedy", "random"], 6, seed=2), workers=1)
    store.close()
    monkeypatch.setattr(cs, "CHUNK", 4)  # several chunks, each a Ray task
    cs.refresh(db, workers=1)
    local = cs.dump(db)
    summary = cs.refresh(db, rebuild=True, backend="ray")
    assert (summary.projected, summary.rebuilt) == (12, True) and cs.dump(db) == local


def test_a_skyport_tournament_of_three_seats_on_ray_is_the_local_one(cluster):
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule

    jobs = seats_schedule("skyport", "2013", ["hunter", "random", "hunter"], 6, seed=1, seats=3)
    stores = {}
    for backend in ("local", "ray"):
        store = stores[backend] = MemoryStore()
        run = run_matches(store, jobs, backend=backend)
        assert run.played == len(jobs)
    assert {m.game_id: stores["local"].events(m.game_id) for m in stores["local"].games()} == \
        {m.game_id: stores["ray"].events(m.game_id) for m in stores["ray"].games()}
