"""Why a move is refused, as a stable code.

Every refusal of the engine (``IllegalAction.code``, ``Game.refusal``) carries one of these beside its
sentence.  A client matches the code, never the sentence, whose words may change; the web API sends it as
the ``code`` field of its answer.  The codes follow the checks that build the legal set
(``Game.legal_actions``), in the order a move meets them.
"""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    GAME_OVER = "game_over"
    """The deal is over: nobody moves."""
    NOT_YOUR_TURN = "not_your_turn"
    """The caller plays for a seat that is not the one to act."""
    NOT_AN_ACTION = "not_an_action"
    """Not an action index of these rules' layout (out of range, not an integer, true or false)."""
    NOT_DEFENDING = "not_defending"
    """Defend, transfer or take from a seat that is leading or adding cards."""
    DEFENDING = "defending"
    """Attack or done from the seat that must answer the attack."""
    FIRST_CARD = "first_card"
    """Done on an empty table: the bout's first card must be played."""
    NOT_HELD = "not_held"
    """A card the seat does not hold."""
    WRONG_RANK = "wrong_rank"
    """A card added whose rank is not on the table, or a transfer card not of the attacking rank."""
    NO_TRANSFER = "no_transfer"
    """A transfer the rules or the position do not allow (the sentence says which condition fails)."""
    CANNOT_BEAT = "cannot_beat"
    """A card that does not beat the attack to answer."""
    NOT_LEGAL = "not_legal"
    """Not in the legal set, where only the set is known (the vector environment checks its action mask)."""


__all__ = ["Refusal"]
