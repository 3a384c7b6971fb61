"""my-card-game on the engine: its pure rules core and collection economy (rules: ``data/mcg/RULES.md``).

What a game seam needs, in one place (every name below is a pure function or a value; nothing here opens a
file, a process or a database, except reading the packaged card file once):

==============================  ===========================================================================
create(rules, seeds, agents)    `setup.create`: the opening events (``decks=``, ``first=`` for a series:
                                `game.next_first`, ``cards=``); `game.McgGame.new` folds them into a game
decide(state, command)          `decide.decide` (`decide_and_apply` also returns the new state);
                                `decide.decide_line(state, player, line)` for a bot's raw answer line
evolve(state, event)            `evolve.evolve`; `evolve.fold(events)` rebuilds a state from a log
legal actions                   `legal.legal_actions(state)` for the phase the game is in (choose, mulligan,
                                main), `legal.problem(state, command)` the reason one is not legal
whose move                      `legal.to_move(state)` (-1 once ended)
outcome                         `game.outcome(state)`: winner, ranking, reason, turn, health (a `McgResult`;
                                None: going on)
bot protocol                    `protocol.message(state, player)` (the line a bot is sent),
                                `protocol.parse_answer(line, player)` (its answer; `ProtocolError` if bad)
per-player views                `views.view(state, player)`, `views.redact(event, player)`
describing an event             `views.describe(event, state)`
re-deciding a log               `game.redecide(log)`: the first seq the rules would not produce (-1: none)
built-in agents                 `agents.make_agent("random" | "greedy", seed)`; `game.play_match(...)`
rules and variants              `rules.STANDARD`, `rules.FIELDS`, `rules.diff_rules`, `variants.parse_variant`
cards                           `cards.base_cards()`, `cards.parse_cards(text)` (the effect language)
event catalogs and codecs       `locm.events.mcg.catalog` (a match), `locm.events.mcg.account` (an account),
                                `locm.events.mcg.codec`
the economy                     `economy.decide_account`, `evolve_account`, `fold_account`, `audit_account`,
                                `provenance`, `match_deck`, `draw_pack`, `pack_odds`
==============================  ===========================================================================

Index fields a store may keep per match: ``rules.name``, ``rules_hash``, ``seeds.seed``, ``agents`` (from
`mcg_game_created`), and the winner, reason and turn (from `mcg_game_ended`).
"""

from __future__ import annotations

from locm.engine.mcg.agents import AGENT_NAMES, make_agent
from locm.engine.mcg.decide import decide, decide_and_apply, decide_line
from locm.engine.mcg.economy import (
    audit_account, decide_account, draw_pack, evolve_account, fold_account, match_deck, pack_odds, provenance,
)
from locm.engine.mcg.evolve import evolve, fold
from locm.engine.mcg.game import McgGame, McgResult, next_first, outcome, play_match, redecide
from locm.engine.mcg.legal import legal_actions, problem, to_move
from locm.engine.mcg.protocol import message, parse_answer
from locm.engine.mcg.rules import STANDARD, diff_rules
from locm.engine.mcg.setup import create
from locm.engine.mcg.variants import parse_variant
from locm.engine.mcg.views import describe, redact, view
from locm.events.mcg.catalog import EVENT_TYPES, AnyEvent
from locm.events.mcg.codec import from_jsonl, to_jsonl

GAME = "mcg"
ALIASES = ("my-card-game",)

__all__ = [
    "GAME", "ALIASES", "create", "decide", "decide_and_apply", "decide_line", "evolve", "fold", "legal_actions",
    "problem", "to_move", "outcome", "McgResult", "message", "parse_answer", "view", "redact", "describe",
    "redecide", "next_first", "make_agent", "AGENT_NAMES", "play_match", "McgGame", "STANDARD", "diff_rules", "parse_variant",
    "EVENT_TYPES", "AnyEvent", "to_jsonl", "from_jsonl", "decide_account", "evolve_account", "fold_account",
    "audit_account", "provenance", "match_deck", "draw_pack", "pack_odds",
]
