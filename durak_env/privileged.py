"""What a critic may see while a policy trains, and no seat ever does: every other seat's hand and the stock.

An asymmetric actor-critic (PerfectDou's "perfect-training-imperfect-execution", Guan et al. 2022): the policy
reads the seat's observation alone (``durak_env.observation``), while the value estimate that scores its moves
during training also reads the cards hidden from it, so that a deal's luck is told apart from a move's merit.
Only the trainer's critic reads these planes (``training.policy.FullCritic``); a bot file, a view, a page and an
environment's observation never carry them.

With ``D`` card planes of the observation's layout (the deck's own, or the 52-card universal one) and ``n`` seats
(the table's, or ``MAX_PLAYERS`` for the universal layout)::

    hands   (n-1)D  per other seat (relative seats 1..n-1): the cards it holds
    stock       D   the cards still in the stock (their order is not shown)

    size = n * D    (2 players, 36 cards: 72)

A relative seat past the table is all zero, as in the universal observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine.actions import UNIVERSAL_DECK, layout_for
from .engine.rules import MAX_PLAYERS, Rules

BITS = np.arange(UNIVERSAL_DECK, dtype=np.uint64)
"""The bit of each card id in a hand mask."""


class PrivilegedEncoder:
    """Writes, for rows of deals, the hidden cards of each deal as the seat to act there would not see them."""

    def __init__(self, rules: Rules, universal: bool = False):
        self.seats = MAX_PLAYERS if universal else rules.num_players
        planes = layout_for(UNIVERSAL_DECK if universal else rules.deck_size)
        self.plane = planes.deck_size
        self.size = self.seats * self.plane
        self._cards = np.asarray(planes.card_of, dtype=np.int64)
        """Plane slot -> card id: the columns of a deal's card bits, in the observation's slot order."""

    def encode_games(self, games: list[Any], out: np.ndarray | None = None) -> np.ndarray:
        """Row k: the hidden cards of ``games[k]`` from its seat to act (a ``Game`` or a ``NativeGame``)."""
        if out is None:
            out = np.zeros((len(games), self.size), np.float32)
        masks = np.zeros((len(games), self.seats), np.uint64)
        for k, game in enumerate(games):
            hands, n, seat = game.hands, len(game.hands), game.to_act
            for r in range(1, n):
                masks[k, r - 1] = hands[(seat + r) % n]
            stock = 0
            for card in game.stock:
                stock |= 1 << card
            masks[k, self.seats - 1] = stock
        bits = (masks[:, :, None] >> BITS) & np.uint64(1)
        out[:] = bits[:, :, self._cards].reshape(len(games), self.size)
        return out


__all__ = ["PrivilegedEncoder"]
