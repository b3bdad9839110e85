"""The page's API without HTTP: what each request asks of the tables, and what it answers.

``Api`` holds the games being played (``Tables``, by id), makes the bots a new game seats and answers each call
with a JSON-ready dict, or refuses it (``Refused``: a status, one line and a code).  It knows nothing of HTTP:
``server.py`` routes requests to it, one line each; the same calls could serve the page from anywhere else.
Every answer about a game is built from the person's seat view (table.py), so a hidden card cannot leave.

``ROUTES`` names the JSON API's paths and the call each makes; ``Api.dispatch`` answers a request given as
method, path and body text, which is how the page built by ``durak site`` reaches the engine in its own
browser tab (site.py), and ``server.py`` builds its routes from the same table.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from baselines import BUILTIN_BOTS, NEEDS_NUMPY, POLICY_BOTS, make_bot, trained_for
from durak_env.engine.cards import Card
from durak_env.engine.checks import is_integer
from durak_env.engine.game import Game
from durak_env.engine.match import Match
from durak_env.engine.record import load_record, read_seed
from durak_env.engine.render import describe_bout, describe_result, sorted_hand
from durak_env.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, preset_name

from .table import Refused, Table, card_json, move_text, new_seed

MAX_TABLES = 500
"""Games held at once; the least recently used goes first."""
GAMES_PER_MINUTE = 60
"""New tables one address may open in a minute; past it, 429 (a page that loops cannot evict everyone's games)."""
MAX_BODY = 256 * 1024
"""The largest request body taken (a game record of a long deal fits many times over)."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects a body may have (a game record needs 4)."""
MAX_ITEMS = 60_000
"""The most values a body may hold (a record of the longest deal, 10,000 moves of three fields, fits twice)."""

ROUTES = (  # path, method, the Api call, what it is given from the request
    ("/api/options", "GET", "offered", ()),
    ("/api/games", "POST", "new_game", ("body", "address")),
    ("/api/games/{game_id}", "GET", "game", ("game_id",)),
    ("/api/games/{game_id}/moves", "POST", "move", ("game_id", "body")),
    ("/api/games/{game_id}/next", "POST", "next_deal", ("game_id", "body")),
    ("/api/games/{game_id}/hint", "GET", "hint", ("game_id",)),
    ("/api/games/{game_id}/record", "GET", "record", ("game_id",)),
    ("/api/replays", "POST", "replay", ("body",)),
)
"""The JSON API: each route calls one ``Api`` method and answers its dict (the record: a dict and a file name)."""
CREATED = {"new_game": 201}


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
    in_page: bool = False
    """The engine runs in the browser tab (``durak site``): no numpy, so no bot that needs it (``NEEDS_NUMPY``)."""


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
    choices = [{"name": name, "label": label} for name, label in BUILTIN_BOTS.items()]
    return choices + [{"name": name, "label": f"{name} (bot file)"} for name in options.bot_files]


def policy_bots(in_page: bool) -> dict[str, str]:
    """The bots built on a shipped trained bot that the page can run, with their words: in a page that runs the
    engine itself (``durak site``), all but those that need numpy."""
    return {name: label for name, label in POLICY_BOTS.items() if not (in_page and name in NEEDS_NUMPY)}


def policy_choices(options: Options) -> list[dict[str, Any]]:
    """The bots built on a shipped trained bot, offered where a preset has one (``presets_offered``)."""
    return [{"name": name, "label": label} for name, label in policy_bots(options.in_page).items()]


def presets_offered() -> list[dict[str, Any]]:
    """Each preset with the table sizes it can deal (2-6 seats, as the deck allows) and the sizes a shipped
    trained bot plays (every size where a universal bot ships)."""
    out = []
    for name, about in Rules.presets().items():
        seats = [n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) if Rules.preset(name).can_seat(n)]
        trained = [n for n in seats if trained_for(Rules.preset(name, num_players=n)) is not None]
        out.append({"name": name, "about": about, "seats": seats, "trained": trained})
    return out


class Api:
    """The page's calls, each answered with a JSON-ready dict or refused (``Refused``)."""

    def __init__(self, options: Options | None = None):
        self.options = options or Options()
        self.tables = Tables()
        self.openings = OpeningLimit(self.options.games_per_minute)
        self._hint_bots: dict[Rules, Any] = {}

    def offered(self) -> dict[str, Any]:
        """The presets, table sizes and bots the page may choose from, and its defaults."""
        options = self.options
        return {"presets": presets_offered(), "preset": options.preset, "players": options.rules.num_players,
                "opponents": options.opponents, "bots": bot_choices(options), "trained_bots": policy_choices(options)}

    def new_game(self, body: dict[str, Any], address: str) -> dict[str, Any]:
        """Seat the person and the bots the body names, deal, and play up to the person's first decision."""
        self.openings.check(address)
        preset, rules = self._rules(body)
        seat = body.get("seat", 0)
        if not is_integer(seat, 0, rules.num_players - 1):
            raise Refused(422, f"seat must be an integer from 0 to {rules.num_players - 1}, got {seat!r}")
        seed = self._seed(body)
        match = body.get("match", False)
        if not isinstance(match, bool):
            raise Refused(422, f"match must be true or false, got {match!r}")
        bots, names = self._seat_bots(body, rules, seat)
        table = Table(rules, preset, seat, bots, names, seed, Match(rules, seed=seed) if match else None,
                      fresh=self._fresh(body), deal_names=self._deal_names(body))
        events = locked(table, table.start)
        return {"id": self.tables.add(table), "events": events, "state": table.state()}

    def game(self, game_id: str) -> dict[str, Any]:
        """The position, and the deal's move log as the page shows it (a reload, or a tab that fell behind)."""
        table = self.tables.get(game_id)
        return locked(table, lambda: {"id": game_id, "state": table.state(), "log": [list(line) for line in table.log]})

    def move(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        table = self.tables.get(game_id)
        if "action" not in body:
            raise Refused(422, "send {\"action\": <index>}, one of the actions the state lists")
        return {"events": locked(table, table.move, body["action"]), "state": table.state()}

    def next_deal(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        table = self.tables.get(game_id)
        return {"events": locked(table, table.next_deal), "state": table.state()}

    def hint(self, game_id: str) -> dict[str, Any]:
        table = self.tables.get(game_id)
        found = self._hint_bot(table.rules)
        if found is None:
            raise Refused(404, f"no trained bot for {table.rules.describe()}: hints need one")
        return locked(table, table.hint, *found)

    def record(self, game_id: str) -> dict[str, Any]:
        """The finished deal's record, and the file name to save it under."""
        table = self.tables.get(game_id)
        return {"record": locked(table, table.record), "file": f"durak-{table.deal_number}.json"}

    def replay(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            rec = load_record(body)
        except ValueError as err:
            raise Refused(422, str(err)) from None
        return replay_frames(rec)

    def dispatch(self, method: str, path: str, body: str | bytes = b"", address: str = "") -> tuple[int, Any]:
        """Answer one request of the JSON API without HTTP: its status and its JSON-ready answer (a refusal's
        is ``{"error": one line, "code": a stable code}``).  The page built by ``durak site`` calls this."""
        try:
            call, reads, given = route(method, path)
            if method == "POST":  # a body is checked even where no field is read
                given["body"] = parse_body(body.encode() if isinstance(body, str) else body)
            given["address"] = address
            reply = getattr(self, call)(*(given[name] for name in reads))
        except Refused as err:
            return err.status, {"error": str(err), "code": err.code}
        return CREATED.get(call, 200), reply

    # ----- what a new game reads --------------------------------------------------------------

    def _rules(self, body: dict[str, Any]) -> tuple[str, Rules]:
        options = self.options
        preset = preset_name(body.get("preset", options.preset))  # an old name: a game saved before the renaming
        if not isinstance(preset, str) or preset not in Rules.presets():
            raise Refused(422, f"unknown preset {preset!r}; presets: {', '.join(Rules.presets())}")
        players = body.get("players", options.rules.num_players)
        if not is_integer(players):
            raise Refused(422, f"players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
        if preset == options.preset and players == options.rules.num_players:
            return preset, options.rules  # the rules given on the command line (--set included)
        try:
            return preset, Rules.preset(preset, num_players=players)
        except ValueError as err:
            raise Refused(422, str(err)) from None

    @staticmethod
    def _seed(body: dict[str, Any]) -> int:
        seed = body.get("seed")
        if seed is None:
            return new_seed()
        try:
            return read_seed(seed)  # every seed the server makes, a match's included, comes back as it went
        except ValueError as err:
            raise Refused(422, str(err)) from None

    def _fresh(self, body: dict[str, Any]) -> bool:
        """Whether nobody chose the deal's seed: the server drew it, or the page that runs the engine itself did
        (it draws every seed, and says so with ``seed_drawn``)."""
        if body.get("seed") is None:
            return True
        return self.options.in_page and body.get("seed_drawn") is True

    def _deal_names(self, body: dict[str, Any]) -> int | None:
        """The seed of the deal numbers shown, which a page that runs the engine itself names (its journal deals
        again under the same numbers); the server draws its own."""
        given = body.get("deal_names")
        if given is None or not self.options.in_page:
            return None
        try:
            return read_seed(given, "deal_names")
        except ValueError as err:
            raise Refused(422, str(err)) from None

    def _seat_bots(self, body: dict[str, Any], rules: Rules, seat: int) -> tuple[list, list[str]]:
        """The bot at every seat but the person's (None there), and every seat's name."""
        names = body.get("opponents", self.options.opponents)
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
            bots[s] = self._bot(name, rules)  # seeded by each deal (Table._deal: bot_seed)
            bot_names[s] = name
        return bots, bot_names

    def _bot(self, name: Any, rules: Rules):
        options = self.options
        if not isinstance(name, str):
            raise Refused(422, f"a bot is named by a string, got {name!r}")
        if name in options.bot_files:
            bot = make_bot(options.bot_files[name])
        elif name in BUILTIN_BOTS or name in policy_bots(options.in_page):
            try:
                bot = make_bot(name, rules=rules)
            except ValueError as err:
                raise Refused(422, str(err)) from None
        else:
            offered = ", ".join(c["name"] for c in bot_choices(options))
            raise Refused(422, f"unknown bot {name!r}; this server offers: {offered}")
        made_for = getattr(bot, "rules", None)
        if made_for is not None and made_for != rules:
            raise Refused(422, f"{name} was trained for {made_for.describe()}; this game is {rules.describe()}")
        return bot

    def _hint_bot(self, rules: Rules):
        """The bot that gives hints at these rules, and its name in the page's words: the shipped one, or a bot
        file made for them (named as ``--bot`` named it); None if none."""
        if rules not in self._hint_bots:
            for name, path in [("trained", None), *self.options.bot_files.items()]:
                try:
                    bot = make_bot("trained", rules=rules) if path is None else make_bot(path)
                except ValueError:
                    continue
                if bot.rules == rules or getattr(bot, "universal", False):
                    self._hint_bots[rules] = (bot, "The trained bot" if path is None else f"The bot {name}")
                    break
            else:
                self._hint_bots[rules] = None
        return self._hint_bots[rules]


def locked(table: Table, method, *args):
    """One request at a time per table (two tabs on one game, or a double click)."""
    with table.lock:
        return method(*args)


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


_PATTERNS = [(re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path) + "$"), method, call, reads)
             for path, method, call, reads in ROUTES]


def route(method: str, path: str) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """The ``Api`` call a request names, what the call is given, and the values read from the path; 404 or 405
    for none."""
    allowed = False
    for pattern, wanted, call, reads in _PATTERNS:
        found = pattern.match(path)
        if found:
            if method == wanted:
                return call, reads, found.groupdict()
            allowed = True
    if allowed:
        raise Refused(405, f"{path} does not take {method}")
    raise Refused(404, f"no such page: {path}")


def parse_body(body: bytes) -> dict[str, Any]:
    """A request body's JSON object: 413 past ``MAX_BODY``, 422 past ``MAX_DEPTH`` or ``MAX_ITEMS``, 400 if it is
    not JSON, 422 if it is not an object; an empty body is ``{}``."""
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
