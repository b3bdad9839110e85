"""The opponent of seed 004, exactly, and the "Easy" player of seed 001.

Seed 004: "The opponent ranks its cards the same way for both of its jobs: trumps go
to the back of the list, then the rest run from low number to high. Suits are
ignored in that order. To attack it takes the top card of the list ... To defend it
builds the list of cards that legally beat the attack and again takes the top".
"One brake sits on top of that. If the stock is empty, the attack card is a plain
card, and the trump it was about to spend is the only trump left in its hand, it
picks up the whole table instead. Holding two trumps switches the brake off".

Where seed 004 is silent (its game has two players, no transfer and no throwing in
after a take), the natural extensions, documented in docs/bots.md:

* cards of equal rank keep suit order C, D, H, S (004's list is a stable sort);
* transfer: it passes the attack on with its lowest plain card of the attack's rank
  whenever it may (that sheds a card and spends nothing); never with a trump;
* throwing in at a defender who has said take: only plain cards (a trump given to a
  taker is a trump lost);
* with more players it throws in at other attackers' bouts by the same list.
"""

from __future__ import annotations

import random

from durak_env.engine.actions import Layout, layout_for
from durak_env.engine.cards import SUIT_MASKS, rank_of, suit_of
from durak_env.engine.view import SeatView


def _order_tables(layout: Layout) -> tuple[tuple[int, ...], ...]:
    """ORDER[trump][slot]: a card's place in 004's list (lower plays first)."""
    tables = []
    for trump in range(4):
        row = []
        for card in layout.card_of:
            suit = suit_of(card)
            row.append((suit == trump) * TRUMP_LAST + rank_of(card) * 4 + suit)
        tables.append(tuple(row))
    return tuple(tables)


TRUMP_LAST = 1000
"""Added to a trump's place in the list: "trumps go to the back of the list" (seed 004)."""
_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {}


def heuristic_action(legal: list[int] | tuple[int, ...], hand: int, trump: int, stock_size: int,
                     attacks: list[int], open_count: int, taking: bool, layout: Layout) -> int:
    """Seed 004's choice from one seat's own information: its hand, the table and the stock size."""
    order = _ORDERS.get(layout.deck_size)
    if order is None:
        order = _ORDERS[layout.deck_size] = _order_tables(layout)
    key = order[trump]
    defend, transfer, take = layout.defend, layout.transfer, layout.take
    if take in legal:  # defending
        best_transfer = best_defend = None
        for a in legal:
            if defend <= a < transfer:
                if best_defend is None or key[a - defend] < key[best_defend - defend]:
                    best_defend = a
            elif transfer <= a < take and key[a - transfer] < TRUMP_LAST:
                if best_transfer is None or key[a - transfer] < key[best_transfer - transfer]:
                    best_transfer = a
        if best_transfer is not None:
            return best_transfer
        if best_defend is None:
            return take
        target = attacks[len(attacks) - open_count]
        card = layout.card_of[best_defend - defend]
        if (stock_size == 0 and suit_of(target) != trump and suit_of(card) == trump
                and (hand & SUIT_MASKS[trump]).bit_count() == 1):
            return take  # the brake
        return best_defend
    best = None
    for a in legal:
        if a < defend and (not taking or key[a] < TRUMP_LAST) and (best is None or key[a] < key[best]):
            best = a
    if best is None:
        return layout.done if layout.done in legal else legal[0]
    return best


class HeuristicBot:
    """Seed 004's opponent: lowest plain card first, cheapest beater, the trump brake."""

    name = "heuristic"

    def __init__(self, seed: int | None = None):
        pass

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        attacks = [int(a) for a, _ in view.table]
        open_count = sum(1 for _, b in view.table if b is None)
        return heuristic_action(legal, view.hand_mask, view.trump_suit, view.stock_size, attacks, open_count,
                                view.taking, layout_for(view.rules.deck_size))


class EasyBot:
    """Seed 001: "the Easy player plays loosely": the heuristic, with a share of random legal moves."""

    name = "easy"

    def __init__(self, seed: int | None = None, randomness: float = 0.3):
        if not 0.0 <= randomness <= 1.0:
            raise ValueError(f"EasyBot randomness must be from 0 to 1, got {randomness!r}")
        self.randomness = randomness
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot()

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> int:
        if self.rng.random() < self.randomness:
            return self.rng.choice(view.legal_actions)
        return self.heuristic.act(view)
