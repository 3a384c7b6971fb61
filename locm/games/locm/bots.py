"""LOCM's agents at the edges: one of its built-in agents (`engine.locm.agents`) or a command line playing the
official referee's protocol (`locm.runner.bots.BotAgent`), by the name given (`make_agent`), and a built-in
agent timed as a bot is (`TimedAgent`), the native core's games included (`engine.locm.native`).

The generic half (the bot's process, its time limits, how a command line is read) is `locm.runner.bots`'; the
names here are its functions over LOCM's built-in agents (`AGENT_NAMES`).
"""

from __future__ import annotations

import time

from locm.engine.locm.agents import AGENT_NAMES, Agent, make_agent as make_builtin
from locm.runner import bots
from locm.runner.bots import BotAgent, TimeLimits, count_turn
from locm.runner.sandbox.bwrap import Sandbox


def is_builtin(spec: str) -> bool:
    """Whether `spec` names one of LOCM's built-in agents (not a command line)."""
    return bots.is_builtin(spec, AGENT_NAMES)


def check_agent(spec: str) -> str:
    """`spec` if it names an agent LOCM can make (a built-in or a runnable command line), else raise
    `AgentSpecError` naming LOCM's built-in agents."""
    return bots.check_agent(spec, AGENT_NAMES)


def make_agent(spec: str, seed: int = 0, limits: TimeLimits | None = None,
               sandbox: Sandbox | None = None) -> Agent | BotAgent:
    """A built-in agent seeded with `seed`, or a `BotAgent` for a command line (not started yet), run in
    `sandbox` (by default: the sandbox with the default limits)."""
    if is_builtin(spec):
        return make_builtin(spec, seed)
    return BotAgent(spec, limits or TimeLimits(), sandbox=sandbox)


class TimedAgent(Agent):
    """A built-in agent with its think time measured like a bot's (turns, total and max milliseconds)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.turns = 0
        self.think_ms_total = 0.0
        self.think_ms_max = 0.0

    def play_turn(self, game, player: int) -> None:
        t0 = time.perf_counter()
        self.inner.play_turn(game, player)
        count_turn(self, (time.perf_counter() - t0) * 1000.0)

    @property
    def native_inner(self) -> Agent:
        """The agent the native core plays (`locm.engine.locm.native`): a whole game at once, timed turn by turn."""
        return self.inner

    def native_played(self, turn_ms: "list[float]") -> None:
        for ms in turn_ms:
            count_turn(self, ms)


__all__ = ["is_builtin", "check_agent", "make_agent", "TimedAgent"]
