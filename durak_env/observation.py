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
from .engine.game import Game
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
    """Writes a seat's observation of a game into an array, with no per-call allocation of planes."""

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

    def encode(self, game: Game, seat: int, out: np.ndarray) -> np.ndarray:
        rules, n, d = self.rules, game.n, self.rules.deck_size
        s = self.slices
        rel = [(seat + k) % n for k in range(n)]
        open_mask = beaten_mask = defence_mask = next_mask = 0
        first_open = len(game.attacks) - game.open_count
        for i, (a, dc) in enumerate(zip(game.attacks, game.defences)):
            if dc < 0:
                open_mask |= 1 << a
                if i == first_open:
                    next_mask = 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        masks = [
            game.hands[seat], open_mask, beaten_mask, defence_mask, next_mask,
            game.discard if rules.open_discard else 0, 1 << game.trump_card,
        ]
        masks += [game.known[rel[k]] for k in range(1, n)]
        raw = np.frombuffer(b"".join(m.to_bytes(8, "little") for m in masks), dtype=np.uint8)
        bits = np.unpackbits(raw, bitorder="little").reshape(len(masks), 64)
        out[self._plane_index] = bits[:, self._deck_ids].ravel()

        t = s["trump_suit"].start
        out[t:t + 4] = 0
        out[t + game.trump] = 1
        over = game.result is not None
        for name, value in (
            ("hand_sizes", [game.hands[r].bit_count() / d for r in rel]),
            ("out", [float(game.out_mask >> r & 1) for r in rel]),
            ("attacker", [float(r == game.attacker and not over) for r in rel]),
            ("defender", [float(r == game.defender and not over) for r in rel]),
            ("to_act", [float(r == game.to_act and not over) for r in rel]),
            ("passed", [float(game.passed >> r & 1) for r in rel]),
        ):
            out[s[name]] = value
        cap_left = 0 if over else max(0, game._cap() - len(game.attacks))
        out[s["stock_size"].start] = len(game.stock) / d
        out[s["discard_count"].start] = game.discard.bit_count() / d
        out[s["taking"].start] = float(game.taking)
        out[s["room"].start] = cap_left / rules.max_attacks
        out[s["bouts"].start] = min(1.0, game.bouts / rules.max_bouts) if rules.max_bouts else 0.0
        return out

    def mask(self, game: Game, seat: int, out: np.ndarray) -> np.ndarray:
        """The int8 legal-action mask of ``seat``: all zero unless it is the seat to act."""
        out[:] = 0
        if game.result is None and game.to_act == seat:
            out[game.legal_actions()] = 1
        return out
