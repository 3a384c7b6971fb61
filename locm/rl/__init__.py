"""Reinforcement-learning environments: Gymnasium, PettingZoo and a vectorised environment, for every game.

Needs the extra ``locm[rl]`` (Gymnasium, PettingZoo, NumPy); ``import locm`` never imports this package.

    >>> import gymnasium as gym
    >>> env = gym.make("locm.rl:LOCM-battle-v0", ruleset="constructed", opponent="greedy")
    >>> obs, info = env.reset(seed=7)
    >>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

The environment ids (`ENV_IDS`) are registered with Gymnasium when this package is imported (``gym.make``
imports it for an id written ``"locm.rl:ID"``). `make_env` builds the same environments without Gymnasium's
wrappers; `locm.rl.pz` has the PettingZoo environments, `locm.rl.vector` the vectorised one,
`locm.rl.dataset` the dataset export. The environments know no game: each game is one adapter
(`locm.rl.adapter`) that its definition names (`GameDef.rl_adapter`, with its ids `GameDef.rl_envs`): LOCM's
in `locm.rl.locm`, my-card-game's in `locm.rl.mcg`, Skyport's in `locm.rl.skyport`.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
    import numpy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    from locm.engine.errors import LocmError

    raise LocmError(f"locm.rl needs the extra 'rl': pip install 'locm[rl]' ({exc})") from None

from locm.rl.env import GameEnv

def _env_ids() -> dict[str, tuple[str, tuple[str, ...] | None, str]]:
    """Every registered game's environment ids (`GameDef.rl_envs`), in the registry's order."""
    from locm.engine import registry

    out: dict[str, tuple[str, tuple[str, ...] | None, str]] = {}
    for name in registry.GAMES:
        for env_id, phases, ruleset in registry.get(name).rl_envs:
            out[env_id] = (name, phases, ruleset)
    return out


ENV_IDS: dict[str, tuple[str, tuple[str, ...] | None, str]] = _env_ids()
"""Each id: the game, the phases the learner plays (None: all), the ruleset when none is given."""


def game_spec(game: str = "locm", ruleset: Any = None) -> Any:
    """The adapter of a game (a registered name or alias) under a ruleset: its definition's ``rl_adapter``
    called with it (None: the game's first built-in ruleset; LOCM: ``1.2``, ``constructed``, a variant file or
    `Rules`; my-card-game: ``standard``, a variant file or `McgRules`; Skyport: ``2013``, a rules file or
    `SkyportRules`)."""
    import importlib

    from locm.engine import registry

    try:
        found = registry.get(game)
    except registry.UnknownGameError:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(registry.names())}") from None
    if not found.rl_adapter:  # a game with no adapter of its own: the generic one over its encoder, if named
        return _encoded_spec(game, ruleset)
    module, _, name = found.rl_adapter.partition(":")
    spec = getattr(importlib.import_module(module), name)
    return spec(found.rulesets[0] if ruleset is None else ruleset)


def _encoded_spec(name: str, ruleset: Any) -> Any:
    """The adapter of any other registered game whose definition names its encoder (`GameDef.rl_encoder`): its
    rules from a built-in ruleset's name (None: its first), a variant file's path, or a rules value."""
    import importlib
    from pathlib import Path

    from locm.engine import registry
    from locm.rl.seam_game import SeamSpec

    game = registry.get(name)
    if not game.rl_encoder:
        raise ValueError(f"{game.title} has no environment: its definition names no rl_encoder")
    if ruleset is None or isinstance(ruleset, str) and ruleset in game.rulesets:
        rules = game.rules(ruleset or game.rulesets[0])
    elif isinstance(ruleset, (str, Path)):
        rules = game.variant(Path(ruleset).read_text(encoding="utf-8"), str(ruleset))
    else:
        rules = ruleset
    module, _, attr = game.rl_encoder.partition(":")
    encoder = getattr(importlib.import_module(module), attr)(rules)
    return SeamSpec(game.name, rules, encoder, {})


GAME_ENV_ID = "Game-v0"
"""The environment of any registered game with an encoder, named by ``game=`` (a game of another package):
``gym.make("locm.rl:Game-v0", game="nim", opponent="random")``; every phase is learned."""


def make_env(env_id: str, ruleset: Any = None, game: str | None = None, **options: Any) -> GameEnv:
    """The environment of an id (`ENV_IDS`, or `GAME_ENV_ID` with ``game``), without Gymnasium's wrappers;
    `options` as `GameEnv` takes them."""
    if env_id == GAME_ENV_ID:
        if game is None:
            raise ValueError(f"{GAME_ENV_ID} needs game=NAME (a registered game with an encoder)")
        return GameEnv(game_spec(game, ruleset), phases=None, **options)
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment {env_id!r}: expected one of {', '.join(ENV_IDS)}, {GAME_ENV_ID}")
    name, phases, default = ENV_IDS[env_id]
    spec = game_spec(name, default if ruleset is None else ruleset)
    return GameEnv(spec, phases=phases, **options)


def _register() -> None:
    for env_id in (*ENV_IDS, GAME_ENV_ID):
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=make_env, kwargs={"env_id": env_id},
                               disable_env_checker=False)


_register()

__all__ = ["GameEnv", "ENV_IDS", "GAME_ENV_ID", "make_env", "game_spec"]
