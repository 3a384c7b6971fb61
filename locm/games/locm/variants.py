"""Choosing a LOCM ruleset on the command line: a built-in name or alias, or a variant file (TOML).

`resolve_ruleset` is the one resolver behind every ``--ruleset`` option and the arguments of ``locm rules
diff``: the file is read here, at the edge; `engine.locm.variants` parses and validates its text.
"""

from __future__ import annotations

from pathlib import Path

from locm.common.rulesets import RulesetChoiceError
from locm.engine.locm.rulesets import ALIASES, RULESETS, Rules
from locm.engine.locm.variants import parse_variant


def resolve_ruleset(spec: str | Rules) -> Rules:
    """The `Rules` a user means by `spec`: a built-in name or alias (``1.2``, ``constructed``, ``1.5``), or
    the path of a variant file (``examples/variants/low-health.toml``)."""
    if isinstance(spec, Rules):
        return spec
    key = ALIASES.get(spec, spec)
    if key in RULESETS:
        return RULESETS[key]
    path = Path(spec)
    if not _looks_like_a_file(spec):
        raise RulesetChoiceError(f"unknown ruleset {spec!r}: expected 1.2, constructed (alias 1.5) or a "
                                 "ruleset file (.toml)")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesetChoiceError(f"{spec}: no such ruleset file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesetChoiceError(f"{spec}: cannot read the ruleset file: {getattr(exc, 'strerror', None) or exc}"
                                 ) from None
    return parse_variant(text, spec, path.stem)


def ruleset_name(spec: str, store) -> str:
    """The stored ruleset name a filter means: a built-in's name, a variant file's ``name``, or `spec` itself
    when games of a variant of that name are in `store`."""
    found = ruleset_or_name(spec, store)
    return found if isinstance(found, str) else found.name


def ruleset_or_name(spec: str, store) -> Rules | str:
    """`resolve_ruleset(spec)` for a built-in or a file; else `spec`, the name of a variant with games in
    `store` (refused if there are none)."""
    if ALIASES.get(spec, spec) in RULESETS or _looks_like_a_file(spec):
        return resolve_ruleset(spec)
    if not store.games(ruleset=spec, limit=1, game="locm"):
        raise RulesetChoiceError(f"unknown ruleset {spec!r}: expected 1.2, constructed (alias 1.5), a ruleset "
                                 "file (.toml) or the name of a variant with stored games")
    return spec


def _looks_like_a_file(spec: str) -> bool:
    return Path(spec).suffix.lower() == ".toml" or Path(spec).exists() or "/" in spec


def rules_diff_command(left: str, right: str, as_json: bool, echo) -> None:
    """`locm rules diff A B`: one row per differing field (card changes per card and field)."""
    import json

    from locm.engine.locm.rulesets import rules_hash
    from locm.engine.locm.rulesdiff import diff_rows
    from locm.common.tables import table

    a, b = resolve_ruleset(left), resolve_ruleset(right)
    rows = diff_rows(a, b)
    if as_json:
        echo(json.dumps({"left": _identity(a), "right": _identity(b),
                         "differences": [r._asdict() for r in rows]}, indent=1))
        return
    echo(table(("rule", "setting", _label(a), _label(b), "meaning"),
               [(r.rule, r.field, r.left, r.right, r.doc) for r in rows]))
    echo(f"{len(rows)} differences" + ("" if rows or rules_hash(a) != rules_hash(b) else
                                      " (the same values: the same rules_hash)"))


def _identity(r: Rules) -> dict:
    from locm.engine.locm.rulesets import rules_hash

    return {"name": r.name, "base": r.base_name, "version": r.version, "rules_hash": rules_hash(r)}


def _label(r: Rules) -> str:
    return f"{r.name} ({r.version})" if is_builtin(r) else f"{r.name} ({r.base_name} variant)"


def rules_identities(store, game_ids: list[str]) -> dict[str, str]:
    """Per stored game, the rules it ran under as its `game_created` records them: ``base #hash`` (the first
    12 hex digits of `rules_hash`; a schema 1 game has none)."""
    out = {}
    for gid, created in store.iter_events(game_ids, types=("game_created",)):
        rules = created.rules
        base = rules.base_name if rules is not None else created.ruleset
        out[gid] = f"{base} #{created.rules_hash[:12]}" if created.rules_hash else base
    return out


def is_builtin(rules: Rules) -> bool:
    return RULESETS.get(rules.name) == rules


__all__ = ["resolve_ruleset", "ruleset_name", "ruleset_or_name", "RulesetChoiceError", "is_builtin",
           "rules_diff_command", "rules_identities"]
