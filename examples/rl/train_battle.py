"""A short real training run: MaskablePPO learns LOCM's battle against `random`, and its win-rate curves.

    pip install torch --index-url <the CPU wheels>      # or a torch wheel you have; then:
    pip install -e '.[train]'
    python examples/rl/train_battle.py --out rl-battle-curve.png          # about 4 minutes on 2 cores
    python examples/rl/train_battle.py --timesteps 4096 --eval-every 4096 --eval-games 40 --out /tmp/smoke.png

The learner plays the battle of LOCM 1.2 (`LOCM-battle-v0`: both decks drafted by `random`, the learner's seat
alternating) against the built-in `random` agent, rewarded 1 / -1 at the end only (no shaping). Every
``--eval-every`` steps the policy plays ``--eval-games`` games against each of ``--eval-opponents`` (`random`,
and `greedy`, which it never trains against), on seeds it never trains on, the same seeds each time: greedy
(its most probable legal action) and sampled (an action drawn from its distribution: untrained, that is a
uniformly random legal action). A uniformly random legal action on those same seeds is the baseline
("random policy"). The PNG shows each curve with its 95% Wilson interval; a JSON beside it has every number.
Torch runs on one thread: the other core plays the games.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

EVAL_SEED0 = 1_000_000
"""Evaluation games use seeds EVAL_SEED0, EVAL_SEED0+1, ...; training draws its seeds from its own generator."""


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (draws count half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(env, choose, games: int) -> float:
    """Wins (draws half) of `choose(obs, mask) -> action` over `games` evaluation games of `env`."""
    wins = 0.0
    for g in range(games):
        obs, info = env.reset(seed=EVAL_SEED0 + g)
        done = False
        reward = 0.0
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
            done = terminated or truncated
        wins += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
    return wins


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="example: python examples/rl/train_battle.py --timesteps 20000 --out /tmp/curve.png")
    p.add_argument("--timesteps", type=int, default=200_000, help="training steps (learner decisions)")
    p.add_argument("--eval-every", type=int, default=20_000, help="steps between evaluations")
    p.add_argument("--eval-games", type=int, default=200, help="games per evaluation")
    p.add_argument("--ruleset", default="1.2", help="1.2, constructed or a variant file")
    p.add_argument("--opponent", default="random", help="the built-in agent trained against: random, greedy, ...")
    p.add_argument("--eval-opponents", nargs="+", default=["random", "greedy"], help="built-in agents evaluated against")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="rl-battle-curve.png", help="the PNG (a .json with the numbers beside it)")
    args = p.parse_args(argv)
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        print(f"train_battle: needs the extra 'train' (sb3-contrib, torch): {exc}", file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from locm.rl import make_env

    torch.set_num_threads(1)

    def env_for(opponent, seat):
        return make_env("LOCM-battle-v0", ruleset=args.ruleset, opponent=opponent, seat=seat)

    train_env = env_for(args.opponent, "alternate")
    train_env.reset(seed=args.seed)
    eval_envs = {name: env_for(name, "alternate") for name in args.eval_opponents}

    rng = np.random.default_rng(args.seed)

    def random_choice(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    t0 = time.perf_counter()
    baselines = {}
    for name, env in eval_envs.items():
        wins = play(env, random_choice, args.eval_games)
        lo, hi = wilson(wins, args.eval_games)
        baselines[name] = {"win_rate": wins / args.eval_games, "low": lo, "high": hi}
        print(f"random policy vs {name}: {wins / args.eval_games:.3f} wins over {args.eval_games} games", flush=True)

    model = MaskablePPO("MlpPolicy", train_env, seed=args.seed, n_steps=2048, batch_size=256, n_epochs=4,
                        learning_rate=3e-4, gamma=0.99, ent_coef=0.01, verbose=0,
                        policy_kwargs={"net_arch": [128, 128]})

    def policy(deterministic):
        def choose(obs, mask):
            action, _ = model.predict(obs, action_masks=mask, deterministic=deterministic)
            return int(action)
        return choose

    curves = {f"{mode} vs {name}": [] for name in args.eval_opponents for mode in ("greedy", "sampled")}

    def evaluate(steps: int) -> None:
        torch.manual_seed(args.seed)  # the sampled policy's draws: the same at every evaluation
        line = [f"{steps:>7} steps:"]
        for name, env in eval_envs.items():
            for mode in ("greedy", "sampled"):
                wins = play(env, policy(mode == "greedy"), args.eval_games)
                lo, hi = wilson(wins, args.eval_games)
                curves[f"{mode} vs {name}"].append({"steps": steps, "win_rate": wins / args.eval_games, "low": lo,
                                                    "high": hi, "seconds": round(time.perf_counter() - t0, 1)})
                line.append(f"{mode} vs {name} {wins / args.eval_games:.3f} [{lo:.2f}, {hi:.2f}]")
        print(" ".join(line) + f" ({time.perf_counter() - t0:.0f} s)", flush=True)

    evaluate(0)
    done = 0
    while done < args.timesteps:
        chunk = min(args.eval_every, args.timesteps - done)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        done = model.num_timesteps
        evaluate(done)

    out = Path(args.out)
    record = {"ruleset": args.ruleset, "opponent": args.opponent, "seed": args.seed, "eval_games": args.eval_games,
              "timesteps": done, "random_policy": baselines, "curves": curves,
              "seconds": round(time.perf_counter() - t0, 1)}
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")

    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, points) in enumerate(curves.items()):
        xs = [pt["steps"] for pt in points]
        c = colours[i % len(colours)]
        ax.fill_between(xs, [pt["low"] for pt in points], [pt["high"] for pt in points], color=c, alpha=0.15)
        ax.plot(xs, [pt["win_rate"] for pt in points], marker="o", markersize=3, color=c,
                linestyle="-" if label.startswith("greedy") else ":", label=f"PPO ({label})")
    for j, (name, b) in enumerate(baselines.items()):
        ax.axhline(b["win_rate"], color="grey", linestyle=["--", "-."][j % 2], label=f"random policy vs {name}")
    ax.set_xlabel(f"training steps (learner decisions) against {args.opponent}")
    ax.set_ylabel(f"win rate ({args.eval_games} games, 95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title(f"LOCM {args.ruleset} battle, MaskablePPO trained vs {args.opponent}: "
                 f"{record['seconds'] / 60:.1f} min, 1 torch thread", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out} and {out.with_suffix('.json')} ({record['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
