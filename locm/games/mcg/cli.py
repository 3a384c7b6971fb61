"""my-card-game's own commands (added by `locm.games.registry`): `locm mcg ...`, the collection economy of an
account kept in a store (`locm.games.mcg.collection`, one call a command; R-ACCOUNT … R-PLAYDECK)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from locm.cli.options import DB_OPTION


@click.group("mcg")
def mcg():
    """my-card-game's collection economy: accounts, packs, destroying, crafting and decks.

    An account (kept in the store) has gold, material, a collection and nine deck slots; a new one gets
    a starter collection and deck. `locm play --game mcg --account NAME` plays a match with its deck and
    credits the match's gold once.

    \b
    Example:
      locm mcg account new alice --db games.db
      locm mcg buy alice --packs 2 --db games.db
      locm play --game mcg --seed 7 --account alice --p1 random --db games.db
    """


@mcg.group("account")
def account():
    """Accounts of the store.

    \b
    Example:
      locm mcg account new alice --db games.db
    """


@account.command("new")
@click.argument("name")
@click.option("--seed", type=click.IntRange(-(1 << 63), (1 << 63) - 1),
              help="The seed of the account's packs [default: a random one].")
@DB_OPTION
def account_new(name, seed, db):
    """Open account NAME: its starting gold, the starter collection and the starter deck in slot 0.

    \b
    Example:
      locm mcg account new alice --db games.db
    """
    from locm.games.mcg.collection import new_account

    state = new_account(db, name, seed)
    click.echo(f"account {name}: {state.gold} gold, {sum(state.collection.values())} starter cards, deck 0 "
               f"'starter' saved in {db}")


@mcg.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: gold, material, collection {card id: copies}, decks {slot: [card ids]}, history.")
@DB_OPTION
def show(name, as_json, db):
    """Show account NAME: gold, material, its collection and its decks.

    \b
    Example:
      locm mcg show alice --db games.db
      locm mcg show alice --json --db games.db
    """
    from locm.games.mcg import collection

    if as_json:
        click.echo(json.dumps(collection.show(db, name), indent=1))
    else:
        for line in collection.show_lines(db, name):
            click.echo(line)


@mcg.command("buy")
@click.argument("name")
@click.option("--packs", type=int, default=1, show_default=True, help="Packs to buy and open (all or none).")
@DB_OPTION
def buy(name, packs, db):
    """Buy packs for account NAME with its gold and open them: prints each pack's cards.

    \b
    Example:
      locm mcg buy alice --packs 3 --db games.db
    """
    from locm.games.mcg.collection import buy as buy_packs

    state, opened = buy_packs(db, name, packs)
    for pack, cards in zip(range(state.packs - len(opened), state.packs), opened):
        click.echo(f"pack {pack}: " + ", ".join(f"{cid} {state.cards[cid].name}" for cid in cards))
    click.echo(f"{state.gold} gold left")


@mcg.command("destroy")
@click.argument("name")
@click.argument("card")
@click.option("--copies", type=int, default=1, show_default=True, help="Copies to destroy (all or none).")
@DB_OPTION
def destroy(name, card, copies, db):
    """Destroy copies of CARD (an id or a name) of account NAME for material.

    \b
    Example:
      locm mcg destroy alice 11 --copies 2 --db games.db
    """
    from locm.games.mcg.collection import destroy as destroy_card

    state, chosen, material = destroy_card(db, name, card, copies)
    click.echo(f"destroyed {copies} x {chosen.id} {chosen.name}: +{material} material, {state.material} now")


@mcg.command("craft")
@click.argument("name")
@click.argument("card")
@DB_OPTION
def craft(name, card, db):
    """Craft one copy of CARD (an id or a name) for account NAME with its material.

    \b
    Example:
      locm mcg craft alice "Hill Boar" --db games.db
    """
    from locm.games.mcg.collection import craft as craft_card

    state, chosen, material = craft_card(db, name, card)
    click.echo(f"crafted {chosen.id} {chosen.name} for {material} material: {state.collection[chosen.id]} owned, "
               f"{state.material} material left")


@mcg.command("deck")
@click.argument("name")
@click.argument("slot", type=int)
@click.option("--cards", metavar="ID,ID,...", help="The deck's 30 cards: ids or names, comma-separated.")
@click.option("--file", "path", type=click.Path(dir_okay=False, path_type=Path),
              help="The deck's cards from a file: ids or names, by commas or lines (# starts a comment).")
@click.option("--delete", is_flag=True, help="Empty the slot.")
@click.option("--name", "deck_name", help="The deck's name [default: deck SLOT].")
@DB_OPTION
def deck(name, slot, cards, path, delete, deck_name, db):
    """Save a deck of account NAME in SLOT (0..8) from its collection, or delete it.

    \b
    Example:
      locm mcg deck alice 1 --cards 1,1,2,2,3,3,... --db games.db
      locm mcg deck alice 1 --file deck.txt --name aggro --db games.db
      locm mcg deck alice 1 --delete --db games.db
    """
    from locm.games.mcg import collection

    if sum(x is not None and x is not False for x in (cards, path, delete)) != 1:
        raise click.UsageError("give one of --cards, --file and --delete")
    if delete:
        collection.delete_deck(db, name, slot)
        click.echo(f"deck {slot} of {name} deleted")
        return
    state = collection.save_deck(db, name, slot, cards, path, deck_name)
    click.echo(f"deck {slot} {state.decks[slot][0]!r} of {name} saved: {len(state.decks[slot][1])} cards")


def register(group: click.Group) -> None:
    """Add `locm mcg` to the `locm` group."""
    group.add_command(mcg)


__all__ = ["register", "mcg"]
