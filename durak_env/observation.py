"""The observation: one flat float32 vector with named slices, written into a preallocated array.

With ``D = rules.deck_size`` card planes (one entry per deck card, in action
slot order) and ``n = rules.num_players``.  Seats are relative: index 0 is the
observing seat, index k the seat k places to its left.  The layout::

    hand            D   this seat's cards
    table_open      D   attack cards not yet beaten
    table_beaten    D   attack cards that are beaten
    table_defence   D   cards that beat them
    next_to_beat    D   the earliest unbeaten attack (the one a defend action answers)
    discard         D   beaten cards out of play (all zero when the rules hide them, seed 003)
    trump_card      D   the turned card, remembered after it is drawn (seed 000)
    trump_suit      4   one-hot, C D H S
    known       (n-1)D  per opponent (relative seats 1..n-1): cards it was seen to pick up and still holds
    hand_sizes      n   cards held / D
    out             n   has gone out
    attacker        n   one-hot, the lead attacker
    defender        n   one-hot
    to_act          n   one-hot, the seat the position waits on
    passed          n   throwers who said done since the last new card
    stock_size      1   cards in the stock / D
    discard_count   1   beaten cards / D
    taking          1   the defender said take and the throwers may still add
    room            1   attack cards the cap still allows / max_attacks
    bouts           1   bouts played / max_bouts (0 without a cap)

    size = (6 + n) * D + 4 + 6n + 5     (2 players, 36 cards: 309)

Nothing here depends on a card the seat cannot see: tests/test_information.py checks
that two positions differing only in hidden cards give identical vectors.
"""

from __future__ import annotations

import numpy as np

from .engine.actions import layout_for
from .engine.view import SeatView
from .engine.rules import Rules

OBSERVATION_VERSION = 1
"""Bumped whenever the layout below changes; recorded in exported bots."""


def observation_slices(rules: Rules) -> dict[str, slice]:
    """Name -> slice of the observation vector, in order; they tile the whole vector."""
    d, n = rules.deck_size, rules.num_players
    sizes = [
        ("hand", d), ("table_open", d), ("table_beaten", d), ("table_defence", d), ("next_to_beat", d),
        ("discard", d), ("trump_card", d), ("trump_suit", 4), ("known", (n - 1) * d),
        ("hand_sizes", n), ("out", n), ("attacker", n), ("defender", n), ("to_act", n), ("passed", n),
        ("stock_size", 1), ("discard_count", 1), ("taking", 1), ("room", 1), ("bouts", 1),
    ]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


class ObservationEncoder:
    """Writes a seat's observation, read from its ``SeatView``, into a float32 array.

    The card planes and the trump-suit one-hot (everything before ``hand_sizes``)
    are bitmasks: they are packed into one little-endian uint64 per plane,
    unpacked to bits and gathered into place with one precomputed index, so a
    whole observation costs a handful of numpy calls (``encode_many`` amortises
    them over a batch).
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.slices = observation_slices(rules)
        self.size = next(reversed(self.slices.values())).stop
        self.num_actions = layout_for(rules.deck_size).size
        n = rules.num_players
        deck_ids = list(layout_for(rules.deck_size).card_of)
        # Plane order: hand, table_open, table_beaten, table_defence, next_to_beat, discard, trump_card,
        # trump suit (4 bits), then one plane per opponent; together they tile [0, hand_sizes.start).
        sources = [p * 64 + c for p in range(7) for c in deck_ids] + [7 * 64 + k for k in range(4)]
        sources += [(8 + k) * 64 + c for k in range(n - 1) for c in deck_ids]
        self._planes = 8 + (n - 1)
        self._bit_source = np.array(sources, dtype=np.intp)
        self._tail = self.slices["hand_sizes"].start
        assert len(sources) == self._tail == self.slices["known"].stop
        self._offsets = [tuple((seat + k) % n for k in range(n)) for seat in range(n)]

    def _fields(self, view: SeatView) -> tuple[list[int], list[float]]:
        """The plane bitmasks and the trailing scalars of ``view``'s observation."""
        rules, d = self.rules, self.rules.deck_size
        rel = self._offsets[view.seat]
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for a, dc in view.table:
            if dc is None:
                if not open_mask:
                    next_mask = 1 << a  # the earliest unbeaten attack
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        known = view.known_masks
        masks = [view.hand_mask, open_mask, beaten_mask, defence_mask, next_mask, view.discard_mask or 0,
                 1 << view.trump_card, 1 << view.trump_suit] + [known[r] for r in rel[1:]]
        over = view.is_over
        sizes, out, passed = view.hand_sizes, view.out, view.passed
        attacker = -1 if over else view.attacker
        defender = -1 if over else view.defender
        to_act = view.to_act
        tail = [sizes[r] / d for r in rel]
        tail += [float(r in out) for r in rel]
        tail += [float(r == attacker) for r in rel]
        tail += [float(r == defender) for r in rel]
        tail += [float(r == to_act) for r in rel]
        tail += [float(r in passed) for r in rel]
        tail += [view.stock_size / d, view.discard_count / d, float(view.taking), view.room / rules.max_attacks,
                 min(1.0, view.bouts / rules.max_bouts) if rules.max_bouts else 0.0]
        return masks, tail

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        if out is None:
            out = np.empty(self.size, dtype=np.float32)
        masks, tail = self._fields(view)
        bits = np.unpackbits(np.array(masks, dtype="<u8").view(np.uint8), bitorder="little")
        out[:self._tail] = bits[self._bit_source]
        out[self._tail:] = tail
        return out

    def encode_many(self, views, out: np.ndarray | None = None) -> np.ndarray:
        """Write one observation per view into the rows of ``out`` (shape ``(len(views), size)``)."""
        if out is None:
            out = np.empty((len(views), self.size), dtype=np.float32)
        if not len(views):
            return out
        fields = [self._fields(v) for v in views]
        masks = np.array([m for m, _ in fields], dtype="<u8")
        bits = np.unpackbits(masks.view(np.uint8).reshape(len(views), -1), axis=1, bitorder="little")
        out[:, :self._tail] = bits[:, self._bit_source]
        out[:, self._tail:] = [t for _, t in fields]
        return out

    def mask(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """The int8 legal-action mask: all zero unless the view's seat is to act."""
        if out is None:
            out = np.zeros(self.num_actions, dtype=np.int8)
        else:
            out[:] = 0
        out[list(view.legal_actions)] = 1
        return out
