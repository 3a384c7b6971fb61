"""Skyport's own command (added by `locm.games.registry`): `locm serve --game skyport` serves one Skyport game
over TCP (`locm.games.skyport.server`, `locm.games.skyport.netbots`)."""

from __future__ import annotations

import asyncio
import secrets
import sys
from pathlib import Path

import click

from locm.cli.progress import bar as progress_bar
from locm.runner import live


def load_map(text: str):
    """A map by built-in name (``duel-2p``) or ``.skyportmap`` file; one-line errors otherwise."""
    from locm.engine.skyport.hexmap import parse_map
    from locm.engine.skyport.rules import builtin_map, builtin_map_names
    from locm.errors import InputFileError, ServeError

    path = Path(text)
    if path.is_file():
        try:
            return parse_map(path.read_text(encoding="utf-8"), path.stem, str(path))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputFileError(str(path), exc) from None
    if text in builtin_map_names():
        return builtin_map(text)
    raise ServeError(f"--map {text!r}: expected a built-in map ({', '.join(builtin_map_names())}) or a "
                     ".skyportmap file", "map")


def _policy(seats: list[str], no_sandbox: bool, bot_limits, bot_network: bool, bot_binds):
    """The sandbox the options ask for (`locm.games.skyport.netbots.sandbox_for`: refused in one line when this machine
    cannot make it); says on stderr what the started clients may do, when there are any."""
    from locm.games.skyport.netbots import clients_wanted, sandbox_for
    from locm.runner.sandbox.bwrap import Sandbox
    from locm.runner.sandbox.limits import BotLimits

    if no_sandbox and (bot_limits or bot_network or bot_binds):
        raise click.UsageError("--bot-limits, --bot-network and --bot-bind confine sandboxed bots: they do not "
                               "go with --no-sandbox")
    policy = sandbox_for(seats, Sandbox(BotLimits.parse(bot_limits), bot_network, tuple(bot_binds), (),
                                        not no_sandbox))
    if clients_wanted(seats):
        click.echo(("locm: warning: " if no_sandbox else "locm: ") + policy.describe(), err=True)
    return policy


@click.option("--game", type=click.Choice(["skyport"]), required=True, help="The game served (skyport).")
@click.option("--map", "map_name", required=True, metavar="MAP",
              help="A built-in map (duel-2p, triangle-3p, crossroads-4p, hexagon-6p) or a .skyportmap file.")
@click.option("--port", type=click.IntRange(0, 65535), default=54321, show_default=True,
              help="TCP port for the clients that connect by themselves (0: any free one).")
@click.option("--host", default="localhost", show_default=True,
              help="Address to listen on: localhost is this machine's loopback, IPv4 and IPv6 on one port (a client "
                   "may resolve the name to either); 0.0.0.0: every interface, for clients on other machines.")
@click.option("--players", type=click.IntRange(1, 99),
              help="Players in the game [default: the --seat count if more, else one per spawn tile].")
@click.option("--seat", "seats", multiple=True, metavar="SPEC",
              help="Fill the next seat: a built-in agent (random, hunter) or a client's command line with "
                   "{host} {port} {name} {seed} {slot}, started by locm in the sandbox (repeatable). The other "
                   "seats are taken by clients connecting to --port, in connection order.")
@click.option("--seed", type=int, help="Seed of the spawn tiles and the turn order [default: a random one, "
                                       "printed and recorded].")
@click.option("--turns", type=click.IntRange(1, 100_000), help="Player-turns in the game [default: the rules', 200].")
@click.option("--think-ms", type=click.IntRange(0, 600_000), default=3000, show_default=True,
              help="Think time per turn (the 2013 server's default).")
@click.option("--timing", type=click.Choice(["fast", "faithful"]), default="fast", show_default=True,
              help="fast: a turn also ends once the player sent its 3 actions or {\"message\":\"endturn\"}; "
                   "faithful: every turn lasts the think time, as in 2013.")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A rules variant (TOML, e.g. examples/skyport/glass-cannon.toml).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write the game's event log here (one JSON event per line).")
@click.option("--transcript", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every line each client sent and got, in the oracle's format (.gz allowed): "
                   "'locm conformance --game skyport' checks it when every seat is a client.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="Store the game in this event store (SQLite; any game's store, as 'locm play --db').")
@click.option("--join-timeout", type=click.FloatRange(1, 86_400), default=60, show_default=True,
              help="Seconds for every seat to connect, shake hands and choose its loadout.")
@click.option("--tokens", "use_tokens", is_flag=True,
              help="Give each seat that clients connect to a secret join token, printed here: a client takes a "
                   "seat only by connecting with its seat's token as its name (any 2013 client sends the name "
                   "it is given); others are refused. Without it, the first to connect takes a seat.")
def serve(game, map_name, port, host, players, seats, seed, turns, think_ms, timing, rules_file, log_path,
          transcript, db, join_timeout, use_tokens, no_sandbox, bot_limits, bot_network, bot_binds):
    """Serve one game of Skyport (protocol rev 1, as the 2013 server speaks it) and print the standings.

    Any 2013 client connects unchanged: to --port, or started by locm with --seat. The game is an event log
    (--log, --db), re-decided from its commands before it is written.

    \b
    Examples:
      locm serve --game skyport --map duel-2p --seat hunter --log game.jsonl --db games.db
          (then, in another shell: node examples/skyport/client.js 127.0.0.1 54321)
      locm serve --game skyport --map duel-2p --seat hunter --tokens
          (prints "seat 1: join token s1-...": node examples/skyport/client.js 127.0.0.1 54321 s1-...)
      locm serve --game skyport --map crossroads-4p --turns 40 --seat hunter \\
          --seat "node examples/skyport/client.js {host} {port}" --seat random --seat random --log g.jsonl
    """
    from locm.engine.skyport.game import redecide
    from locm.engine.skyport.hexmap import spawn_tiles
    from locm.engine.skyport.rules import RULES_2013, parse_variant
    from locm.errors import InputFileError
    from locm.events.skyport.codec import to_jsonl
    from locm.games.skyport.netbots import OPEN_SEAT, play_skyport_async, seat_kind
    from locm.common.outputs import check_output, write_output
    from locm.games.skyport.server import Bounds, Transcript, join_tokens, timing as make_timing

    game_map = load_map(map_name)
    rules = RULES_2013
    if rules_file is not None:
        try:
            rules = parse_variant(rules_file.read_text(encoding="utf-8"), str(rules_file), rules_file.stem)
        except (OSError, UnicodeDecodeError) as exc:
            raise InputFileError(str(rules_file), exc) from None
    if turns is not None:
        rules = rules.replace(turn_limit=turns)
    count = players or max(len(seats), len(spawn_tiles(game_map)))
    if len(seats) > count:
        raise click.UsageError(f"{len(seats)} --seat for {count} players")
    seat_list = list(seats) + [OPEN_SEAT] * (count - len(seats))
    policy = _policy(seat_list, no_sandbox, bot_limits, bot_network, bot_binds)
    for path in (log_path, transcript):
        if path is not None:
            check_output(path)
    if seed is None:
        seed = secrets.randbits(62)
    live.enable(db)  # spectators of the store's live spool (locm arena) see the game while it is played
    tracer = Transcript(transcript) if transcript is not None else None
    say = lambda text: click.echo(f"locm serve: {text}", err=True)  # noqa: E731
    say(f"skyport, map {game_map.name or map_name}, {count} players, seed {seed}, {timing} timing "
        f"(think {think_ms} ms), {rules.turn_limit} turns")
    bar = progress_bar(length=rules.turn_limit, label="turns")

    tokens = join_tokens([seat_kind(s) for s in seat_list]) if use_tokens else None

    def listening(real_port: int) -> None:
        say(f"waiting for {seat_list.count(OPEN_SEAT)} client(s) on {host}:{real_port}"
            + (", each connecting with its seat's join token as its name" if tokens else ""))
        for slot, token in enumerate(tokens or ()):
            if token:
                say(f"seat {slot}: join token {token}")

    try:
        with bar:
            served = asyncio.run(play_skyport_async(
                seat_list, game_map, seed, rules=rules, timing=make_timing(timing, think_ms),
                bounds=Bounds(join_s=join_timeout), sandbox=policy, host=host, port=port, transcript=tracer,
                progress=lambda turn, limit: bar.update(turn - bar.pos), listening=listening, tokens=tokens))
    except KeyboardInterrupt:
        click.echo("locm serve: interrupted: no game", err=True)
        sys.exit(130)
    finally:
        if tracer is not None:
            tracer.close()
    game = served.game
    _, differs = redecide(game.log)
    state = game.state
    ended = game.log[-1]
    for place, slot in enumerate(state.ranking, start=1):
        robot = state.robots[slot]
        seat = seat_list[slot] if seat_list[slot] != OPEN_SEAT else "connected by itself"
        click.echo(f"{place}. {robot.name:<16} {robot.score:>6}  ({seat})")
    winner = getattr(ended, "winner", -1)
    reason = getattr(ended, "reason", "")
    click.echo(f"after turn {state.turn}: " + ("the server stopped (mortar crash)" if reason == "server-crash"
                                                 else "tie" if winner < 0 else f"{state.robots[winner].name} wins"))
    for report in served.clients:
        if report.gone:
            click.echo(f"seat {report.slot}: {report.gone}", err=True)
    if differs >= 0:
        click.echo(f"locm serve: error: re-deciding the log differs at event {differs}", err=True)
        sys.exit(1)
    if log_path is not None:
        write_output(log_path, to_jsonl(game.log))
        say(f"log: {log_path} ({len(game.log)} events, re-decided: identical)")
    if transcript is not None:
        say(f"transcript: {transcript}")
    if db is not None:
        say(_store(db, served))


def _store(db: Path, served) -> str:
    """Store a served game under the id its content gives (`EventStore.append_game`, Skyport's definition
    in `engine.registry`), each started client's output as its seat's stderr; what was done, in words."""
    from locm.engine import registry
    from locm.engine.seam import game_id_of
    from locm.store.eventstore import DuplicateGameError, GameExtras, SeatExtras, open_store

    skyport = registry.get("skyport")
    log = served.game.log
    game_id = game_id_of(skyport, log)
    output = {c.slot: c.output[-4096:] for c in served.clients}
    seats = [SeatExtras(stderr=output.get(slot, "")) for slot in range(len(served.game.state.robots))]
    with open_store(db) as store:
        try:
            store.append_game(skyport, GameExtras(game_id=game_id, seats=tuple(seats)), log)
        except DuplicateGameError:
            return f"already stored: {game_id} in {db}: stored nothing new"
    return f"stored: {game_id} in {db}"


def register(cli: click.Group) -> None:
    """Add ``locm serve`` to `cli`, with the sandbox options every command that starts bots has."""
    from locm.cli.options import sandbox_options

    cli.add_command(click.command(name="serve")(sandbox_options(serve)))


__all__ = ["serve", "load_map", "register"]
