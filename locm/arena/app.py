"""`locm arena`: a web application over one store, on Starlette (served by uvicorn), that reads and never writes.

Pages: ``/`` (standings, overall and per tournament, with ratings and intervals; the leaderboards), ``/games``
(the game list: filters, paging, live), ``/games/ID`` (the game's replay: the viewer ``locm html`` writes, deep
links ``#seq=S&as=P``), ``/bots/NAME`` (an agent's versions, think times and stderr, escaped). JSON:
``/api/games`` (filters as query parameters, ``before`` for the next page), ``/api/games/ID`` (record and
events), ``/api/standings``. Live: ``/live`` is a server-sent-events stream of every game stored while it runs
(the game list adds them without a reload).

Access: bound to 127.0.0.1 by default. Served beyond loopback, every request needs the token (``?token=T``
once, which sets a cookie, or ``Authorization: Bearer T``); `serve` refuses a non-loopback address without one.
Every text a store holds (agent names, stderr, reasons) is escaped by the templates (Jinja2 autoescape).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import ipaddress
import json
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import msgspec
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from locm.arena.readmodel import PAGE, ArenaError, Filters, ReadModel
from locm.engine.errors import LocmError

TOKEN_COOKIE = "locm_arena_token"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def create_app(db: str | Path, *, token: str | None = None, boards: dict[str, str] | None = None,
               replay_page: Callable[[str, str], str] | None = None, live_poll: float = 0.5,
               index: str | Path | None = None, reveal_after: float | None = None,
               cards: str | Path | None = None, spectate: bool = True, live_secret: bytes | None = None,
               include_untrusted: bool = False) -> Starlette:
    """The arena over the store ``db``. ``token``: required on every request when given. ``boards``: saved
    leaderboards, name -> query string of `Filters`. ``replay_page(db, game_id)``: the replay viewer's HTML of
    a stored game (default: `locm.replay.page.stored_page`). ``index``: the arena's index file
    (`locm.arena.index`; default: one in the user's cache folder). ``spectate``: make the store's live spool
    (`locm.arena.live`) so that runners publish their games being played; ``reveal_after``: seconds after
    which a live game's events are shown with their hidden information (None: never, until it is stored).
    ``cards``: a card report's folder (`locm report -o DIR`), served at ``/cards/``. ``live_secret``: the key
    of live games' handles (`locm.arena.live.Spool.handle`; the same in every worker process).
    ``include_untrusted``: the standings, ratings and bot pages count the games the store may not count too
    (`locm.arena.readmodel`; by default they leave them out and say how many)."""
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from locm.arena.live import Feed, Spool, live_board, sprt_state

    model = ReadModel(db, index, include_untrusted=include_untrusted)
    model.index.refresh()
    spool = Spool(db, live_secret)
    if spectate:
        spool.make()
    if cards is not None and not (Path(cards) / "index.html").is_file():
        raise ArenaError(f"--cards {cards}: no card report there (make one with 'locm report --db {db} -o {cards}')")
    saved = {name: Filters.from_query(q) for name, q in (boards or {}).items()}
    env = Environment(loader=PackageLoader("locm.arena", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["path"] = _path_part  # a name in a link's path, quoted once per name (agents repeat)
    if replay_page is None:
        from locm.replay.page import stored_page as replay_page  # noqa: PLW0127 (the default viewer)

    def page(name: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        body = env.get_template(name).render(db=str(db), request=request, **values)
        return HTMLResponse(body, status_code=status, headers={"Content-Security-Policy": "default-src 'self'; style-src 'self' "
                                           "'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:"})

    def filters(request: Request) -> Filters:
        return Filters.parse(request.query_params)

    def before(request: Request) -> int | None:
        raw = request.query_params.get("before")
        if raw is None or raw == "":
            return None
        if not raw.isdigit():
            raise ArenaError(f"before: expected a game's integer key, got {raw[:40]!r}")
        return int(raw)

    # The pages are plain functions: Starlette runs each in its thread pool, one hop per request (SQLite blocks).
    def index(request: Request) -> Response:
        f = filters(request)
        return page("index.html", request, f=f, table=model.standings(f), tournaments=model.tournaments(),
                    sprt=sprts(),
                    boards=saved, games=model.values("game"), rulesets=model.values("ruleset"))

    def games(request: Request) -> Response:
        f = filters(request)
        last = model.last_key()
        rows = model.games(f, before(request), PAGE, listed=True)
        nxt = rows[-1].key if len(rows) == PAGE else None
        return page("games.html", request, f=f, rows=rows, next_key=nxt, last=last, games=model.values("game"),
                    rulesets=model.values("ruleset"))

    def game(request: Request) -> Response:
        gid = request.path_params["game_id"]
        if model.game(gid) is None:
            return page("missing.html", request, what=f"no game {gid!r} in this store", status=404)
        return HTMLResponse(replay_page(str(db), gid))

    def bot(request: Request) -> Response:
        info = model.bot(request.path_params["agent"])
        return page("bot.html", request, bot=info, think=json.dumps(info["think"]).replace("<", "\\u003c"),
                    by_turn=json.dumps(info["by_turn"]).replace("<", "\\u003c"))

    def api_games(request: Request) -> Response:
        f = filters(request)
        limit = request.query_params.get("limit", str(PAGE))
        if not limit.isdigit() or not 1 <= int(limit) <= 1000:
            raise ArenaError(f"limit: expected 1 to 1000, got {limit[:20]!r}")
        rows = model.games(f, before(request), int(limit))
        nxt = rows[-1].key if len(rows) == int(limit) else None
        return Response(_encode({"games": [r.as_dict() for r in rows], "next": nxt}), media_type="application/json")

    def api_game(request: Request) -> Response:
        gid = request.path_params["game_id"]
        row = model.game(gid)
        if row is None:
            return JSONResponse({"error": f"no game {gid!r}"}, status_code=404)
        events = _events(str(db), gid)
        return Response(b'{"record":' + json.dumps(row.as_dict()).encode() + b',"events":[' + b",".join(events)
                        + b"]}", media_type="application/json")

    def api_standings(request: Request) -> Response:
        return JSONResponse({**model.standings(filters(request)), "sprt": sprts()})

    def sprts() -> list[dict]:
        """The runs with a sequential test the spool names (running or not), their state from the store now."""
        runs, out = spool.runs(), []
        if not runs:
            return out
        kept = dict(model.schedules())
        for key, run in sorted(runs.items(), key=lambda kv: -float(kv[1].get("updated") or 0)):
            if key not in kept:
                continue
            try:
                out.append(model.cached(("sprt", key, run.get("running"), run["test"]),
                                        lambda: sprt_state(db, run, kept[key])))
            except LocmError:  # a run's file the runner did not write (a test that does not parse): not shown
                continue
        return out

    def api_sprt(request: Request) -> Response:
        return JSONResponse({"sprt": sprts()})

    def live_games(request: Request) -> Response:
        return page("live.html", request, games=spool.games(), spooling=spool.path.is_dir(),
                    spool=str(spool.path), reveal_after=reveal_after)

    def api_live(request: Request) -> Response:
        return JSONResponse({"games": [{k: g[k] for k in ("handle", "game", "agents", "started")}
                                       for g in spool.games()],
                             "spool": spool.path.is_dir(), "reveal_after": reveal_after})

    def watch(request: Request) -> Response:
        found = spool.find(request.path_params["handle"])
        if found is None:
            return page("missing.html", request, what="no such game is being played (it may be over: see "
                        "the games)", status=404)
        from locm.engine import registry

        board = live_board(registry.get(found["game"]))  # a game that hides nothing: its board, live
        return page("watch.html", request, g=found, reveal_after=reveal_after,
                    board_js=board.BOARD_JS if board is not None else "")

    async def watch_events(request: Request) -> Response:
        found = await _thread(spool.find, request.path_params["handle"])
        if found is None:
            return JSONResponse({"error": "no such game is being played"}, status_code=404)
        feed = await _thread(Feed, spool.path / found["file"], reveal_after)

        async def stream():
            try:
                async for chunk in feed_events():
                    yield chunk
            finally:
                feed.close()

        async def feed_events():
            yield "retry: 2000\n\n"
            said_ended = False
            while True:
                try:
                    new, shown = await _thread(feed.poll)
                    frame = await _thread(feed.frame)
                except (LocmError, ValueError, TypeError, KeyError) as exc:  # a file the runner did not write
                    yield f"event: failed\ndata: {json.dumps(str(exc).splitlines()[0][:300] if str(exc) else '')}\n\n"
                    return
                if new:
                    yield f"event: events\ndata: {_safe_json(new)}\n\n"
                if shown:
                    yield f"event: reveal\ndata: {_safe_json(shown)}\n\n"
                if frame is not None:
                    yield f"event: board\ndata: {_safe_json(frame)}\n\n"
                if feed.ended and not said_ended:
                    said_ended = True
                    gid = feed.stored_id  # said once the game is over (its end line's, under a live name)
                    yield f"event: ended\ndata: {json.dumps({'game_id': gid, 'stored': f'/games/{quote(gid)}'})}\n\n"
                if feed.ended and (feed.reveal_after is None or feed.revealed >= feed.sent):
                    return
                if await request.is_disconnected():
                    return
                await asyncio.sleep(live_poll)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    def card_report(request: Request) -> Response:
        if cards is not None:
            return Response(status_code=307, headers={"Location": "/cards/"})
        return page("cards.html", request, status=404)

    async def live(request: Request) -> Response:
        start = request.query_params.get("after")
        key = int(start) if start and start.isdigit() else await _thread(model.last_key)
        once = request.query_params.get("once") == "1"

        async def stream():
            nonlocal key
            yield f"retry: 2000\nevent: hello\ndata: {json.dumps({'last': key})}\n\n"
            while True:
                rows = await _thread(model.since, key)
                for r in rows:
                    key = r.key
                    yield f"id: {r.key}\nevent: game\ndata: {json.dumps(r.as_dict())}\n\n"
                if rows and once:
                    return
                if await request.is_disconnected():
                    return
                await asyncio.sleep(live_poll)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    async def error(request: Request, exc: Exception) -> Response:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=400)
        return page("missing.html", request, what=message, status=400)

    routes = [Route("/", index), Route("/games", games), Route("/games/{game_id}", game),
              Route("/bots/{agent:path}", bot), Route("/api/games", api_games),
              Route("/api/games/{game_id}", api_game), Route("/api/standings", api_standings),
              Route("/api/sprt", api_sprt), Route("/api/live", api_live), Route("/live", live),
              Route("/live/games", live_games), Route("/live/games/{handle}", watch),
              Route("/live/games/{handle}/events", watch_events)]
    routes.append(Route("/cards", card_report))
    if cards is not None:
        routes.append(Mount("/cards", StaticFiles(directory=str(cards), html=True)))
    app = Starlette(routes=routes, exception_handlers={LocmError: error})
    if token:
        app.add_middleware(_TokenGate, token=token)
    return app


_encode = msgspec.json.Encoder().encode
"""JSON of a list of games (msgspec's encoder: a page of 1,000 games is most of what /api/games does)."""


@functools.lru_cache(maxsize=4096)
def _path_part(text: str) -> str:
    """``text`` quoted for a URL's path (as Jinja's ``urlencode`` quotes a string), remembered."""
    return quote(str(text), safe="")


def _safe_json(value) -> str:
    """JSON for one SSE data line (no raw line break can end it early)."""
    return json.dumps(value, ensure_ascii=True)


def _events(db: str, game_id: str) -> list[bytes]:
    """A stored game's events as stored: the canonical JSON lines, chain checked (`EventStore.export_game`)."""
    from locm.store.eventstore import open_store

    with open_store(db, create=False, readonly=True) as store:
        data, _ = store.export_game(game_id)
    out = []
    for line in data.splitlines()[1:]:
        start = line.find(b'"event":')
        if start >= 0:
            out.append(line[start + len(b'"event":'):-1])
    return out


async def _thread(fn, *args):
    """Run a blocking read in Starlette's thread pool (SQLite calls block)."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn, *args)


class _TokenGate:
    """Every request needs the token: ``Authorization: Bearer T``, the cookie, or ``?token=T`` (which sets the
    cookie and redirects to the same page without it). Compared in constant time."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = given or request.cookies.get(TOKEN_COOKIE, "") or request.query_params.get("token", "")
        if not hmac.compare_digest(given.encode(), self.token):
            await PlainTextResponse("locm arena: a token is needed (?token=T or Authorization: Bearer T)",
                                    status_code=401)(scope, receive, send)
            return
        if "token" in request.query_params:
            query = "&".join(f"{k}={v}" for k, v in request.query_params.multi_items() if k != "token")
            target = request.url.path + (f"?{query}" if query else "")
            response = Response(status_code=303, headers={"Location": target})
            response.set_cookie(TOKEN_COOKIE, self.token.decode(), httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def parse_boards(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``NAME=QUERY`` leaderboards (``--board "1.2=game=locm&ruleset=1.2"``), each query checked now."""
    boards = {}
    for item in items:
        name, sep, query = item.partition("=")
        if not sep or not name.strip():
            raise ArenaError(f"--board: expected NAME=QUERY (e.g. 'skyport=game=skyport&seats=4'), got {item!r}")
        Filters.from_query(query)
        boards[name.strip()] = query
    return boards


def serve(db: str | Path, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
          boards: dict[str, str] | None = None, announce: Callable[[str], None] = print,
          index: str | Path | None = None, workers: int = 1, reveal_after: float | None = None,
          cards: str | Path | None = None, spectate: bool = True, include_untrusted: bool = False) -> None:
    """Serve the arena until interrupted, by ``workers`` processes (uvicorn's). Beyond loopback a token is
    required: one is made when none is given, and the address to open is announced with it."""
    import os
    import secrets

    import uvicorn

    if not is_loopback(host) and not token:
        token = secrets.token_urlsafe(18)
    secret = secrets.token_hex(16)
    settings = {"db": str(db), "token": token, "boards": boards or {}, "index": str(index) if index else None,
                "reveal_after": reveal_after, "cards": str(cards) if cards else None, "spectate": spectate,
                "live_secret": secret, "include_untrusted": include_untrusted}
    app = create_app(db, token=token, boards=boards, index=index, reveal_after=reveal_after, cards=cards,
                     spectate=spectate, live_secret=bytes.fromhex(secret),
                     include_untrusted=include_untrusted)  # checks the store, builds the index
    shown = f"[{host}]" if ":" in host else host
    announce(f"locm arena: http://{shown}:{port}/" + (f"?token={token}" if token else "")
             + f" (store {db}, read-only; Ctrl-C stops)")
    if workers <= 1:
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
        return
    os.environ[_SETTINGS] = json.dumps(settings)  # what each worker process builds its app from
    uvicorn.run("locm.arena.app:app_from_environment", factory=True, host=host, port=port, workers=workers,
                log_level="warning", access_log=False)


_SETTINGS = "LOCM_ARENA_SETTINGS"


def app_from_environment() -> Starlette:
    """The app of one of `serve`'s worker processes, from the settings `serve` left in the environment."""
    import os

    s = json.loads(os.environ[_SETTINGS])
    return create_app(s["db"], token=s["token"], boards=s["boards"], index=s["index"],
                      reveal_after=s["reveal_after"], cards=s["cards"], spectate=s["spectate"],
                      live_secret=bytes.fromhex(s["live_secret"]), include_untrusted=s["include_untrusted"])
