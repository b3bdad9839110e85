"""The one text renderer: the table as one seat sees it, read from that seat's view.

Used by the environments' ``render_mode="ansi"``, ``durak demo`` and terminal play.
It reads a ``SeatView``, never the game, so a rendered table cannot show a hidden
card: the other hands appear as counts, with the cards each seat was seen picking
up, and the discard appears as cards only where the rules show it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .cards import CARDS, SUIT_SYMBOLS, SUITS, Card, cards_of
from .game import Result
from .view import BoutEnd, SeatView


def sorted_hand(cards, trump: int) -> list[Card]:
    """Seed 004: "The order of your own hand on screen puts trumps last, then groups by suit and runs low to high." """
    return sorted((CARDS[c] for c in cards), key=lambda c: (c.suit == trump, c.suit, c.rank))


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def seat_names(n: int) -> list[str]:
    return [f"player_{s}" for s in range(n)]


def doing(view: SeatView, seat: int) -> str:
    """What ``seat`` is doing in this bout: leading, defending, taking, may throw in, out, or "" (waiting)."""
    if seat in view.out:
        return "out"
    if view.is_over:
        return ""
    if seat == view.defender:
        return "taking" if view.taking else "defending"
    if seat == view.to_act:
        return "leading" if not view.table else "may throw in"
    return "attacking" if seat == view.attacker else ""


def render(view: SeatView, names: Sequence[str] | None = None) -> str:
    """The table as ``view.seat`` sees it: trump, stock, discard, every seat's role and card count, the table,
    and this seat's hand sorted as seed 004 shows it."""
    names = list(names or seat_names(len(view.hand_sizes)))
    me = view.seat
    drawn = "" if view.stock_size else ", drawn"
    discard = f"discard {view.discard_count}"
    if view.discard_mask is not None and view.discard_count:
        discard += ": " + " ".join(str(c) for c in sorted_hand(cards_of(view.discard_mask), view.trump_suit))
    lines = [f"Trump {SUIT_SYMBOLS[view.trump_suit]} {SUITS[view.trump_suit]} (turned card {view.trump_card}{drawn})"
             f" · stock {view.stock_size} · {discard} · bout {view.bouts + 1}"]
    for s, size in enumerate(view.hand_sizes):
        if s == me:
            continue
        parts = [f"{names[s]}: {plural(size, 'card')}"]
        role = doing(view, s)
        if role:
            parts.append(role + (", to act" if s == view.to_act else ""))
        picked = view.known_masks[s] & ~(1 << view.trump_card)
        if picked:
            parts.append("seen picking up " + " ".join(str(c) for c in sorted_hand(cards_of(picked), view.trump_suit)))
        if view.known_masks[s] >> view.trump_card & 1:
            parts.append(f"drew the turned card {view.trump_card}")
        lines.append("  " + " · ".join(parts))
    pairs = [f"{a}/{'--' if d is None else d}" for a, d in view.table]
    lines.append("Table: " + ("  ".join(pairs) if pairs else "(empty)"))
    hand = " ".join(str(c) for c in sorted_hand(cards_of(view.hand_mask), view.trump_suit))
    role = doing(view, me) or ("" if view.is_over else "waiting")
    lines.append(f"{names[me]}{f' ({role})' if role else ''}: {hand or '(no cards)'}")
    return "\n".join(lines)


def describe_bout(bout: BoutEnd, names: Sequence[str] | None = None, label: Callable[[Card], str] = str) -> str:
    """The end of a bout in one line: beaten off or taken, and how many cards each seat drew.  Read from a
    seat's view (``view.last_bout``), cards beaten off are named only where the rules show the discard.
    ``label`` names a card ("QD" by default; the page passes one with suit symbols)."""
    names = list(names or seat_names(len(bout.drew)))
    cards = " ".join(label(c) for c in bout.cards)
    if bout.took:
        line = f"Bout {bout.bout}: {names[bout.defender]} picked up {cards}"
    elif not bout.table_mask:
        line = f"Bout {bout.bout}: beaten off, {plural(bout.count, 'card')} to the discard"
    else:
        line = f"Bout {bout.bout}: beaten off, {cards} to the discard"
    drew = [f"{names[s]} {k}" for s, k in enumerate(bout.drew) if k]
    return line + ("; drew: " + ", ".join(drew) if drew else "; nobody drew")


def describe_result(result: Result, names: Sequence[str] | None = None) -> str:
    """The outcome in one line: the fool (or a draw) and the placings."""
    names = list(names or seat_names(len(result.placings)))
    if result.fool is None:
        head = "a draw, nobody is the fool"
    else:
        head = f"{names[result.fool]} {'are' if names[result.fool] == 'you' else 'is'} the fool"
    places = ", ".join(f"{names[s]} {p}" for s, p in sorted(enumerate(result.placings), key=lambda x: x[1]))
    return f"{head}{' (the bout cap ended the deal)' if result.capped else ''}; places: {places}"


__all__ = ["describe_bout", "describe_result", "doing", "plural", "render", "sorted_hand"]
