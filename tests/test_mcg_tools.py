"""my-card-game's rerun, whatif and audit through the seam (`locm.tournament.rerun`, `replay.game.Replay`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine import core, registry
from locm.engine.logcheck import causes
from locm.events.mcg.catalog import (
    ActionRejected, EffectTriggered, MonsterDamaged, MonsterDied, PlayerDamaged, TurnStarted,
)
from locm.tournament.rerun import first_divergence, rerun_match
from locm.tournament.whatif import whatif
from locm.replay.game import Replay, ReplayError
from locm.replay.sources import checked_replay
from locm.store.eventstore import open_store

MCG = registry.get("mcg")
RUN = {"rerun_now": 0, "reused_from_store": 0, "seconds": 0}  # how a what-if ran, not what it found
# R-VARIANT only (an end-phase effect from turn 1): the decks are the same. (A cap cannot make a game
# diverge: R-CAP keeps it above what a game can reach.)
SHORT = 'base = "standard"\nname = "short"\n[[end_phase]]\ndo = "damage"\nto = "both_players"\namount = 1\n'


@pytest.fixture(scope="module")
def played():
    return core.play(MCG, "standard", 7, ("greedy", "random")).log


def test_rerun_under_the_same_rules_never_diverges(played):
    report = rerun_match(MCG, "g", played, MCG.rules("standard"))
    assert report.seq is None and report.changed == [] and report.setup == []
    assert report.outcome_a == report.outcome_b
    assert "no divergence" in "\n".join(report.lines())


def test_rerun_lays_a_divergence_on_the_setting_of_its_rule(played):
    short = MCG.variant(SHORT, "short.toml")
    report = rerun_match(MCG, "g", played, short)
    assert report.setup == []  # an end-phase effect changes no deck
    assert report.seq is not None and report.rule_b == "R-VARIANT" and report.suspects == ["end_phase"]
    assert report.outcome_b.turns != report.outcome_a.turns
    doc = report.as_json()
    assert doc["divergence"]["changed_settings_of_that_rule"] == ["end_phase"]
    assert [c["field"] for c in doc["changed"]] == ["end_phase"]
    # the boards are the position just before the divergence under each side, the same until then
    assert report.board_a == report.board_b and "turn" in report.board_a


def test_rerun_names_a_changed_deck_rule_as_the_setup_not_as_the_event_rule(played):
    singleton = MCG.variant('base = "standard"\nname = "one"\nmax_copies = 1\n', "one.toml")
    report = rerun_match(MCG, "g", played, singleton)
    assert report.setup == ["decks"]
    assert report.suspects == [] or report.rule_a == "R-DECK"
    assert "differs in: decks" in "\n".join(report.lines())


def test_first_divergence_ignores_the_created_event_only(played):
    assert first_divergence(MCG, played, played) is None
    assert first_divergence(MCG, played, played[:-1]) == len(played) - 1


def test_whatif_pairs_each_game_with_its_rerun_and_reads_reruns_back(tmp_path):
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule

    with open_store(tmp_path / "m.db") as store:
        run_matches(store, seats_schedule("mcg", "standard", ["greedy", "random"], 4))
        short = MCG.variant(SHORT, "short.toml")
        first = whatif(store, MCG, short)
        assert first.played == 4 and first.read_back == 0 and len(first.pairs) == 4
        # the figures are the outcomes of games played here again, independently
        expected, lengths = 0, []
        for m in store.games(game="mcg", ruleset="standard"):
            a = MCG.outcome(store.events(m.game_id))
            b = core.play(MCG, short, m.seed, m.agents).log
            expected += a.winner != MCG.outcome(b).winner
            lengths.append(MCG.outcome(b).turns)
        s = first.summary(min_n=2)
        assert s["winner_changed"]["k"] == expected and s["winner_changed"]["n"] == 4
        assert s["game_length_turns"]["b"]["mean"] == pytest.approx(sum(lengths) / len(lengths))
        assert set(s["agents"]) == {"greedy", "random"} and s["agents"]["greedy"]["units"] == 4
        greedy_a = greedy_b = 0  # the agent's paired change, counted here from the stored games and re-runs
        for m in store.games(game="mcg", ruleset="standard"):
            seat = m.agents.index("greedy")
            b = MCG.outcome(core.play(MCG, short, m.seed, m.agents).log)
            greedy_a, greedy_b = greedy_a + (m.winner == seat), greedy_b + (b.winner == seat)
        assert s["agents"]["greedy"]["delta"] == round((greedy_b - greedy_a) / 4, 5)
        assert s["agents"]["greedy"]["clusters"] == 2  # seeds 1 and 2, each in both seats
        # cards: a holder is the seat with more copies under A; every listed card held in min_n units
        assert s["cards_considered"] > 0 and all(r["units"] >= 2 for r in s["cards_paired_by_seed"])
        again = whatif(store, MCG, short)
        assert again.played == 0 and again.read_back == 4 and again.summary(2) | RUN == s | RUN
        assert store.games(game="mcg", ruleset="short") and not first.summary(20)["enough"]


def test_whatif_in_worker_processes_gives_what_one_process_gives(tmp_path):
    """--workers 2 plays the re-runs in the one pool's workers (each with the store read-only), stores them in
    this process, and pairs them in the order of the stored games: the same summary and the same stored
    games as one worker."""
    import shutil

    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule

    with open_store(tmp_path / "one.db") as store:
        run_matches(store, seats_schedule("mcg", "standard", ["greedy", "random"], 6))
    shutil.copy(tmp_path / "one.db", tmp_path / "two.db")
    short = MCG.variant(SHORT, "short.toml")
    out = []
    for name, workers in (("one.db", 1), ("two.db", 2)):
        with open_store(tmp_path / name) as store:
            result = whatif(store, MCG, short, workers=workers)
            stored = sorted((m.game_id, m.head_hash) for m in store.games(game="mcg", ruleset="short"))
            out.append((result.summary(min_n=2) | {"seconds": 0}, [p.seed for p in result.pairs], stored))
    assert out[0] == out[1] and out[0][0]["rerun_now"] == 6 and len(out[0][2]) == 6


def test_audit_explains_the_chain_of_triggers_of_a_death(played):
    r = checked_replay(played, "", game=MCG)
    triggered = next(e for e in played if type(e) is EffectTriggered and e.on == "death")
    died = played[triggered.cause]
    assert type(died) is MonsterDied
    out = r.explain(died.seq)
    later = {c["seq"]: c for c in out["consequences"]}
    assert triggered.seq in later and later[triggered.seq]["depth"] == 1
    # every consequence has the event asked about among its causes, and every event that has is listed
    for c in out["consequences"]:
        assert died.seq in [x.seq for x in causes(played, c["seq"])]
    assert len(later) == sum(1 for e in played if died.seq in [x.seq for x in causes(played, e.seq)])


def test_audit_card_life_and_rejected(played):
    r = checked_replay(played, "", game=MCG)
    died = next(e for e in played if type(e) is MonsterDied)
    life = r.card_life(died.id)
    types = [x["type"] for x in life]
    assert "mcg_card_drawn" in types and types[-1] in ("mcg_monster_died", "mcg_effect_triggered",
                                                       "mcg_effect_fizzled")
    assert all(x["seq"] < y["seq"] for x, y in zip(life, life[1:]))
    with pytest.raises(ReplayError):
        r.card_life(99_999)
    game = MCG.new(MCG.rules("standard"), 3, ("greedy", "random"))
    agents = [MCG.make_agent("greedy", 3, s) for s in (0, 1)]
    while not any(type(e) is TurnStarted for e in game.log):
        agents[game.to_move].play_turn(game, game.to_move)
    seat = game.to_move
    game.answer(seat, '{"do":"attack","id":99999,"target":0}')
    while not game.ended:
        agents[game.to_move].play_turn(game, game.to_move)
    rej = checked_replay(game.log, "", game=MCG).rejected()
    assert len(rej) == sum(1 for e in game.log if type(e) is ActionRejected) >= 1
    assert rej[0]["input"]["type"] == "mcg_command_received" and "99999" in rej[0]["input"]["description"]


def test_the_commands_take_mcg_games(tmp_path, played):
    log = tmp_path / "g.jsonl"
    log.write_bytes(MCG.codec.to_jsonl(played))
    variant = tmp_path / "short.toml"
    variant.write_text(SHORT)
    run = CliRunner().invoke(cli, ["rerun", str(log), "--ruleset", str(variant), "--json"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["divergence"]["rule_b"] == "R-VARIANT"
    seq = next(e.seq for e in played if type(e) in (MonsterDamaged, PlayerDamaged))
    run = CliRunner().invoke(cli, ["audit", str(log), "--seq", str(seq)])
    assert run.exit_code == 0 and "caused by" in run.output, run.output
    run = CliRunner().invoke(cli, ["audit", str(log), "--rejected"])
    assert run.exit_code == 0 and run.output.startswith("0 refused"), run.output
    db = tmp_path / "m.db"
    with open_store(db) as store:
        store.append_game(MCG, {"game_id": MCG.game_id(played[0])}, played)
    run = CliRunner().invoke(cli, ["whatif", "--game", "mcg", "--db", str(db), "--ruleset", str(variant)])
    assert run.exit_code == 0 and "1 game of standard" in run.output and "not enough data" in run.output


def test_the_html_board_is_drawn_from_each_position(played, tmp_path):
    """The page keeps each position's whole view (`replay.mcg.board.compact`): its numbers are the view's; in
    headless Chromium the drawn board shows each side's monsters with their stats, the hand of the seat
    asked (the other as backs), and a card name cannot become markup."""
    from locm.replay.html import render_html
    from tests.test_replay_html import BROWSER, dump_dom

    r = checked_replay(played, "", game=MCG)
    seq = next(e.seq for e in played if type(e) is MonsterDied)  # a position with monsters on the board
    page = render_html(r)
    data = json.loads(page.split('id="game-data">')[1].split("</script>")[0])
    board, v = data["boards"][data["at"][seq]], r.view(seq, None)["seats"]
    for p in (0, 1):
        side, you = board["sides"][p], v[p]["you"]
        assert (side["health"], side["mana"], side["deck"], side["grave"]) == \
            (you["health"], you["mana"], you["deck"], len(you["graveyard"]))
        assert [m[0] for m in side["board"]] == [m["id"] for m in v[p]["board"]["you"]]
        assert [m[2:5] for m in side["board"]] == [[m["power"], m["toughness"], m["health"]]
                                                   for m in v[p]["board"]["you"]]
        assert [c[0] for c in side["hand"]] == [c["id"] for c in you["hand"]]
    if BROWSER is None:
        pytest.skip("no headless Chromium (.ci/run installs it)")
    hostile = list(played)
    created = hostile[0]
    cards = tuple(c.__class__(**{**{f: getattr(c, f) for f in c.__struct_fields__},
                                 "name": "<img src=x onerror=alert(1)>"}) for c in created.cards)
    import msgspec

    hostile[0] = msgspec.structs.replace(created, cards=cards)
    f = tmp_path / "m.html"
    f.write_text(render_html(Replay(hostile, game=MCG)), encoding="utf-8")
    z = dump_dom(f, f"#seq={seq}&as=0", tmp_path)
    assert z.seq == seq
    for p in (0, 1):
        drawn = [(int(a["data-id"]), int(a["data-power"]), int(a["data-toughness"]), int(a["data-health"]))
                 for a in z.cards.get(f"board{p}", [])]
        assert drawn == [(m["id"], m["power"], m["toughness"], m["health"]) for m in v[p]["board"]["you"]]
    assert [int(a["data-id"]) for a in z.cards.get("hand0", [])] == [c["id"] for c in v[0]["you"]["hand"]]
    assert "hand1" not in z.cards and z.backs.get("hand1", 0) == len(v[1]["you"]["hand"])
    dom = __import__("subprocess").run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                                        f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000",
                                        "--dump-dom", f.resolve().as_uri()], capture_output=True, text=True,
                                       timeout=120).stdout
    assert "<img" not in dom and "&lt;img src=x" in dom
