"""What a seat cannot see at a moment of a game, for the tests that check no such card reaches the page."""

from __future__ import annotations

from durak_env.engine.cards import CARDS, cards_of, deck


def hidden_cards(game, seat: int) -> set[str]:
    """Names of the cards ``seat`` cannot see: other hands (but what was seen picked up), the stock (but the
    turned card), and the discard where the rules hide it."""
    seen = game.hands[seat] | game.table_mask() | (1 << game.trump_card)
    if game.rules.open_discard:
        seen |= game.discard
    for known in game.known:
        seen |= known
    every = sum(1 << c for c in deck(game.rules.deck_size))
    return {str(CARDS[c]) for c in cards_of(every & ~seen)}


def strings(data) -> list[str]:
    """Every string in a JSON value, and every card name written inside them."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += strings(k) + strings(v)
    elif isinstance(data, list):
        for v in data:
            out += strings(v)
    elif isinstance(data, str):
        out.append(data)
    return out


def card_tokens(text: str) -> set[str]:
    """Card names in a text, written as names ("8D") or labels ("8♦")."""
    import re

    symbols = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
    found = set(re.findall(r"\b(?:10|[2-9JQKA])[CDHS]\b", text))
    found |= {m[:-1] + symbols[m[-1]] for m in re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", text)}
    return found
