"""Worlds consistent with what one seat knows: the unseen cards dealt at random.

Seed 001: "The stronger players try out many possible layouts of the unseen cards
before choosing."  ``sample_world`` reads only a ``SeatView``, so a search built
on it cannot reach a hidden card: two positions the seat cannot tell apart give
the same worlds for the same generator.
"""

from __future__ import annotations

import random

from .cards import deck, mask_of
from .game import Game
from .view import SeatView


def unseen_cards(view: SeatView) -> list[int]:
    """Cards whose place this seat cannot know, in id order."""
    seen = view.hand_mask | mask_of(a for a, _ in view.table) | mask_of(d for _, d in view.table if d is not None)
    if view.discard_mask is not None:
        seen |= view.discard_mask
    for k in view.known_masks:
        seen |= k
    if view.stock_size:
        seen |= 1 << view.trump_card  # the face-up card lies at the bottom of the stock
    return [c for c in deck(view.rules.deck_size) if not seen >> c & 1]


def sample_world(view: SeatView, rng: random.Random) -> Game:
    """A full game in which this seat's hand, the table and everything public are as it sees them,
    and the unseen cards are shuffled into the other hands, the stock and (if hidden) the discard."""
    rules = view.rules
    n = rules.num_players
    pool = unseen_cards(view)
    rng.shuffle(pool)
    hands = [0] * n
    for s in range(n):
        if s == view.seat:
            hands[s] = view.hand_mask
            continue
        known = view.known_masks[s]
        need = view.hand_sizes[s] - known.bit_count()
        hands[s] = known | mask_of(pool[:need])
        del pool[:need]
    stock = []
    if view.stock_size:
        stock_hidden = view.stock_size - 1
        stock = [view.trump_card] + pool[:stock_hidden]  # drawn from the back; the trump card last
        del pool[:stock_hidden]
    if view.discard_mask is None:
        discard, pool = mask_of(pool), []
    else:
        discard = view.discard_mask
    if pool:
        raise ValueError("sample_world: the view's counts do not add up to the deck")

    return Game.assemble(
        rules, trump_card=int(view.trump_card), stock=stock, hands=hands, discard=discard,
        known=list(view.known_masks), out_groups=[list(x) for x in view.out_groups],
        attacks=[int(a) for a, _ in view.table], defences=[-1 if d is None else int(d) for _, d in view.table],
        attacker=view.attacker, defender=view.defender, opener=view.opener, passed=mask_of(view.passed),
        taking=view.taking, bouts=view.bouts, first_seat=view.first_seat)
