"""A game's record: its stored facts (``FACTS``), written as a JSON snapshot and read back.

Everything else a ``Game`` holds is derived from its rules and these facts (``Game._derive``), so a
snapshot is the facts, a clone copies them, and a new fact is a line here (its kind, and what a snapshot
written before it existed stands for), an annotation in game.py and its value at the deal.  Reading refuses
anything malformed or impossible: every problem is a ValueError naming the key and what is wrong, raised
before a game object exists, so a bad snapshot never fails later in play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .cards import BEATERS, CARDS, SUITS, Card, cards_of, conservation_problem, deck, suit_of
from .checks import is_integer
from .rules import Rules

_NEEDED: Final = None
"""A fact every snapshot holds (no default)."""

FACTS: Final[dict[str, tuple[str, Callable[[dict, int], Any] | None]]] = {
    # name: (kind, the value of a snapshot written before the fact existed).  The kinds are below.
    "trump_card": ("card", _NEEDED),
    "stock": ("pile", _NEEDED),  # in the game the next card drawn is the list's last; a snapshot lists it first
    "hands": ("seat_cards", _NEEDED),
    "discard": ("cards", _NEEDED),
    "known": ("seat_cards", lambda data, n: [[] for _ in range(n)]),  # per seat, the cards the others saw it take
    "out_groups": ("groups", lambda data, n: [[s] for s in data["out"]]),
    "attacks": ("table", _NEEDED),  # the table: one snapshot key for both lists
    "defences": ("table", _NEEDED),  # -1 where unbeaten
    "attacker": ("seat", _NEEDED),
    "defender": ("seat", _NEEDED),
    "opener": ("seat", lambda data, n: data["attacker"]),  # who led the bout (it draws first)
    "passed": ("seats", lambda data, n: []),
    "taking": ("flag", lambda data, n: False),
    "bouts": ("count", lambda data, n: 0),
    "first_seat": ("seat", lambda data, n: 0),
}
"""The stored facts of a deal besides its rules, each with its kind and its default."""

DERIVED_KEYS: Final = ("trump_suit", "to_act", "out", "bout_limit")
"""What a snapshot also shows its readers, derived from the facts; checked when read back."""

REQUIRED: Final = ("rules", "trump_suit", "table", "to_act", "out",
                   *(name for name, (kind, default) in FACTS.items() if default is _NEEDED and kind != "table"))
KEYS: Final = ("rules", "table", *DERIVED_KEYS, *(name for name, (kind, _) in FACTS.items() if kind != "table"))


def _names(mask: int) -> list[str]:
    return [str(CARDS[c]) for c in cards_of(mask)]


_WRITE: Final[dict[str, Callable[[Any], Any]]] = {
    "card": lambda card: str(Card(card)),
    "pile": lambda stock: [str(Card(c)) for c in reversed(stock)],
    "cards": _names,
    "seat_cards": lambda masks: [_names(m) for m in masks],
    "groups": lambda groups: [list(g) for g in groups],
    "seat": int,
    "seats": lambda mask: [s for s in range(mask.bit_length()) if mask >> s & 1],
    "flag": bool,
    "count": int,
}
"""Each kind of fact as JSON (the table aside: ``write_snapshot`` pairs its two lists)."""


def write_snapshot(game) -> dict[str, Any]:
    """``game.to_dict()``: the rules, the facts and the derived keys a reader wants."""
    snap: dict[str, Any] = {"rules": game.rules.to_dict(), "trump_suit": SUITS[game.trump]}
    for name, (kind, _) in FACTS.items():
        if kind != "table":
            snap[name] = _WRITE[kind](getattr(game, name))
    snap["table"] = [[str(Card(a)), None if d < 0 else str(Card(d))] for a, d in zip(game.attacks, game.defences)]
    snap["to_act"] = None if game.result else game.to_act
    snap["out"] = game.out
    snap["bout_limit"] = game.limit
    return snap


# ----- reading -----------------------------------------------------------------------------

class _Deck:
    """What reading a fact needs to know of the rules: the seats and the deck's cards."""

    def __init__(self, rules: Rules):
        self.n = rules.num_players
        self.cards = set(deck(rules.deck_size))


def _card(text: Any, where: str, d: _Deck) -> int:
    try:
        card = Card.parse(text)
    except ValueError as err:
        raise ValueError(f"snapshot {where}: {err}") from None
    if card not in d.cards:
        raise ValueError(f"snapshot {where}: {text} is not in a {len(d.cards)}-card deck")
    return int(card)


def _cards(value: Any, where: str, d: _Deck) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"snapshot {where} must be a list of cards, got {type(value).__name__}")
    return [_card(v, f"{where}[{i}]", d) for i, v in enumerate(value)]


def _mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _seat(value: Any, where: str, d: _Deck) -> int:
    if not is_integer(value, 0, d.n - 1):
        raise ValueError(f"snapshot {where} must be a seat from 0 to {d.n - 1}, got {value!r}")
    return int(value)


def _seat_cards(value: Any, where: str, d: _Deck) -> list[int]:
    if not isinstance(value, list) or len(value) != d.n:
        raise ValueError(f"snapshot {where} must be a list of {d.n} card lists, one per seat")
    return [_mask(_cards(v, f"{where}[{s}]", d)) for s, v in enumerate(value)]


def _groups(value: Any, where: str, d: _Deck) -> list[tuple[int, ...]]:
    if not isinstance(value, list) or not all(isinstance(g, list) for g in value):
        raise ValueError(f"snapshot {where} must be a list of lists of seats")
    return [tuple(_seat(s, where, d) for s in g) for g in value]


def _seats(value: Any, where: str, d: _Deck) -> int:
    if not isinstance(value, list):
        raise ValueError(f"snapshot {where} must be a list of seats")
    return _mask(_seat(s, where, d) for s in value)


def _flag(value: Any, where: str, d: _Deck) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"snapshot {where} must be true or false")
    return value


def _count(value: Any, where: str, d: _Deck) -> int:
    if not is_integer(value, 0):
        raise ValueError(f"snapshot {where} must be a count from 0, got {value!r}")
    return int(value)


_READ: Final[dict[str, Callable[[Any, str, _Deck], Any]]] = {
    "card": _card,
    "pile": lambda value, where, d: _cards(value, where, d)[::-1],
    "cards": lambda value, where, d: _mask(_cards(value, where, d)),
    "seat_cards": _seat_cards,
    "groups": _groups,
    "seat": _seat,
    "seats": _seats,
    "flag": _flag,
    "count": _count,
}
"""Each kind of fact read back from JSON, or a ValueError naming the key."""


def load_snapshot(cls, data: Any):
    """The game of a ``Game.to_dict`` snapshot (``cls`` is ``Game``), or a ValueError naming what is wrong."""
    _check_keys(data)
    rules = Rules.from_dict(data["rules"])
    d = _Deck(rules)
    facts: dict[str, Any] = {}
    for name, (kind, default) in FACTS.items():
        if kind != "table":
            value = data[name] if name in data or default is None else default(data, d.n)
            facts[name] = _READ[kind](value, name, d)
    facts["attacks"], facts["defences"] = _table(data["table"], d)
    _check_cards(data, rules, facts)
    _check_seats(data, rules, facts)
    try:
        game = cls.assemble(rules, **facts)
    except ValueError as err:
        raise ValueError(f"snapshot: {err}; take it at a move") from None
    actor = None if game.is_over else game.to_act
    if data["to_act"] != actor:
        if actor is None:
            raise ValueError(f"snapshot to_act must be null: the deal is over after {game.bouts} bouts")
        raise ValueError(f"snapshot to_act is {data['to_act']!r} but the position waits on seat {actor}")
    limit = data.get("bout_limit", game.limit)
    if not game.is_over and limit != game.limit:
        raise ValueError(f"snapshot bout_limit is {limit!r}, but the defender held {game.limit} cards when the "
                         "attack reached it (its hand and the cards it has beaten with)")
    return game


def _check_keys(data: Any) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"a snapshot is a dict from Game.to_dict(), got {type(data).__name__}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ValueError(f"snapshot is missing {', '.join(missing)}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"snapshot has unknown key {unknown[0]!r}; keys: {', '.join(KEYS)}")


def _table(table: Any, d: _Deck) -> tuple[list[int], list[int]]:
    """The table's attacks and their answers (-1: unbeaten), from ``[attack, defence or null]`` pairs."""
    if not isinstance(table, list):
        raise ValueError("snapshot table must be a list of [attack, defence or null] pairs")
    attacks, defences = [], []
    for i, pair in enumerate(table):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"snapshot table[{i}] must be a pair [attack, defence or null], got {pair!r}")
        attacks.append(_card(pair[0], f"table[{i}][0]", d))
        defences.append(-1 if pair[1] is None else _card(pair[1], f"table[{i}][1]", d))
    return attacks, defences


def _check_cards(data: dict, rules: Rules, facts: dict[str, Any]) -> None:
    """Each card once in the deck, the trump card of the trump suit and drawn last, the table answered leftmost
    first with each defence beating its attack, and only a seat's own cards known to the others."""
    if data["trump_suit"] not in SUITS:
        raise ValueError(f"snapshot trump_suit must be one of {', '.join(SUITS)}, got {data['trump_suit']!r}")
    trump, trump_card, stock = SUITS.index(data["trump_suit"]), facts["trump_card"], facts["stock"]
    if suit_of(trump_card) != trump:
        raise ValueError(f"snapshot trump_card {data['trump_card']} is not of the trump suit {data['trump_suit']}")
    if stock and stock[0] != trump_card:
        raise ValueError("snapshot stock must end with the trump card, which is drawn last")
    attacks, defences, hands = facts["attacks"], facts["defences"], facts["hands"]
    problem = conservation_problem(rules.deck_size, [
        ("stock", stock), *((f"hands[{s}]", h) for s, h in enumerate(hands)), ("discard", facts["discard"]),
        ("table", attacks + [c for c in defences if c >= 0])])
    if problem:
        raise ValueError(f"snapshot: {problem}")
    open_seen = False
    for i, (a, c) in enumerate(zip(attacks, defences)):
        if c < 0:
            open_seen = True
        elif open_seen:
            raise ValueError(f"snapshot table[{i}] is beaten after an unbeaten card; attacks are answered leftmost first")
        elif not BEATERS[trump][a] >> c & 1:
            raise ValueError(f"snapshot table[{i}]: {Card(c)} does not beat {Card(a)} with {SUITS[trump]} trumps")
    if len(attacks) > rules.max_attacks:
        raise ValueError(f"snapshot table holds {len(attacks)} attacks; the rules allow {rules.max_attacks}")
    for s, (known, hand) in enumerate(zip(facts["known"], hands)):
        if known & ~hand:
            raise ValueError(f"snapshot known[{s}] lists cards that seat {s} does not hold")


def _check_seats(data: dict, rules: Rules, facts: dict[str, Any]) -> None:
    """The seats out (``out`` in order, grouped by the bout they went out in: none before the stock is gone,
    none holding cards), the bout's seats in play, and the bout's state possible under the rules."""
    out = data["out"]
    if not isinstance(out, list) or [s for g in facts["out_groups"] for s in g] != out:
        raise ValueError("snapshot out_groups must list the seats of out, in order, grouped by the bout they went out in")
    if len(set(out)) != len(out):
        raise ValueError("snapshot out names a seat twice")
    hands, n = facts["hands"], rules.num_players
    for s in out:
        if hands[s]:
            raise ValueError(f"snapshot seat {s} is out but holds cards")
    if out and facts["stock"]:
        raise ValueError("snapshot has seats out while the stock lasts; nobody goes out before the stock is gone")
    if facts["taking"] and not rules.throw_in_after_take:
        raise ValueError("snapshot says the defender is taking, but these rules end the bout at once on a take")
    if rules.max_bouts is not None and facts["bouts"] > rules.max_bouts:
        raise ValueError(f"snapshot has {facts['bouts']} bouts; the deal ends at the rules' cap of {rules.max_bouts}")
    over = n - len(out) <= 1 or rules.max_bouts is not None and facts["bouts"] >= rules.max_bouts
    attacker, defender, defences = facts["attacker"], facts["defender"], facts["defences"]
    if over:
        if facts["attacks"]:
            raise ValueError("snapshot of a finished deal must have an empty table")
        return  # a finished deal keeps the last bout's seats, who may have gone out
    if attacker == defender:
        raise ValueError("snapshot attacker and defender must be different seats")
    for name, s in (("attacker", attacker), ("defender", defender)):
        if s in out:
            raise ValueError(f"snapshot {name} {s} has gone out")
    if not facts["taking"] and defences.count(-1) > hands[defender].bit_count():
        raise ValueError("snapshot has more unbeaten cards than the defender holds")
