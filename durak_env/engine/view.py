"""A read-only view of one seat: exactly what that seat can know, for bots and people.

The same information as the environment's observation (which is encoded from
it), as Python objects: sets of cards are kept as bitmasks, with Card tuples
offered as properties.  Bots are handed a view, never the game, so they cannot
reach a hidden card.
"""

from typing import NamedTuple  # no postponed annotations: the NamedTuples' fields keep real types

from .cards import CARDS, Card, cards_of
from .checks import is_integer
from .rules import Rules

_SEATS_OF = tuple(tuple(s for s in range(6) if mask >> s & 1) for mask in range(64))
"""Seat bitmask -> the seats in it (Rules allow at most six)."""


class BoutEnd(NamedTuple):
    """How the last bout ended, as everyone at the table saw it (for front ends and views)."""

    bout: int
    """The bout's number, from 1."""
    defender: int
    took: bool
    """True when the defender picked the table up; False when it was beaten off to the discard."""
    table_mask: int
    """The cards that were on the table (picked up, or discarded), as a bitmask; ``cards`` lists them.  In a
    seat's view, 0 for cards beaten off where the rules show only the discard's count (seed 003)."""
    count: int
    """How many cards were on the table."""
    drew: tuple[int, ...]
    """Cards each seat drew from the stock afterwards."""

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(CARDS[c] for c in cards_of(self.table_mask))


def _bout_seen(bout: BoutEnd | None, open_discard: bool) -> BoutEnd | None:
    """The last bout as a seat may remember it: seed 003's "Beaten cards go out of play and only their number
    is shown" keeps the count of cards beaten off, not which."""
    if bout is None or open_discard or bout.took:
        return bout
    return bout._replace(table_mask=0)


class SeatView(NamedTuple):
    """A NamedTuple: immutable, and cheap to build once per decision."""

    seat: int
    rules: Rules
    hand_mask: int
    table: tuple[tuple[Card, Card | None], ...]
    """Attack cards in the order played, each with its beating card or None."""
    trump_suit: int
    trump_card: Card
    """The turned card: known to everyone, remembered after it is drawn (seed 000)."""
    stock_size: int
    hand_sizes: tuple[int, ...]
    out: tuple[int, ...]
    """Seats that went out, in order."""
    out_groups: tuple[tuple[int, ...], ...]
    """The same seats grouped by the bout they went out in (ties)."""
    discard_mask: int | None
    """The beaten cards, or None where the rules show only their count (seed 003)."""
    discard_count: int
    known_masks: tuple[int, ...]
    """Per seat, the cards everyone saw it pick up (or draw face up) that it still holds."""
    attacker: int
    defender: int
    opener: int
    """The seat that opened this bout (it draws first)."""
    bout_limit: int
    """The defender's hand when the bout began or the attack was transferred to it."""
    to_act: int | None
    taking: bool
    """The defender has said take and the throwers may still add (``throw_in_after_take``)."""
    passed: tuple[int, ...]
    bouts: int
    first_seat: int
    legal_actions: tuple[int, ...]
    """The legal action indices when this seat is to act, else empty."""
    last_bout: BoutEnd | None
    """How the last bout ended (``BoutEnd``: beaten off or taken, the cards, who drew how many), or None."""

    @classmethod
    def of(cls, game, seat: int) -> "SeatView":
        if not is_integer(seat, 0, game.n - 1):
            raise ValueError(f"seat must be from 0 to {game.n - 1}, got {seat!r}")
        to_act = None if game.result is not None else game.to_act
        return cls(
            seat,
            game.rules,
            game.hands[seat],
            tuple(game.table),
            game.trump,
            CARDS[game.trump_card],
            len(game.stock),
            tuple([h.bit_count() for h in game.hands]),
            tuple(game.out),
            tuple(game.out_groups),
            game.discard if game.rules.open_discard else None,
            game.discard.bit_count(),
            tuple(game.known),
            game.attacker,
            game.defender,
            game.opener,
            game.limit,
            to_act,
            game.taking,
            _SEATS_OF[game.passed],
            game.bouts,
            game.first_seat,
            game.legal_actions() if to_act == seat else (),
            _bout_seen(game.last_bout, game.rules.open_discard),
        )

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's cards, lowest id first."""
        return tuple(CARDS[c] for c in cards_of(self.hand_mask))

    @property
    def discard(self) -> tuple[Card, ...] | None:
        return None if self.discard_mask is None else tuple(CARDS[c] for c in cards_of(self.discard_mask))

    @property
    def known(self) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(CARDS[c] for c in cards_of(k)) for k in self.known_masks)

    @property
    def is_over(self) -> bool:
        return self.to_act is None

    @property
    def to_answer(self) -> int | None:
        """The table pair a defence answers: the earliest attack card not yet beaten (the engine's defend actions
        name only the beating card), or None when every card on the table is beaten."""
        return next((i for i, (_, beaten_by) in enumerate(self.table) if beaten_by is None), None)

    @property
    def room(self) -> int:
        """Attack cards the cap still allows in this bout."""
        if self.is_over:
            return 0
        return max(0, self.rules.attack_cap(self.discard_count, self.bouts) - len(self.table))
