"""A re-run played whole by the native core (`locm.games.locm.whatif.play_out_under`, what `locm cardvalue` and
`locm tune` re-run with) is the game the Python path's re-run gives (`locm.games.locm.rerun.rerun_game`), byte
for byte, under variants that change cards' values and rules; and the base games `verified_game` keeps are read
afresh once their log changes."""

from __future__ import annotations

import pytest

from locm.engine.locm import native
from locm.engine.locm.definition import GAME
from locm.engine.locm.rulesets import by_name
from locm.engine.locm.variants import parse_variant
from locm.games.locm.rerun import rerun_game
from locm.games.locm.tournament import run_game
from locm.games.locm.whatif import play_out_under

pytestmark = pytest.mark.skipif(not native.available(), reason="the native core is not built (make native)")

VARIANTS = ['base = "1.2"\nname = "strong1"\n[cards.1]\nattack = 12\ndefense = 12\nkeywords = "BCDGLW"\n',
            'base = "1.2"\nname = "weak69"\n[cards.69]\nattack = 0\ndefense = 1\nkeywords = "------"\n'
            'my_health = -30\n',
            'base = "1.2"\nname = "cheap"\n[cards.7]\ncost = 0\n[cards.116]\nattack = 9\n']


@pytest.mark.parametrize("agents", [("random", "random"), ("greedy", "random"), ("pass", "greedy")])
@pytest.mark.parametrize("text", VARIANTS)
def test_the_native_whole_game_re_run_is_the_python_re_run(agents, text):
    rules_b = parse_variant(text)
    for seed in (1, 2, 3):
        base = run_game(by_name("1.2"), seed, agents).game.log
        python = rerun_game(base, rules_b)
        whole = play_out_under(base[0], rules_b)
        assert whole is not None
        events, prepared = whole
        assert GAME.codec.to_jsonl(events) == GAME.codec.to_jsonl(python.game.log), (seed, agents)
        assert prepared.record.game_id == python.game_id
        assert prepared.record.head_hash == python_head(python)


def python_head(played) -> str:
    from locm.store.eventstore import prepare_game

    return prepare_game(GAME, played.extras, played.game.log).record.head_hash


def test_a_game_with_explicit_parameters_is_left_to_the_python_path():
    base = run_game(by_name("1.2"), 4, ("random", "random"), {"draftChoicesSeed": 77}).game.log
    assert play_out_under(base[0], parse_variant(VARIANTS[0])) is None


def test_a_kept_base_game_is_read_and_checked_again_once_its_log_changes(tmp_path):
    import zlib

    from locm.errors import ChainError
    from locm.store.eventstore import open_store, pack_log, prepare_game
    from locm.games.locm.whatif import verified_game

    played = run_game(by_name("1.2"), 5, ("random", "random"))
    with open_store(tmp_path / "s.db") as store:
        store.append_prepared(prepare_game(GAME, played.extras, played.game.log))
        gid = played.game_id
        created, facts = verified_game(store, gid)
        assert created == played.game.log[0] and facts.winner == played.game.log[-1].winner
        assert verified_game(store, gid)[1] is facts  # kept: not folded again
        (data,) = store.db.execute("SELECT data FROM logs WHERE game = (SELECT id FROM games WHERE game_id = ?)",
                                   (gid,)).fetchone()
        lines = zlib.decompress(data).split(b"\n")
        lines[3] = lines[3].replace(b'"seq":3', b'"seq":3 ')
        store.db.execute("UPDATE logs SET data = ? WHERE game = (SELECT id FROM games WHERE game_id = ?)",
                         (pack_log(lines), gid))
        with pytest.raises(ChainError):
            verified_game(store, gid)
