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

The universal layout (``universal=True``: one network for every table, issue 29) is the same vector sized for
the largest table whatever the rules, ``D = 52`` and ``n = MAX_PLAYERS``: a card plane has a slot for every
card (those outside the deck always 0), and a relative seat past the table is always 0.  Two slices follow::

    seats           6   the relative seats at the table (1 for seats 0..n-1)
    rules          18   the rules that change play (``rule_features``)

    size = 12 * 52 + 4 + 36 + 5 + 6 + 18 = 693

Its actions are the 52-card layout's (``engine.actions.translation`` maps a smaller deck's moves into it).

Nothing here depends on a card the seat cannot see: tests/test_information.py checks
that two positions differing only in hidden cards give identical vectors.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable

try:
    import numpy as np
except ImportError:  # a browser page (Pyodide) has no numpy: ``encode_floats`` is the observation there
    np = None  # type: ignore[assignment]

from .engine.actions import UNIVERSAL_DECK, layout_for, translation
from .engine.game import Game
from .engine.rules import DECK_SIZES, DEFENDER_LIMITS, EARLY_ENDS, MAX_PLAYERS, THROW_IN, Rules
from .engine.view import SeatView

OBSERVATION_VERSION = 1
"""Bumped whenever the layout below changes; recorded in exported bots."""


RULE_FEATURES = ("deck_24", "deck_36", "deck_52", "deal_size", "throw_in_attacker", "throw_in_neighbours",
                 "throw_in_all", "throw_in_before_beaten", "transfer", "max_attacks", "max_attacks_early",
                 "early_ends_first_bout", "early_ends_first_discard", "defender_limit_bout_start",
                 "defender_limit_current_hand", "throw_in_after_take", "open_discard", "bout_cap")
"""The names of ``rule_features``' entries, in order."""


def rule_features(rules: Rules) -> list[float]:
    """The rules as the universal observation reads them: every field that changes how a deal is played, a
    choice one-hot, a switch 0 or 1, a count of cards divided by six (the usual hand and cap), and whether
    a bout cap places the deal (the bouts played are a slice of their own).  Left out: ``no_trump_lead`` (who
    leads the first bout, which the attacker slice shows), ``match_deals`` and ``next_deal`` (a match's length
    and its next first seat: a policy plays one deal at a time)."""
    out = [float(rules.deck_size == d) for d in DECK_SIZES]
    out.append(rules.deal_size / 6)
    out += [float(rules.throw_in == t) for t in THROW_IN]
    out += [float(rules.throw_in_before_beaten), float(rules.transfer), rules.max_attacks / 6,
            rules.max_attacks_early / 6]
    out += [float(rules.early_ends == e) for e in EARLY_ENDS]
    out += [float(rules.defender_limit == e) for e in DEFENDER_LIMITS]
    out += [float(rules.throw_in_after_take), float(rules.open_discard), float(rules.max_bouts is not None)]
    return out


def observation_slices(rules: Rules, universal: bool = False) -> dict[str, slice]:
    """Name -> slice of the observation vector, in order; they tile the whole vector.  ``universal``: the layout
    of a network for every table (the module docstring), the same whatever ``rules`` are."""
    d, n = (UNIVERSAL_DECK, MAX_PLAYERS) if universal else (rules.deck_size, rules.num_players)
    sizes = [
        ("hand", d), ("table_open", d), ("table_beaten", d), ("table_defence", d), ("next_to_beat", d),
        ("discard", d), ("trump_card", d), ("trump_suit", 4), ("known", (n - 1) * d),
        ("hand_sizes", n), ("out", n), ("attacker", n), ("defender", n), ("to_act", n), ("passed", n),
        ("stock_size", 1), ("discard_count", 1), ("taking", 1), ("room", 1), ("bouts", 1),
    ]
    if universal:
        sizes += [("seats", n), ("rules", len(RULE_FEATURES))]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


class ObservationEncoder:
    """Writes a seat's observation, slice by slice by name, from the seat's view: OpenSpiel's observer style.

    Each slice is declared once with its size (``observation_slices``) and written by name (``_write``), from
    ``SeatView`` alone: what the seat cannot see cannot reach the vector (tests/test_information.py checks it
    on positions that differ only in hidden cards).  ``encode`` writes one view, ``encode_game`` a game's seat
    (through its view), ``encode_many`` and ``encode_games`` rows of a batch, and ``encode_floats`` the same
    numbers as Python floats for a page without numpy.

    This is the reference: the environments write observations with the native engine
    (``native/durak.hpp``, ``encode``) where it is built, and tests/test_native.py holds the two to the same
    bytes.
    """

    def __init__(self, rules: Rules, universal: bool = False):
        self.rules = rules
        self.universal = universal
        """Whether the vector is the universal layout (one network for every table) rather than these rules' own."""
        self.slices = observation_slices(rules, universal)
        self.size = next(reversed(self.slices.values())).stop
        self.num_actions = layout_for(rules.deck_size).size
        """The rules' own action count: masks and moves are always in the rules' layout (a universal network's
        bot translates them at its boundary, ``translation``)."""
        self.into = translation(rules.deck_size) if universal else tuple(range(self.num_actions))
        """The rules' action index -> the network's (the same index but for a universal network)."""
        planes = layout_for(UNIVERSAL_DECK if universal else rules.deck_size)
        self._slot_of, self._plane = planes.slot_of, planes.deck_size
        """A card id -> its place in a card plane, and a card plane's size."""
        self._rules = rule_features(rules) if universal else []

    def _write(self, view: SeatView, out) -> None:
        """Write ``view``'s observation into ``out`` (zeros of the vector's size: a numpy row or a list)."""
        n, seat, deck = self.rules.num_players, view.seat, float(self.rules.deck_size)
        s = self.slices
        slot_of, plane = self._slot_of, self._plane

        def cards(name: str, mask: int, block: int = 0) -> None:
            """Set the slot of each card of ``mask`` in the ``block``-th card plane of slice ``name``."""
            base = s[name].start + block * plane
            while mask:
                low = mask & -mask
                out[base + slot_of[low.bit_length() - 1]] = 1.0
                mask ^= low

        def seats(name: str, absolute: Iterable[int]) -> None:
            """Set each seat of ``absolute`` in slice ``name``, by its place to the left of the observing seat."""
            for a in absolute:
                out[s[name].start + (a - seat) % n] = 1.0

        def value(name: str, number: float, index: int = 0) -> None:
            out[s[name].start + index] = number

        open_attacks = [a for a, b in view.table if b is None]
        cards("hand", view.hand_mask)
        cards("table_open", _mask(open_attacks))
        cards("table_beaten", _mask(a for a, b in view.table if b is not None))
        cards("table_defence", _mask(b for _, b in view.table if b is not None))
        cards("next_to_beat", _mask(open_attacks[:1]))
        cards("discard", view.discard_mask or 0)
        cards("trump_card", 1 << view.trump_card)
        value("trump_suit", 1.0, view.trump_suit)
        for k in range(1, n):
            cards("known", view.known_masks[(seat + k) % n], k - 1)
        for k in range(n):
            value("hand_sizes", view.hand_sizes[(seat + k) % n] / deck, k)
        seats("out", view.out)
        if not view.is_over:
            seats("attacker", [view.attacker])
            seats("defender", [view.defender])
            seats("to_act", [view.to_act])  # type: ignore[list-item]  # None only once the deal is over
        seats("passed", view.passed)
        value("stock_size", view.stock_size / deck)
        value("discard_count", view.discard_count / deck)
        value("taking", float(view.taking))
        value("room", view.room / self.rules.max_attacks)
        value("bouts", view.bouts / (self.rules.max_bouts or math.inf))  # a deal ends at the cap: at most 1
        if self.universal:
            for k in range(n):
                value("seats", 1.0, k)
            for k, feature in enumerate(self._rules):
                value("rules", feature, k)

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out[:] = 0.0
        self._write(view, out)
        return out

    def encode_floats(self, view: SeatView) -> list[float]:
        """The observation of ``view`` as a list of Python floats, without numpy (a browser page): each value the
        float32 ``encode`` writes."""
        out = [0.0] * self.size
        self._write(view, out)
        return list(struct.unpack(f"<{self.size}f", struct.pack(f"<{self.size}f", *out)))  # rounded as float32

    def encode_game(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``seat``'s observation of ``game`` into ``out``: ``encode(game.view(seat))``."""
        return self.encode(SeatView.of(game, seat), out)

    def encode_many(self, views, out: np.ndarray | None = None) -> np.ndarray:
        """Write one observation per view into the rows of ``out`` (shape ``(len(views), size)``)."""
        if out is None:
            out = np.empty((len(views), self.size), dtype=np.float32)
        for row, view in zip(out, views):
            self.encode(view, row)
        return out

    def encode_games(self, games, seats, out: np.ndarray) -> np.ndarray:
        """Row i of ``out`` becomes ``seats[i]``'s observation of ``games[i]``."""
        for row, game, seat in zip(out, games, seats):
            self.encode_game(game, seat, row)
        return out

    def mask(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """The int8 legal-action mask: all zero unless the view's seat is to act."""
        if out is None:
            out = np.zeros(self.num_actions, dtype=np.int8)
        else:
            out[:] = 0
        out[list(view.legal_actions)] = 1
        return out

    def idle_mask(self) -> np.ndarray:
        """The mask the batched faces give a seat with no decision to make (the deal is over, or another seat is
        to act): every action allowed, as Pgx marks a terminal state's and TorchRL a waiting agent's, so that a
        masked sampler run over the whole batch stays defined (an all-zero row is a softmax of -inf, NaN).  The
        action chosen there is never played."""
        return np.ones(self.num_actions, dtype=np.int8)

    def mask_game(self, game: Game, seat: int) -> np.ndarray:
        """``mask(game.view(seat))`` without building the view (a fresh array: callers keep masks)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if seat == game.to_act and game.result is None:
            mask[list(game.legal_actions())] = 1
        return mask


def _mask(cards: Iterable[int]) -> int:
    """A set of card ids as a bitmask."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def array_shapes(rules: Rules, num_envs: int, universal: bool = False) -> dict[str, tuple[tuple[int, ...], type]]:
    """Name -> (shape, dtype) of the arrays a vector of ``num_envs`` deals writes (and ``actions``, which a
    vector environment's workers read); ``universal``: the universal layout's (``tables``)."""
    enc = ObservationEncoder(rules, universal)  # numpy's dtypes: a browser page (no numpy) never asks
    actions = layout_for(UNIVERSAL_DECK).size if universal else enc.num_actions
    seats = MAX_PLAYERS if universal else rules.num_players
    return {"obs": ((num_envs, enc.size), np.float32), "mask": ((num_envs, actions), np.int8),
            "seats": ((num_envs,), np.int64), "rewards": ((num_envs, seats), np.float32),
            "ended": ((num_envs,), np.bool_), "truncated": ((num_envs,), np.bool_),
            "actions": ((num_envs,), np.int64)}


def network_shape(rules: Rules | None) -> tuple[int, int]:
    """(observation size, action count) of a network for ``rules``, or (None) of one for any rules: the
    universal layout's 693 inputs and the 52-card layout's 158 moves."""
    if rules is None:
        return ObservationEncoder(Rules(), True).size, layout_for(UNIVERSAL_DECK).size
    encoder = ObservationEncoder(rules)
    return encoder.size, encoder.num_actions
