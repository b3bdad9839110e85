"""A readable text table of a deal, for ``render_mode="ansi"`` and terminal play."""

from __future__ import annotations

from .cards import SUITS, Card, cards_of
from .game import Game



def sorted_hand(cards, trump: int) -> list[Card]:
    """Seed 004: "The order of your own hand on screen puts trumps last, then groups by suit and runs low to high." """
    return sorted((Card(c) for c in cards), key=lambda c: (c.suit == trump, c.suit, c.rank))


def render(game: Game, seat: int | None = None) -> str:
    """The table as text, showing the hand of ``seat`` (default: the seat to act) and only counts of the rest."""
    if seat is None:
        seat = game.to_act if game.result is None else 0
    lines = [
        f"Trump: {SUITS[game.trump]} ({Card(game.trump_card)})   Stock: {len(game.stock)}   "
        f"Discard: {game.discard.bit_count()}   Bout: {game.bouts + 1}"
    ]
    for s in range(game.n):
        role = []
        if game.result is None:
            if s == game.attacker:
                role.append("attacker")
            if s == game.defender:
                role.append("defender" + (" (taking)" if game.taking else ""))
            if s == game.to_act:
                role.append("to act")
        if game.out_mask >> s & 1:
            role.append("out")
        tail = f"  [{', '.join(role)}]" if role else ""
        lines.append(f"  player_{s}: {game.hands[s].bit_count():2d} cards{tail}")
    if game.attacks:
        pairs = [f"{Card(a)}/{Card(d) if d >= 0 else '--'}" for a, d in zip(game.attacks, game.defences)]
        lines.append("Table: " + "  ".join(pairs))
    else:
        lines.append("Table: (empty)")
    hand = " ".join(str(c) for c in sorted_hand(cards_of(game.hands[seat]), game.trump))
    lines.append(f"Hand of player_{seat}: {hand or '(none)'}")
    if game.result is not None:
        r = game.result
        lines.append("Result: " + ("draw, nobody is the fool" if r.fool is None else f"player_{r.fool} is the fool")
                     + f"; places {list(r.placings)}")
    return "\n".join(lines)


__all__ = ["render", "sorted_hand"]
