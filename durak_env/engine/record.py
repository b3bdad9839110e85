"""Game records: a deal as JSON (rules, seed, first seat, every move with its seat), written by
``durak play --save`` and the browser page's download, read back by ``load_record``.

A record holds no position, only what makes it: the deal is ``Game(rules, seed, first_seat)``
and each move is replayed through the engine, so a record cannot describe an impossible
game.  ``load_record`` validates every field and every move and refuses a damaged record
with one ValueError line naming the problem; a sound one replays exactly.  Seats may be
named (``players``); the result, when present, must be the one the moves lead to.

The seed is written as a decimal string: seeds run to 2**64 (a match's deals), past the 2**53 that a JSON number
keeps exactly in a browser, where ``11493236029908393141`` became ``11493236029908394000`` and the record replayed
another deal.  A seed written as a number, as records before this did, still reads.

    {"format": "durak_env.record", "version": 1, "rules": {...}, "seed": "42", "first_seat": 0,
     "players": ["you", "heuristic"],
     "moves": [{"seat": 0, "action": 13, "move": "attack 10D"}, ...],
     "result": {"fool": 1, "placings": [1, 2], "points": [1, 0]}}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import decode_action
from .checks import is_integer
from .game import Game, IllegalAction
from .rules import Rules

FORMAT = "durak_env.record"
VERSION = 1
KEYS = ("format", "version", "rules", "seed", "first_seat", "players", "moves", "result")
MAX_MOVES = 100_000
"""Refused above this: far more than any deal takes (a record is read from a file someone hands over)."""


@dataclass(frozen=True)
class Record:
    rules: Rules
    seed: int
    first_seat: int
    moves: tuple[tuple[int, int], ...]
    """(seat, action) pairs in the order played."""
    players: tuple[str, ...]

    def game(self, upto: int | None = None) -> Game:
        """The deal after the first ``upto`` moves (all of them by default)."""
        game = Game(self.rules, seed=self.seed, first_seat=self.first_seat)
        for seat, action in self.moves[:upto]:
            game.step(action, seat=seat)
        return game

    def to_dict(self) -> dict[str, Any]:
        game = self.game()
        out = {"format": FORMAT, "version": VERSION, "rules": self.rules.to_dict(), "seed": str(self.seed),
               "first_seat": self.first_seat, "players": list(self.players),
               "moves": [{"seat": s, "action": a, "move": str(decode_action(a, self.rules))} for s, a in self.moves]}
        if game.result is not None:
            r = game.result
            out["result"] = {"fool": r.fool, "placings": list(r.placings), "points": list(r.points)}
        return out


def make_record(rules: Rules, seed: int, first_seat: int, moves, players=None) -> Record:
    """A record of the deal ``Game(rules, seed, first_seat)`` and the (seat, action) moves played in it."""
    players = tuple(players) if players else tuple(f"player_{s}" for s in range(rules.num_players))
    return Record(rules, seed, first_seat, tuple((int(s), int(a)) for s, a in moves), players)


def _int(value: Any, where: str, low: int, high: int) -> int:
    if not is_integer(value, low, high):
        raise ValueError(f"record {where} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


SEED_DIGITS = len(str(2**64 - 1))


def read_seed(value: Any, where: str = "seed") -> int:
    """A seed as records and the page send it: a decimal string (or, from older records, a JSON integer) from 0 to
    2**64 - 1; ValueError otherwise."""
    if isinstance(value, str) and 0 < len(value) <= SEED_DIGITS and value.isascii() and value.isdigit():
        value = int(value)
    if not is_integer(value, 0, 2**64 - 1):
        raise ValueError(f"{where} must be a decimal string (or integer) from 0 to {2**64 - 1}, got {value!r}")
    return int(value)


def load_record(data: Any) -> Record:
    """A record from its JSON form, every field checked and every move replayed; ValueError names a problem."""
    if not isinstance(data, dict):
        raise ValueError(f"a game record is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a game record: format must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise ValueError(f"record version {data.get('version')!r} is not one this durak_env reads ({VERSION})")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"record has unknown key {unknown[0]!r}; keys: {', '.join(KEYS)}")
    for key in ("rules", "seed", "moves"):
        if key not in data:
            raise ValueError(f"record is missing {key}")
    try:
        rules = Rules.from_dict(data["rules"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"record rules: {err}") from None
    n = rules.num_players
    seed = read_seed(data["seed"], "record seed")
    first_seat = _int(data.get("first_seat", 0), "first_seat", 0, n - 1)
    players = data.get("players", [f"player_{s}" for s in range(n)])
    if (not isinstance(players, list) or len(players) != n
            or not all(isinstance(p, str) and 0 < len(p) <= 40 for p in players)):
        raise ValueError(f"record players must be a list of {n} names of 1 to 40 characters")
    moves = data["moves"]
    if not isinstance(moves, list) or len(moves) > MAX_MOVES:
        raise ValueError(f"record moves must be a list of at most {MAX_MOVES:,} moves")
    game = Game(rules, seed=seed, first_seat=first_seat)
    pairs = []
    for i, move in enumerate(moves):
        if not isinstance(move, dict) or set(move) - {"seat", "action", "move"} or not {"seat", "action"} <= set(move):
            raise ValueError(f"record moves[{i}] must be an object with seat, action (and move)")
        seat = _int(move["seat"], f"moves[{i}].seat", 0, n - 1)
        action = _int(move["action"], f"moves[{i}].action", 0, 3 * rules.deck_size + 1)
        if "move" in move and move["move"] != str(decode_action(action, rules)):
            raise ValueError(f"record moves[{i}] says {move['move']!r} but action {action} is "
                             f"{decode_action(action, rules)}")
        try:
            game.step(action, seat=seat)
        except IllegalAction:
            if game.is_over:
                reason = "the deal is already over"
            elif seat != game.to_act:
                reason = f"it is seat {game.to_act}'s turn"
            else:
                reason = game.why_not(action)
            raise ValueError(f"record moves[{i}] ({decode_action(action, rules)} by seat {seat}) is not legal "
                             f"there: {reason}") from None
        pairs.append((seat, action))
    if "result" in data:
        result = data["result"]
        if game.result is None:
            raise ValueError("record has a result but its moves do not finish the deal")
        r = game.result
        want = {"fool": r.fool, "placings": list(r.placings), "points": list(r.points)}
        if result != want:
            raise ValueError(f"record result {result!r} is not where its moves lead ({want})")
    return Record(rules, seed, first_seat, tuple(pairs), tuple(players))


__all__ = ["FORMAT", "VERSION", "Record", "load_record", "make_record", "read_seed"]
