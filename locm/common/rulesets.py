"""Any registered game's rules from a --ruleset value: a built-in name, or a variant file (TOML) the game
checks on load (LOCM's own resolver, with its aliases and stored variant names: `locm.games.locm.variants`)."""

from __future__ import annotations

from pathlib import Path

from locm.engine.errors import LocmError


class RulesetChoiceError(LocmError):
    """A --ruleset that is neither a built-in ruleset nor a readable variant file."""


def game_rules(game, spec: str):
    """Another registered game's rules (`engine.seam.GameDef`) from --ruleset: a built-in name, or a variant
    file (TOML) checked on load by the game (`GameDef.variant`); LOCM's default name (1.2) stands for the
    game's first ruleset."""
    if spec == "1.2":
        return game.rules(game.rulesets[0])
    path = Path(spec)
    if path.suffix == ".toml" or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RulesetChoiceError(f"--ruleset {spec}: cannot read it: {getattr(exc, 'strerror', None) or exc}")
        return game.variant(text, spec)
    return game.rules(spec)


def rules_or_usage(game, spec: str):
    """`game_rules`, a refused --ruleset as a `UsageProblem` (the command's usage error)."""
    from locm.errors import UsageProblem

    try:
        return game_rules(game, spec)
    except RulesetChoiceError as exc:
        raise UsageProblem(str(exc)) from None


def rules_diff(game, left: str, right: str, as_json: bool, echo) -> None:
    """`locm rules diff --game G A B`: every field of the game's rules that differs (`GameDef.rules_diff`), with
    its rule id, as a table or a JSON list. A game with its own (LOCM) has the hook ``rules_diff``."""
    import json

    import msgspec

    from locm.common.tables import table

    a, b = rules_or_usage(game, left), rules_or_usage(game, right)
    found = game.rules_diff(a, b)
    shown = lambda v: v if isinstance(v, str) else json.dumps(msgspec.to_builtins(v))  # noqa: E731
    if as_json:
        echo(json.dumps([{"field": f, "rule": r, "left": shown(x), "right": shown(y)} for f, r, x, y in found],
                        indent=1))
    else:
        echo(table(("field", "rule", game.rules_name(a), game.rules_name(b)),
                   [(f, r, shown(x)[:60], shown(y)[:60]) for f, r, x, y in found]))
        echo(f"{len(found)} rule{'s' * (len(found) != 1)} differ")


__all__ = ["RulesetChoiceError", "game_rules", "rules_or_usage", "rules_diff"]
