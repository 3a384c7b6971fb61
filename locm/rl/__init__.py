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
(`locm.rl.adapter`): LOCM's in `locm.rl.locm`, my-card-game's in `locm.rl.mcg`, Skyport's in
`locm.rl.skyport`.
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

ENV_IDS: dict[str, tuple[str, tuple[str, ...] | None, str]] = {
    # id: (game, phases learned (None: every phase), the ruleset by default)
    "LOCM-draft-v0": ("locm", ("draft",), "1.2"),
    "LOCM-constructed-v0": ("locm", ("construct",), "constructed"),
    "LOCM-battle-v0": ("locm", ("battle",), "1.2"),
    "LOCM-v0": ("locm", None, "1.2"),
    "MCG-v0": ("mcg", None, "standard"),
    "MCG-main-v0": ("mcg", ("main",), "standard"),
    "Skyport-v0": ("skyport", None, "2013"),
}
"""Each id: the game, the phases the learner plays (None: all), the ruleset when none is given."""


def game_spec(game: str = "locm", ruleset: Any = None) -> Any:
    """The adapter of a game under a ruleset (LOCM: ``1.2``, ``constructed``, a variant file or `Rules`;
    my-card-game: ``standard``, a variant file or `McgRules`; Skyport: ``2013``, a rules file or `SkyportRules`)."""
    if game == "locm":
        from locm.rl.locm import LocmSpec

        return LocmSpec("1.2" if ruleset is None else ruleset)
    if game in ("mcg", "my-card-game"):
        from locm.rl.mcg import McgSpec

        return McgSpec(ruleset)
    if game == "skyport":
        from locm.rl.skyport import SkyportSpec

        return SkyportSpec(ruleset)
    raise ValueError(f"unknown game {game!r}: expected locm, mcg or skyport")


def make_env(env_id: str, ruleset: Any = None, **options: Any) -> GameEnv:
    """The environment of an id (`ENV_IDS`), without Gymnasium's wrappers; `options` as `GameEnv` takes them."""
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment {env_id!r}: expected one of {', '.join(ENV_IDS)}")
    game, phases, default = ENV_IDS[env_id]
    spec = game_spec(game, default if ruleset is None else ruleset)
    return GameEnv(spec, phases=phases, **options)


def _register() -> None:
    for env_id in ENV_IDS:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=make_env, kwargs={"env_id": env_id},
                               disable_env_checker=False)


_register()

__all__ = ["GameEnv", "ENV_IDS", "make_env", "game_spec"]
