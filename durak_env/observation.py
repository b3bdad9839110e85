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
    """Writes a seat's observation into a float32 array, read from its ``SeatView`` (``encode``, for bots)
    or straight from the game for that seat (``encode_game``, for the environments; the same numbers,
    which tests/test_information.py checks, and built only from what the seat can see).

    Everything but the counts is bits: the card planes, the trump-suit one-hot and the seat flags
    (out, attacker, defender, to_act, passed, taking) are packed into one little-endian uint64 per
    plane and unpacked with one numpy call; the counts (hand sizes, stock, discard, room, bouts)
    follow them, and one precomputed permutation gathers the whole observation into place.
    ``encode_games`` does the same for a batch of games in as many numpy calls.
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
        # (4 bits), one per opponent (known), and the seat flags: out, attacker, defender, to_act, passed at
        # bits k*n + relative seat, then taking at bit 5n.
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
        # The observation is gathered in one take from [unpacked plane bits ..., counts ...].
        self._bits = 64 * self.planes
        self._sources = self._bits + len(counts)
        gather = [0] * self.size
        for target, source in zip(targets + counts, sources + list(range(self._bits, self._sources))):
            gather[target] = source
        self._gather = gather
        """Observation slot -> its place in [unpacked plane bits ..., counts ...]: both writers follow it."""
        self._count_format = struct.Struct(f"<{len(counts)}f")
        if np is not None:
            self._source = np.empty(self._sources, dtype=np.float32)
            self._perm = np.array(gather, dtype=np.intp)
        full = (1 << n) - 1
        self._rotate = [[((m >> seat) | (m << (n - seat))) & full for m in range(1 << n)] for seat in range(n)]
        """_rotate[seat][absolute seat mask] -> the mask in seats relative to ``seat``."""
        self._order = [tuple((seat + k) % n for k in range(n)) for seat in range(n)]
        # _seat_bit[seat][k][s]: the flag bit of seat s (or 0 for -1, a finished deal) in the k-th one-hot
        # (attacker, defender, to_act), relative to ``seat``.
        self._seat_bit = [[{**{s: 1 << ((k + 1) * n + (s - seat) % n) for s in range(n)}, -1: 0} for k in range(3)]
                          for seat in range(n)]
        self._passed_at, self._taking_at = 4 * n, 5 * n
        self._planes_struct = struct.Struct(f"<{self.planes}Q")
        self._open_discard = rules.open_discard
        self._d = float(rules.deck_size)
        self._inv_bouts = 1.0 / rules.max_bouts if rules.max_bouts else 0.0
        self._max_attacks = float(rules.max_attacks)
        self._low = layout_for(rules.deck_size).low

    def _pack(self, seat: int, hand: int, table, discard: int, trump_card: int, trump: int, known, counts,
              out_mask: int, attacker: int, defender: int, to_act: int, passed: int, taking: bool, stock: int,
              discard_count: int, room: int, bouts: int) -> tuple[bytes, list[float]]:
        """The planes (packed little-endian uint64s) and counts (floats) of one observation, from what
        ``seat`` can see.

        ``table`` is (attack, defence or -1) pairs; ``attacker``, ``defender``, ``to_act`` are -1 when the
        deal is over; ``counts`` starts as the hand sizes / D in seats relative to ``seat``; the masks are
        by absolute seat."""
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for a, dc in table:
            if dc < 0:
                if not open_mask:
                    next_mask = 1 << a  # the earliest unbeaten attack
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        order = self._order[seat]
        flags = self._flags(seat, out_mask, attacker, defender, to_act, passed, taking)
        planes = self._planes_struct.pack(hand, open_mask, beaten_mask, defence_mask, next_mask, discard,
                                          1 << trump_card, 1 << trump, *[known[s] for s in order[1:]], flags)
        d = self._d
        counts += [stock / d, discard_count / d, room / self._max_attacks, min(1.0, bouts * self._inv_bouts)]
        return planes, counts

    def _flags(self, seat: int, out_mask: int, attacker: int, defender: int, to_act: int, passed: int,
               taking: bool) -> int:
        """The seat-flags plane, relative to ``seat``: out, attacker, defender, to_act and passed at bits
        k*n + relative seat, taking at bit 5n (the seats absolute, -1 for none)."""
        rot, bit = self._rotate[seat], self._seat_bit[seat]
        return (rot[out_mask] | bit[0][attacker] | bit[1][defender] | bit[2][to_act] | rot[passed] << self._passed_at
                | int(taking) << self._taking_at)

    def _from_view(self, view: SeatView) -> tuple[bytes, list[float]]:
        over = view.is_over
        return self._pack(
            view.seat, view.hand_mask, [(a, -1 if b is None else b) for a, b in view.table], view.discard_mask or 0,
            view.trump_card, view.trump_suit, view.known_masks,
            [view.hand_sizes[s] / self._d for s in self._order[view.seat]], sum(1 << s for s in view.out),
            -1 if over else view.attacker, -1 if over else view.defender,
            -1 if over else view.to_act,  # type: ignore[arg-type]  # None only once the deal is over
            sum(1 << s for s in view.passed), view.taking, view.stock_size, view.discard_count, view.room,
            view.bouts)

    def _from_game(self, game: Game, seat: int) -> tuple[bytes, list[float]]:
        """What ``game.view(seat)`` would hold, read without building the view: the seat's own hand, the
        discard only where the rules show it, the cards each seat was seen picking up."""
        over = game.result is not None
        hands, d = game.hands, self._d
        return self._pack(
            seat, hands[seat], zip(game.attacks, game.defences), game.discard if self._open_discard else 0,
            game.trump_card, game.trump, game.known, [hands[s].bit_count() / d for s in self._order[seat]],
            game.out_mask,
            -1 if over else game.attacker, -1 if over else game.defender, -1 if over else game.to_act,
            game.passed, game.taking, len(game.stock), game.discard.bit_count(), game.room(), game.bouts)

    def _write_one(self, fields: tuple[bytes, list[float]], out: np.ndarray | None) -> np.ndarray:
        planes, counts = fields
        source = self._source  # reused: what leaves is the gathered copy
        source[:self._bits] = np.unpackbits(np.frombuffer(planes, dtype=np.uint8), bitorder="little")
        source[self._bits:] = counts
        if out is None:
            return source[self._perm]
        np.take(source, self._perm, out=out)
        return out

    def _write_many(self, fields: list[tuple[bytes, list[float]]], out: np.ndarray) -> np.ndarray:
        source = np.empty((len(fields), self._sources), dtype=np.float32)
        planes = np.frombuffer(b"".join([p for p, _ in fields]), dtype=np.uint8).reshape(len(fields), -1)
        source[:, :self._bits] = np.unpackbits(planes, axis=1, bitorder="little")
        source[:, self._bits:] = [c for _, c in fields]
        np.take(source, self._perm, axis=1, out=out)
        return out

    def encode_floats(self, view: SeatView) -> list[float]:
        """The observation of ``view`` as a list of Python floats, without numpy (a browser page): the same facts
        (``_from_view``) gathered by the same map, each value the float32 ``encode`` writes."""
        planes, counts = self._from_view(view)
        bits = int.from_bytes(planes, "little")
        source = [float(bits >> i & 1) for i in range(self._bits)]
        source += self._count_format.unpack(self._count_format.pack(*counts))  # rounded as float32 rounds them
        return [source[i] for i in self._gather]

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        return self._write_one(self._from_view(view), out)

    def encode_game(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``seat``'s observation of ``game`` into ``out``: the same numbers as ``encode(game.view(seat))``."""
        planes, counts = self._from_game(game, seat)
        source = self._source  # reused: what leaves is the gathered copy
        source[:self._bits] = np.unpackbits(np.frombuffer(planes, dtype=np.uint8), bitorder="little")
        source[self._bits:] = counts
        if out is None:
            return source[self._perm]
        np.take(source, self._perm, out=out)
        return out

    def encode_many(self, views, out: np.ndarray | None = None) -> np.ndarray:
        """Write one observation per view into the rows of ``out`` (shape ``(len(views), size)``)."""
        if out is None:
            out = np.empty((len(views), self.size), dtype=np.float32)
        return self._write_many([self._from_view(v) for v in views], out) if len(views) else out

    def encode_games(self, games, seats, out: np.ndarray) -> np.ndarray:
        """Row i of ``out`` becomes ``seats[i]``'s observation of ``games[i]``: the same numbers as
        ``encode_game``, computed for the whole batch at once.

        Per game, Python collects the planes and counts the seat can see (``_raw``, into one flat list of
        ints); numpy does the rest for every row together: the planes unpacked in one call, their card bits
        copied to the card slots as strided blocks (each suit's ranks are adjacent bits, and the slots run
        suit by suit), the seat flags as one block, the counts scaled as whole columns."""
        rows = len(games)
        if not rows:
            return out
        facts: list[int] = []
        for game, seat in zip(games, seats):
            self._raw(game, seat, facts)
        raw = np.fromiter(facts, np.int64, len(facts)).reshape(rows, -1)
        n, d, planes, sl = self.n, self.rules.deck_size, self.planes, self.slices
        packed = np.ascontiguousarray(raw[:, :planes]).view(np.uint8)
        bits = np.unpackbits(packed, axis=1, bitorder="little").reshape(rows, planes, 64)
        # A card's id is 13 * suit + rank, and the deck holds the ranks from ``low`` up of each suit.
        low, per = self._low, d // 4
        cards = bits[:, :, low:low + 52].reshape(rows, planes, 4, 13)[:, :, :, :per]
        out[:, :sl["trump_suit"].start].reshape(rows, 7, 4, per)[...] = cards[:, :7]
        out[:, sl["trump_suit"]] = bits[:, 7, :4]
        out[:, sl["known"]].reshape(rows, n - 1, 4, per)[...] = cards[:, 8:7 + n]
        out[:, sl["out"].start:sl["passed"].stop] = bits[:, 7 + n, :5 * n]
        out[:, sl["taking"].start] = bits[:, 7 + n, 5 * n]
        counts = raw[:, planes:]
        out[:, sl["hand_sizes"]] = counts[:, :n] / self._d
        out[:, sl["stock_size"].start:sl["discard_count"].stop] = counts[:, n:n + 2] / self._d
        out[:, sl["room"].start] = counts[:, n + 2] / self._max_attacks
        out[:, sl["bouts"].start] = np.minimum(1.0, counts[:, n + 3] * self._inv_bouts)
        return out

    def _raw(self, game: Game, seat: int, into: list[int]) -> None:
        """Append ``seat``'s observation of ``game`` to ``into`` as ints: the planes as ``_pack`` lays them
        out (the seats already relative to ``seat``), then the counts unscaled (hand sizes by relative seat,
        stock, discard, room, bouts).  What ``_from_game`` reads."""
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for a, dc in zip(game.attacks, game.defences):
            if dc < 0:
                if not open_mask:
                    next_mask = 1 << a
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        over = game.result is not None
        hands, known, order = game.hands, game.known, self._order[seat]
        into += (hands[seat], open_mask, beaten_mask, defence_mask, next_mask,
                 game.discard if self._open_discard else 0, 1 << game.trump_card, 1 << game.trump)
        for s in order[1:]:
            into.append(known[s])
        into.append(self._flags(seat, game.out_mask, -1 if over else game.attacker, -1 if over else game.defender,
                                -1 if over else game.to_act, game.passed, game.taking))
        for s in order:
            into.append(hands[s].bit_count())
        into += (len(game.stock), game.discard.bit_count(), game.room(), game.bouts)

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
