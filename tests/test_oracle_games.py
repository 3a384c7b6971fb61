"""Games played through the official Java referee (`../shared/oracle/`) with random, item-heavy, lazy and
chaotic bots, chosen by `tests/tools/select_oracle.py` to cover what the official logs never reach: 1.2 items,
deck-out, the 1.2 turn limit, hard errors of every kind and timeouts in every phase, and the input the referee
still sends to player 1 after player 0's bad draft or construct answer. Every input byte for byte, and the
winner; every game also re-decides from its own log."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from locm.engine.locm.redecide import redecide
from locm.replay.locm.conformance import check_game, read_log_file
from tests.tools.select_oracle import features

DATA = Path(__file__).parent / "data"
FILES = {"1.2": DATA / "oracle-1.2-games.txt.gz", "constructed": DATA / "oracle-1.5-games.txt.gz"}
GAMES = {ruleset: list(read_log_file(path)) for ruleset, path in FILES.items()}


@pytest.mark.parametrize("ruleset", sorted(FILES))
def test_every_oracle_game_is_identical_and_redecides(ruleset):
    games = GAMES[ruleset]
    assert len(games) >= 200 and {g.ruleset for g in games} == {ruleset}
    for logged in games:
        result = check_game(logged, keep_game=True)
        assert result.identical, result.summary()
        again = redecide(result.game.log)
        assert again.ok and again.strict, f"game {logged.index}: {again.divergence}"


def _coverage(ruleset) -> collections.Counter:
    count: collections.Counter = collections.Counter()
    for logged in GAMES[ruleset]:
        result = check_game(logged, keep_game=True)
        count.update(features(result.game, logged))
    return count


@pytest.mark.parametrize("ruleset, phase", [("1.2", "draft"), ("constructed", "construct")])
def test_the_oracle_games_cover_what_the_official_logs_do_not(ruleset, phase):
    have = _coverage(ruleset)
    wanted = ["damage:deck", "item:creature", "item:opponent", "owed_input_after_player0_error",
              f"hard_error:{phase}:timeout", "hard_error:battle:timeout", f"hard_error:{phase}",
              "hard_error:battle", "ended:health:winner0", "ended:health:winner1", "damage:breakthrough",
              "heal:drain", "WardLost", "DrawLost"]
    wanted += ["damage:turn_limit", "RuneBroken", "predefined_draft"] if ruleset == "1.2" else ["area_copy"]
    missing = [f for f in wanted if not have[f]]
    assert not missing, f"the committed {ruleset} oracle games lack: {missing}"
    kinds = {f for f in have if f.startswith("hard_error:") and f.count(":") == 2}
    assert len(kinds) >= 8, sorted(kinds)  # several kinds of malformed answers, in both phases
