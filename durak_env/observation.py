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

Nothing here depends on a card the seat cannot see: test_observation checks that
two positions differing only in hidden cards give identical vectors.
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
    """Writes a seat's observation, read from its ``SeatView``, into a float32 array."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.slices = observation_slices(rules)
        self.size = next(reversed(self.slices.values())).stop
        self.num_actions = layout_for(rules.deck_size).size
        # Card id -> position in a card plane; used to turn 52-bit masks into deck planes.
        self._deck_ids = np.array(layout_for(rules.deck_size).card_of, dtype=np.intp)
        d, n = rules.deck_size, rules.num_players
        s = self.slices
        self._plane_offsets = [s[k].start for k in ("hand", "table_open", "table_beaten", "table_defence",
                                                     "next_to_beat", "discard", "trump_card")]
        self._plane_offsets += [s["known"].start + k * d for k in range(n - 1)]
        self._plane_index = np.concatenate([np.arange(o, o + d) for o in self._plane_offsets])

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        rules, d = self.rules, self.rules.deck_size
        n = rules.num_players
        s = self.slices
        seat = view.seat
        rel = [(seat + k) % n for k in range(n)]
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for a, dc in view.table:
            if dc is None:
                if not open_mask:
                    next_mask = 1 << a  # the earliest unbeaten attack
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        masks = [
            view.hand_mask, open_mask, beaten_mask, defence_mask, next_mask,
            view.discard_mask or 0, 1 << view.trump_card,
        ]
        masks += [view.known_masks[rel[k]] for k in range(1, n)]
        raw = np.frombuffer(b"".join(m.to_bytes(8, "little") for m in masks), dtype=np.uint8)
        bits = np.unpackbits(raw, bitorder="little").reshape(len(masks), 64)
        out[self._plane_index] = bits[:, self._deck_ids].ravel()

        t = s["trump_suit"].start
        out[t:t + 4] = 0
        out[t + view.trump_suit] = 1
        over = view.is_over
        out_seats, passed = set(view.out), set(view.passed)
        for name, value in (
            ("hand_sizes", [view.hand_sizes[r] / d for r in rel]),
            ("out", [float(r in out_seats) for r in rel]),
            ("attacker", [float(r == view.attacker and not over) for r in rel]),
            ("defender", [float(r == view.defender and not over) for r in rel]),
            ("to_act", [float(r == view.to_act) for r in rel]),
            ("passed", [float(r in passed) for r in rel]),
        ):
            out[s[name]] = value
        out[s["stock_size"].start] = view.stock_size / d
        out[s["discard_count"].start] = view.discard_count / d
        out[s["taking"].start] = float(view.taking)
        out[s["room"].start] = view.room / rules.max_attacks
        out[s["bouts"].start] = min(1.0, view.bouts / rules.max_bouts) if rules.max_bouts else 0.0
        return out

    def mask(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """The int8 legal-action mask: all zero unless the view's seat is to act."""
        if out is None:
            out = np.zeros(self.num_actions, dtype=np.int8)
        out[:] = 0
        out[list(view.legal_actions)] = 1
        return out
