"""Reading a ``Game.to_dict`` snapshot back, refusing anything malformed or impossible.

Every problem is a ValueError naming the key and what is wrong, raised before
a game object exists, so a bad snapshot never fails later in play.
"""

from __future__ import annotations

from typing import Any

from .cards import BEATERS, SUITS, Card, conservation_problem, deck, suit_of
from .checks import is_integer
from .rules import Rules

REQUIRED = ("rules", "trump_suit", "trump_card", "stock", "hands", "discard", "table", "attacker", "defender", "to_act", "out")
OPTIONAL = ("opener", "passed", "taking", "bout_limit", "bouts", "out_groups", "known", "first_seat")


def _card(text: Any, where: str, deck_cards: set[int]) -> int:
    try:
        card = Card.parse(text)
    except ValueError as err:
        raise ValueError(f"snapshot {where}: {err}") from None
    if card not in deck_cards:
        raise ValueError(f"snapshot {where}: {text} is not in a {len(deck_cards)}-card deck")
    return int(card)


def _cards(value: Any, where: str, deck_cards: set[int]) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"snapshot {where} must be a list of cards, got {type(value).__name__}")
    return [_card(v, f"{where}[{i}]", deck_cards) for i, v in enumerate(value)]


def _seat(value: Any, where: str, n: int, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if not is_integer(value, 0, n - 1):
        raise ValueError(f"snapshot {where} must be a seat from 0 to {n - 1}, got {value!r}")
    return value


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def load_snapshot(cls, data: Any):
    """The game of a ``Game.to_dict`` snapshot (``cls`` is ``Game``), or a ValueError naming what is wrong."""
    _check_keys(data)
    rules = Rules.from_dict(data["rules"])
    n = rules.num_players
    deck_cards = set(deck(rules.deck_size))
    trump_card, stock, hands, discard, attacks, defences = _cards_of(data, rules, deck_cards)
    out, groups = _out_of(data, n, hands, stock)
    attacker = _seat(data["attacker"], "attacker", n)
    defender = _seat(data["defender"], "defender", n)
    bouts = data.get("bouts", 0)
    if not is_integer(bouts, 0):
        raise ValueError(f"snapshot bouts must be a count from 0, got {bouts!r}")
    over = n - len(out) <= 1
    capped = not over and rules.max_bouts is not None and bouts >= rules.max_bouts
    if not over and not capped:  # a finished deal keeps the last bout's seats, who may have gone out
        if attacker == defender:
            raise ValueError("snapshot attacker and defender must be different seats")
        for name, s in (("attacker", attacker), ("defender", defender)):
            if s in out:
                raise ValueError(f"snapshot {name} {s} has gone out")
    if len(attacks) > rules.max_attacks:
        raise ValueError(f"snapshot table holds {len(attacks)} attacks; the rules allow {rules.max_attacks}")
    hand_masks = [_mask(h) for h in hands]
    known = _known_of(data, n, deck_cards, hand_masks)
    taking, limit = _bout_of(data, rules, len(hands[defender]), defences)  # type: ignore[index]
    if (over or capped) and attacks:
        raise ValueError("snapshot of a finished deal must have an empty table")
    if not over and not capped and not taking and defences.count(-1) > len(hands[defender]):  # type: ignore[index]
        raise ValueError("snapshot has more unbeaten cards than the defender holds")
    passed = data.get("passed", [])
    if not isinstance(passed, list):
        raise ValueError("snapshot passed must be a list of seats")
    try:
        game = cls.assemble(
            rules, trump_card=trump_card, stock=list(reversed(stock)), hands=hand_masks, discard=_mask(discard),
            known=known, out_groups=groups, attacks=attacks, defences=defences, attacker=attacker,
            defender=defender, opener=_seat(data.get("opener", attacker), "opener", n),
            passed=_mask(_seat(s, "passed", n) for s in passed), taking=taking, limit=limit, bouts=bouts,
            first_seat=_seat(data.get("first_seat", 0), "first_seat", n))
    except ValueError as err:
        raise ValueError(f"snapshot: {err}; take it at a move") from None
    actor = None if game.is_over else game.to_act
    if data["to_act"] != actor:
        if actor is None:
            raise ValueError(f"snapshot to_act must be null: the deal is over after {bouts} bouts")
        raise ValueError(f"snapshot to_act is {data['to_act']!r} but the position waits on seat {actor}")
    return game


def _check_keys(data: Any) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"a snapshot is a dict from Game.to_dict(), got {type(data).__name__}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ValueError(f"snapshot is missing {', '.join(missing)}")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"snapshot has unknown key {unknown[0]!r}; keys: {', '.join(REQUIRED + OPTIONAL)}")


def _cards_of(data: dict, rules: Rules, deck_cards: set[int]) -> tuple:
    """The trump card, the stock, the hands, the discard and the table's attacks and defences (-1: unbeaten),
    each card once in the deck, the table answered leftmost first and each defence beating its attack."""
    if data["trump_suit"] not in SUITS:
        raise ValueError(f"snapshot trump_suit must be one of {', '.join(SUITS)}, got {data['trump_suit']!r}")
    trump = SUITS.index(data["trump_suit"])
    trump_card = _card(data["trump_card"], "trump_card", deck_cards)
    if suit_of(trump_card) != trump:
        raise ValueError(f"snapshot trump_card {data['trump_card']} is not of the trump suit {data['trump_suit']}")
    stock = _cards(data["stock"], "stock", deck_cards)
    if stock and stock[-1] != trump_card:
        raise ValueError("snapshot stock must end with the trump card, which is drawn last")
    n = rules.num_players
    if not isinstance(data["hands"], list) or len(data["hands"]) != n:
        raise ValueError(f"snapshot hands must be a list of {n} hands, one per seat")
    hands = [_cards(h, f"hands[{s}]", deck_cards) for s, h in enumerate(data["hands"])]
    discard = _cards(data["discard"], "discard", deck_cards)
    table = data["table"]
    if not isinstance(table, list):
        raise ValueError("snapshot table must be a list of [attack, defence or null] pairs")
    attacks, defences = [], []
    for i, pair in enumerate(table):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"snapshot table[{i}] must be a pair [attack, defence or null], got {pair!r}")
        attacks.append(_card(pair[0], f"table[{i}][0]", deck_cards))
        defences.append(-1 if pair[1] is None else _card(pair[1], f"table[{i}][1]", deck_cards))
    problem = conservation_problem(rules.deck_size, [
        ("stock", stock), *((f"hands[{s}]", h) for s, h in enumerate(hands)), ("discard", discard),
        ("table", attacks + [d for d in defences if d >= 0])])
    if problem:
        raise ValueError(f"snapshot: {problem}")
    open_seen = False
    for i, (a, d) in enumerate(zip(attacks, defences)):
        if d < 0:
            open_seen = True
        elif open_seen:
            raise ValueError(f"snapshot table[{i}] is beaten after an unbeaten card; attacks are answered leftmost first")
        elif not BEATERS[trump][a] >> d & 1:
            raise ValueError(f"snapshot table[{i}]: {Card(d)} does not beat {Card(a)} with {SUITS[trump]} trumps")
    return trump_card, stock, hands, discard, attacks, defences


def _out_of(data: dict, n: int, hands: list[list[int]], stock: list[int]) -> tuple[list[int], list]:
    """The seats out, in order, and grouped by the bout they went out in."""
    out = data["out"]
    if not isinstance(out, list):
        raise ValueError("snapshot out must be a list of seats")
    out = [_seat(s, "out", n) for s in out]
    groups = data.get("out_groups", [[s] for s in out])
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups) or [
        s for g in groups for s in g
    ] != out:
        raise ValueError("snapshot out_groups must list the seats of out, in order, grouped by the bout they went out in")
    if len(set(out)) != len(out):
        raise ValueError("snapshot out names a seat twice")
    for s in out:
        if hands[s]:
            raise ValueError(f"snapshot seat {s} is out but holds cards")
    if out and stock:
        raise ValueError("snapshot has seats out while the stock lasts; nobody goes out before the stock is gone")
    return out, groups


def _known_of(data: dict, n: int, deck_cards: set[int], hand_masks: list[int]) -> list[int]:
    """Per seat, the cards of its hand that the others have seen (picked up from the table)."""
    known_lists = data.get("known", [[] for _ in range(n)])
    if not isinstance(known_lists, list) or len(known_lists) != n:
        raise ValueError(f"snapshot known must be a list of {n} card lists")
    known = [_mask(_cards(k, f"known[{s}]", deck_cards)) for s, k in enumerate(known_lists)]
    for s in range(n):
        if known[s] & ~hand_masks[s]:
            raise ValueError(f"snapshot known[{s}] lists cards that seat {s} does not hold")
    return known


def _bout_of(data: dict, rules: Rules, defender_cards: int, defences: list[int]) -> tuple[bool, int]:
    """Whether the defender is taking, and the bout's limit of attack cards (the defender's cards at its start)."""
    taking = data.get("taking", False)
    if not isinstance(taking, bool):
        raise ValueError("snapshot taking must be true or false")
    if taking and not rules.throw_in_after_take:
        raise ValueError("snapshot says the defender is taking, but these rules end the bout at once on a take")
    limit = data.get("bout_limit", defender_cards + sum(1 for d in defences if d >= 0))
    if not is_integer(limit, 0):
        raise ValueError(f"snapshot bout_limit must be a count from 0, got {limit!r}")
    return taking, limit
