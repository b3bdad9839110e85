"""Cards as integers, sets of cards as bitmasks.

A card's id is ``suit * 13 + rank`` with ranks 0..12 standing for 2..A and
suits 0..3 for C, D, H, S.  The rank index is the card's power inside its suit,
so "higher in rank and of the same suit" (seed 000) is a comparison of ids.
A set of cards is an int with bit ``id`` set; hands, the table's ranks and the
discard are all such masks.
"""

from __future__ import annotations

import functools

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
NUM_RANKS = 13

# The lowest rank of each deck size: 52 = 2..A, 36 = 6..A (seed 000), 24 = 9..A (seed 002).
LOWEST_RANK = {52: 0, 36: 4, 24: 7}

SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(4))
RANK_MASKS = tuple(sum(1 << (s * NUM_RANKS + r) for s in range(4)) for r in range(NUM_RANKS))


class Card(int):
    """A card: an int id that reads and writes itself as text ("10H", "QS", "6D")."""

    __slots__ = ()

    def __new__(cls, value: int) -> "Card":
        if not 0 <= int(value) < 52:
            raise ValueError(f"card id must be in 0..51, got {value!r}")
        return super().__new__(cls, value)

    @classmethod
    def make(cls, rank: int, suit: int) -> "Card":
        return cls(suit * NUM_RANKS + rank)

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Read a card written rank then suit, e.g. "10H", "qs", "6D"."""
        if not isinstance(text, str):
            raise ValueError(f"a card is written as text like '10H', got {text!r}")
        s = text.strip().upper()
        rank, suit = s[:-1], s[-1:]
        if rank == "T":
            rank = "10"
        if rank not in RANKS or suit not in SUITS:
            raise ValueError(
                f"bad card {text!r}: write rank ({' '.join(RANKS)}) then suit ({' '.join(SUITS)}), e.g. '10H'"
            )
        return cls.make(RANKS.index(rank), SUITS.index(suit))

    @property
    def rank(self) -> int:
        return int(self) % NUM_RANKS

    @property
    def suit(self) -> int:
        return int(self) // NUM_RANKS

    def symbol(self) -> str:
        """The card with a suit symbol, for renders ("10♥")."""
        return RANKS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def beats(defence: int, attack: int, trump: int) -> bool:
    """Whether ``defence`` beats ``attack`` with ``trump`` as the trump suit.

    Seed 000: "higher in rank and of the same suit, or any trump, when the
    attacking card is not a trump, or a higher trump, when the attacking card
    is a trump."  Seed 004: "Same suit, and your number must be bigger.
    Different suit, and your card must be a trump while the attack card is not."
    """
    if suit_of(defence) == suit_of(attack):
        return defence > attack
    return suit_of(defence) == trump


def beater_mask(attack: int, trump: int) -> int:
    """The set of cards that beat ``attack``: higher cards of its suit, and every trump if it is plain."""
    suit = suit_of(attack)
    higher = SUIT_MASKS[suit] & ~((2 << attack) - 1)
    if suit == trump:
        return higher
    return higher | SUIT_MASKS[trump]


# RANK_MASK_OF[card]: the four cards of ``card``'s rank (what "a rank already on the table" matches).
RANK_MASK_OF = tuple(RANK_MASKS[rank_of(c)] for c in range(52))

# BEATERS[trump][card]: the set of cards that beat ``card`` when ``trump`` is the trump suit.
BEATERS = tuple(tuple(beater_mask(c, t) for c in range(52)) for t in range(4))


def deck(size: int) -> list[int]:
    """The cards of a deck of ``size`` (24, 36 or 52), in id order."""
    low = LOWEST_RANK[size]
    return [s * NUM_RANKS + r for s in range(4) for r in range(low, NUM_RANKS)]


@functools.cache
def deck_mask(size: int) -> int:
    return mask_of(deck(size))


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The ids in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def conservation_problem(deck_size: int, places: list[tuple[str, int | list[int]]]) -> str | None:
    """Card conservation, the one check of it: every card of the deck in exactly one of ``places``.

    ``places`` names each place with its cards, as a bitmask or as a list (a list can name a
    card twice).  Returns None when the cards add up, else what is wrong, in a few words."""
    full = deck_mask(deck_size)
    seen = 0
    for name, cards in places:
        for mask in ((cards,) if isinstance(cards, int) else (1 << c for c in cards)):
            foreign = mask & ~full
            if foreign:
                return f"{name} holds {CARDS[cards_of(foreign)[0]]}, which is not in a {deck_size}-card deck"
            twice = seen & mask
            if twice:
                card = cards_of(twice)[0]
                where = [n for n, cs in places if (cs >> card & 1 if isinstance(cs, int) else card in cs)]
                return f"{CARDS[card]} is in more than one place: {', '.join(where if len(where) > 1 else where * 2)}"
            seen |= mask
    if seen != full:
        return "not every card is accounted for: missing " + " ".join(str(CARDS[c]) for c in cards_of(full & ~seen))
    return None


def parse_cards(text: str) -> list[Card]:
    """Cards from a space-separated string, e.g. "6D 7S 9H"."""
    return [Card.parse(t) for t in text.split()]


CARDS = tuple(Card(i) for i in range(52))
"""Card id -> its Card, built once: views hand out these instead of new objects."""
