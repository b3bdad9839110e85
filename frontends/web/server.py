"""``durak serve``: the browser page and the small JSON API behind it (Starlette, served by uvicorn).

Why Starlette: the page needs a handful of JSON routes and static files, and the server must be
strict about what it accepts.  Starlette gives routing, request bodies, static files and a test
client in a small, well-kept package with no build step; uvicorn (h11) does the HTTP parsing.  The
standard library's ``http.server`` would have us write request parsing, body limits and threading
by hand, and its documentation warns against it for anything but basic use; a larger framework
(FastAPI, Django) would bring more than eight routes need.

The server is a thin layer: it routes requests to tables held by id (several games at once, one
per tab), turns refusals into 4xx answers with one line of text, and builds every response from
the person's seat view (table.py), so a hidden card cannot reach the browser.  It binds to
127.0.0.1 unless told otherwise, loads bot files only from paths given on the command line, and
never reads a file the browser names.

Any web page open in the same browser can send requests to localhost, and a page on a domain that
rebinds to 127.0.0.1 can read the answers.  So the server answers only requests addressed to it by an
IP address, ``localhost`` or a name given with ``--allow-host`` (``Host``), sent by its own page
(``Origin``, ``Sec-Fetch-Site``), and with a JSON body on every write (``Content-Type``, which a
cross-site form or a no-CORS fetch cannot set without asking first): ``SameOrigin`` refuses the rest
with a 403.  A body is checked for size, nesting depth and item count before it is parsed, and one
address may open ``GAMES_PER_MINUTE`` tables a minute.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from baselines import LEVELS, SHIPPED_BOTS, make_bot
from durak_env.engine.cards import Card
from durak_env.engine.game import Game
from durak_env.engine.match import Match
from durak_env.engine.record import load_record, read_seed
from durak_env.engine.render import describe_bout, describe_result, sorted_hand
from durak_env.engine.rules import Rules

from .table import Refused, Table, card_json, move_text, new_seed

STATIC = Path(__file__).with_name("static")
MAX_BODY = 256 * 1024
"""The largest request body taken (a game record of a long deal fits many times over)."""
MAX_TABLES = 500
"""Games held at once; the least recently used goes first."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects a body may have (a game record needs 4)."""
MAX_ITEMS = 60_000
"""The most values a body may hold (a record of the longest deal, 10,000 moves of three fields, fits twice)."""
GAMES_PER_MINUTE = 60
"""New tables one address may open in a minute; past it, 429 (a page that loops cannot evict everyone's games)."""
BUILTIN_BOTS = ("random", "easy", "heuristic", *(f"search:{level}" for level in LEVELS), "search:mcts")
SHIPPED_POLICY_BOTS = ("trained", "search:net")
"""Bots built on the shipped policy for the rules in play: offered where a preset and table size have one."""


@dataclass
class Options:
    """What ``durak serve`` was started with: the page's defaults and the bot files it may offer."""

    rules: Rules = field(default_factory=Rules)
    preset: str = "podkidnoy"
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    bot_files: dict[str, str] = field(default_factory=dict)
    """Names -> paths given with ``--bot NAME=PATH`` (checked when the server starts)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names the server answers to besides IP addresses and localhost (``--allow-host``)."""
    games_per_minute: int = GAMES_PER_MINUTE


class Tables:
    """The games being played, by id: thread-safe, least recently used dropped past ``MAX_TABLES``."""

    def __init__(self) -> None:
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, table: Table) -> str:
        game_id = secrets.token_hex(8)
        with self._lock:
            self._tables[game_id] = table
            while len(self._tables) > MAX_TABLES:
                self._tables.popitem(last=False)
        return game_id

    def __len__(self) -> int:
        return len(self._tables)

    def get(self, game_id: str) -> Table:
        with self._lock:
            table = self._tables.get(game_id)
            if table is None:
                raise Refused(404, f"no game {game_id!r} here (it may have ended long ago): start a new one")
            self._tables.move_to_end(game_id)
            return table


def answer(err: Refused, headers=None) -> JSONResponse:
    """A refusal's answer: its status, and ``{"error": one line, "code": a stable code}``."""
    return JSONResponse({"error": str(err), "code": err.code}, status_code=err.status, headers=headers)


class SameOrigin:
    """ASGI middleware: a 403 (one line) for a request that another web page could have made, a 415 for a write
    whose body is not declared JSON; everything else passes to the app."""

    def __init__(self, app, allowed_hosts: tuple[str, ...] = ()):
        self.app = app
        self.allowed_hosts = {h.lower() for h in allowed_hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            refusal = self.refusal(scope, headers)
            if refusal is not None:
                status, message = refusal
                await answer(Refused(status, message))(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if not self.host_allowed(host):
            return 403, (f"this server answers requests for localhost or an IP address, not {host!r} "
                         "(durak serve --allow-host NAME adds a name)")
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"{scope['scheme']}://{host}".lower():
            return 403, f"requests from another web page ({origin}) are refused: open the page this server serves"
        site = headers.get("sec-fetch-site")
        if scope["path"].startswith("/api/") and site not in (None, "same-origin", "none"):
            return 403, f"requests from another web page ({site}) are refused: open the page this server serves"
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, f"send the body as JSON with Content-Type: application/json, not {kind or 'none'!r}"
        return None

    def host_allowed(self, host: str) -> bool:
        """An IP address, localhost or a name given with ``--allow-host``: a name that some other site's DNS can
        point at 127.0.0.1 (DNS rebinding) is not one of them."""
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.strip("[]").lower()
        if not name:
            return False
        if name == "localhost" or name in self.allowed_hosts:
            return True
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False


class OpeningLimit:
    """At most ``per_minute`` new tables from one address in any minute (a sliding window)."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self._opened: dict[str, deque] = {}
        self._lock = threading.Lock()

    def check(self, address: str) -> None:
        now = time.monotonic()
        with self._lock:
            opened = self._opened.setdefault(address, deque())
            while opened and now - opened[0] >= 60:
                opened.popleft()
            if len(opened) >= self.per_minute:
                raise Refused(429, f"{self.per_minute} new games a minute at most from one address: wait "
                                   f"{60 - (now - opened[0]):.0f} s")
            opened.append(now)
            if len(self._opened) > 10 * MAX_TABLES:  # forget addresses that have gone quiet
                for key in [k for k, q in self._opened.items() if not q or now - q[-1] >= 60]:
                    del self._opened[key]


def bot_choices(options: Options) -> list[dict[str, Any]]:
    """The bots the page offers at any table: the built-in ones and the files given on the command line (the
    shipped trained bots are offered where a preset lists them, ``presets_offered``)."""
    choices = [{"name": name, "label": label} for name, label in (
        ("heuristic", "Heuristic (seed 004's opponent)"), ("easy", "Easy (plays loosely)"), ("random", "Random"),
        *((f"search:{level}", f"Search, {level}") for level in LEVELS), ("search:mcts", "Tree search (MCTS)"))]
    return choices + [{"name": name, "label": f"{name} (bot file)"} for name in options.bot_files]


def presets_offered() -> list[dict[str, Any]]:
    """Each preset with the table sizes it can deal (2-6 seats, as the deck allows) and the sizes a shipped
    trained bot was made for."""
    out = []
    for name, about in Rules.presets().items():
        seats = [n for n in range(2, 7) if _fits(name, n)]
        trained = [n for n in seats if any(r == Rules.preset(name, num_players=n) for _, r in SHIPPED_BOTS.values())]
        out.append({"name": name, "about": about, "seats": seats, "trained": trained})
    return out


def make_app(options: Options | None = None) -> Starlette:
    """The web app: the page, its static files and the JSON API."""
    options = options or Options()
    tables = Tables()
    openings = OpeningLimit(options.games_per_minute)
    hint_bots: dict[Rules, Any] = {}

    def make_seat_bot(name: Any, rules: Rules, seed: int):
        if not isinstance(name, str):
            raise Refused(422, f"a bot is named by a string, got {name!r}")
        if name in options.bot_files:
            bot = make_bot(options.bot_files[name], seed=seed)
        elif name in BUILTIN_BOTS or name in SHIPPED_POLICY_BOTS:
            try:
                bot = make_bot(name, seed=seed, rules=rules)
            except ValueError as err:
                raise Refused(422, str(err)) from None
        else:
            offered = ", ".join(c["name"] for c in bot_choices(options))
            raise Refused(422, f"unknown bot {name!r}; this server offers: {offered}")
        made_for = getattr(bot, "rules", None)
        if made_for is not None and made_for != rules:
            raise Refused(422, f"{name} was trained for {made_for.describe()}; this game is {rules.describe()}")
        return bot

    def hint_bot(rules: Rules):
        if rules not in hint_bots:
            for name, path in [("trained", None), *options.bot_files.items()]:
                try:
                    bot = make_bot("trained", rules=rules) if path is None else make_bot(path)
                except ValueError:
                    continue
                if bot.rules == rules:
                    hint_bots[rules] = bot
                    break
            else:
                hint_bots[rules] = None
        return hint_bots[rules]

    # ----- routes -------------------------------------------------------------------------

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def options_route(request: Request) -> Response:
        return JSONResponse({"presets": presets_offered(), "preset": options.preset,
                             "players": options.rules.num_players, "opponents": options.opponents,
                             "bots": bot_choices(options)})

    async def new_game(request: Request) -> Response:
        body = await read_json(request)
        openings.check(request.client.host if request.client else "")
        preset = body.get("preset", options.preset)
        if not isinstance(preset, str) or preset not in Rules.presets():
            raise Refused(422, f"unknown preset {preset!r}; presets: {', '.join(Rules.presets())}")
        players = body.get("players", options.rules.num_players)
        if isinstance(players, bool) or not isinstance(players, int):
            raise Refused(422, f"players must be an integer from 2 to 6, got {players!r}")
        try:
            if preset == options.preset and players == options.rules.num_players:
                rules = options.rules  # the rules given on the command line (--set included)
            else:
                rules = Rules.preset(preset, num_players=players)
        except ValueError as err:
            raise Refused(422, str(err)) from None
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.num_players:
            raise Refused(422, f"seat must be an integer from 0 to {rules.num_players - 1}, got {seat!r}")
        seed = body.get("seed")
        if seed is None:
            seed = new_seed()
        else:
            try:
                seed = read_seed(seed)  # every seed the server makes, a match's included, comes back as it went
            except ValueError as err:
                raise Refused(422, str(err)) from None
        match = body.get("match", False)
        if not isinstance(match, bool):
            raise Refused(422, f"match must be true or false, got {match!r}")
        names = body.get("opponents", options.opponents)
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or len(names) not in (1, rules.num_players - 1):
            raise Refused(422, f"opponents must list one bot for every other seat ({rules.num_players - 1}), "
                               "or one for all")
        if len(names) == 1:
            names = names * (rules.num_players - 1)
        others = [s for s in range(rules.num_players) if s != seat]
        bots, bot_names = [None] * rules.num_players, ["you"] * rules.num_players
        for s, name in zip(others, names):
            bots[s] = await run_in_threadpool(make_seat_bot, name, rules, seed + s)
            bot_names[s] = name
        table = Table(rules, preset, seat, bots, bot_names, seed, Match(rules, seed=seed) if match else None)
        events = await run_in_threadpool(locked, table, table.start)
        game_id = tables.add(table)
        return JSONResponse({"id": game_id, "events": events, "state": table.state()}, status_code=201)

    async def get_game(request: Request) -> Response:
        table = tables.get(request.path_params["game_id"])
        return JSONResponse({"id": request.path_params["game_id"], "state": table.state()})

    async def move(request: Request) -> Response:
        table = tables.get(request.path_params["game_id"])
        body = await read_json(request)
        if "action" not in body:
            raise Refused(422, "send {\"action\": <index>}, one of the actions the state lists")
        events = await run_in_threadpool(locked, table, table.move, body["action"])
        return JSONResponse({"events": events, "state": table.state()})

    async def next_deal(request: Request) -> Response:
        table = tables.get(request.path_params["game_id"])
        await read_json(request)  # no fields, but a body is checked as every other is
        events = await run_in_threadpool(locked, table, table.next_deal)
        return JSONResponse({"events": events, "state": table.state()})

    async def hint(request: Request) -> Response:
        table = tables.get(request.path_params["game_id"])
        bot = await run_in_threadpool(hint_bot, table.rules)
        if bot is None:
            raise Refused(404, f"no trained bot for {table.rules.describe()}: hints need one")
        return JSONResponse(await run_in_threadpool(locked, table, table.hint, bot))

    async def record(request: Request) -> Response:
        table = tables.get(request.path_params["game_id"])
        data = await run_in_threadpool(locked, table, table.record)
        return Response(json.dumps(data, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="durak-{table.deal_number}.json"'})

    async def replay(request: Request) -> Response:
        body = await read_json(request)
        try:
            rec = await run_in_threadpool(load_record, body)
        except ValueError as err:
            raise Refused(422, str(err)) from None
        return JSONResponse(await run_in_threadpool(replay_frames, rec))

    routes = [
        Route("/", index),
        Route("/api/options", options_route),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
        Route("/api/games/{game_id}/next", next_deal, methods=["POST"]),
        Route("/api/games/{game_id}/hint", hint),
        Route("/api/games/{game_id}/record", record),
        Route("/api/replays", replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    async def refused(request: Request, err: Refused) -> Response:
        return answer(err)

    async def http_error(request: Request, err: HTTPException) -> Response:
        return answer(Refused(err.status_code, str(err.detail)), err.headers)

    app = Starlette(routes=routes, exception_handlers={Refused: refused, HTTPException: http_error},
                    middleware=[Middleware(SameOrigin, allowed_hosts=options.allowed_hosts)])
    app.state.tables = tables  # for tests that look behind the page
    return app


def _fits(preset: str, players: int) -> bool:
    try:
        Rules.preset(preset, num_players=players)
        return True
    except ValueError:
        return False


def locked(table: Table, method, *args):
    """One request at a time per table (two tabs on one game, or a double click)."""
    with table.lock:
        return method(*args)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object: 413 past ``MAX_BODY``, 400 if it is not JSON, 422 if it is not an object."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    if not body:
        return {}
    check_shape(body)
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise Refused(400, f"the request body is not JSON ({err.msg if hasattr(err, 'msg') else err})") from None
    if not isinstance(data, dict):
        raise Refused(422, f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def check_shape(body: bytes) -> None:
    """Refuse (422) a body nested deeper than ``MAX_DEPTH`` or holding more than ``MAX_ITEMS`` values, read before
    it is parsed: ``'[' * 1000 + ']' * 1000`` made the parser recurse until Python stopped it with a 500."""
    depth = items = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                raise Refused(422, f"the request body is nested more than {MAX_DEPTH} deep")
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
        elif byte == 0x2C:  # comma: one more value
            items += 1
            if items >= MAX_ITEMS:
                raise Refused(422, f"the request body holds more than {MAX_ITEMS:,} values")


def replay_frames(rec) -> dict[str, Any]:
    """Every position of a recorded deal with every hand shown (the record's owner sees it all)."""
    game = Game(rec.rules, seed=rec.seed, first_seat=rec.first_seat)
    names = list(rec.players)
    frames = [frame(game, "The deal", names)]
    told = 0
    for seat, action in rec.moves:
        game.step(action, seat=seat)
        text = f"{names[seat]}: {move_text(action, rec.rules)}"
        if game.last_bout is not None and game.last_bout.bout > told:
            told = game.last_bout.bout
            text += " — " + describe_bout(game.last_bout, names, Card.symbol)
        if game.is_over:
            text += " — " + describe_result(game.result, names)
        frames.append(frame(game, text, names))
    return {"players": names, "rules": rec.rules.to_dict(), "seed": str(rec.seed), "frames": frames}


def frame(game: Game, text: str, names: list[str]) -> dict[str, Any]:
    trump = game.trump
    return {
        "text": text,
        "hands": [[card_json(c, trump) for c in sorted_hand(game.hand(s), trump)] for s in range(game.n)],
        "table": [{"attack": card_json(a, trump), "defence": None if d is None else card_json(d, trump)}
                  for a, d in game.table],
        "trump": card_json(game.trump_card, trump), "stock": len(game.stock), "discard": game.discard.bit_count(),
        "to_act": None if game.is_over else game.to_act,
    }


def listen(host: str, port: int | None, preferred: int = 8000):
    """A socket bound to ``host``: on ``port``, or on ``preferred`` if that is free, else on any free port.
    Bound here, before uvicorn starts, so that a taken port is an OSError to report in one line."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for candidate in (port,) if port is not None else (preferred, 0):
        sock = socket.socket(family)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, candidate))
            return sock
        except OSError:
            sock.close()
            if port is not None or candidate == 0:
                raise
    raise AssertionError("unreachable")


def serve(options: Options, host: str = "127.0.0.1", port: int | None = None, open_browser: bool = False) -> int:
    import uvicorn

    sock = listen(host, port)
    port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    print(f"durak: serving the page at {url}  (Ctrl-C stops)", flush=True)
    if open_browser:
        import webbrowser

        threading.Timer(0.8, webbrowser.open, args=(url,)).start()
    with sock:
        uvicorn.Server(uvicorn.Config(make_app(options), log_level="warning")).run(sockets=[sock])
    return 0
