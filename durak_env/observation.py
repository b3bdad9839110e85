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

import struct
import sys

try:
    import numpy as np
except ImportError:  # a browser page (Pyodide) has no numpy: ``encode_floats`` is the observation there
    np = None  # type: ignore[assignment]

from .engine.actions import layout_for
from .engine.game import Game
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
    """Writes seats' observations into float32 arrays: one row read from a seat's ``SeatView`` (``encode``, for
    bots) or straight from the game for that seat (``encode_game``, for the environments), or a batch of rows
    (``encode_many``, ``encode_games``), all through one writer.

    An observation is first its facts, a row of ints (``_pack``): the planes (one bitmask of up to 64 bits per
    card plane, the trump-suit one-hot and the seat flags: out, attacker, defender, to_act and passed at bits
    k*n + relative seat, taking at bit 5n), then the counts unscaled (hand sizes by relative seat, stock,
    discard, room, bouts).  The writer (``_write``) turns a batch of such rows into observations in the same
    few numpy calls whatever the batch size: the planes unpacked into bits, the counts divided by their
    scales, and one precomputed map (``_gather``) taking both into the layout above.  ``encode_floats``
    follows the same facts and the same map in plain Python, for a page without numpy.  The facts come
    from the view (``_from_view``) or from the game (``_from_game``), built only from what the seat can see;
    tests/test_information.py checks the two agree.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.slices = observation_slices(rules)
        self.size = next(reversed(self.slices.values())).stop
        self.num_actions = layout_for(rules.deck_size).size
        n = self.n = rules.num_players
        sl = self.slices
        deck_ids = list(layout_for(rules.deck_size).card_of)
        # Planes: hand, table_open, table_beaten, table_defence, next_to_beat, discard, trump_card, trump suit
        # (4 bits), one per opponent (known), and the seat flags.
        sources = [p * 64 + c for p in range(7) for c in deck_ids] + [7 * 64 + k for k in range(4)]
        sources += [(8 + k) * 64 + c for k in range(n - 1) for c in deck_ids]
        targets = list(range(sl["known"].stop))
        flags = (7 + n) * 64
        for k, name in enumerate(("out", "attacker", "defender", "to_act", "passed")):
            sources += [flags + k * n + r for r in range(n)]
            targets += list(range(sl[name].start, sl[name].stop))
        sources.append(flags + 5 * n)
        targets.append(sl["taking"].start)
        self.planes = 8 + n
        counts = list(range(sl["hand_sizes"].start, sl["hand_sizes"].stop))
        counts += [sl[name].start for name in ("stock_size", "discard_count", "room", "bouts")]
        assert sorted(targets + counts) == list(range(self.size)), "the planes and counts must tile the vector"
        d = float(rules.deck_size)
        self._scales = [d] * n + [d, d, float(rules.max_attacks), float(rules.max_bouts or "inf")]
        """What each count is divided by: hand sizes, stock and discard by the deck, room by the cap of attacks,
        bouts by the cap of bouts (0 without a cap)."""
        self._bouts_cap = rules.max_bouts or sys.maxsize
        """Bouts past the cap count as the cap (a fraction of at most 1)."""
        self.width = self.planes + len(counts)
        """Ints per row of facts."""
        self._bits = 64 * self.planes
        gather = [0] * self.size
        for target, source in zip(targets + counts, sources + list(range(self._bits, self._bits + len(counts)))):
            gather[target] = source
        self._gather = gather
        """Observation slot -> its place in [unpacked plane bits ..., scaled counts ...]."""
        self._count_format = struct.Struct(f"<{len(counts)}f")
        if np is not None:
            self._perm = np.array(gather, dtype=np.intp)
            self._divisors = np.array(self._scales)
            self._source = np.empty((1, self._bits + len(counts)), dtype=np.float32)
            """The unpacked rows before the gather, kept between calls and grown to the largest batch."""
        full = (1 << n) - 1
        self._rotate = [[((m >> seat) | (m << (n - seat))) & full for m in range(1 << n)] for seat in range(n)]
        """_rotate[seat][absolute seat mask] -> the mask in seats relative to ``seat``."""
        self._order = [tuple((seat + k) % n for k in range(n)) for seat in range(n)]
        # _seat_bit[seat][k][s]: the flag bit of seat s (or 0 for -1, a finished deal) in the k-th one-hot
        # (attacker, defender, to_act), relative to ``seat``.
        self._seat_bit = [[{**{s: 1 << ((k + 1) * n + (s - seat) % n) for s in range(n)}, -1: 0} for k in range(3)]
                          for seat in range(n)]
        self._passed_at, self._taking_at = 4 * n, 5 * n
        self._open_discard = rules.open_discard

    def _pack(self, into: list[int], seat: int, hand: int, attacks, defences, discard: int, trump_card: int,
              trump: int, known, sizes, out_mask: int, attacker: int, defender: int, to_act: int, passed: int,
              taking: bool, stock: int, discard_count: int, room: int, bouts: int) -> None:
        """Append the facts of one observation, from what ``seat`` can see, to ``into``.

        ``attacks`` and ``defences`` are the table (a defence -1 while unbeaten); ``attacker``, ``defender``,
        ``to_act`` are -1 when the deal is over; ``known`` and ``sizes`` (cards held) are by absolute seat,
        as are the masks."""
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for a, dc in zip(attacks, defences):
            if dc < 0:
                if not open_mask:
                    next_mask = 1 << a  # the earliest unbeaten attack
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        order = self._order[seat]
        into += (hand, open_mask, beaten_mask, defence_mask, next_mask, discard, 1 << trump_card, 1 << trump)
        for s in order[1:]:
            into.append(known[s])
        rot, bit = self._rotate[seat], self._seat_bit[seat]
        into.append(rot[out_mask] | bit[0][attacker] | bit[1][defender] | bit[2][to_act]
                    | rot[passed] << self._passed_at | int(taking) << self._taking_at)
        for s in order:
            into.append(sizes[s])
        into += (stock, discard_count, room, bouts if bouts < self._bouts_cap else self._bouts_cap)

    def _from_view(self, view: SeatView, into: list[int]) -> None:
        over = view.is_over
        self._pack(
            into, view.seat, view.hand_mask, [a for a, _ in view.table],
            [-1 if b is None else b for _, b in view.table], view.discard_mask or 0, view.trump_card, view.trump_suit, view.known_masks, view.hand_sizes,
            sum(1 << s for s in view.out), -1 if over else view.attacker, -1 if over else view.defender,
            -1 if over else view.to_act,  # type: ignore[arg-type]  # None only once the deal is over
            sum(1 << s for s in view.passed), view.taking, view.stock_size, view.discard_count, view.room,
            view.bouts)

    def _from_game(self, game: Game, seat: int, into: list[int]) -> None:
        """What ``game.view(seat)`` would hold, read without building the view: the seat's own hand, the
        discard only where the rules show it, the cards each seat was seen picking up."""
        over = game.result is not None
        self._pack(
            into, seat, game.hands[seat], game.attacks, game.defences, game.discard if self._open_discard else 0,
            game.trump_card, game.trump, game.known, [hand.bit_count() for hand in game.hands], game.out_mask,
            -1 if over else game.attacker, -1 if over else game.defender, -1 if over else game.to_act,
            game.passed, game.taking, len(game.stock), game.discard.bit_count(), game.room(), game.bouts)

    def _write(self, facts: list[int], out: np.ndarray) -> np.ndarray:
        """Turn rows of facts (``_pack``, one after the other in ``facts``) into the rows of ``out``."""
        rows, planes = len(out), self.planes
        raw = np.fromiter(facts, np.int64, len(facts)).reshape(rows, self.width)
        if len(self._source) < rows:
            self._source = np.empty((rows, self._source.shape[1]), dtype=np.float32)
        source = self._source[:rows]
        packed = np.ascontiguousarray(raw[:, :planes]).view(np.uint8)  # little-endian, as the bits are numbered
        source[:, :self._bits] = np.unpackbits(packed, axis=1, bitorder="little")
        source[:, self._bits:] = raw[:, planes:] / self._divisors
        np.take(source, self._perm, axis=1, out=out)
        return out

    def encode_floats(self, view: SeatView) -> list[float]:
        """The observation of ``view`` as a list of Python floats, without numpy (a browser page): the same facts
        (``_from_view``), scaled and gathered as ``_write`` does, each value the float32 ``encode`` writes."""
        facts: list[int] = []
        self._from_view(view, facts)
        planes = facts[:self.planes]
        bits = sum(plane << 64 * i for i, plane in enumerate(planes))
        source = [float(bits >> i & 1) for i in range(self._bits)]
        counts = [count / scale for count, scale in zip(facts[self.planes:], self._scales)]
        source += self._count_format.unpack(self._count_format.pack(*counts))  # rounded as float32 rounds them
        return [source[i] for i in self._gather]

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        facts: list[int] = []
        self._from_view(view, facts)
        return self._write(facts, self._row(out))[0]

    def encode_game(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``seat``'s observation of ``game`` into ``out``: the same numbers as ``encode(game.view(seat))``."""
        facts: list[int] = []
        self._from_game(game, seat, facts)
        return self._write(facts, self._row(out))[0]

    def _row(self, out: np.ndarray | None) -> np.ndarray:
        """``out`` (or a new array) as a batch of one row."""
        return np.empty((1, self.size), dtype=np.float32) if out is None else out[None]

    def encode_many(self, views, out: np.ndarray | None = None) -> np.ndarray:
        """Write one observation per view into the rows of ``out`` (shape ``(len(views), size)``)."""
        if out is None:
            out = np.empty((len(views), self.size), dtype=np.float32)
        facts: list[int] = []
        for view in views:
            self._from_view(view, facts)
        return self._write(facts, out) if len(views) else out

    def encode_games(self, games, seats, out: np.ndarray) -> np.ndarray:
        """Row i of ``out`` becomes ``seats[i]``'s observation of ``games[i]``: the same numbers as
        ``encode_game``, written for the whole batch at once."""
        facts: list[int] = []
        for game, seat in zip(games, seats):
            self._from_game(game, seat, facts)
        return self._write(facts, out) if len(games) else out

    def mask(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """The int8 legal-action mask: all zero unless the view's seat is to act."""
        if out is None:
            out = np.zeros(self.num_actions, dtype=np.int8)
        else:
            out[:] = 0
        out[list(view.legal_actions)] = 1
        return out

    def mask_game(self, game: Game, seat: int) -> np.ndarray:
        """``mask(game.view(seat))`` without building the view (a fresh array: callers keep masks)."""
        mask = bytearray(self.num_actions)
        if seat == game.to_act and game.result is None:
            for action in game.legal_actions():
                mask[action] = 1
        return np.frombuffer(mask, dtype=np.int8)
