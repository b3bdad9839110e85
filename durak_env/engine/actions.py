"""One flat action space per rules object, with named offsets.

With ``D = rules.deck_size`` and ``i`` a card's index in the deck (suits C, D, H, S;
ranks low to high inside each suit; ``layout_for(D).slot_of``)::

    ATTACK   = 0        attack or throw in card i:            0 + i
    DEFEND   = D        beat the earliest unbeaten attack:     D + i
    TRANSFER = 2D       pass the attack on with card i:       2D + i
    TAKE     = 3D       pick up the table
    DONE     = 3D + 1   add nothing more (attacker or thrower)
    N        = 3D + 2   (110 for 36 cards, 74 for 24, 158 for 52)

The layout is the same whether or not transfer is allowed, so a policy's
output size depends only on the deck.  ``LAYOUT_VERSION`` is recorded in
exported bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .cards import Card, cards_of, deck
from .rules import Rules

LAYOUT_VERSION = 1
KINDS = ("attack", "defend", "transfer", "take", "done")


@dataclass(frozen=True)
class Layout:
    """Action offsets and card <-> slot tables for one deck size (``layout_for``)."""

    deck_size: int
    slot_of: tuple[int, ...]  # card id (0..51) -> deck index, -1 if not in this deck
    card_of: tuple[int, ...]  # deck index -> card id
    attack: int = 0
    defend: int = 0
    transfer: int = 0
    take: int = 0
    done: int = 0
    size: int = 0
    """The offsets (see the module docstring), plain attributes because the engine reads them on every move."""

    def __reduce__(self) -> tuple:
        """Pickled by its deck size: the one layout of that deck comes back."""
        return layout_for, (self.deck_size,)

    def actions_of(self, offset: int, mask: int) -> tuple[int, ...]:
        """``offset`` plus the slot of every card in ``mask`` (a set of card ids), lowest card first: how the
        engine lists legal moves (a card's slot grows with its id)."""
        return tuple(offset + self.slot_of[card] for card in cards_of(mask))


@lru_cache(maxsize=None)
def layout_for(deck_size: int) -> Layout:
    cards = deck(deck_size)
    slot_of = [-1] * 52
    for i, c in enumerate(cards):
        slot_of[c] = i
    d = deck_size
    return Layout(d, tuple(slot_of), tuple(cards), attack=0, defend=d, transfer=2 * d, take=3 * d, done=3 * d + 1,
                  size=3 * d + 2)


UNIVERSAL_DECK = 52
"""The deck whose layout a network for any table answers in (every smaller deck's cards are among its own)."""


@lru_cache(maxsize=None)
def translation(deck_size: int, to_size: int = UNIVERSAL_DECK) -> tuple[int, ...]:
    """Action index in ``deck_size``'s layout -> the same move's index in ``to_size``'s: the kind's offset there
    plus the card's slot there (a 24-card deck's cards are all in the 36- and 52-card decks).  How a network
    for any table (``UNIVERSAL_DECK``'s layout) reads and answers the moves of a smaller deck."""
    src, dst = layout_for(deck_size), layout_for(to_size)
    if any(dst.slot_of[c] < 0 for c in src.card_of):
        raise ValueError(f"a {to_size}-card deck does not hold every card of a {deck_size}-card one")
    out: list[int] = []
    for offset in (dst.attack, dst.defend, dst.transfer):
        out += [offset + dst.slot_of[c] for c in src.card_of]
    return tuple(out + [dst.take, dst.done])


def num_actions(rules: Rules) -> int:
    return layout_for(rules.deck_size).size


@dataclass(frozen=True)
class Action:
    """A decoded action: ``kind`` is one of KINDS; ``card`` is None for take and done."""

    kind: str
    card: Card | None = None

    def __str__(self) -> str:
        return self.kind if self.card is None else f"{self.kind} {self.card}"

    @classmethod
    def parse(cls, text: str) -> "Action":
        """Read "defend 8D", "take", "done" (the inverse of ``str``)."""
        words = text.split()
        if not words or words[0].lower() not in KINDS:
            raise ValueError(f"bad action {text!r}: write one of {', '.join(KINDS)}, with a card for the first three")
        kind = words[0].lower()
        if kind in ("take", "done"):
            if len(words) != 1:
                raise ValueError(f"bad action {text!r}: {kind} takes no card")
            return cls(kind)
        if len(words) != 2:
            raise ValueError(f"bad action {text!r}: {kind} needs one card, e.g. '{kind} 8D'")
        return cls(kind, Card.parse(words[1]))


def decode_action(index: Any, rules: Rules) -> Action:
    """The action at ``index`` of the rules' action space."""
    lay = layout_for(rules.deck_size)
    if isinstance(index, bool) or not isinstance(index, int) and not hasattr(index, "__index__"):
        raise ValueError(f"an action is an integer index, got {index!r}")
    index = int(index)
    if not 0 <= index < lay.size:
        raise ValueError(f"action {index} is out of range 0..{lay.size - 1} for a {rules.deck_size}-card deck")
    if index == lay.take:
        return Action("take")
    if index == lay.done:
        return Action("done")
    kind = KINDS[index // lay.deck_size]
    return Action(kind, Card(lay.card_of[index % lay.deck_size]))


def encode_action(action: Action | str, rules: Rules) -> int:
    """The index of ``action`` (an Action or its text) in the rules' action space."""
    if isinstance(action, str):
        action = Action.parse(action)
    lay = layout_for(rules.deck_size)
    if action.kind == "take":
        return lay.take
    if action.kind == "done":
        return lay.done
    if action.kind not in KINDS or action.card is None:
        raise ValueError(f"bad action {action!r}")
    slot = lay.slot_of[action.card]
    if slot < 0:
        raise ValueError(f"{action.card} is not in a {rules.deck_size}-card deck")
    return KINDS.index(action.kind) * lay.deck_size + slot
