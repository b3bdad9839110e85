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

import struct

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
    """Writes seats' observations into float32 arrays: one row read from a seat's ``SeatView`` (``encode``, for
    bots) or straight from the game for that seat (``encode_game``, for the environments), or a batch of rows
    (``encode_many``, ``encode_games``), all through one writer.

    An observation is first its facts, a row of ints (``_pack``): the planes (a bitmask of up to 64 bits per
    card plane, bit = card id, then the one-hot plane: the trump suit, the seat flags and taking, ``_gather``),
    then the counts unscaled (hand sizes by relative seat, stock, discard, room, bouts).  One map (``_gather``,
    built from the layout above) says where each slot of the vector comes from among the unpacked plane bits,
    the scaled counts and the constants; the writers differ only in how they apply it.  One row
    (``_write_row``: ``encode``, ``encode_game``, the AEC environment) takes the map slot by slot in one numpy
    call.  A batch (``_write``: ``encode_many``, ``encode_games``, the vector environments) first moves each
    card plane's bits from card ids to the layout's slots (``_squeeze``), so that the same map is a few runs of
    slots (``_runs``), each copied for every row at once: about twenty numpy calls whatever the batch size.
    ``encode_floats`` follows the facts and the map in plain Python, for a page without numpy.  The facts come
    from the view (``_from_view``) or from the game (``_from_game``), built only from what the seat can see;
    tests/test_information.py checks the two agree.
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
        n = self.n = rules.num_players
        seats = MAX_PLAYERS if universal else n  # relative seat slots in the vector
        self.planes = 7 + n  # hand..trump_card, known per opponent, the one-hots
        self._bits = 64 * self.planes
        counts = n + 4  # hand sizes, stock, discard, room, bouts
        constants = [0.0] + ([1.0] * n + [0.0] * (seats - n) + rule_features(rules) if universal else [])
        card_of = layout_for(UNIVERSAL_DECK if universal else rules.deck_size).card_of  # a plane's card slots
        self._gather = _gather(list(card_of), self.planes, seats, n, len(constants))
        """Observation slot -> its place in [unpacked plane bits ..., scaled counts ..., constants ...]."""
        assert len(self._gather) == self.size, "every slot of the vector has one source"
        self._squeeze = _squeeze(card_of)
        """(shift, mask) pairs that move a card plane's bits from card ids to slots: bit i = the layout's card
        slot i (none where that is so already)."""
        self._runs = _runs(_gather(list(range(len(card_of))), self.planes, seats, n, len(constants)))
        """The map for squeezed card planes as runs of slots (``out[:, dst] = source[:, src]``), for a batch."""
        d = float(rules.deck_size)
        self._scales = [d] * n + [d, d, float(rules.max_attacks), float(rules.max_bouts or "inf")]
        """What each count is divided by: hand sizes, stock and discard by the deck, room by the cap of attacks,
        bouts by the cap of bouts (0 without a cap)."""
        self.width = self.planes + counts
        """Ints per row of facts."""
        self._constants = constants
        self.into = translation(rules.deck_size) if universal else tuple(range(self.num_actions))
        """The rules' action index -> the network's (the same index but for a universal network)."""
        self._count_format = struct.Struct(f"<{counts}f")
        if np is not None:
            self._perm = np.array(self._gather, dtype=np.intp)
            self._divisors = np.array(self._scales)
            self._source = self._sources(1)
            """The unpacked rows before the runs are copied, kept between calls and grown to the largest batch."""
            self._row_source = self._sources(1)[0]
            """One row's, before the gather."""
        self._planes_format = struct.Struct(f"<{self.planes}Q")
        full = (1 << n) - 1
        self._rotate = [[((m >> seat) | (m << (n - seat))) & full for m in range(1 << n)] for seat in range(n)]
        """_rotate[seat][absolute seat mask] -> the mask in seats relative to ``seat``."""
        self._order = [tuple((seat + k) % n for k in range(n)) for seat in range(n)]
        # _seat_bit[seat][k][s + 1]: the one-hot plane's bit of seat s (or 0 for -1, a finished deal) in the k-th
        # one-hot (attacker, defender, to_act), relative to ``seat`` (see ``_gather``).
        self._seat_bit = [[[0] + [1 << (4 + (k + 1) * n + (s - seat) % n) for s in range(n)] for k in range(3)]
                          for seat in range(n)]
        self._out_at, self._passed_at, self._taking_at = 4, 4 + 4 * n, 4 + 5 * n
        self._open_discard = rules.open_discard

    def _sources(self, rows: int) -> np.ndarray:
        """Room for ``rows`` unpacked rows, their constant columns filled in."""
        source = np.empty((rows, self._bits + self.width - self.planes + len(self._constants)), dtype=np.float32)
        source[:, self._bits + self.width - self.planes:] = self._constants
        return source

    def _pack(self, into: list[int], seat: int, hand: int, attacks: list[int], defences: list[int], discard: int,
              trump_card: int, trump: int, known: list[int], sizes: list[int], out_mask: int, attacker: int,
              defender: int, to_act: int, passed: int, taking: bool, stock: int, discard_count: int, room: int,
              bouts: int) -> None:
        """Append the facts of one observation, from what ``seat`` can see, to ``into``.

        ``attacks`` and ``defences`` are the table (a defence -1 while unbeaten); ``attacker``, ``defender``,
        ``to_act`` are -1 when the deal is over; ``known`` and ``sizes`` (cards held) are by absolute seat,
        as are the masks."""
        open_mask = beaten_mask = defence_mask = next_mask = 0
        for i in range(len(attacks)):
            a, dc = attacks[i], defences[i]
            if dc < 0:
                if not open_mask:
                    next_mask = 1 << a  # the earliest unbeaten attack
                open_mask |= 1 << a
            else:
                beaten_mask |= 1 << a
                defence_mask |= 1 << dc
        order = self._order[seat]
        into += (hand, open_mask, beaten_mask, defence_mask, next_mask, discard, 1 << trump_card)
        for s in order[1:]:
            into.append(known[s])
        rot, bit = self._rotate[seat], self._seat_bit[seat]
        into.append(1 << trump | rot[out_mask] << self._out_at | bit[0][attacker + 1] | bit[1][defender + 1]
                    | bit[2][to_act + 1] | rot[passed] << self._passed_at | int(taking) << self._taking_at)
        for s in order:
            into.append(sizes[s])
        into += (stock, discard_count, room, bouts)  # a deal ends at the cap of bouts: at most 1 scaled

    def _from_view(self, view: SeatView, into: list[int]) -> None:
        over = view.is_over
        self._pack(
            into, view.seat, view.hand_mask, [a for a, _ in view.table],
            [-1 if b is None else b for _, b in view.table], view.discard_mask or 0, view.trump_card, view.trump_suit,
            list(view.known_masks), list(view.hand_sizes),
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
            -1 if over else game.attacker, -1 if over else game.defender, game.to_act,  # -1 once over
            game.passed, game.taking, len(game.stock), game.discard.bit_count(), game.room(), game.bouts)

    def _write_row(self, facts: list[int], out: np.ndarray | None) -> np.ndarray:
        """Turn one row of facts (``_pack``) into an observation in ``out`` (allocated if None): the planes
        unpacked and the counts scaled into a kept row of sources, then the map (``_gather``) taken slot by slot.
        Five numpy calls: a row's cost is theirs."""
        source, bits, planes = self._row_source, self._bits, self.planes
        packed = self._planes_format.pack(*facts[:planes])  # little-endian, as the bits are numbered
        source[:bits] = np.unpackbits(np.frombuffer(packed, dtype=np.uint8), bitorder="little")
        source[bits:bits + self.width - planes] = [count / scale for count, scale in zip(facts[planes:],
                                                                                        self._scales)]
        # mode="clip": every place in the map is in range, and under the default ("raise") numpy writes into a
        # copy of ``out`` and copies it back.
        return source.take(self._perm, out=out, mode="clip")

    def _write(self, facts: list[int], out: np.ndarray) -> np.ndarray:
        """Turn rows of facts (``_pack``, one after the other in ``facts``) into the rows of ``out``: the card
        planes squeezed (``_squeeze``), every plane unpacked and the counts scaled into kept rows of sources, then
        the map copied a run of slots at a time for every row together (``_runs``).  About twenty numpy calls
        whatever the number of rows."""
        rows, planes = len(out), self.planes
        raw = np.fromiter(facts, np.int64, len(facts)).reshape(rows, self.width)
        if len(self._source) < rows:
            self._source = self._sources(rows)
        source = self._source[:rows]
        if self._squeeze:
            cards = raw[:, :planes - 1]
            (shift, mask), *rest = self._squeeze
            squeezed = cards >> shift
            squeezed &= mask
            for shift, mask in rest:
                part = cards >> shift
                part &= mask
                squeezed |= part
            cards[...] = squeezed
        packed = np.ascontiguousarray(raw[:, :planes]).view(np.uint8)  # little-endian, as the bits are numbered
        source[:, :self._bits] = np.unpackbits(packed, axis=1, bitorder="little")
        source[:, self._bits:self._bits + self.width - planes] = raw[:, planes:] / self._divisors
        for dst, src in self._runs:
            out[:, dst] = source[:, src]
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
        source += struct.unpack(f"<{len(self._constants)}f", struct.pack(f"<{len(self._constants)}f", *self._constants))
        return [source[i] for i in self._gather]

    def encode(self, view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
        """Write the observation of ``view`` (``game.view(seat)``) into ``out`` (allocated if None)."""
        facts: list[int] = []
        self._from_view(view, facts)
        return self._write_row(facts, out)

    def encode_game(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """Write ``seat``'s observation of ``game`` into ``out``: the same numbers as ``encode(game.view(seat))``."""
        facts: list[int] = []
        self._from_game(game, seat, facts)
        return self._write_row(facts, out)

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


def _gather(card_bits: list[int], planes: int, seats: int, n: int, constants: int) -> list[int]:
    """Each slot of the vector, in order, and where its value comes from among [plane bits..., counts...,
    constants...] (``constants`` of them, the first 0).  The planes are the card planes hand..trump_card and
    one per opponent (known), the layout's card slot i at bit ``card_bits[i]``, and the one-hot plane: the
    trump suit (bits 0-3), the seat flags out, attacker, defender, to_act, passed (bits 4 + k*n + relative
    seat) and taking (bit 4 + 5n).  The counts are the hand sizes by relative seat, stock, discard, room and
    bouts.  A card or seat the table does not have reads the constant 0."""
    bits = 64 * planes
    zero = bits + n + 4
    one_hots = (planes - 1) * 64
    gather = [p * 64 + c for p in range(7) for c in card_bits] + [one_hots + k for k in range(4)]
    gather += [(7 + k) * 64 + c if k < n - 1 else zero for k in range(seats - 1) for c in card_bits]
    gather += [bits + r if r < n else zero for r in range(seats)]
    for k in range(5):
        gather += [one_hots + 4 + k * n + r if r < n else zero for r in range(seats)]
    gather += [bits + n, bits + n + 1, one_hots + 4 + 5 * n, bits + n + 2, bits + n + 3]
    return gather + [zero + 1 + i for i in range(constants - 1)]


def _squeeze(card_of: tuple[int, ...]) -> list[tuple[int, int]]:
    """(shift, mask) pairs that move a card plane's bits from card ids to slots (bit i = the layout's slot i) as
    the or of ``plane >> shift & mask``: one pair per run of slots whose card ids follow one another.  None
    where every card's id is its slot (the 52-card deck)."""
    pairs, start = [], 0
    for slot in range(1, len(card_of) + 1):
        if slot == len(card_of) or card_of[slot] != card_of[slot - 1] + 1:
            pairs.append((card_of[start] - start, ((1 << (slot - start)) - 1) << start))
            start = slot
    return [] if pairs == [(0, (1 << len(card_of)) - 1)] else pairs


def _runs(gather: list[int]) -> list[tuple[slice, slice]]:
    """``gather`` (observation slot -> source place) as runs: (slots, places) pairs, each the longest stretch
    of slots whose places follow one another, or else that repeat one place (a constant: one place, broadcast)."""
    runs, i = [], 0
    while i < len(gather):
        j = i + 1
        while j < len(gather) and gather[j] == gather[i] + j - i:
            j += 1
        width = j - i
        if width == 1:
            while j < len(gather) and gather[j] == gather[i]:
                j += 1
        runs.append((slice(i, j), slice(gather[i], gather[i] + width)))
        i = j
    return runs


def network_shape(rules: Rules | None) -> tuple[int, int]:
    """(observation size, action count) of a network for ``rules``, or (None) of one for any rules: the
    universal layout's 693 inputs and the 52-card layout's 158 moves."""
    if rules is None:
        return ObservationEncoder(Rules(), True).size, layout_for(UNIVERSAL_DECK).size
    encoder = ObservationEncoder(rules)
    return encoder.size, encoder.num_actions
