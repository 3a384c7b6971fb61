"""Nim's encoder for locm's environments (`locm.rl.seam_game.Encoder`), named by its definition's ``rl_encoder``:
one phase, ``play``, whose action slots are (heap, count) pairs then a pass, and whose observation is each
heap's stones, the seat's own pass token (never another seat's: hidden) and the number of players."""

from __future__ import annotations

from typing import Any, Sequence

from locm.rl.adapter import Phase

from outside_nim.rules import NimRules, Pass, State, Take


class NimEncoder:
    phase_names = ("play",)

    def __init__(self, rules: NimRules) -> None:
        self.heaps = len(rules.heaps) or 3
        most = max(rules.heaps, default=7)
        self.counts = min(most, rules.max_take) if rules.max_take else most
        self.scale = float(most)
        takes = [f"take {c} from heap {h}" for h in range(self.heaps) for c in range(1, self.counts + 1)]
        features = (*(f"heap{h}" for h in range(self.heaps)), "my_token", "players")
        self.phases = (Phase("play", len(takes) + 1, features, (*takes, "pass")),)

    def slots(self, state: State, seat: int, legal: Sequence[Any]) -> tuple[list[int], list[Any]]:
        slots, commands = [], []
        for m in legal:
            slot = self.heaps * self.counts if type(m) is Pass else m.heap * self.counts + m.count - 1
            slots.append(slot)
            commands.append(m)
        return slots, commands

    def observe(self, state: State, seat: int) -> list[float]:
        return [*(n / self.scale for n in state.heaps), float(state.tokens[seat]), state.players / 3]


def encoder(rules: NimRules) -> NimEncoder:
    return NimEncoder(rules)


__all__ = ["NimEncoder", "encoder", "Take"]
