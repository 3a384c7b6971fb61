"""my-card-game's events and modules: every event type occurs in real play and round-trips the codec; tags are
unique and no other game's; every rule the code cites is in RULES.md; the package and its data are listed for
installation. (tests/test_purity.py scans engine/mcg/ and events/mcg/ with the rest of the core.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from locm.engine.mcg.commands import BadAnswer, Mulligan, Play
from locm.engine.mcg.game import McgGame, play_match
from locm.engine.mcg.rules import STANDARD
from locm.events.locm.catalog import EVENT_TYPES as LOCM_EVENT_TYPES
from locm.events.mcg.account import ACCOUNT_EVENT_TYPES
from locm.events.mcg.catalog import EVENT_TYPES, EffectDelayed, EffectTriggered
from locm.events.mcg.codec import DecodeError, account_from_jsonl, from_json, from_jsonl, to_json, to_jsonl

ROOT = Path(__file__).resolve().parent.parent
RULES_TEXT = (ROOT / "data" / "mcg" / "RULES.md").read_text()


def _logs():
    for seed in range(22):  # seed 21 burns a card (R-HAND)
        yield play_match(STANDARD.replace(turn_limit=60), seeds=seed, agents=("random", "random")).log
    for seed in range(40):  # R-FX-DELAY: the card file's waiting spells, played by greedy
        log = play_match(STANDARD, seeds=seed, agents=("greedy", "random")).log
        yield log
        if any(type(e) is EffectDelayed for e in log):
            break
    game = McgGame.new(seeds=1)
    game.timeout(game.to_move)
    yield game.log
    game = McgGame.new(seeds=1, first=0)
    game.submit(BadAnswer(0, "?", "test"))
    yield game.log
    game = McgGame.new(STANDARD.replace(rejection_limit=2), seeds=1, first=0)
    game.submit(Mulligan(0, (1,)))
    game.submit(Play(0, 1))
    yield game.log


def test_every_event_type_occurs_and_round_trips():
    seen = set()
    for log in _logs():
        for e in log:
            assert from_json(to_json(e)) == e
            seen.add(type(e))
        assert from_jsonl(to_jsonl(log)) == log
    assert seen == set(EVENT_TYPES), {t.__name__ for t in EVENT_TYPES} - {t.__name__ for t in seen}


def test_tags_are_unique_and_no_other_games():
    tags = [t.__struct_config__.tag for t in (*EVENT_TYPES, *ACCOUNT_EVENT_TYPES)]
    assert len(tags) == len(set(tags)) and all(tag.startswith("mcg_") for tag in tags)
    assert not set(tags) & {t.__struct_config__.tag for t in LOCM_EVENT_TYPES}


def test_a_line_that_is_not_an_event_is_a_decode_error_naming_the_line():
    good = to_jsonl(play_match(seeds=1).log[:3])
    with pytest.raises(DecodeError, match="^line 2: not a my-card-game event"):
        from_jsonl(good.replace(b"mcg_coin_flipped", b"coin_flipped"))
    with pytest.raises(DecodeError, match="line 1"):
        from_jsonl(good.replace(b'"rules_hash"', b'"rules_hazh"'))
    with pytest.raises(DecodeError):
        account_from_jsonl(good)


def test_a_trigger_chain_is_the_same_in_every_fold():
    """Every effect names its trigger; the trigger its cause: an audit walks from any result to a command."""
    log = play_match(seeds=3, agents=("greedy", "greedy")).log
    by_seq = {e.seq: e for e in log}
    for e in log:
        if type(e) is EffectTriggered:
            root = e
            while root.cause != -1:
                root = by_seq[root.cause]
            assert type(root).__name__ in ("CommandReceived", "GameCreated")


def test_every_rule_the_code_cites_is_in_the_rules():
    headings = set(re.findall(r"^## (R-[A-Z-]+)", RULES_TEXT, re.M))
    defined = set(re.findall(r"(R-[A-Z][A-Z-]*[A-Z])", RULES_TEXT))
    cited = set()
    for path in [*(ROOT / "engine" / "mcg").glob("*.py"), *(ROOT / "events" / "mcg").glob("*.py")]:
        cited |= set(re.findall(r'"(R-[A-Z][A-Z-]*[A-Z])"', path.read_text()))
    assert cited and cited <= defined, sorted(cited - defined)
    assert {"R-ATTACK", "R-ORDER", "R-WIN", "R-CAP", "R-VARIANT", "R-PACK-BOOST"} <= headings


def test_the_package_and_its_data_are_listed_for_installation():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"locm.engine.mcg", "locm.events.mcg"} <= set(project["packages"])
    data = project["package-data"]["locm.data"]
    assert "mcg/*.toml" in data and "mcg/*.md" in data
    assert (ROOT / "data" / "mcg" / "cards.toml").exists()


def test_a_forged_log_stops_the_fold_or_the_re_decision_at_its_event():
    """A log is hostile until checked: an event that does not fit the state stops the fold with its seq; one
    that fits but is not what the rules give is found by re-deciding."""
    import msgspec

    from locm.engine.errors import InvalidLogError
    from locm.engine.mcg.evolve import fold
    from locm.engine.mcg.game import redecide
    from locm.events.mcg.catalog import CardDrawn, PlayerDamaged

    log = play_match(seeds=2, agents=("greedy", "random")).log
    k = next(i for i, e in enumerate(log) if type(e) is CardDrawn and i > 20)
    for forged in (msgspec.structs.replace(log[k], player=-1), msgspec.structs.replace(log[k], id=log[k].id + 1),
                   msgspec.structs.replace(log[k], seq=k + 1)):
        with pytest.raises(InvalidLogError) as err:
            fold([*log[:k], forged, *log[k + 1:]])
        assert err.value.seq in (k, k + 1)
    h = next(i for i, e in enumerate(log) if type(e) is PlayerDamaged)
    lighter = [*log[:h], msgspec.structs.replace(log[h], amount=log[h].amount - 1), *log[h + 1:]]
    fold(lighter)  # it folds: only the rules can tell
    assert redecide(lighter)[1] == h
