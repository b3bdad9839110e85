"""Which moves are legal, and why any other is refused: one ordered list of named checks, ``CHECKS``.

A move is a kind (``actions.KINDS``) and, for attack, defend and transfer, a card.  Each check governs some
kinds and says, for a position, which cards of those kinds it lets through, as a card mask (take and done
carry no card: for them a check lets all through or nothing, ``ANY`` or 0).  A check is asked only of the seat
to act, and only after every earlier check of the same kind let something through, so it may take for granted
what they ensured (a defender has an open attack to answer; a thrower sees a table that has a card).

* The legal moves of a kind are the cards every one of its checks lets through (``legal_moves``).
* A move outside them is refused by the first check, in list order, that stops it: that check's code and
  words (``refusal_of``).

One list builds both, so a rule cannot hold in the legal set and be named otherwise in a refusal, and a new
rule is one new entry.  Whose turn it is and whether the index is an action at all come before (``Game.step``,
``Game.refusal``): they are about the call, not the move.  The room a cap or the defender's hand leaves is not
a check either: a thrower is asked only while there is room (``Game._find_actor``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .actions import KINDS, Action
from .cards import BEATERS, CARDS, RANK_MASK_OF
from .refusal import Refusal

Game = Any
"""A position: ``game.Game`` (which imports this module), or anything with its fields."""

ANY = (1 << 52) - 1
"""Every card: what a check lets through when it does not look at the card."""


@dataclass(frozen=True)
class Check:
    """One condition a move must meet: the kinds it governs, the cards it lets through, and the code and words
    of a refusal when it stops a move."""

    code: Refusal
    kinds: tuple[str, ...]
    allows: Callable[[Game, int], int]
    """(game, seat to act) -> the cards of those kinds this check lets through (ANY or 0 for take and done).
    Plain functions named for their rule, so that the mutation tests mutate them."""
    why: Callable[[Game, int, Action], str]
    """(game, seat, the refused move) -> the words of the refusal."""


def defending(game: Game, seat: int) -> bool:
    """Whether ``seat``, to act, answers as the defender (rather than leading or adding cards): it defends and
    an attack lies open that it has not said it takes."""
    return seat == game.defender and game.open_count > 0 and not game.taking


def to_answer(game: Game) -> int:
    """The attack card the defender answers: seed 004, "the leftmost unbeaten pair first"."""
    return game.attacks[len(game.attacks) - game.open_count]


def no_transfer(game: Game) -> str | None:
    """Why the defender, answering an attack (``defending``: it has not said take), may not transfer now, or None
    when it may.  Seed 002: "a defender who has not beaten anything yet may pass the attack on by adding a card of
    the same rank. The next player then defends against all of them, as long as they hold enough cards to cover
    every one." """
    if not game.rules.transfer:
        return "these rules have no transfer"
    if game.open_count != len(game.attacks):
        return "a transfer comes before beating anything, and a card is beaten"
    total = len(game.attacks) + 1
    if total > game.cap:
        return "the cap leaves no room for the transferring card"
    target = game._next(game.defender)
    if game.hands[target].bit_count() < total:
        return f"player {target} holds too few cards to cover {total} attacks"
    return None


# ----- the checks: what each lets through (the rules), then the list that orders them -------------------------


def the_defender_answers(g: Game, seat: int) -> int:
    """Defend, transfer and take are the defender's, while an attack lies open to it."""
    return ANY if defending(g, seat) else 0


def the_others_attack(g: Game, seat: int) -> int:
    """Attack and done are for the seats that lead or add cards, never the one answering."""
    return 0 if defending(g, seat) else ANY


def after_the_first_card(g: Game, seat: int) -> int:
    """Seed 004: "The attacker plays any card from their hand to open the round": done only once it lies there."""
    return ANY if g.attacks else 0


def held(g: Game, seat: int) -> int:
    """A card is played from the seat's own hand."""
    return g.hands[seat]


def rank_on_the_table(g: Game, seat: int) -> int:
    """Seed 000: "only one whose rank already appears somewhere on the table, on an attacking card or on a defending
    one"; 004: "The first card of a round skips all three, which is why anything can open." """
    return g.table_ranks if g.attacks else ANY


def transfer_allowed(g: Game, seat: int) -> int:
    """The rules and the position allow a transfer (``no_transfer``)."""
    return ANY if no_transfer(g) is None else 0


def attacking_rank(g: Game, seat: int) -> int:
    """Seed 002: the attack is passed on "by adding a card of the same rank"."""
    return RANK_MASK_OF[g.attacks[0]]


def beats_the_card_to_answer(g: Game, seat: int) -> int:
    """Seed 004: "A card is beaten by a higher card of the same suit, or by any trump when the attack card is not a
    trump, or by a higher trump when it is." """
    return BEATERS[g.trump][to_answer(g)]


def _role(g: Game) -> str:
    return "leading the attack" if not g.attacks else "adding cards"


CHECKS: tuple[Check, ...] = (
    Check(Refusal.NOT_DEFENDING, ("defend", "transfer", "take"), the_defender_answers,
          lambda g, seat, move: f"player {seat} is {_role(g)}, not defending"),
    Check(Refusal.DEFENDING, ("attack", "done"), the_others_attack,
          lambda g, seat, move: f"player {seat} is defending"),
    Check(Refusal.FIRST_CARD, ("done",), after_the_first_card,
          lambda g, seat, move: "the bout's first card must be played"),
    Check(Refusal.NOT_HELD, ("attack", "defend", "transfer"), held,
          lambda g, seat, move: f"player {seat} does not hold {move.card}"),
    Check(Refusal.WRONG_RANK, ("attack",), rank_on_the_table,
          lambda g, seat, move: f"no card of {move.card}'s rank is on the table"),
    Check(Refusal.NO_TRANSFER, ("transfer",), transfer_allowed,
          lambda g, seat, move: no_transfer(g) or ""),
    Check(Refusal.WRONG_RANK, ("transfer",), attacking_rank,
          lambda g, seat, move: f"{move.card} is not of the attacking rank"),
    Check(Refusal.CANNOT_BEAT, ("defend",), beats_the_card_to_answer,
          lambda g, seat, move: f"{move.card} does not beat {CARDS[to_answer(g)]}, the card to answer"),
)
"""The checks in the order a move meets them: each one's refusal code, the kinds it governs, what it lets through
(the function above, named for its rule) and the words of a refusal."""

BY_KIND: dict[str, tuple[Check, ...]] = {kind: tuple(c for c in CHECKS if kind in c.kinds) for kind in KINDS}
"""Each kind's checks, in the order a move of that kind meets them."""

CARDLESS = ("take", "done")


def legal_moves(game: Game) -> tuple[int, ...]:
    """The legal action indices of the seat to act, lowest first: for each kind in layout order, the cards
    every one of its checks lets through."""
    seat, lay = game.to_act, game.layout
    legal: tuple[int, ...] = ()
    for kind, offset in zip(KINDS, (lay.attack, lay.defend, lay.transfer, lay.take, lay.done)):
        allowed = ANY
        for check in BY_KIND[kind]:
            allowed &= check.allows(game, seat)
            if not allowed:
                break
        if allowed:
            legal += (offset,) if kind in CARDLESS else lay.actions_of(offset, allowed)
    return legal


def refusal_of(game: Game, move: Action) -> tuple[Refusal, str] | None:
    """The first check that stops ``move`` for the seat to act, as its code and words; None when none does."""
    seat = game.to_act
    bit = ANY if move.card is None else 1 << move.card
    for check in BY_KIND[move.kind]:
        if not check.allows(game, seat) & bit:
            return check.code, check.why(game, seat, move)
    return None


__all__ = ["ANY", "BY_KIND", "CHECKS", "Check", "defending", "legal_moves", "no_transfer", "refusal_of", "to_answer"]
